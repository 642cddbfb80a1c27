// Warp and CTA reduction with shuffles. The CTA reduction leaves the result
// in thread 0 only; its storage is owned (and unioned) by the caller.
#pragma once

#include "kernels/device/ops.cuh"

namespace tb {

constexpr unsigned kFullMask = 0xffffffffu;

template <tb_op OP, typename T>
__device__ __forceinline__ T warp_reduce(T x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    x = Op<OP>::apply(x, __shfl_xor_sync(kFullMask, x, offset));
  return x;  // every lane holds the warp's total
}

template <tb_op OP, typename T, int NT>
struct CtaReduce {
  static_assert(NT % 32 == 0, "NT must be a multiple of the warp size");
  static constexpr int kWarps = NT / 32;
  struct Storage { T warp_totals[kWarps]; };

  __device__ __forceinline__ static T reduce(T x, Storage& s) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    x = warp_reduce<OP>(x);
    if (kWarps == 1) return x;
    if (lane == 0) s.warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {
      x = lane < kWarps ? s.warp_totals[lane] : Op<OP>::template identity<T>();
      x = warp_reduce<OP>(x);
    }
    return x;
  }
};

}  // namespace tb
