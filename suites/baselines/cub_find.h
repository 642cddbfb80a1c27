/* Load-balancing search and interval expand from the newest CUB's
 * cub::DeviceFind::UpperBoundSortedValues (CCCL 3.5; cub_lib.h): a merge
 * path over the sorted scan and the sorted items 0..n-1, where Thrust's
 * upper_bound searches once per item. */
#ifndef TB_SUITES_BASELINES_CUB_FIND_H
#define TB_SUITES_BASELINES_CUB_FIND_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d_obj[i] = upper_bound(d_scan, i) - 1 for the items 0..n_items-1, the minus
 * one applied as it writes. */
tb_status tb_cub_find_lbs(const int32_t *d_scan, int64_t num_objects, int64_t n_items,
                          int32_t *d_obj, tb_buffer *scratch, cudaStream_t stream);

/* Interval expand: the search above into scratch, then a gather of the
 * values by object. */
tb_status tb_cub_find_interval_expand(tb_type type, const int32_t *d_scan, int64_t num_objects,
                                      int64_t n_items, const void *d_values, void *d_out,
                                      tb_buffer *scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
