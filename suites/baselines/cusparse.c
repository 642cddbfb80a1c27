/* cuSPARSE SpMV baseline: everything but the cusparseSpMV call happens in
 * create(), so that a timed run() measures the multiplication alone. */
#include "suites/baselines/cusparse.h"

#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>

/* A failing cusparseStatus_t becomes TB_ERR_CUDA with cuSPARSE's own string
 * and the call site; jumps to `label` so that create() can release what it made. */
#define TB_CUSPARSE_GOTO(st, label, expr)                                                  \
  do {                                                                                     \
    cusparseStatus_t tb_cs_ = (expr);                                                      \
    if (tb_cs_ != CUSPARSE_STATUS_SUCCESS) {                                               \
      st = tb_fail(TB_ERR_CUDA, "cuSPARSE error %s in %s at %s:%d",                        \
                   cusparseGetErrorString(tb_cs_), #expr, __FILE__, __LINE__);             \
      goto label;                                                                          \
    }                                                                                      \
  } while (0)

struct tb_cusparse_spmv {
  cusparseHandle_t handle;
  cusparseConstSpMatDescr_t a;
  cusparseConstDnVecDescr_t x;
  cusparseDnVecDescr_t y;
  cudaDataType value_type;
  cusparseSpMVAlg_t alg;
  union { float f32; double f64; } alpha, beta; /* host scalars (default pointer mode) */
  tb_buffer buffer;
};

tb_status tb_cusparse_spmv_create(tb_type type, int alg, int64_t rows, int64_t cols, int64_t nnz,
                                  const int32_t *d_row_offsets, const int32_t *d_cols,
                                  const void *d_values, const void *d_x, void *d_y,
                                  bool preprocess, cudaStream_t stream, tb_cusparse_spmv **out) {
  if (out == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "cuSPARSE baseline: out is NULL");
  *out = NULL;
  if (type != TB_FLOAT && type != TB_DOUBLE)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "cuSPARSE baseline: spmv with %s is not wrapped",
                   tb_type_name(type));
  if (alg != 1 && alg != 2)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "cuSPARSE baseline: spmv algorithm %d is not 1 or 2", alg);
  /* 32-bit indices: row offsets reach nnz, column indices reach cols - 1. */
  if (rows < 0 || cols < 0 || nnz < 0 || rows >= INT32_MAX || cols > INT32_MAX || nnz > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "cuSPARSE baseline: rows = %lld, cols = %lld, nnz = %lld do not fit int32 indices",
                   (long long)rows, (long long)cols, (long long)nnz);

  tb_cusparse_spmv *s = calloc(1, sizeof *s);
  if (s == NULL) return tb_fail(TB_ERR_OUT_OF_MEMORY, "cuSPARSE baseline: out of host memory");
  tb_status st = TB_OK;
  s->value_type = type == TB_FLOAT ? CUDA_R_32F : CUDA_R_64F;
  s->alg = alg == 1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_CSR_ALG2;
  if (type == TB_FLOAT) s->alpha.f32 = 1.0f, s->beta.f32 = 0.0f;
  else s->alpha.f64 = 1.0, s->beta.f64 = 0.0;

  TB_CUSPARSE_GOTO(st, fail, cusparseCreate(&s->handle));
  TB_CUSPARSE_GOTO(st, fail, cusparseSetStream(s->handle, stream));
  TB_CUSPARSE_GOTO(st, fail, cusparseCreateConstCsr(&s->a, rows, cols, nnz, d_row_offsets, d_cols,
                                                    d_values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                    CUSPARSE_INDEX_BASE_ZERO, s->value_type));
  TB_CUSPARSE_GOTO(st, fail, cusparseCreateConstDnVec(&s->x, cols, d_x, s->value_type));
  TB_CUSPARSE_GOTO(st, fail, cusparseCreateDnVec(&s->y, rows, d_y, s->value_type));
  size_t bytes = 0;
  TB_CUSPARSE_GOTO(st, fail, cusparseSpMV_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                     &s->alpha, s->a, s->x, &s->beta, s->y,
                                                     s->value_type, s->alg, &bytes));
  st = tb_buffer_alloc(&s->buffer, bytes);
  if (st != TB_OK) goto fail;
  /* Preprocessing is optional: where the algorithm has nothing to prepare it is
   * a no-op. Once done, every cusparseSpMV must get the same buffer. */
  if (preprocess)
    TB_CUSPARSE_GOTO(st, fail, cusparseSpMV_preprocess(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                     &s->alpha, s->a, s->x, &s->beta, s->y,
                                                     s->value_type, s->alg, s->buffer.ptr));
  *out = s;
  return TB_OK;
fail:
  tb_cusparse_spmv_destroy(s);
  return st;
}

const char *tb_cusparse_version(void) {
  static char text[32];
  int major = 0, minor = 0, patch = 0;
  if (!text[0] && cusparseGetProperty(MAJOR_VERSION, &major) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(MINOR_VERSION, &minor) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(PATCH_LEVEL, &patch) == CUSPARSE_STATUS_SUCCESS)
    snprintf(text, sizeof text, "%d.%d.%d", major, minor, patch);
  return text[0] ? text : "unknown";
}

tb_status tb_cusparse_spmv_run(tb_cusparse_spmv *s) {
  if (s == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "cuSPARSE baseline: spmv handle is NULL");
  tb_status st = TB_OK;
  TB_CUSPARSE_GOTO(st, done, cusparseSpMV(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &s->alpha,
                                          s->a, s->x, &s->beta, s->y, s->value_type, s->alg,
                                          s->buffer.ptr));
done:
  return st;
}

/* Destroys in reverse order of creation; each part may be missing (a failed
 * create() calls this on what it got so far). */
void tb_cusparse_spmv_destroy(tb_cusparse_spmv *s) {
  if (s == NULL) return;
  if (s->y) cusparseDestroyDnVec(s->y);
  if (s->x) cusparseDestroyDnVec(s->x);
  if (s->a) cusparseDestroySpMat(s->a);
  tb_buffer_free(&s->buffer);
  if (s->handle) cusparseDestroy(s->handle);
  free(s);
}
