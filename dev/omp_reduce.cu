// Kernel iteration for the OpenMP-style reduction (kernels/omp_reduce.cu):
// the library's own region and combine kernels, launched through its
// dispatch (tb_omp_launch) over a grid of boxes and block counts, checked
// against a CPU sum and timed beside cub::DeviceReduce::Sum in the same
// process, with the L2 flushed before every launch as the sweep does.
// Built with plain nvcc on the GPU machine:
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. dev/omp_reduce.cu kernels/omp_reduce.cu \
//        core/status.c core/cuda.c -o omp_dev
//   ./omp_dev [log2_n ...]          (default 20 22 24 26)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmath>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "dev/dev_util.cuh"
#include "kernels/tilebench.h"
#include "kernels/omp_reduce_dispatch.h"

// Blocks for a box: the library's rule (one per resident slot, at most one
// per tile) times `waves`, or one block per tile when waves = 0.
static int64_t blocks_for(const tb_omp_clause& clause, int nt, int vt, int64_t n, int elem,
                          int waves) {
  int per_sm = 0, sms = 0;
  if (tb_omp_residency(&clause, TB_OMP_TREE, true, nt, vt, &per_sm, &sms) != TB_OK) exit(1);
  const int64_t tile = int64_t(nt) * vt * (16 / elem);
  const int64_t tiles = (n + tile - 1) / tile;
  if (waves == 0) return tiles;
  const int64_t slots = int64_t(per_sm) * sms * waves;
  return tiles < slots ? tiles : slots;
}

int main(int argc, char** argv) {
  std::vector<int> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(atoi(argv[i]));
  if (logs.empty()) logs = {20, 22, 24, 26};
  const int64_t max_n = int64_t(1) << *std::max_element(logs.begin(), logs.end());

  std::vector<double> h(max_n);
  uint64_t s = 88172645463325252ull;
  for (auto& x : h) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x = double(s >> 11) * 0x1.0p-53;
  }
  double *d_in, *d_out;
  CK(cudaMalloc(&d_in, max_n * sizeof(double)));
  CK(cudaMalloc(&d_out, sizeof(double)));
  CK(cudaMemcpy(d_in, h.data(), max_n * sizeof(double), cudaMemcpyHostToDevice));
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  void* flush;
  CK(cudaMalloc(&flush, 2 * size_t(l2)));
  void* partials;
  CK(cudaMalloc(&partials, size_t(1) << 26));
  size_t cub_bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, cub_bytes, d_in, d_out, max_n));
  void* cub_tmp;
  CK(cudaMalloc(&cub_tmp, cub_bytes + 1));
  tb_omp_callbacks cb;
  if (tb_omp_device_callbacks(&cb) != TB_OK) return 1;

  // Median of 30 launches, each after an L2 flush that runs outside the
  // timed events, as the sweep times them.
  auto timed = [&](auto&& launch) {
    return median_ms(launch, 30, [&] { CK(cudaMemsetAsync(flush, 0, 2 * size_t(l2))); });
  };
  struct Box {
    int nt, vt;
  };
  const Box boxes[] = {{512, 4}, {256, 4}, {256, 8}, {128, 8}, {1024, 2}};
  const int waves[] = {1, 2, 4, 0};
  printf("%-6s %-10s %-6s %-8s %10s %8s\n", "log2n", "box", "waves", "blocks", "us", "vs_cub");
  for (int lg : logs) {
    const int64_t n = int64_t(1) << lg;
    double want = 0;
    for (int64_t i = 0; i < n; ++i) want += h[i];
    const float cub_ms = timed([&] {
      size_t b = cub_bytes;
      CK(cub::DeviceReduce::Sum(cub_tmp, b, d_in, d_out, n));
    });
    printf("%-6d %-10s %-6s %-8s %10.2f %8s\n", lg, "cub", "-", "-", cub_ms * 1e3, "1.000");
    for (const Box& b : boxes)
      for (int w : waves) {
        tb_omp_clause clause = {};
        clause.num_vars = 1;
        clause.in[0] = d_in;
        clause.result[0] = d_out;
        clause.code[0] = tb_omp_code(TB_DOUBLE, TB_OP_PLUS);
        const int64_t blocks = blocks_for(clause, b.nt, b.vt, n, 8, w);
        auto launch = [&] {
          if (tb_omp_launch(&clause, n, TB_OMP_TREE, b.nt, b.vt, blocks, &cb, true, partials, 0) !=
              TB_OK)
            exit(1);
        };
        const double zero = 0;
        CK(cudaMemcpy(d_out, &zero, sizeof zero, cudaMemcpyHostToDevice));
        launch();
        double got;
        CK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
        if (std::fabs(got - want) > 1e-9 * want) {
          printf("WRONG %d %dx%d blocks %lld: %.17g want %.17g\n", lg, b.nt, b.vt,
                 (long long)blocks, got, want);
          return 1;
        }
        const float ms = timed(launch);
        char box[16], wv[8];
        snprintf(box, sizeof box, "%dx%d", b.nt, b.vt);
        snprintf(wv, sizeof wv, w ? "%d" : "tiles", w);
        printf("%-6d %-10s %-6s %-8lld %10.2f %8.3f\n", lg, box, wv, (long long)blocks, ms * 1e3,
               cub_ms / ms);
      }
  }
  return 0;
}
