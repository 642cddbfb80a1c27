// Warp and CTA exclusive scan of one value per thread (Kogge-Stone shuffles
// within warps, then a scan of the warp totals by warp 0). The storage is
// owned by the caller.
#pragma once

#include "kernels/device/cta_reduce.cuh"

namespace tb {

// Inclusive scan within a warp.
template <tb_op OP, typename T>
__device__ __forceinline__ T warp_scan_inclusive(T x, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    T y = __shfl_up_sync(kFullMask, x, offset);
    if (lane >= offset) x = Op<OP>::apply(y, x);
  }
  return x;
}

template <tb_op OP, typename T, int NT>
struct CtaScan {
  static_assert(NT % 32 == 0, "NT must be a multiple of the warp size");
  static constexpr int kWarps = NT / 32;
  struct Storage { T warp_totals[kWarps + 1]; };  // + the CTA total

  // Returns this thread's exclusive prefix (the identity in thread 0) and
  // sets *total to the CTA's reduction in every thread.
  __device__ __forceinline__ static T scan_exclusive(T x, T* total, Storage& s) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const T identity = Op<OP>::template identity<T>();
    T incl = warp_scan_inclusive<OP>(x, lane);
    T excl = __shfl_up_sync(kFullMask, incl, 1);
    if (lane == 0) excl = identity;
    if (kWarps == 1) {
      *total = __shfl_sync(kFullMask, incl, 31);
      return excl;
    }
    if (lane == 31) s.warp_totals[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      T w = lane < kWarps ? s.warp_totals[lane] : identity;
      T wincl = warp_scan_inclusive<OP>(w, lane);
      T wexcl = __shfl_up_sync(kFullMask, wincl, 1);
      T cta_total = __shfl_sync(kFullMask, wincl, 31);
      if (lane < kWarps) s.warp_totals[lane] = lane == 0 ? identity : wexcl;
      if (lane == 0) s.warp_totals[kWarps] = cta_total;
    }
    __syncthreads();
    *total = s.warp_totals[kWarps];
    return Op<OP>::apply(s.warp_totals[warp], excl);
  }
};

// CTA exclusive scan whose tile prefix comes from prefix_of(tile_total),
// called by warp 0 between the CTA's two barriers (a look-back, or a carry).
// Returns this thread's exclusive prefix, the tile's prefix included. The
// caller synchronises before reusing the storage.
template <tb_op OP, typename T, int NT>
struct CtaScanWithPrefix {
  static_assert(NT % 32 == 0, "NT must be a multiple of the warp size");
  static constexpr int kWarps = NT / 32;
  struct Storage { T warp_prefix[kWarps]; };

  template <class PrefixOf>
  __device__ __forceinline__ static T scan_exclusive(T x, Storage& s, PrefixOf prefix_of) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const T identity = Op<OP>::template identity<T>();
    const T incl = warp_scan_inclusive<OP>(x, lane);
    if (lane == 31) s.warp_prefix[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      const T w = lane < kWarps ? s.warp_prefix[lane] : identity;
      const T wincl = warp_scan_inclusive<OP>(w, lane);
      const T tile_prefix = prefix_of(__shfl_sync(kFullMask, wincl, 31));
      const T wexcl = __shfl_up_sync(kFullMask, wincl, 1);
      if (lane < kWarps) s.warp_prefix[lane] = Op<OP>::apply(tile_prefix, lane ? wexcl : identity);
    }
    __syncthreads();
    const T excl = __shfl_up_sync(kFullMask, incl, 1);
    return lane ? Op<OP>::apply(s.warp_prefix[warp], excl) : s.warp_prefix[warp];
  }
};

}  // namespace tb
