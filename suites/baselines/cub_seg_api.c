/* Picks the per-CUB, per-type segmented-reduction baseline (cub_seg.cu is
 * compiled once per CUB and type: tb_<cub>_<function>_<type>). */
#include "suites/baselines/cub_seg.h"


#define TB_DECLARE_LIB(lib, name)                                                             \
  tb_status tb_##lib##_segreduce_##name(tb_op, const void *, const int32_t *, int64_t,        \
                                        int64_t, void *, tb_buffer *, cudaStream_t);          \
  tb_status tb_##lib##_segreduce_fixed_##name(tb_op, const void *, int64_t, int64_t, void *,  \
                                              tb_buffer *, cudaStream_t);                     \
  tb_status tb_##lib##_reduce_by_key_##name(tb_op, const int32_t *, const void *, int64_t,    \
                                            int32_t *, void *, int32_t *, tb_buffer *,        \
                                            cudaStream_t);
#define TB_DECLARE(name) TB_DECLARE_LIB(cub, name) TB_DECLARE_LIB(cub35, name)
TB_FOR_EACH_TYPE(TB_DECLARE)
#undef TB_DECLARE
#undef TB_DECLARE_LIB

tb_status tb_cub_segreduce(tb_cub_lib lib, tb_type type, tb_op op, const void *d_in,
                           const int32_t *d_offsets, int64_t num_segments, int64_t max_segment,
                           void *d_out, tb_buffer *scratch, cudaStream_t stream) {
#define CALL(l, t) \
  tb_##l##_segreduce_##t(op, d_in, d_offsets, num_segments, max_segment, d_out, scratch, stream)
  TB_CUB_PICK(lib, type, CALL)
#undef CALL
}

tb_status tb_cub_segreduce_fixed(tb_cub_lib lib, tb_type type, tb_op op, const void *d_in,
                                 int64_t num_segments, int64_t segment_size, void *d_out,
                                 tb_buffer *scratch, cudaStream_t stream) {
#define CALL(l, t) \
  tb_##l##_segreduce_fixed_##t(op, d_in, num_segments, segment_size, d_out, scratch, stream)
  TB_CUB_PICK(lib, type, CALL)
#undef CALL
}

tb_status tb_cub_reduce_by_key(tb_cub_lib lib, tb_type type, tb_op op, const int32_t *d_keys,
                               const void *d_values, int64_t count, int32_t *d_unique_keys,
                               void *d_aggregates, int32_t *d_num_runs, tb_buffer *scratch,
                               cudaStream_t stream) {
#define CALL(l, t)                                                                           \
  tb_##l##_reduce_by_key_##t(op, d_keys, d_values, count, d_unique_keys, d_aggregates,      \
                             d_num_runs, scratch, stream)
  TB_CUB_PICK(lib, type, CALL)
#undef CALL
}
