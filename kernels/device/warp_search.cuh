// A search by one warp, for partitions that run one warp per boundary (the
// segmented family's tile limits, segreduce_prep.cu).
#pragma once

#include <stdint.h>

#include "kernels/device/cta_reduce.cuh"

namespace tb {

// The first index in [lo, hi) at which pred is false, for a pred that holds
// on a prefix of the range (hi when it holds throughout); every lane of the
// warp calls it with the same range. A partition is bound by the latency of
// its dependent loads, so each round the 32 lanes probe 32 evenly spaced
// indices and the ballot narrows the range to the gap between two of them:
// 5 rounds over 4M entries, where a binary search takes 22. Where pred is
// not monotone (a malformed input) the result is some index in [lo, hi].
template <typename I, class Pred>
__device__ __forceinline__ I warp_partition_point(I lo, I hi, Pred pred) {
  const int lane = threadIdx.x % 32;
  while (lo < hi) {
    const I probe = lo + I(int64_t(hi - lo) * (lane + 1) / 33);  // in [lo, hi)
    const int below = __popc(__ballot_sync(kFullMask, pred(probe)));
    const I after = __shfl_sync(kFullMask, probe, max(below - 1, 0)) + 1;
    const I at = __shfl_sync(kFullMask, probe, min(below, 31));
    if (below > 0) lo = after;
    if (below < 32) hi = at;
  }
  return lo;
}

}  // namespace tb
