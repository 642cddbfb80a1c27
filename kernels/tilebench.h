/* tilebench: load-balanced GPU primitives, C interface.
 *
 * Conventions (see DESIGN.md): every entry point returns a tb_status and
 * leaves a message in tb_last_error() on failure; pointers named d_* are
 * device memory, h_* host memory. Work is queued on `stream`; an entry point
 * that returns a host value (h_total) synchronises the stream.
 *
 * Scratch: pass a zeroed tb_buffer and keep it across calls; entry points
 * grow it when it is too small. NULL means "allocate and free inside the
 * call", which is simpler and slower. */
#ifndef TILEBENCH_H
#define TILEBENCH_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/status.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per CTA (NT) and items per thread (VT). NULL or {0, 0} selects the
 * tuned default for the running architecture; any other box must be in the
 * family's grid (tb_reduce_grid / tb_scan_grid). */
typedef struct tb_launch_box { int nt, vt; } tb_launch_box;

/* ---- reduce ------------------------------------------------------------ */

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

/* ---- launch boxes -------------------------------------------------------- */

/* The boxes of the family's grid that `type` supports, written to out (up to
 * cap); returns how many there are. */
int tb_reduce_grid(tb_type type, tb_launch_box *out, int cap);
int tb_scan_grid(tb_type type, tb_launch_box *out, int cap);
/* The boxes the omp_reduce sweep measures (any nt of 1..1024 runs). */
int tb_omp_grid(tb_launch_box *out, int cap);

/* The tuned default box for type on the current device. */
tb_launch_box tb_reduce_default_box(tb_type type);
tb_launch_box tb_scan_default_box(tb_type type);
tb_scan_algo tb_scan_default_algo(tb_type type);
tb_launch_box tb_omp_default_box(void);

#ifdef __cplusplus
}
#endif
#endif
