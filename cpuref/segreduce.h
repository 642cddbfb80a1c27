/* Serial CPU references for the segmented-reduction family: segmented
 * reduction over CSR segment descriptors (direct and indirect), reduce-by-key,
 * and CSR sparse matrix * dense vector (unary and binary, direct and
 * indirect). No CUDA. One file per algorithm: segreduce.c (with the
 * carry-in step), reduce_by_key.c and spmv.c.
 *
 * Segment geometry ("CSR"): num_segments start offsets, csr[0] == 0,
 * non-decreasing, csr[last] <= count. Segment s covers csr[s+1] - csr[s]
 * elements (count - csr[last] for the last one); equal neighbours are empty
 * segments. Rows and segments are the same thing.
 *
 * Direct: segment s reads elements csr[s] .. csr[s+1]-1.
 * Indirect (sources != NULL): segment s keeps its length but reads the
 * elements starting at sources[s]; every such range must lie inside the count
 * elements of the array, which is checked. The direct form is the indirect one
 * with sources == csr.
 *
 * A non-empty segment reduces its own elements, left to right, starting from
 * its first element: r = e0 op e1 op ... (tb_apply's rules: integers wrap,
 * float min/max are minNum/maxNum). An empty segment gets `identity`, a
 * value of type t the caller passes, as the GPU entry points take it. The GPU
 * folds the identity into partial results, so it agrees with this reference
 * only when `identity` really is the identity of op (tb_identity(t, op)).
 *
 * num_segments == 0 is an empty problem (nothing written) and then requires
 * count == 0. Argument errors (a bad (t, op) pair, negative sizes, NULL
 * arrays that would be read or written, a CSR array that breaks the rules
 * above, an indirect range or a column index out of bounds) return
 * TB_ERR_INVALID_ARGUMENT with a message (tb_last_error()) and write
 * nothing: every check runs before the first store. */
#ifndef TB_CPUREF_SEGREDUCE_H
#define TB_CPUREF_SEGREDUCE_H

#include <stdint.h>

#include "core/status.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[s] (num_segments elements of type t) = the reduction of segment s of
 * values (count elements of type t). */
tb_status tb_cpu_segreduce_csr(tb_type t, tb_op op, const void *values, int32_t count,
                               const int32_t *csr, int32_t num_segments,
                               const int32_t *sources, tb_value identity, void *out);

/* The same in higher precision, for comparing a GPU result of a floating type
 * (TB_FLOAT or TB_DOUBLE only): float accumulated in double, double in long
 * double, results written as doubles, with tb_cpu_reduce_f64's error model
 * (cpuref/reduce_scan.h) applied per segment. sum_abs[s] (may be NULL) is
 * Σ|x| over segment s (0 for an empty one); out[s] of an empty segment is
 * identity (type t) as a double. */
tb_status tb_cpu_segreduce_csr_f64(tb_type t, tb_op op, const void *values, int32_t count,
                                   const int32_t *csr, int32_t num_segments,
                                   const int32_t *sources, tb_value identity, double *out,
                                   double *sum_abs);

/* Reduce-by-key. Keys are int32 (segment identifiers; the GPU side uses the
 * same type); values are count elements of type t. Each maximal run of equal
 * adjacent keys is one segment, so segments are never empty and a key that
 * comes back later starts a new segment. For the k-th segment:
 *   out_values[k] (type t) = the reduction of its values, left to right;
 *   out_keys[k] (may be NULL) = its key.
 * *num_segments (may be NULL) = the number of segments; out_values and
 * out_keys must hold that many (count is always enough). count == 0 gives 0
 * segments. */
tb_status tb_cpu_reduce_by_key(tb_type t, tb_op op, const int32_t *keys, const void *values,
                               int32_t count, void *out_values, int32_t *out_keys,
                               int32_t *num_segments);

/* The segment starts of reduce-by-key's segmentation: csr[k] = index of the
 * first element of the k-th run of equal keys (csr holds up to count
 * entries); *num_segments (required) = the number of runs. With it a
 * reduce-by-key result of a floating type is checked against
 * tb_cpu_segreduce_csr_f64. */
tb_status tb_cpu_keys_to_csr(const int32_t *keys, int32_t count, int32_t *csr,
                             int32_t *num_segments);

/* Sparse matrix * dense vector, CSR. Row offsets csr (num_rows of them, the
 * CSR rules above with count = nz), column indices cols (nz entries, each in
 * [0, x_len)), x (x_len elements of type t), y (num_rows elements of type t).
 * Row r's k-th stored entry is m = csr[r] + k (direct) or sources[r] + k
 * (indirect, sources != NULL). Empty rows give identity.
 *
 * Unary (MGPU SpmvCsrUnary): y[r] = add over the row's entries of x[cols[m]];
 * no matrix values. */
tb_status tb_cpu_spmv_csr_unary(tb_type t, tb_op add_op, const int32_t *cols, int32_t nz,
                                const int32_t *csr, int32_t num_rows, const int32_t *sources,
                                const void *x, int32_t x_len, tb_value identity, void *y);

/* Binary (MGPU SpmvCsrBinary): y[r] = add over the row's entries of
 * mul_op(matrix[m], x[cols[m]]), matrix holding nz elements of type t. The
 * ordinary product y = A·x is mul_op = multiplies, add_op = plus,
 * identity = 0. */
tb_status tb_cpu_spmv_csr(tb_type t, tb_op mul_op, tb_op add_op, const void *matrix,
                          const int32_t *cols, int32_t nz, const int32_t *csr, int32_t num_rows,
                          const int32_t *sources, const void *x, int32_t x_len,
                          tb_value identity, void *y);

/* The ordinary product y = A·x (multiplies, plus; empty rows 0) for floating
 * t in higher precision, as tb_cpu_segreduce_csr_f64: each product is formed
 * and summed in double (float) or long double (double). sum_abs[r] (may be
 * NULL) = Σ|matrix[m]·x[cols[m]]| over row r, for the bound
 * |gpu - ref| <= tb_sum_error_bound(t, depth, sum_abs[r]) with one more
 * rounding (the product) on every path. */
tb_status tb_cpu_spmv_csr_f64(tb_type t, const void *matrix, const int32_t *cols, int32_t nz,
                              const int32_t *csr, int32_t num_rows, const int32_t *sources,
                              const void *x, int32_t x_len, double *y, double *sum_abs);

/* The carry-in step of the tiled algorithm, serially: n threads (or tiles),
 * each with a carry-out value (type t) and a flag ends[i] != 0 when thread i
 * holds at least one segment end. Thread i's carry-in is the op-reduction of
 * the carry-outs from the nearest thread j <= i - 1 that holds an end (thread
 * 0 when none does) through thread i - 1; identity for thread 0. carry_in
 * holds n elements of type t; *tile_carry_out (may be NULL) is the same sum
 * taken through thread n - 1, the carry-out of the whole tile. */
tb_status tb_cpu_segreduce_carry_in(tb_type t, tb_op op, const void *carry_out,
                                    const uint8_t *ends, int32_t n, tb_value identity,
                                    void *carry_in, tb_value *tile_carry_out);

#ifdef __cplusplus
}
#endif
#endif
