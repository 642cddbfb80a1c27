/* Comparing GPU output against the CPU reference.
 *
 * Integers must match bit for bit. Floats are compared against a reference
 * computed in double (long double for double inputs) with a bound derived from
 * the operation; the caller passes the bound it derived. */
#ifndef TB_CORE_VALIDATE_H
#define TB_CORE_VALIDATE_H

#include <stdint.h>
#include <stdbool.h>
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unit roundoff of a floating type (2^-24 for float, 2^-53 for double), 0 for integers. */
double tb_unit_roundoff(tb_type t);

/* Rigorous bound on |computed - exact| for a floating sum evaluated with at
 * most `depth` roundings along any path (a serial chain of k adds has depth k;
 * a tree of fan-in 2 over m leaves adds ceil(log2 m)):
 * gamma_depth * sum_abs, gamma_k = k*u / (1 - k*u). 0 for integer types. */
double tb_sum_error_bound(tb_type t, int64_t depth, double sum_abs);

/* Compare n elements of type t: got (GPU, type t) against want (type t for
 * integers; double for float/double references). For floats, element i passes
 * when |got - want| <= bound[i] (bound may be NULL: exact), or both are NaN,
 * or both are the same infinity. On the first failure return TB_ERR_MISMATCH
 * with a message naming `what` (the geometry: "reduce int32 plus n=1000
 * nt=128 vt=7"), the index, expected and actual values. */
tb_status tb_compare(tb_type t, const void *got, const void *want,
                     const double *bound, int64_t n, const char *what);

/* n elements of type t, got and want both of type t, equal by value (+0 and
 * -0 are equal): for results that are exact by construction (integers, sums
 * of small integers in floating point). On the first failure return
 * TB_ERR_MISMATCH with a message naming `what`, the index and both values. */
tb_status tb_compare_exact(tb_type t, const void *got, const void *want, int64_t n,
                           const char *what);

/* One value: the same rules as tb_compare for a single element. want is the
 * reference as double for floats (tb_value.f64) and as t for integers. */
tb_status tb_compare_value(tb_type t, tb_value got, tb_value want, double bound,
                           const char *what);

#ifdef __cplusplus
}
#endif
#endif
