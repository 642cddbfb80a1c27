#include "core/timing.h"

#include <stddef.h>
#include <string.h>

#include "core/cuda.h"

tb_status tb_timer_create(tb_timer *t, cudaStream_t stream) {
  if (t == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_timer_create: timer is NULL");
  memset(t, 0, sizeof *t);
  tb_status st = TB_OK;
  TB_CUDA_GOTO(st, fail, cudaEventCreate(&t->start));
  TB_CUDA_GOTO(st, fail, cudaEventCreate(&t->stop));
  t->stream = stream;
  return TB_OK;
fail:
  tb_timer_destroy(t);
  return st;
}

void tb_timer_destroy(tb_timer *t) {
  if (t == NULL) return;
  if (t->start) (void)cudaEventDestroy(t->start);
  if (t->stop) (void)cudaEventDestroy(t->stop);
  memset(t, 0, sizeof *t);
}

tb_status tb_timer_start(tb_timer *t) {
  if (t == NULL || t->start == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_timer_start: timer not created");
  TB_CUDA_TRY(cudaEventRecord(t->start, t->stream));
  return TB_OK;
}

tb_status tb_timer_stop(tb_timer *t, double *seconds) {
  if (t == NULL || t->stop == NULL || seconds == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_timer_stop: timer not created or seconds NULL");
  float ms = 0.0f;
  TB_CUDA_TRY(cudaEventRecord(t->stop, t->stream));
  TB_CUDA_TRY(cudaEventSynchronize(t->stop));
  TB_CUDA_TRY(cudaEventElapsedTime(&ms, t->start, t->stop));
  *seconds = (double)ms * 1e-3;
  return TB_OK;
}

/* One flush buffer per process (benchmarks run on one thread, one device);
 * it is reallocated if the current device changes. */
static tb_buffer flush_buf;
static int flush_dev = -1;

tb_status tb_l2_flush(cudaStream_t stream) {
  int dev = 0, l2 = 0;
  TB_CUDA_TRY(cudaGetDevice(&dev));
  if (flush_buf.ptr == NULL || dev != flush_dev) {
    tb_l2_flush_release();
    TB_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    if (l2 <= 0) return TB_OK;  /* no L2 to evict */
    TB_TRY(tb_buffer_alloc(&flush_buf, 2 * (size_t)l2));
    flush_dev = dev;
  }
  TB_CUDA_TRY(cudaMemsetAsync(flush_buf.ptr, 0, flush_buf.bytes, stream));
  return TB_OK;
}

void tb_l2_flush_release(void) {
  tb_buffer_free(&flush_buf);
  flush_dev = -1;
}
