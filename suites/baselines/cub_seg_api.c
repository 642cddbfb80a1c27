/* Picks the per-type segmented-reduction CUB baseline (cub_seg.cu is compiled
 * once per type). */
#include "suites/baselines/cub_seg.h"

#include "kernels/reduce_scan_dispatch.h" /* TB_FOR_EACH_TYPE */
#define TB_DECLARE(name)                                                                    \
  tb_status tb_cub_segreduce_##name(tb_op, const void *, const int32_t *, int64_t, void *,  \
                                    tb_buffer *, cudaStream_t);                             \
  tb_status tb_cub_reduce_by_key_##name(tb_op, const int32_t *, const void *, int64_t,      \
                                        int32_t *, void *, int32_t *, tb_buffer *,          \
                                        cudaStream_t);
TB_FOR_EACH_TYPE(TB_DECLARE)
#undef TB_DECLARE

tb_status tb_cub_segreduce(tb_type type, tb_op op, const void *d_in, const int32_t *d_offsets,
                           int64_t num_segments, void *d_out, tb_buffer *scratch,
                           cudaStream_t stream) {
  switch (type) {
    case TB_INT32: return tb_cub_segreduce_int32(op, d_in, d_offsets, num_segments, d_out, scratch, stream);
    case TB_INT64: return tb_cub_segreduce_int64(op, d_in, d_offsets, num_segments, d_out, scratch, stream);
    case TB_FLOAT: return tb_cub_segreduce_float(op, d_in, d_offsets, num_segments, d_out, scratch, stream);
    case TB_DOUBLE: return tb_cub_segreduce_double(op, d_in, d_offsets, num_segments, d_out, scratch, stream);
    default: return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: unknown type %d", (int)type);
  }
}

tb_status tb_cub_reduce_by_key(tb_type type, tb_op op, const int32_t *d_keys, const void *d_values,
                               int64_t count, int32_t *d_unique_keys, void *d_aggregates,
                               int32_t *d_num_runs, tb_buffer *scratch, cudaStream_t stream) {
  switch (type) {
#define TB_CASE(T, name)                                                                        \
  case T:                                                                                       \
    return tb_cub_reduce_by_key_##name(op, d_keys, d_values, count, d_unique_keys, d_aggregates, \
                                       d_num_runs, scratch, stream);
    TB_CASE(TB_INT32, int32)
    TB_CASE(TB_INT64, int64)
    TB_CASE(TB_FLOAT, float)
    TB_CASE(TB_DOUBLE, double)
#undef TB_CASE
    default: return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: unknown type %d", (int)type);
  }
}
