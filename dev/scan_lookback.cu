// Kernel iteration for the single-pass look-back scan: the CPU reference, a
// check of every variant against it, and a sweep of boxes and look-back
// delays timed beside cub::DeviceScan in the same process. Built with plain
// nvcc on the GPU machine (no Bazel there):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. dev/scan_lookback.cu -o scan_dev
//   ./scan_dev [log2_n ...]
//
// What wins here moves into kernels/; the suites and sweeps then measure it.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "dev/dev_util.cuh"
#include "kernels/device/cta_scan.cuh"
#include "kernels/device/tile_io.cuh"
#include "kernels/device/tile_status.cuh"


using namespace tb;

template <typename T, int NT, int VT>
__global__ void __launch_bounds__(NT)
scan_kernel(const T* in, T* out, int64_t n, TileStatusArray<T> status, LookBackDelay delay,
            bool inclusive) {
  using IO = WarpTranspose<T, VT>;
  using Scan = CtaScanWithPrefix<TB_OP_PLUS, T, NT>;
  __shared__ typename IO::Storage io[NT / 32];
  __shared__ typename Scan::Storage scan;
  constexpr int kTile = NT * VT;
  const int64_t tile = blockIdx.x;
  const int64_t offset = tile * kTile;
  const int count = int(min(int64_t(kTile), n - offset));
  const int warp = threadIdx.x / 32;
  const int warp_offset = warp * IO::kItems;
  const int warp_count = count - warp_offset;
  T x[VT];
  IO::load_blocked(in + offset + warp_offset, warp_count, T(0), x, io[warp]);
  T total = x[0];
#pragma unroll
  for (int i = 1; i < VT; ++i) total = total + x[i];
  T running = Scan::scan_exclusive(total, scan, [&](T tile_total) {
    return look_back_publish<TB_OP_PLUS>(status, tile, tile_total, delay);
  });
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const T item = x[i];
    x[i] = inclusive ? running + item : running;
    running = running + item;
  }
  IO::store_blocked(x, warp_count, out + offset + warp_offset, io[warp]);
}

// The previous design, kept for a same-run before/after: CTA-wide
// transposes (a barrier each way) and the look-back after the CTA scan.
template <typename T, int NT, int VT>
__global__ void __launch_bounds__(NT)
scan_kernel_cta(const T* in, T* out, int64_t n, TileStatusArray<T> status, LookBackDelay delay,
                bool inclusive) {
  using IO = TileTranspose<T, NT, VT>;
  using Scan = CtaScan<TB_OP_PLUS, T, NT>;
  __shared__ typename IO::Storage io;
  __shared__ typename Scan::Storage scan;
  __shared__ T prefix_shared;
  constexpr int kTile = NT * VT;
  const int64_t tile = blockIdx.x;
  const int64_t offset = tile * kTile;
  const int count = int(min(int64_t(kTile), n - offset));
  T x[VT];
  IO::load_blocked(in + offset, count, T(0), x, io);
  T total = x[0];
#pragma unroll
  for (int i = 1; i < VT; ++i) total = total + x[i];
  T tile_total;
  T running = Scan::scan_exclusive(total, &tile_total, scan);
  if (threadIdx.x < 32) {
    const T prefix = look_back_publish<TB_OP_PLUS>(status, tile, tile_total, delay);
    if (threadIdx.x == 0) prefix_shared = prefix;
  }
  __syncthreads();
  running = running + prefix_shared;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const T item = x[i];
    x[i] = inclusive ? running + item : running;
    running = running + item;
  }
  IO::store_blocked(x, count, out + offset, io);
}

template <typename T, int NT, int VT, bool kWarpIO = true>
float run_tb(const T* in, T* out, int64_t n, void* scratch, LookBackDelay delay, int reps) {
  constexpr int kTile = NT * VT;
  const int64_t tiles = (n + kTile - 1) / kTile;
  TileStatusArray<T> status;
  status.bind(scratch, tiles);
  const float ms = median_ms(
      [&] {
        CK(cudaMemsetAsync(scratch, 0, TileStatusArray<T>::bytes(tiles)));
        if (kWarpIO)
          scan_kernel<T, NT, VT><<<unsigned(tiles), NT>>>(in, out, n, status, delay, false);
        else
          scan_kernel_cta<T, NT, VT><<<unsigned(tiles), NT>>>(in, out, n, status, delay, false);
      },
      reps);
  CK(cudaGetLastError());
  return ms;
}

template <typename T>
float run_cub(const T* in, T* out, int64_t n, void* scratch, size_t bytes, int reps) {
  return median_ms([&] { CK(cub::DeviceScan::ExclusiveSum(scratch, bytes, in, out, n)); }, reps);
}

template <typename T>
bool check(const std::vector<T>& h_in, const T* d_out, int64_t n) {
  std::vector<T> got(n);
  CK(cudaMemcpy(got.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  double run = 0;  // the inputs are small integers: exact for integers
  for (int64_t i = 0; i < n; ++i) {
    const double err = double(got[i]) - run;
    const double tol = std::is_integral<T>::value ? 0 : 1e-3 * run;
    if (err > tol || -err > tol) {
      fprintf(stderr, "  mismatch at %lld of %lld: %g, want %g\n", (long long)i, (long long)n,
              double(got[i]), run);
      return false;
    }
    run += double(h_in[i]);
  }
  return true;
}

struct Ctx {
  int64_t n;
  void* in;
  void* out;
  void* scratch;
  size_t scratch_cap;
};

template <typename T, int NT, int VT, bool kWarpIO = true>
void case_tb(const char* tname, const std::vector<T>& h, Ctx& c, float cub_ms, LookBackDelay d) {
  const T* in = static_cast<const T*>(c.in);
  T* out = static_cast<T*>(c.out);
  CK(cudaMemset(out, 0xff, c.n * sizeof(T)));
  run_tb<T, NT, VT, kWarpIO>(in, out, c.n, c.scratch, d, 0);
  CK(cudaDeviceSynchronize());
  const bool ok = c.n > (int64_t(1) << 26) || check(h, out, c.n);  // the CPU check is slow past 2^26
  float ms = run_tb<T, NT, VT, kWarpIO>(in, out, c.n, c.scratch, d, 30);
  printf("%-6s n=2^%-2d %s %3dx%-2d delay %4u/%4u/%4u  %7.4f ms  %6.1f G/s  %.3fx CUB %s\n", tname,
         __builtin_ctzll(c.n), kWarpIO ? "warp" : "cta ", NT, VT, d.first_ns, d.poll_ns, d.poll_max_ns, ms, c.n / ms / 1e6, cub_ms / ms,
         ok ? "" : "WRONG");
}

template <typename T>
void family(const char* tname, int lg) {
  Ctx c;
  c.n = int64_t(1) << lg;
  std::vector<T> h(c.n);
  for (int64_t i = 0; i < c.n; ++i) h[i] = T((i * 2654435761u >> 7) % 7);
  CK(cudaMalloc(&c.in, c.n * sizeof(T)));
  CK(cudaMalloc(&c.out, c.n * sizeof(T)));
  CK(cudaMemcpy(c.in, h.data(), c.n * sizeof(T), cudaMemcpyHostToDevice));
  size_t cub_bytes = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, (const T*)c.in, (T*)c.out, c.n));
  c.scratch_cap = std::max<size_t>(cub_bytes, (c.n / 32 + 1) * 16);
  CK(cudaMalloc(&c.scratch, c.scratch_cap));
  float cub_ms = run_cub((const T*)c.in, (T*)c.out, c.n, c.scratch, cub_bytes, 30);
  printf("%-6s n=2^%-2d CUB  %7.4f ms  %6.1f G/s\n", tname, lg, cub_ms, c.n / cub_ms / 1e6);
  // The previous kernel and box (256x15), with and without the packed word's
  // effect on 8-byte types showing in its own row.
  case_tb<T, 256, 15, false>(tname, h, c, cub_ms, kBackOff);
  for (LookBackDelay d : {kBackOff, LookBackDelay{3000, 1000, 1000}, LookBackDelay{4500, 1000, 1000},
                          LookBackDelay{6000, 1000, 1000}, LookBackDelay{4500, 1500, 1500}}) {
    if constexpr (sizeof(T) == 4) {
      case_tb<T, 128, 23>(tname, h, c, cub_ms, d);
      case_tb<T, 128, 31>(tname, h, c, cub_ms, d);
      case_tb<T, 96, 31>(tname, h, c, cub_ms, d);
    } else {
      case_tb<T, 128, 15>(tname, h, c, cub_ms, d);
      case_tb<T, 128, 19>(tname, h, c, cub_ms, d);
      case_tb<T, 128, 23>(tname, h, c, cub_ms, d);
    }
  }
  // CUB again: drift over the run shows as a change here.
  printf("%-6s n=2^%-2d CUB  %7.4f ms (again)\n", tname, lg,
         run_cub((const T*)c.in, (T*)c.out, c.n, c.scratch, cub_bytes, 30));
  CK(cudaFree(c.in));
  CK(cudaFree(c.out));
  CK(cudaFree(c.scratch));
}

// --ncu: one launch each of the previous design (CTA-wide transposes,
// back-off) and the library's (per-warp transposes, fixed delay, 128x31) at
// 2^26, int32 and int64, for ncu --kernel-name regex:scan_kernel.
void profile_once() {
  const int64_t n = int64_t(1) << 26;
  void *in, *out, *scratch;
  CK(cudaMalloc(&in, n * 8));
  CK(cudaMalloc(&out, n * 8));
  CK(cudaMalloc(&scratch, (n / 32 + 1) * 16));
  CK(cudaMemset(in, 0, n * 8));
  run_tb<int, 256, 15, false>((const int*)in, (int*)out, n, scratch, kBackOff, 0);
  run_tb<int, 128, 31>((const int*)in, (int*)out, n, scratch, LookBackDelay{3000, 1000, 1000}, 0);
  run_tb<long long, 256, 15, false>((const long long*)in, (long long*)out, n, scratch, kBackOff, 0);
  run_tb<long long, 128, 31>((const long long*)in, (long long*)out, n, scratch,
                             LookBackDelay{3000, 1000, 1000}, 0);
  CK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1 && std::string(argv[1]) == "--ncu") {
    profile_once();
    return 0;
  }
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(atoi(argv[i]));
  if (sizes.empty()) sizes = {24, 26, 28};
  for (int lg : sizes) {
    family<int>("int32", lg);
    family<long long>("int64", lg);
    family<float>("float", lg);
    family<double>("double", lg);
  }
  return 0;
}
