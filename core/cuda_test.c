/* GPU tests of :core. Without a device they FAIL: a GPU test never passes
 * silently (use --config=cpu to leave it out on machines without one). */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/cunit.h"
#include "core/meta.h"
#include "core/timing.h"

#define ASSERT_OK(expr)                                                              \
  do {                                                                               \
    tb_status s_ = (expr);                                                           \
    if (s_ != TB_OK) fprintf(stderr, "\n  %s: %s: %s\n", #expr, tb_status_string(s_), tb_last_error()); \
    CU_ASSERT_EQUAL(s_, TB_OK);                                                      \
  } while (0)

TB_TEST(test_device, "device") {
  tb_device_info d;
  ASSERT_OK(tb_device_get(&d));
  CU_ASSERT(d.name[0] != '\0');
  CU_ASSERT(d.sm_major >= 3);
  CU_ASSERT(d.sm_count > 0);
  CU_ASSERT(d.l2_bytes > 0);
  CU_ASSERT(d.global_bytes > 0);
  CU_ASSERT(d.shared_per_block_optin >= 48 * 1024);
  CU_ASSERT(d.driver_version >= d.runtime_version);
  CU_ASSERT_EQUAL(tb_device_get(NULL), TB_ERR_INVALID_ARGUMENT);
}

TB_TEST(test_buffer_round_trip, "buffer_round_trip") {
  enum { N = 1 << 20 };
  int32_t *in = malloc(N * sizeof *in), *out = calloc(N, sizeof *out);
  CU_ASSERT_FATAL(in != NULL && out != NULL);
  for (int i = 0; i < N; ++i) in[i] = i * 7 - 3;
  tb_buffer b = {0};
  ASSERT_OK(tb_buffer_alloc(&b, N * sizeof *in));
  CU_ASSERT_PTR_NOT_NULL(b.ptr);
  CU_ASSERT_EQUAL(b.bytes, N * sizeof *in);
  ASSERT_OK(tb_buffer_upload(&b, in, N * sizeof *in));
  ASSERT_OK(tb_buffer_download(&b, out, N * sizeof *out));
  CU_ASSERT_EQUAL(memcmp(in, out, N * sizeof *in), 0);
  /* Copies larger than the buffer are refused, not performed. */
  CU_ASSERT_EQUAL(tb_buffer_upload(&b, in, N * sizeof *in + 1), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_buffer_download(&b, out, N * sizeof *in + 1), TB_ERR_INVALID_ARGUMENT);
  tb_buffer_free(&b);
  CU_ASSERT_PTR_NULL(b.ptr);
  CU_ASSERT_EQUAL(b.bytes, 0);
  tb_buffer_free(&b);  /* no-op */

  ASSERT_OK(tb_buffer_alloc(&b, 0));
  CU_ASSERT_PTR_NULL(b.ptr);
  ASSERT_OK(tb_buffer_upload(&b, in, 0));
  free(in);
  free(out);
}

TB_TEST(test_out_of_memory, "out_of_memory") {
  tb_buffer b = {0};
  CU_ASSERT_EQUAL(tb_buffer_alloc(&b, (size_t)1 << 50), TB_ERR_OUT_OF_MEMORY);
  fprintf(stderr, "\n  (expected) %s\n", tb_last_error());
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "1125899906842624"));
  CU_ASSERT_PTR_NULL(b.ptr);
  /* The failure is not sticky: the next allocation and a later error check work. */
  ASSERT_OK(tb_buffer_alloc(&b, 1 << 20));
  CU_ASSERT_EQUAL(cudaGetLastError(), cudaSuccess);
  tb_buffer_free(&b);
}

TB_TEST(test_cuda_error_message, "cuda_error_message") {
  CU_ASSERT_EQUAL(tb_cuda_error(cudaErrorInvalidValue, "f(x)", "a.c", 12), TB_ERR_CUDA);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "CUDA error cudaErrorInvalidValue ("));
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), ") in f(x) at a.c:12"));
}

TB_TEST(test_timer, "timer") {
  tb_timer t;
  double s = -1.0;
  tb_buffer b = {0};
  ASSERT_OK(tb_timer_create(&t, 0));
  ASSERT_OK(tb_buffer_alloc(&b, 64 << 20));
  ASSERT_OK(tb_timer_start(&t));
  CU_ASSERT_EQUAL(cudaMemsetAsync(b.ptr, 0, b.bytes, 0), cudaSuccess);
  ASSERT_OK(tb_l2_flush(0));
  ASSERT_OK(tb_timer_stop(&t, &s));
  CU_ASSERT(s > 0.0 && s < 10.0);
  ASSERT_OK(tb_l2_flush(0));  /* reuses its buffer */
  CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaSuccess);
  tb_l2_flush_release();
  tb_l2_flush_release();  /* idempotent */
  tb_buffer_free(&b);
  tb_timer_destroy(&t);
  tb_timer_destroy(&t);
}

TB_TEST(test_meta, "meta") {
  tb_run_meta m;
  ASSERT_OK(tb_run_meta_collect(&m));
  printf("\n  %s (%s, %s) CUDA driver API %s runtime %s commit %s: copy %.1f GB/s\n", m.device.name,
         m.arch, m.gpu_slug, m.cuda_driver_api, m.runtime, m.commit, m.copy_gbps);
  CU_ASSERT(m.copy_gbps > 0.0);
  CU_ASSERT_EQUAL(strncmp(m.arch, "sm_", 3), 0);
  CU_ASSERT(m.gpu_slug[0] != '\0' && strchr(m.gpu_slug, ' ') == NULL);
  CU_ASSERT(strchr(m.cuda_driver_api, '.') != NULL && strchr(m.runtime, '.') != NULL);
  CU_ASSERT(m.commit[0] != '\0');
}

/* Tags of words left in scratch unzeroed: never 0, the low two bits free for
 * the word's state, no two calls alike. */
TB_TEST(test_call_tag, "call_tag") {
  enum { N = 4096 };
  static uint64_t seen[N];
  for (int i = 0; i < N; ++i) {
    seen[i] = tb_call_tag();
    CU_ASSERT(seen[i] != 0);
    CU_ASSERT_EQUAL(seen[i] & 3, 0);
  }
  int repeats = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < i; ++j) repeats += seen[i] == seen[j];
  CU_ASSERT_EQUAL(repeats, 0);
}

int main(void) {
  tb_device_info d;
  tb_status s = tb_device_get(&d);
  if (s == TB_ERR_NO_DEVICE) {
    fprintf(stderr, "FAIL: no CUDA device: this is a GPU test (%s)\n", tb_last_error());
    return 1;
  }
  if (s != TB_OK) {
    fprintf(stderr, "FAIL: %s: %s\n", tb_status_string(s), tb_last_error());
    return 1;
  }
  return tb_test_run("cuda", NULL);
}
