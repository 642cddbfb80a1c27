// A reduction runtime in the shape of an OpenMP GPU runtime: it never sees the
// types of the variables it reduces. A thread's private copies travel as an
// opaque pointer (the ReduceData), and two callbacks, generated for each
// reduction clause, do every type-specific step:
//
//   shuffle_reduce(data, lane_id, offset, version)
//       fetch the data of the lane `offset` lanes up (one shuffle-down over
//       the lanes taking part, found with __activemask()) and fold it into
//       data as `version` says (Version below);
//   inter_warp_copy(data, warp_num)
//       move the data of lane 0 of every warp to lanes 0..warp_num-1 of
//       warp 0, through shared memory; every thread of the block calls it.
//
// Levels: a warp (three algorithms), a block of any thread count, and the
// device (one partial per block, folded by a second kernel). No atomics, no
// locks anywhere. The runtime calls the callbacks through pointers; when it
// is inlined into a kernel whose callbacks are known, the calls inline too.
#pragma once

#include <stdint.h>

namespace tb {
namespace omp {

typedef void (*ShuffleReduceFn)(void* data, int16_t lane_id, int16_t offset, int16_t version);
typedef void (*InterWarpCopyFn)(void* data, int32_t warp_num);

// What shuffle_reduce does with remote = shuffle_down(elem, offset), per element.
enum Version : int16_t {
  kFullWarp = 0,    // elem = elem op remote
  kContiguous = 1,  // lane_id < offset ? elem op remote : remote
  kDispersed = 2,   // lane_id even && offset > 0 ? elem op remote : remote
};

__device__ __forceinline__ int lane_of_thread() { return int(threadIdx.x % 32); }

// The callbacks shuffle over __activemask(); the runtime converges the lanes
// that take part right before each call so that the mask names all of them.

// Version 0: all 32 lanes, five steps, result in lane 0.
__device__ __forceinline__ void warp_reduce_full(void* data, ShuffleReduceFn shuffle_reduce) {
  for (int16_t offset = 16; offset > 0; offset /= 2) {
    __syncwarp();
    shuffle_reduce(data, 0, offset, kFullWarp);
  }
}

// Version 1: lanes 0..size-1 take part (1 <= size <= 32), and only they call.
// Each step folds the upper half of the live lanes onto the lower; with an odd
// count the last lane has no partner, so it is copied to the first lane of
// the upper half (already folded, now free) and the live lanes stay a prefix.
// Result in lane 0.
__device__ __forceinline__ void warp_reduce_contiguous(void* data, ShuffleReduceFn shuffle_reduce,
                                                       int size) {
  const unsigned members = size >= 32 ? ~0u : (1u << size) - 1;
  const int16_t lane = int16_t(lane_of_thread());
  for (int live = size; live > 1; live = (live + 1) / 2) {
    __syncwarp(members);
    shuffle_reduce(data, lane, int16_t(live / 2), kContiguous);
  }
}

// Version 2: any non-empty set of lanes (members), and only they call. A lane's
// logical id is its rank among the live lanes; each round the even ranks fold
// their right-hand live neighbour and the odd ranks, having handed their data
// over, drop out. Neighbours are adjacent, not half a warp apart, because the
// physical lane of a logical neighbour is one __ffs away, while the inverse
// mapping would need a search. Returns true in the lane holding the result
// (the lowest member).
__device__ __forceinline__ bool warp_reduce_dispersed(void* data, ShuffleReduceFn shuffle_reduce,
                                                      unsigned members) {
  const int lane = lane_of_thread();
  const unsigned above_me = lane == 31 ? 0u : ~0u << (lane + 1);
  unsigned live = members;
  int logical = __popc(members & ~(~0u << lane));
  while (__popc(live) > 1) {
    const unsigned next = live & above_me;
    const int offset = next ? __ffs(int(next)) - 1 - lane : 0;
    __syncwarp(live);
    shuffle_reduce(data, int16_t(logical), int16_t(offset), kDispersed);
    const bool stays = logical % 2 == 0;
    live = __ballot_sync(live, stays);
    if (!stays) return false;
    logical /= 2;
  }
  return true;
}

// Reduces the data of the blockDim.x threads of a 1-D block (any count from 1
// to 1024) into thread 0; every thread calls it. Each warp folds its own lanes
// (the last warp of an odd-sized block with the contiguous algorithm), the
// warp masters' data moves to warp 0 through inter_warp_copy, and warp 0
// folds it. Returns true in thread 0.
__device__ __forceinline__ bool block_reduce(void* data, ShuffleReduceFn shuffle_reduce,
                                             InterWarpCopyFn inter_warp_copy) {
  const int warp = int(threadIdx.x / 32);
  const int warp_num = int((blockDim.x + 31) / 32);
  const int lanes = min(32, int(blockDim.x) - warp * 32);
  if (lanes == 32)
    warp_reduce_full(data, shuffle_reduce);
  else
    warp_reduce_contiguous(data, shuffle_reduce, lanes);
  if (warp_num > 1) {
    inter_warp_copy(data, warp_num);
    if (warp == 0 && lane_of_thread() < warp_num)
      warp_reduce_contiguous(data, shuffle_reduce, warp_num);
  }
  return threadIdx.x == 0;
}

// The runtime moves a ReduceData it cannot read as `bytes` (a multiple of 4)
// of 4-byte aligned words.
__device__ __forceinline__ void copy_words(void* dst, const void* src, int bytes) {
  for (int i = 0; i < bytes / 4; ++i)
    static_cast<uint32_t*>(dst)[i] = static_cast<const uint32_t*>(src)[i];
}

// Cross-block reduction, step 1: after block_reduce, thread 0 of each block
// writes its data to the block's own slot. A slot has exactly one writer and
// is written once, so no atomics, locks or fences are needed here.
__device__ __forceinline__ void store_partial(const void* data, int bytes, void* partials,
                                              int64_t slot) {
  copy_words(static_cast<char*>(partials) + slot * bytes, data, bytes);
}

// Cross-block reduction, step 2, in one block (of at least 2 threads) of a
// kernel that runs after the one that wrote the partials: folds
// partials[0, num_slots) into thread 0's data. Round 0 loads slot t into
// thread t; in later rounds thread 0 carries the fold so far and threads 1..
// load the next blockDim.x - 1 slots. Threads without a slot hold the identity.
__device__ __forceinline__ void fold_partials(void* data, const void* identity,
                                              const void* partials, int64_t num_slots, int bytes,
                                              ShuffleReduceFn shuffle_reduce,
                                              InterWarpCopyFn inter_warp_copy) {
  const char* slots = static_cast<const char*>(partials);
  int64_t next = 0;  // first slot not yet loaded
  bool first = true;
  do {
    if (first || threadIdx.x != 0) {
      const int64_t mine = first ? int64_t(threadIdx.x) : next + threadIdx.x - 1;
      copy_words(data, identity, bytes);
      if (mine < num_slots) copy_words(data, slots + mine * bytes, bytes);
    }
    next += first ? blockDim.x : blockDim.x - 1;
    first = false;
    block_reduce(data, shuffle_reduce, inter_warp_copy);
  } while (next < num_slots);
}

}  // namespace omp
}  // namespace tb
