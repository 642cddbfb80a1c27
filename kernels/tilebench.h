/* tilebench: load-balanced GPU primitives, C interface.
 *
 * Conventions (docs/design.md): every entry point returns a tb_status and
 * leaves a message in tb_last_error() on failure; pointers named d_* are
 * device memory, h_* host memory. Work is queued on `stream`; an entry point
 * that returns a host value (h_total) synchronises the stream.
 *
 * Scratch: pass a zeroed tb_buffer and keep it across calls; entry points
 * grow it when it is too small. NULL means "allocate and free inside the
 * call", which is simpler and slower. Entry points never trust what it
 * holds: the look-back scans, reduce-by-key over values of up to 4 bytes and
 * split rows clear nothing and post words there that count only with a tag
 * drawn for the call. One buffer serves any sequence of calls on one stream,
 * not calls in flight at once on several streams. */
#ifndef TILEBENCH_H
#define TILEBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "tilebench_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per CTA (NT) and items per thread (VT). NULL or {0, 0} selects the
 * tuned default for the running architecture; any other box must be in the
 * family's grid (tb_reduce_grid / tb_scan_grid). */
typedef struct tb_launch_box { int nt, vt; } tb_launch_box;

/* ---- reduce ------------------------------------------------------------ */

/* The most items one reduce or scan takes (n <= 2^40; beyond, the call
 * returns TB_ERR_INVALID_ARGUMENT). Sizes past 2^31 are supported. */
#define TB_MAX_ITEMS (INT64_C(1) << 40)

/* Reduces d_in[0, n) with op. The total goes to d_total (device, one
 * element) and/or h_total (host); at least one must be given. n == 0 gives
 * the identity of op. */
tb_status tb_reduce(tb_type type, tb_op op, const void *d_in, int64_t n,
                    void *d_total, void *h_total, const tb_launch_box *box,
                    tb_buffer *scratch, cudaStream_t stream);

/* ---- scan -------------------------------------------------------------- */

typedef enum tb_scan_kind { TB_SCAN_EXCLUSIVE, TB_SCAN_INCLUSIVE } tb_scan_kind;

typedef enum tb_scan_algo {
  TB_SCAN_DEFAULT,           /* the tuned choice for the architecture */
  TB_SCAN_LOOKBACK,          /* single pass, decoupled look-back */
  TB_SCAN_REDUCE_THEN_SCAN,  /* upsweep, spine, downsweep (the reference's) */
} tb_scan_algo;

/* Scans d_in[0, n) into d_out (which may equal d_in). Exclusive scans start
 * from the identity of op. The reduction of all n items goes to d_total
 * and/or h_total when given. */
tb_status tb_scan(tb_type type, tb_op op, tb_scan_kind kind, tb_scan_algo algo,
                  const void *d_in, void *d_out, int64_t n, void *d_total, void *h_total,
                  const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream);

/* ---- OpenMP-style reductions --------------------------------------------- */

/* Several variables reduced in one pass, as `reduction(+:foo) reduction(max:
 * bar)` does: a type-agnostic runtime (warp, block and cross-block levels,
 * no atomics) moves each thread's private copies as an opaque ReduceData,
 * and two generated callbacks do every type-specific step. */
#define TB_OMP_MAX_VARS 4

/* One variable of the clause: d_in holds the n values to reduce; d_result
 * (one element, device) holds the variable, into which the reduction is
 * folded as OpenMP does: *d_result = *d_result op reduce(d_in). */
typedef struct tb_omp_var {
  tb_type type;
  tb_op op;
  const void *d_in;
  void *d_result;
} tb_omp_var;

typedef enum tb_omp_method {
  TB_OMP_TREE,    /* warp, block and cross-block reduction through the callbacks */
  TB_OMP_ATOMICS, /* every thread folds its private copies in with atomics */
} tb_omp_method;

/* Device addresses of the two callbacks the runtime calls:
 *   void shuffle_reduce(void *data, int16_t lane_id, int16_t offset, int16_t version)
 *   void inter_warp_copy(void *data, int32_t warp_num)
 * (kernels/device/omp_runtime.cuh says what each must do). */
typedef struct tb_omp_callbacks {
  const void *shuffle_reduce;
  const void *inter_warp_copy;
} tb_omp_callbacks;

/* The callbacks tilebench generates for its ReduceData (what a compiler
 * emits per clause). */
tb_status tb_omp_generated_callbacks(tb_omp_callbacks *out);

/* Reduces num_vars (1..TB_OMP_MAX_VARS) variables over n items each in one
 * pass. callbacks NULL: the generated ones. box: nt is the block size (any
 * of 1..1024), vt the 16-byte loads in flight per thread (1, 2, 4 or 8); NULL or
 * {0, 0}: the tuned default. num_blocks 0: one block per resident slot
 * (SMs x blocks per SM), fewer when n is small. The tree path keeps one
 * partial per block in scratch. */
tb_status tb_omp_reduce(const tb_omp_var *vars, int num_vars, int64_t n, tb_omp_method method,
                        const tb_omp_callbacks *callbacks, const tb_launch_box *box,
                        int64_t num_blocks, tb_buffer *scratch, cudaStream_t stream);

/* One warp-level algorithm on its own, for tests: warp w (of num_warps)
 * reduces element 32w + lane of each d_in over the lanes set in h_masks[w]
 * and folds it into element w of each d_result. version 0 (full warp) needs
 * every mask full, 1 (contiguous) a prefix of lanes, 2 (dispersed) any
 * non-empty mask. */
tb_status tb_omp_warp_reduce(const tb_omp_var *vars, int num_vars, const uint32_t *h_masks,
                             int num_warps, int version, const tb_omp_callbacks *callbacks,
                             cudaStream_t stream);

/* ---- load-balancing search and intervals --------------------------------- */

/* num_objects objects generate count[j] >= 0 work items each. d_scan holds
 * the exclusive scan of the counts (num_objects int32 entries: d_scan[0] == 0,
 * non-decreasing) and n_items the total, so object j owns the items
 * [d_scan[j], d_scan[j + 1]) (the last one up to n_items), and item i belongs
 * to object upper_bound(d_scan, i) - 1.
 *
 * Sizes are int64 for the API and must fit int32 (0 .. INT32_MAX); n_items > 0
 * needs num_objects > 0. Pointers may be NULL only when n_items is 0; values
 * and data must be aligned to their type. Every call reads the scan once per
 * tile and writes only its outputs.
 *
 * The scan is not checked (tb_interval_validate does, on request). A
 * malformed one gives unspecified results but stays memory safe: nothing is
 * read outside d_scan[0, num_objects), the per-object arrays and d_in[0, n_in),
 * nothing written outside the outputs. Items without an object (before a
 * scan[0] > 0, or in a tile whose part of the scan is unsorted) get object
 * -1 from tb_lbs and are not written by the interval calls. */

/* Which object generated each item: d_obj[i] (n_items entries) =
 * upper_bound(d_scan, i) - 1. d_rank (optional, n_items entries) gets
 * i - d_scan[d_obj[i]], the item's rank within its object (i for object -1). */
tb_status tb_lbs(const int32_t *d_scan, int64_t num_objects, int64_t n_items, int32_t *d_obj,
                 int32_t *d_rank, const tb_launch_box *box, tb_buffer *scratch,
                 cudaStream_t stream);

typedef enum tb_interval_op {
  TB_INTERVAL_EXPAND,
  TB_INTERVAL_MOVE,
  TB_INTERVAL_GATHER,
  TB_INTERVAL_SCATTER,
  TB_INTERVAL_OP_COUNT
} tb_interval_op;

/* IntervalExpand: d_out[i] = d_values[obj(i)]; d_values holds num_objects
 * elements of type, d_out n_items. */
tb_status tb_interval_expand(tb_type type, const int32_t *d_scan, int64_t num_objects,
                             int64_t n_items, const void *d_values, void *d_out,
                             const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream);

/* IntervalMove: interval j copies its count_j items,
 * d_out[d_scatter[j] + r] = d_in[d_gather[j] + r] (r < count_j); d_in holds
 * n_in elements, d_out n_out. Items whose source or destination falls outside
 * those are skipped. Overlapping destination intervals leave the overlap
 * undefined (memory safe all the same); d_in and d_out must not overlap. */
tb_status tb_interval_move(tb_type type, const int32_t *d_gather, const int32_t *d_scatter,
                           const int32_t *d_scan, int64_t num_objects, int64_t n_items,
                           const void *d_in, int64_t n_in, void *d_out, int64_t n_out,
                           const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream);

/* IntervalGather: move with the outputs packed in scan order,
 * d_out[d_scan[j] + r] = d_in[d_gather[j] + r]; d_out holds n_items. */
tb_status tb_interval_gather(tb_type type, const int32_t *d_gather, const int32_t *d_scan,
                             int64_t num_objects, int64_t n_items, const void *d_in, int64_t n_in,
                             void *d_out, const tb_launch_box *box, tb_buffer *scratch,
                             cudaStream_t stream);

/* IntervalScatter: move with the inputs packed in scan order,
 * d_out[d_scatter[j] + r] = d_in[d_scan[j] + r]; d_in holds n_items. */
tb_status tb_interval_scatter(tb_type type, const int32_t *d_scatter, const int32_t *d_scan,
                              int64_t num_objects, int64_t n_items, const void *d_in, void *d_out,
                              int64_t n_out, const tb_launch_box *box, tb_buffer *scratch,
                              cudaStream_t stream);

/* Checks on the device that d_scan is a scan the calls above accept:
 * d_scan[0] == 0, non-decreasing, and d_scan[num_objects - 1] <= n_items.
 * TB_ERR_INVALID_ARGUMENT with a message naming the first bad index
 * otherwise. Synchronises the stream. */
tb_status tb_interval_validate(const int32_t *d_scan, int64_t num_objects, int64_t n_items,
                               tb_buffer *scratch, cudaStream_t stream);

/* ---- segmented reduction: CSR, reduce-by-key, SpMV ------------------------ */

/* Segment geometry (CSR), as the reference has it: d_csr holds num_segments
 * (>= 1) int32 start offsets into count items: d_csr[0] == 0, ascending
 * (non-decreasing with support_empty), every entry <= count. Segment s covers
 * [d_csr[s], d_csr[s + 1]) and the last one [d_csr[S - 1], count); rows of a
 * sparse matrix are segments over its nonzeros.
 *
 * Segments are reduced with op (a reduce-family operator, commutative and
 * associative); d_out gets num_segments results, an empty segment the
 * identity of op. The kernels tile the items evenly (NT x VT per CTA), so a
 * segment of any length costs the same per item; a segment crossing tiles is
 * finished at the tile boundaries and by a fold after the tiles. Small calls
 * are the exception: a direct call with no box (NULL or {0, 0}) of up to
 * 2^22 items (SpMV: nonzeros; with support_empty up to 2^16) reduces whole
 * rows a CTA in one kernel (with support_empty, a malformed CSR gives
 * every row the identity there too), no tiles, the way CUB's
 * segment-per-thread/warp/CTA kernels do. A row of more than
 * 65,536 items is split into units of 8,192 that any CTA of the call may
 * take, its owner combining their results in
 * a fixed order (results stay deterministic); their table lives in the
 * scratch, which is never cleared: a slot counts only when it holds the
 * call's 64-bit tag. Rows are dealt to CTAs by count, not by items, so one
 * CTA can hold up to 4,096 rows of up to 2,048 items: on an H100 2^21 items
 * with 512 rows of 2,048 among rows of one item took 41-52 us (CUB 3.5:
 * 270-350) when a CTA held up to 2,048 rows. A CTA of more than 65,536
 * items posts its rows of more than 2,048 to the same table where it has
 * room, but a run of long rows still costs: on an H200 a matrix whose 144
 * rows of up to 19,012 nonzeros come first (1.5 M of its 2 M) took 139 us
 * where cuSPARSE took 23. A call that expects such rows can name a box to
 * keep the tiles, which cost the same per item whatever the rows.
 *
 * support_empty: false requires every segment non-empty; true allows empty
 * ones, which get the identity. Whole rows a CTA take them as any row; the
 * direct form's tiles take them as they come (a tile then spans any number
 * of rows); the indirect form runs a prepass that strips them (CSR ->
 * CSR2), reduces the rest and fills the empty ones after.
 *
 * Indirect forms (d_sources != NULL): segment s keeps its length
 * d_csr[s + 1] - d_csr[s] but reads its items from d_sources[s] on.
 *
 * Host-visible problems are errors: sizes (count, num_segments, nz within
 * int32), NULL pointers, a bad (type, op) pair, and d_csr[0] != 0 when d_csr
 * is host-accessible memory. Device-resident descriptors are not checked
 * (tb_segreduce_validate does that on request): with descending offsets,
 * offsets past count, empty segments without support_empty, sources or
 * column indices out of range the results are unspecified, but nothing is
 * read outside the arrays given nor written outside the outputs (with
 * support_empty, offsets outside [0, count] or descending give every
 * segment the identity). */
tb_status tb_segreduce_csr(tb_type type, tb_op op, const void *d_in, int64_t count,
                           const int32_t *d_csr, int64_t num_segments, const int32_t *d_sources,
                           bool support_empty, void *d_out, const tb_launch_box *box,
                           tb_buffer *scratch, cudaStream_t stream);

/* Segments of one length, back to back: segment s covers
 * d_in[s * segment_size, (s + 1) * segment_size), and d_out[s] gets its
 * reduction with op (the identity where segment_size is 0). No offsets are
 * read: CUB's fixed-size DeviceSegmentedReduce. num_segments and
 * segment_size are each in [0, 2^31) and their product, the item count, is
 * at most 2^31 - 1; num_segments 0 does nothing. Segments of 1, 2, 4, 8
 * or 16 items are a thread's each, of 256 to 2,048 a warp's; others are
 * reduced whole rows a CTA (above) at any count: with rows of one length, dealing them to CTAs by
 * count deals the items evenly. A segment of more than 2^30 items (the
 * only one of its call) is a plain reduction (tb_reduce). Each segment's
 * order of operations is fixed: results are deterministic. */
tb_status tb_segreduce_fixed(tb_type type, tb_op op, const void *d_in, int64_t num_segments,
                             int64_t segment_size, void *d_out, tb_buffer *scratch,
                             cudaStream_t stream);

/* Reduce-by-key: each maximal run of equal adjacent keys (int32) in
 * d_keys[0, count) is a segment. d_values_out gets the reduction of each run
 * (as many as there are runs: count is always enough), d_keys_out (may be
 * NULL) the key of each run; the number of runs goes to *h_num_segments
 * (host; synchronises the stream) and/or *d_num_segments (device), either
 * may be NULL. count == 0 gives 0 runs. */
tb_status tb_reduce_by_key(tb_type type, tb_op op, const int32_t *d_keys, const void *d_values,
                           int64_t count, int32_t *d_keys_out, void *d_values_out,
                           int64_t *h_num_segments, int32_t *d_num_segments,
                           const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream);

/* Sparse matrix * dense vector over a CSR matrix with num_rows rows (d_csr,
 * the geometry above with count = nz) and column indices d_cols (nz entries,
 * each in [0, x_len)). Row r's k-th entry is m = d_csr[r] + k, or
 * d_sources[r] + k for the indirect form. y (num_rows elements) gets
 *   unary:  y[r] = add_op over the row of x[d_cols[m]];
 *   binary: y[r] = add_op over the row of mul_op(d_matrix[m], x[d_cols[m]]),
 * mul_op TB_OP_MULTIPLIES (the one the kernels implement), and the identity
 * of add_op for an empty row. Entries whose index or column is out of range
 * (malformed input) count as the identity. */
tb_status tb_spmv_csr_unary(tb_type type, tb_op add_op, const int32_t *d_cols, int64_t nz,
                            const int32_t *d_csr, int64_t num_rows, const int32_t *d_sources,
                            const void *d_x, int64_t x_len, bool support_empty, void *d_y,
                            const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream);
tb_status tb_spmv_csr_binary(tb_type type, tb_op mul_op, tb_op add_op, const void *d_matrix,
                             const int32_t *d_cols, int64_t nz, const int32_t *d_csr,
                             int64_t num_rows, const int32_t *d_sources, const void *d_x,
                             int64_t x_len, bool support_empty, void *d_y,
                             const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream);

/* Preprocess + apply: when the geometry stays and the data changes (an
 * iterative solver's matrix, the same keys with new values), the segment
 * discovery (tile partition, per-thread end flags and segment offsets, the
 * CSR2 transform) runs once into a plan, and each apply only streams values.
 * A plan is made for one element type and box and is not serialisable; it
 * owns its device memory until tb_seg_plan_free. The plan keeps the pointers
 * it was made from only where the call says so. A CSR plan made with no box
 * for a call that whole rows a CTA take, where its rows suit that kernel
 * (its preprocess measures them; kernels/segreduce_dispatch.h,
 * tb_seg_plan_rows), holds a copy of the offsets instead, and its apply is
 * that one kernel. Every preprocess synchronises the stream. */
typedef struct tb_seg_plan tb_seg_plan;

tb_status tb_segreduce_csr_preprocess(tb_type type, int64_t count, const int32_t *d_csr,
                                      int64_t num_segments, bool support_empty,
                                      const tb_launch_box *box, tb_seg_plan **plan,
                                      cudaStream_t stream);
/* d_in: count items of the plan's type; d_out: num_segments results. */
tb_status tb_segreduce_apply(const tb_seg_plan *plan, tb_op op, const void *d_in, void *d_out,
                             tb_buffer *scratch, cudaStream_t stream);

/* Finds the runs of d_keys once. d_keys_out, h_num_segments and
 * d_num_segments as tb_reduce_by_key (each may be NULL). */
tb_status tb_reduce_by_key_preprocess(tb_type type, const int32_t *d_keys, int64_t count,
                                      int32_t *d_keys_out, int64_t *h_num_segments,
                                      int32_t *d_num_segments, const tb_launch_box *box,
                                      tb_seg_plan **plan, cudaStream_t stream);
tb_status tb_reduce_by_key_apply(const tb_seg_plan *plan, tb_op op, const void *d_values,
                                 void *d_values_out, tb_buffer *scratch, cudaStream_t stream);

/* The direct CSR matrix geometry (nz nonzeros, num_rows rows). apply with
 * d_matrix NULL is unary, otherwise binary with multiplies. */
tb_status tb_spmv_preprocess(tb_type type, int64_t nz, const int32_t *d_csr, int64_t num_rows,
                             bool support_empty, const tb_launch_box *box, tb_seg_plan **plan,
                             cudaStream_t stream);
tb_status tb_spmv_apply(const tb_seg_plan *plan, tb_op add_op, const void *d_matrix,
                        const int32_t *d_cols, const void *d_x, int64_t x_len, void *d_y,
                        tb_buffer *scratch, cudaStream_t stream);

/* NULL is fine. */
void tb_seg_plan_free(tb_seg_plan *plan);

/* Checks on the device what the calls above leave unchecked:
 * d_csr[0] == 0, ascending (non-decreasing with support_empty), entries
 * <= count; with d_cols (SpMV), every column in [0, x_len). Returns
 * TB_ERR_INVALID_ARGUMENT with a message naming the first bad index.
 * Synchronises the stream. */
tb_status tb_segreduce_validate(const int32_t *d_csr, int64_t num_segments, int64_t count,
                                bool support_empty, const int32_t *d_cols, int64_t x_len,
                                tb_buffer *scratch, cudaStream_t stream);

/* ---- launch boxes -------------------------------------------------------- */

/* The boxes a call may name for `type` (and `op`, where the family has
 * operators), written to out (up to cap); returns how many there are. The
 * library built for tests and sweeps has every box of the family's grid
 * that fits the type for plus, the operator the sweeps time, and the tuned
 * boxes for every other operator; the installed library (./tilebench
 * install) has the tuned boxes only. */
int tb_reduce_grid(tb_type type, tb_op op, tb_launch_box *out, int cap);
int tb_scan_grid(tb_type type, tb_op op, tb_launch_box *out, int cap);
/* The boxes the omp_reduce sweep measures (any nt of 1..1024 runs). */
int tb_omp_grid(tb_launch_box *out, int cap);
/* Load-balancing search; interval expand, move, gather and scatter share one
 * grid per type (kernels/interval_grid.def). */
int tb_lbs_grid(tb_launch_box *out, int cap);
int tb_interval_grid(tb_type type, tb_launch_box *out, int cap);
/* Segmented reduction, reduce-by-key and SpMV share one grid
 * (kernels/segreduce_grid.def); the other operators than plus are compiled
 * at segreduce's tuned boxes for segreduce, SpMV and every preprocess +
 * apply form, and at its own for the one-pass reduce-by-key. */
int tb_segreduce_grid(tb_type type, tb_op op, tb_launch_box *out, int cap);
int tb_reduce_by_key_grid(tb_type type, tb_op op, tb_launch_box *out, int cap);

/* Tuned defaults come from a table generated from a committed box sweep
 * per architecture (kernels/tuned/<arch>.inc, tools/gen_defaults). The name
 * of the current device's table ("sm_90"), or NULL when its architecture has
 * none: the defaults below are then sm_90's boxes, not tuned for it. */
const char *tb_tuned_arch(void);

/* The tuned default box for type on the current device. */
tb_launch_box tb_reduce_default_box(tb_type type);
tb_launch_box tb_scan_default_box(tb_type type);
tb_scan_algo tb_scan_default_algo(tb_type type);
tb_launch_box tb_omp_default_box(void);
/* The load-balancing search and interval defaults depend on the average
 * count, n_items / num_objects, too. */
tb_launch_box tb_lbs_default_box(int64_t num_objects, int64_t n_items);
tb_launch_box tb_interval_default_box(tb_interval_op op, tb_type type, int64_t num_objects,
                                      int64_t n_items);
/* Segmented reduction: tb_segreduce_csr of the direct form with a NULL box
 * (above 2^22 items, with support_empty above 2^16: smaller calls reduce
 * whole rows a CTA, no box) runs the box of the swept mean segment length nearest count /
 * num_segments (log scale), or where that length has a size band at count
 * items or above (a smaller call where another box was faster), the
 * smallest such band's box;
 * tb_segreduce_default_box is the box of no known
 * length, the best over every length among the boxes a plan takes, which
 * the indirect form and tb_segreduce_csr_preprocess run. With support_empty
 * and 2^16 + 1 to 2^24 items the direct forms (tb_segreduce_csr and tb_spmv_csr)
 * run the length's box where its tiles take empty rows themselves, else
 * (4-byte values at the widest boxes) tb_segreduce_default_box, whose tiles
 * do: the others strip empty rows in a prepass and fill them after, three
 * passes more, which only larger calls repay. tb_segreduce_default_box_empty
 * is tb_segreduce_csr's box with support_empty. */
tb_launch_box tb_segreduce_default_box(tb_type type);
tb_launch_box tb_segreduce_default_box_for(tb_type type, int64_t num_segments, int64_t count);
tb_launch_box tb_segreduce_default_box_empty(tb_type type, int64_t num_segments, int64_t count);
/* The most items a thread (VT) of a plan's box: its thread codes hold an
 * end flag an item. Every preprocess refuses wider boxes of the segreduce
 * grid (TB_ERR_INVALID_ARGUMENT), which the plain forms run. */
#define TB_SEG_PLAN_MAX_VT 15
/* The one-pass tb_reduce_by_key has its own default (a box of the segreduce
 * grid); its preprocess + apply form uses segreduce's. */
tb_launch_box tb_reduce_by_key_default_box(tb_type type);
/* SpMV has its own defaults for float and double, from the SpMV box sweep
 * (boxes of the segreduce grid: its gathers of x favour other tiles), one
 * for each swept mean row length: tb_spmv_csr_* with a NULL box run the box
 * of the length nearest nz / num_rows (on a log scale). tb_spmv_default_box
 * is the box of no known length (num_rows or nz 0), which
 * tb_spmv_preprocess takes: the best over every matrix of the sweep of the
 * apply path. Other types take segreduce's. With support_empty the rule of
 * tb_segreduce_default_box_empty applies: tb_spmv_default_box_empty is the
 * box tb_spmv_csr_* then run. */
tb_launch_box tb_spmv_default_box_for(tb_type type, int64_t num_rows, int64_t nz);
tb_launch_box tb_spmv_default_box(tb_type type);
tb_launch_box tb_spmv_default_box_empty(tb_type type, int64_t num_rows, int64_t nz);

#ifdef __cplusplus
}
#endif
#endif
