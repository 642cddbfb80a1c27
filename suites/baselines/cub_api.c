/* Picks the per-type CUB baseline (cub.cu is compiled once per type). */
#include "suites/baselines/cub.h"

#include "kernels/reduce_scan_dispatch.h" /* TB_FOR_EACH_TYPE */
#define TB_DECLARE(name)                                                                  \
  tb_status tb_cub_reduce_##name(tb_op, const void *, int64_t, void *, tb_buffer *,       \
                                 cudaStream_t);                                           \
  tb_status tb_cub_scan_##name(tb_op, tb_scan_kind, const void *, void *, int64_t,        \
                               tb_buffer *, cudaStream_t);
TB_FOR_EACH_TYPE(TB_DECLARE)
#undef TB_DECLARE

tb_status tb_cub_reduce(tb_type type, tb_op op, const void *d_in, int64_t n, void *d_total,
                        tb_buffer *scratch, cudaStream_t stream) {
  switch (type) {
    case TB_INT32: return tb_cub_reduce_int32(op, d_in, n, d_total, scratch, stream);
    case TB_INT64: return tb_cub_reduce_int64(op, d_in, n, d_total, scratch, stream);
    case TB_FLOAT: return tb_cub_reduce_float(op, d_in, n, d_total, scratch, stream);
    case TB_DOUBLE: return tb_cub_reduce_double(op, d_in, n, d_total, scratch, stream);
    default: return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: unknown type %d", (int)type);
  }
}

tb_status tb_cub_scan(tb_type type, tb_op op, tb_scan_kind kind, const void *d_in, void *d_out,
                      int64_t n, tb_buffer *scratch, cudaStream_t stream) {
  switch (type) {
    case TB_INT32: return tb_cub_scan_int32(op, kind, d_in, d_out, n, scratch, stream);
    case TB_INT64: return tb_cub_scan_int64(op, kind, d_in, d_out, n, scratch, stream);
    case TB_FLOAT: return tb_cub_scan_float(op, kind, d_in, d_out, n, scratch, stream);
    case TB_DOUBLE: return tb_cub_scan_double(op, kind, d_in, d_out, n, scratch, stream);
    default: return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: unknown type %d", (int)type);
  }
}
