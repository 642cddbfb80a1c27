/* Internal: what reduce_scan.cu (one translation unit per element type and
 * kernel set) and reduce_scan_entry.cu export to reduce_scan_api.c, which
 * has checked the arguments. */
#ifndef TB_KERNELS_REDUCE_SCAN_DISPATCH_H
#define TB_KERNELS_REDUCE_SCAN_DISPATCH_H

#include "kernels/grid.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A reduce or scan call, by name. A launch with scratch NULL sets
 * scratch_bytes and launches nothing (core/cuda.h). */
typedef struct tb_scan_call {
  tb_scan_kind kind; /* scan only */
  tb_scan_algo algo; /* scan only: look-back or reduce-then-scan */
  const void *in;
  void *out; /* scan only */
  int64_t n;
  void *total; /* on the device; a scan's may be NULL */
  void *scratch;
  size_t scratch_bytes;
  cudaStream_t stream;
} tb_scan_call;

typedef tb_status (*tb_scan_launch)(tb_scan_call *call);

/* The launch of (type, op, box) in the tuned kernel set (_wide: the wide
 * set, linked by the tests and sweeps), NULL where the set does not compile
 * it; and each set's grids. */
tb_scan_launch tb_reduce_resolve(tb_type type, tb_op op, tb_launch_box box);
tb_scan_launch tb_reduce_resolve_wide(tb_type type, tb_op op, tb_launch_box box);
tb_scan_launch tb_scan_resolve(tb_type type, tb_op op, tb_launch_box box);
tb_scan_launch tb_scan_resolve_wide(tb_type type, tb_op op, tb_launch_box box);
const tb_grid *tb_reduce_kernel_grid(tb_type type);
const tb_grid *tb_reduce_kernel_grid_wide(tb_type type);
const tb_grid *tb_scan_kernel_grid(tb_type type);
const tb_grid *tb_scan_kernel_grid_wide(tb_type type);

#ifdef __cplusplus
}  // extern "C"

// What each type's translation unit instantiates for reduce_scan_entry.cu.
namespace tb {
namespace rs {
template <class T, bool kWide>
tb_scan_launch resolve_reduce(tb_op op, tb_launch_box box);
template <class T, bool kWide>
tb_scan_launch resolve_scan(tb_op op, tb_launch_box box);
template <class T, bool kWide>
const tb_grid *reduce_grid();
template <class T, bool kWide>
const tb_grid *scan_grid();
}  // namespace rs
}  // namespace tb
#endif
#endif
