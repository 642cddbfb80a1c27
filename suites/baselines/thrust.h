/* Thrust baselines for the load-balancing search and interval expand, behind
 * the project's C signatures (thrust.cu, one translation unit). */
#ifndef TB_SUITES_BASELINES_THRUST_H
#define TB_SUITES_BASELINES_THRUST_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d_obj[i] = upper_bound(d_scan, i) - 1: thrust::upper_bound of the items
 * 0..n_items-1 over the scan (the published Thrust figures' "thrust_upper_bound_lbs"), the
 * minus one applied as it writes. */
tb_status tb_thrust_lbs(const int32_t *d_scan, int64_t num_objects, int64_t n_items, int32_t *d_obj,
                        cudaStream_t stream);

/* Interval expand built from Thrust: the search above into scratch, then
 * thrust::gather of the values by object. */
tb_status tb_thrust_interval_expand(tb_type type, const int32_t *d_scan, int64_t num_objects,
                                    int64_t n_items, const void *d_values, void *d_out,
                                    tb_buffer *scratch, cudaStream_t stream);

/* The version of Thrust these are built with, "3.0.1". */
const char *tb_thrust_version(void);

#ifdef __cplusplus
}
#endif
#endif
