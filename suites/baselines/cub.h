/* CUB baselines behind the project's C signatures, for the sweeps to measure
 * beside tilebench's kernels. Operators: plus and max (what the published CUB figures
 * measure; reduce also min), from either CUB (cub_lib.h). Scratch is grown as in kernels/tilebench.h. */
#ifndef TB_SUITES_BASELINES_CUB_H
#define TB_SUITES_BASELINES_CUB_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/types.h"
#include "kernels/tilebench.h"
#include "suites/baselines/cub_lib.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceReduce::Sum / ::Max / ::Min into d_total (device). */
tb_status tb_cub_reduce(tb_cub_lib lib, tb_type type, tb_op op, const void *d_in, int64_t n, void *d_total,
                        tb_buffer *scratch, cudaStream_t stream);

/* cub::DeviceScan::{Exclusive,Inclusive}Sum, or ::{Exclusive,Inclusive}Scan
 * with cuda::maximum for max. */
tb_status tb_cub_scan(tb_cub_lib lib, tb_type type, tb_op op, tb_scan_kind kind, const void *d_in, void *d_out,
                      int64_t n, tb_buffer *scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
