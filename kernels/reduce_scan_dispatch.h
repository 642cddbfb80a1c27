/* Internal: the per-type entry points that reduce_scan.cu generates (one
 * translation unit per element type), called by reduce_scan_api.c after it
 * has checked the arguments. With scratch == NULL they only write the scratch
 * size they need to *scratch_bytes. */
#ifndef TB_KERNELS_REDUCE_SCAN_DISPATCH_H
#define TB_KERNELS_REDUCE_SCAN_DISPATCH_H

#include "kernels/grid.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_FOR_EACH_TYPE(X) X(int32) X(int64) X(float) X(double)

#define TB_DECLARE_DISPATCH(name)                                                        \
  tb_status tb_reduce_##name(tb_op op, tb_launch_box box, const void *d_in, int64_t n,   \
                             void *d_total, void *scratch, size_t *scratch_bytes,        \
                             cudaStream_t stream);                                       \
  tb_status tb_scan_##name(tb_op op, tb_scan_kind kind, tb_scan_algo algo,               \
                           tb_launch_box box, const void *d_in, void *d_out, int64_t n,  \
                           void *d_total, void *scratch, size_t *scratch_bytes,          \
                           cudaStream_t stream);                                         \
  extern const tb_grid tb_reduce_grid_##name;                                             \
  extern const tb_grid tb_scan_grid_##name;
TB_FOR_EACH_TYPE(TB_DECLARE_DISPATCH)
/* The wide kernel set's (kernels/grid.h). */
TB_DECLARE_DISPATCH(int32_wide)
TB_DECLARE_DISPATCH(int64_wide)
TB_DECLARE_DISPATCH(float_wide)
TB_DECLARE_DISPATCH(double_wide)
#undef TB_DECLARE_DISPATCH

#ifdef __cplusplus
}
#endif
#endif
