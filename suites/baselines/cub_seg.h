/* CUB baselines for the segmented-reduction family behind C signatures, for
 * the sweeps to measure beside tilebench's kernels, from either CUB
 * (tb_cub_lib, cub_lib.h). Operator: plus (what the sweeps measure; each
 * operator would compile every CUB path again). Sizes must fit int
 * (< 2^31). Scratch is grown as in kernels/tilebench.h. */
#ifndef TB_SUITES_BASELINES_CUB_SEG_H
#define TB_SUITES_BASELINES_CUB_SEG_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/types.h"
#include "suites/baselines/cub_lib.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceSegmentedReduce over num_segments segments: segment s is
 * d_in[d_offsets[s], d_offsets[s + 1]) (d_offsets has num_segments + 1
 * entries, the last one the item count); d_out gets num_segments values. An
 * empty segment gives 0.
 * max_segment > 0 tells CUB the longest segment (CUB 3.4+, which then runs a
 * thread or a warp per segment where they fit): it must be at least the
 * longest; 0 is the plain call (a block per segment). */
tb_status tb_cub_segreduce(tb_cub_lib lib, tb_type type, tb_op op, const void *d_in,
                           const int32_t *d_offsets, int64_t num_segments, int64_t max_segment,
                           void *d_out, tb_buffer *scratch, cudaStream_t stream);

/* The fixed-size overload (CUB 3.4+): segment s is
 * d_in[s * segment_size, (s + 1) * segment_size). */
tb_status tb_cub_segreduce_fixed(tb_cub_lib lib, tb_type type, tb_op op, const void *d_in,
                                 int64_t num_segments, int64_t segment_size, void *d_out,
                                 tb_buffer *scratch, cudaStream_t stream);

/* cub::DeviceReduce::ReduceByKey: each run of equal consecutive keys in
 * d_keys[0, count) gives one key in d_unique_keys and the op-reduction of its
 * values in d_aggregates; the number of runs goes to *d_num_runs (device). */
tb_status tb_cub_reduce_by_key(tb_cub_lib lib, tb_type type, tb_op op, const int32_t *d_keys,
                               const void *d_values, int64_t count, int32_t *d_unique_keys,
                               void *d_aggregates, int32_t *d_num_runs, tb_buffer *scratch,
                               cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
