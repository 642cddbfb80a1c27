/* Serial CPU references for reduce and scan. No CUDA.
 *
 * Every function folds left to right from the identity of (t, op):
 *   acc = identity; for i in 0..n-1: acc = op(acc, in[i])
 * with op(a, b) exactly as core's tb_apply: integers wrap, and float min/max
 * are IEEE minNum/maxNum (a NaN operand is ignored), so min/max results do
 * not depend on the order in which the GPU folds.
 *
 * Argument errors (n < 0, a NULL array with n > 0, a NULL required output,
 * an invalid type or op, an op that does not fit the type) return
 * TB_ERR_INVALID_ARGUMENT with a message (tb_last_error()) and write nothing. */
#ifndef TB_CPUREF_REDUCE_SCAN_H
#define TB_CPUREF_REDUCE_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *total = in[0] op in[1] op ... op in[n-1], in type t; the identity when
 * n == 0 (in may then be NULL). The exact reference for integer types. */
tb_status tb_cpu_reduce(tb_type t, tb_op op, const void *in, int64_t n,
                        tb_value *total);

/* Scan n elements of type t into out (type t). Exclusive: out[0] = identity,
 * out[i] = in[0] op ... op in[i-1]. Inclusive: out[i] = in[0] op ... op in[i].
 * out may equal in (in place); other overlaps are not allowed. total (may be
 * NULL) receives the reduction of all n, the same value tb_cpu_reduce gives. */
tb_status tb_cpu_scan(tb_type t, tb_op op, bool inclusive, const void *in,
                      void *out, int64_t n, tb_value *total);

/* Higher-precision references for floating types (TB_FLOAT or TB_DOUBLE
 * only; integer types are rejected, they are compared bit-exact against the
 * functions above). float input is accumulated in double, double input in
 * long double; results are written as double.
 *
 * sum_abs is Σ|in[j]| over the same terms, accumulated the same way, so that
 * a caller can bound the GPU's rounding error:
 *   plus:        |gpu - ref| <= tb_sum_error_bound(t, depth, sum_abs)
 *                (depth: the most roundings along any path of the GPU's
 *                reduction tree, see core/validate.h)
 *   multiplies:  |gpu - ref| <= gamma_{k-1} * |ref| for k terms, whatever the
 *                tree (every rounding scales the whole product)
 *   min / max:   exact (the result is one of the inputs)
 * The reference does not overflow or underflow where float would; keeping
 * inputs inside the type's range is the caller's business. */

/* *total (required) and *sum_abs (may be NULL) over all n; n == 0 gives the
 * identity (as double) and 0. */
tb_status tb_cpu_reduce_f64(tb_type t, tb_op op, const void *in, int64_t n,
                            double *total, double *sum_abs);

/* out[i] (n doubles, required when n > 0) as tb_cpu_scan defines it, and
 * sum_abs[i] (n doubles, may be NULL) the Σ|x| of exactly the terms in
 * out[i] (0 for an exclusive out[0]). total and total_sum_abs (each may be
 * NULL) cover all n. out may equal in only when t is TB_DOUBLE; out and
 * sum_abs must not overlap in otherwise, nor each other. */
tb_status tb_cpu_scan_f64(tb_type t, tb_op op, bool inclusive, const void *in,
                          double *out, int64_t n, double *total,
                          double *sum_abs, double *total_sum_abs);

#ifdef __cplusplus
}
#endif
#endif
