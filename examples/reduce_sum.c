/* A program outside the workspace, built against the installed library:
 *
 *   ./tilebench install /opt/tilebench
 *   export PKG_CONFIG_PATH=/opt/tilebench/lib/pkgconfig
 *   cc reduce_sum.c $(pkg-config --cflags --libs tilebench) -o reduce_sum
 *
 * Sums 2^24 int32 on the GPU and checks the total against the CPU's. Exit 0
 * when they agree, 77 when there is no GPU (TB_ERR_NO_DEVICE), 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <tilebench.h>

int main(void) {
  const int64_t n = (int64_t)1 << 24;
  tb_status s = tb_device_check();
  if (s != TB_OK) {
    fprintf(stderr, "reduce_sum: %s: %s\n", tb_status_string(s), tb_last_error());
    return s == TB_ERR_NO_DEVICE ? 77 : 1;
  }
  int32_t *h_in = malloc((size_t)n * sizeof *h_in);
  int32_t *d_in = NULL;
  if (!h_in || cudaMalloc((void **)&d_in, (size_t)n * sizeof *d_in) != cudaSuccess) {
    fprintf(stderr, "reduce_sum: out of memory\n");
    return 1;
  }
  int64_t want = 0;
  for (int64_t i = 0; i < n; ++i) want += h_in[i] = (int32_t)(i % 1000) - 500;
  cudaMemcpy(d_in, h_in, (size_t)n * sizeof *h_in, cudaMemcpyHostToDevice);

  int32_t total = 0;
  tb_buffer scratch = {0}; /* kept across calls; grown as needed */
  s = tb_reduce(TB_INT32, TB_OP_PLUS, d_in, n, NULL, &total, NULL, &scratch, 0);
  tb_buffer_free(&scratch);
  cudaFree(d_in);
  free(h_in);
  if (s != TB_OK) {
    fprintf(stderr, "reduce_sum: %s: %s\n", tb_status_string(s), tb_last_error());
    return 1;
  }
  printf("reduce_sum: tilebench %s: %lld (%s)\n", TILEBENCH_VERSION, (long long)total,
         total == (int32_t)want ? "ok" : "WRONG");
  return total == (int32_t)want ? 0 : 1;
}
