/* What every CUnit suite shares, the CPU-only ones included: the runner
 * (core/cunit.h), and golden vectors (typed in as int32) turned into any
 * element type. */
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

#endif
