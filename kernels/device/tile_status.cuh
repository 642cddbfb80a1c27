// Per-tile status for single-pass scans with decoupled look-back.
//
// Each tile publishes its aggregate (AGGREGATE) as soon as it is reduced and
// its inclusive prefix (PREFIX) once known; successors read a window of 32
// predecessors per step. Status and value share one 16-byte word, written and
// read with one relaxed v2.u64 access (as CUB does on sm_90), so a reader sees
// both or neither and needs no acquire or second, dependent load.
//
// The status half carries the call's tag (tb_call_tag, core/cuda.h: 62 bits,
// the low two free): a word that any earlier call or other use of the scratch
// left reads as INVALID, so nothing is zeroed before the launch (a memset or
// an init kernel ahead of the scan costs 2-4 us a call, docs/design.md).
#pragma once

#include <string.h>

#include "kernels/device/cta_reduce.cuh"

namespace tb {

enum TileStatus : unsigned { kInvalid = 0, kAggregate = 1, kPrefix = 2 };

// How long a look-back waits: first_ns once after the tile posts its
// aggregate (about the time a predecessor's prefix takes to reach L2), then
// poll_ns between polls, doubling up to poll_max_ns. Zeros spin.
struct LookBackDelay {
  unsigned first_ns, poll_ns, poll_max_ns;
};
// Exponential back-off from 32 ns: thousands of warps spinning on L2 take
// bandwidth from the tiles' own loads and stores.
constexpr LookBackDelay kBackOff{0, 32, 512};
// For grids of more than one wave: a predecessor is rarely done sooner, and
// fewer polls leave L2 to the tiles' loads and stores (3 and 1 us measured
// best for scan on the H100, docs/reduce_scan.md, "Decisions").
constexpr LookBackDelay kFixedDelay{3000, 1000, 1000};

template <typename T>
struct TileStatusArray {
  static_assert(sizeof(T) <= 8, "a value in 8 bytes");
  struct alignas(16) Word { unsigned long long status, value; };
  Word* words;
  unsigned long long tag;  // the call's: low two bits 0

  static size_t bytes(int64_t tiles) { return size_t(tiles) * sizeof(Word); }
  void bind(void* p, uint64_t call_tag) {
    words = static_cast<Word*>(p);
    tag = call_tag;
  }

  __device__ __forceinline__ void publish(int64_t tile, TileStatus st, T value) const {
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof(T));
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + tile), "l"(tag | st),
                 "l"(bits)
                 : "memory");
  }
  __device__ __forceinline__ TileStatus read(int64_t tile, T* value) const {
    unsigned long long st, bits;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(st), "=l"(bits)
                 : "l"(words + tile)
                 : "memory");
    memcpy(value, &bits, sizeof(T));
    return (st & ~3ull) == tag ? static_cast<TileStatus>(st & 3) : kInvalid;
  }
};

// The look-back loop over any status array whose read(pred, &x) gives a V:
// warp 0 walks the predecessors of `tile` (> 0), 32 a step, lane 31 the
// nearest, up to the nearest PREFIX. `window` reduces a step's values in
// tile order (those past the nearest prefix are the identity);
// combine(window, prefix) puts it before what nearer steps gave.
template <typename V, class Status, class Window, class Combine>
__device__ __forceinline__ V look_back_over(const Status& status, int64_t tile,
                                            LookBackDelay delay, V identity, Window window,
                                            Combine combine) {
  const int lane = threadIdx.x % 32;
  if (delay.first_ns) __nanosleep(delay.first_ns);
  V prefix = identity;
  for (int64_t nearest = tile - 1;; nearest -= 32) {
    const int64_t pred = nearest - (31 - lane);  // lane 31 reads the nearest
    V x = identity;
    TileStatus st = kPrefix;  // nothing before tile 0
    if (pred >= 0) st = status.read(pred, &x);
    for (unsigned wait = delay.poll_ns; __any_sync(kFullMask, st == kInvalid);
         wait = min(2 * wait, delay.poll_max_ns)) {
      if (wait) __nanosleep(wait);
      if (st == kInvalid) st = status.read(pred, &x);
    }
    const unsigned prefixes = __ballot_sync(kFullMask, st == kPrefix);
    const int first = prefixes ? 31 - __clz(prefixes) : 0;  // nearest prefix
    prefix = combine(window(lane >= first ? x : identity), prefix);
    if (prefixes) return prefix;
  }
}

// Warp 0 finds the exclusive prefix of `tile` (> 0) from its predecessors'
// published aggregates and prefixes.
template <tb_op OP, typename T>
__device__ T look_back(const TileStatusArray<T>& status, int64_t tile,
                       LookBackDelay delay = kBackOff) {
  return look_back_over(
      status, tile, delay, Op<OP>::template identity<T>(),
      [](T x) { return warp_reduce<OP>(x); }, [](T a, T b) { return Op<OP>::apply(a, b); });
}

// The whole protocol for one tile, run by warp 0: post the tile's aggregate,
// look back, post its inclusive prefix. Returns the tile's exclusive prefix
// in every lane (the identity for tile 0).
template <tb_op OP, typename T>
__device__ __forceinline__ T look_back_publish(const TileStatusArray<T>& status, int64_t tile,
                                               T tile_total, LookBackDelay delay = kBackOff) {
  const bool leader = threadIdx.x == 0;
  if (tile == 0) {
    if (leader) status.publish(0, kPrefix, tile_total);
    return Op<OP>::template identity<T>();
  }
  if (leader) status.publish(tile, kAggregate, tile_total);
  const T prefix = look_back<OP>(status, tile, delay);
  if (leader) status.publish(tile, kPrefix, Op<OP>::apply(prefix, tile_total));
  return prefix;
}

}  // namespace tb
