/* Element types and operators as values, with identities derived from the pair. */
#ifndef TB_CORE_TYPES_H
#define TB_CORE_TYPES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tb_type, tb_op and tb_value are in core/tilebench_base.h. */

size_t tb_type_size(tb_type t);
const char *tb_type_name(tb_type t);  /* "int32", "int64", "float", "double" */
const char *tb_op_name(tb_op op);     /* "plus", "min", "max", "multiplies", "bit_and", ... */
bool tb_type_is_float(tb_type t);
bool tb_type_valid(tb_type t);
bool tb_op_valid(tb_op op);

/* TB_OK when op applies to t; TB_ERR_INVALID_ARGUMENT with a message otherwise
 * (bitwise on floats, out-of-range enums). */
tb_status tb_check_type_op(tb_type t, tb_op op);

/* The identity of op over t: 0 for plus/or/xor, 1 for multiplies, all ones for
 * and, the type's largest value for min (+inf for floats), smallest for max
 * (-inf for floats). A rejected pair gives an all-zero value. */
tb_value tb_identity(tb_type t, tb_op op);

/* a op b for one pair; integers wrap (two's complement) on overflow.
 * Float min/max are IEEE 754 minNum/maxNum (fmin/fmax), as the GPU kernels
 * compute them: a NaN operand is ignored, so a min/max reduction does not
 * depend on its order (only NaNs give the identity, as no input does). Plus and
 * multiplies propagate NaN.
 * A pair that tb_check_type_op rejects gives an all-zero value. */
tb_value tb_apply(tb_type t, tb_op op, tb_value a, tb_value b);

/* a op b for a floating operator in double, min/max as tb_apply's (0 for the bitwise ones):
 * tb_apply's double result, and rounded to float its float one. Inline for the references'
 * loops. */
static inline double tb_apply_double(tb_op op, double a, double b) {
  switch (op) {
    case TB_OP_PLUS: return a + b;
    case TB_OP_MULTIPLIES: return a * b;
    case TB_OP_MIN: return fmin(a, b);
    case TB_OP_MAX: return fmax(a, b);
    default: return 0.0;
  }
}

/* Read / write element i of an array of type t (invalid t: zero / no-op). */
tb_value tb_load(tb_type t, const void *base, int64_t i);
void tb_store(tb_type t, void *base, int64_t i, tb_value v);

/* Parse "int32" etc.; false if unknown. */
bool tb_type_parse(const char *s, tb_type *out);
bool tb_op_parse(const char *s, tb_op *out);

/* For enums named by a table of count names (these, geometries, matrix kinds): names[i], or
 * "invalid" when i is outside [0, count); the index of s in names, or -1 (s NULL or no name). */
const char *tb_enum_name(const char *const *names, int count, int i);
int tb_enum_index(const char *const *names, int count, const char *s);

#ifdef __cplusplus
}
#endif
#endif
