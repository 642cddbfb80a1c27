/* Picks the per-CUB, per-type baseline (cub.cu is compiled once per CUB and
 * type: tb_<cub>_<function>_<type>). */
#include "suites/baselines/cub.h"

#define TB_DECLARE_LIB(lib, name)                                                            \
  tb_status tb_##lib##_reduce_##name(tb_op, const void *, int64_t, void *, tb_buffer *,      \
                                     cudaStream_t);                                          \
  tb_status tb_##lib##_scan_##name(tb_op, tb_scan_kind, const void *, void *, int64_t,       \
                                   tb_buffer *, cudaStream_t);
#define TB_DECLARE(name) TB_DECLARE_LIB(cub, name) TB_DECLARE_LIB(cub35, name)
TB_FOR_EACH_TYPE(TB_DECLARE)
#undef TB_DECLARE
#undef TB_DECLARE_LIB

tb_status tb_cub_reduce(tb_cub_lib lib, tb_type type, tb_op op, const void *d_in, int64_t n,
                        void *d_total, tb_buffer *scratch, cudaStream_t stream) {
#define CALL(l, t) tb_##l##_reduce_##t(op, d_in, n, d_total, scratch, stream)
  TB_CUB_PICK(lib, type, CALL)
#undef CALL
}

tb_status tb_cub_scan(tb_cub_lib lib, tb_type type, tb_op op, tb_scan_kind kind, const void *d_in,
                      void *d_out, int64_t n, tb_buffer *scratch, cudaStream_t stream) {
#define CALL(l, t) tb_##l##_scan_##t(op, kind, d_in, d_out, n, scratch, stream)
  TB_CUB_PICK(lib, type, CALL)
#undef CALL
}
