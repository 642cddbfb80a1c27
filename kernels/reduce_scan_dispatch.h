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

/* One type's launches in one kernel set (reduce_scan.cu): those of
 * (op, box), NULL where the set does not compile them, and the grids. */
typedef struct tb_scan_type_set {
  tb_scan_launch (*reduce)(tb_op op, tb_launch_box box);
  tb_scan_launch (*scan)(tb_op op, tb_launch_box box);
  const tb_grid *reduce_grid, *scan_grid;
} tb_scan_type_set;

/* type's table in the tuned kernel set, and in the wide one (linked by the
 * tests and sweeps) (kernels/reduce_scan_entry.cu). */
const tb_scan_type_set *tb_scan_tuned_set(tb_type type);
const tb_scan_type_set *tb_scan_wide_set(tb_type type);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif
