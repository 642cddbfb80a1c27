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

/* ---- launch boxes -------------------------------------------------------- */

/* The boxes of the family's grid that `type` supports, written to out (up to
 * cap); returns how many there are. */
int tb_reduce_grid(tb_type type, tb_launch_box *out, int cap);
int tb_scan_grid(tb_type type, tb_launch_box *out, int cap);

/* The tuned default box for type on the current device. */
tb_launch_box tb_reduce_default_box(tb_type type);
tb_launch_box tb_scan_default_box(tb_type type);
tb_scan_algo tb_scan_default_algo(tb_type type);

#ifdef __cplusplus
}
#endif
#endif
