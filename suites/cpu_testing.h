/* What every CUnit suite shares, the CPU-only ones included: the runner
 * (core/cunit.h), golden vectors read from data files, and golden vectors
 * (typed in as int32) turned into any element type. */
#ifndef TB_SUITES_CPU_TESTING_H
#define TB_SUITES_CPU_TESTING_H

#include <stdbool.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

#include "core/cunit.h"
#include "core/types.h"

#define TB_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Whether op applies to t (tb_check_type_op, without leaving a message). */
bool tb_test_fits(tb_type t, tb_op op);

/* st must be TB_ERR_INVALID_ARGUMENT with a message, which contains text
 * when text is not NULL; what labels the call in a failure's printout. The
 * message is cleared after. */
void tb_test_expect_invalid(const char *what, tb_status st, const char *text);

/* x as a value of type t, and back as a double (for messages). */
tb_value tb_test_from_i64(tb_type t, int64_t x);
double tb_test_as_double(tb_type t, tb_value v);

/* n int32 values as a malloc'd array of type t (golden values are small
 * integers, exact in every type). */
void *tb_test_convert(tb_type t, const int32_t *src, int n);

/* First index where got differs from want (n values), reported with what;
 * -1 if none. */
int tb_test_mismatch_i32(const char *what, const int32_t *got, const int32_t *want, int n);

/* Golden vectors typed in from the reference documents are kept as data, in
 * text files named by their path from the workspace root (where Bazel runs a
 * test; list them in its data). In a file, '#' starts a comment that runs to
 * the end of the line; a word ending in ':' names a vector, made of the
 * decimal integers that follow it up to the next name:
 *
 *   # "DEMONSTRATION": the input and its exclusive scan.
 *   demo.input:  3 1 4
 *   demo.scan:   0 3 4
 *
 * tb_golden returns vector name of file, which must hold n values (each file
 * is read once, its vectors kept to the end); an unreadable file, a missing
 * vector or one of another length fails the calling test there. */
const int32_t *tb_golden(const char *file, const char *name, int n);

/* got (n values) must equal vector name of file; a mismatch is reported with
 * the vector's name. */
void tb_golden_expect(const char *file, const char *name, const int32_t *got, int n);

/* A loop over every (type, operator) pair the library takes
 * (tb_check_type_op), as int t and int op:
 *   TB_FOR_EACH_TYPE_OP(t, op) { ... } */
#define TB_FOR_EACH_TYPE_OP(t, op)                          \
  for (int t = 0; t < TB_TYPE_COUNT; ++t)                   \
    for (int op = 0; op < TB_OP_COUNT; ++op)                \
      if (tb_check_type_op((tb_type)t, (tb_op)op) != TB_OK) \
        ;                                                   \
      else

#endif
