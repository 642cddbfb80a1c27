// Single-pass reduce-by-key: one CTA per tile of NT*VT (key, value) items.
//
// A run ends at item i if i is the last item or key[i] != key[i+1]. The tile
// scans pairs (n, v) under the segmented operator
//   (n1, v1) + (n2, v2) = (n1 + n2, n2 ? v2 : OP(v1, v2)),
// n counting run ends and v reducing the items after the last of them (the
// still open run), so a run end's exclusive prefix gives its output index
// (n) and the part of its run that lies before it (v), possibly from earlier
// tiles. The tile's prefix comes from a decoupled look-back whose status
// word carries the pair.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/device/cta_reduce.cuh"
#include "kernels/device/tile_io.cuh"
#include "kernels/device/tile_status.cuh"

namespace tb {

// n run ends so far; v the reduction of the items after the last of them.
template <typename T>
struct RunPair {
  int n;
  T v;
};

template <tb_op OP, typename T>
__device__ __forceinline__ RunPair<T> run_identity() {
  return {0, Op<OP>::template identity<T>()};
}

// a then b (a covers the earlier items). Associative, not commutative.
template <tb_op OP, typename T>
__device__ __forceinline__ RunPair<T> run_combine(RunPair<T> a, RunPair<T> b) {
  return {a.n + b.n, b.n ? b.v : Op<OP>::apply(a.v, b.v)};
}

template <typename T>
__device__ __forceinline__ RunPair<T> run_shfl_up(RunPair<T> x, int delta) {
  return {__shfl_up_sync(kFullMask, x.n, delta), __shfl_up_sync(kFullMask, x.v, delta)};
}
template <typename T>
__device__ __forceinline__ RunPair<T> run_shfl_xor(RunPair<T> x, int mask) {
  return {__shfl_xor_sync(kFullMask, x.n, mask), __shfl_xor_sync(kFullMask, x.v, mask)};
}
template <typename T>
__device__ __forceinline__ RunPair<T> run_shfl(RunPair<T> x, int src) {
  return {__shfl_sync(kFullMask, x.n, src), __shfl_sync(kFullMask, x.v, src)};
}

// Inclusive scan of pairs within a warp, in lane order.
template <tb_op OP, typename T>
__device__ __forceinline__ RunPair<T> warp_run_scan_inclusive(RunPair<T> x, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const RunPair<T> y = run_shfl_up(x, offset);
    if (lane >= offset) x = run_combine<OP>(y, x);
  }
  return x;
}

// Reduction of the warp's pairs in lane order, in every lane: a butterfly in
// which the lane of the upper half puts its partner's (earlier) half first,
// so both halves combine the same operands in the same order.
template <tb_op OP, typename T>
__device__ __forceinline__ RunPair<T> warp_run_reduce(RunPair<T> x, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const RunPair<T> y = run_shfl_xor(x, offset);
    x = (lane & offset) ? run_combine<OP>(y, x) : run_combine<OP>(x, y);
  }
  return x;
}

// One 16-byte status word per tile, written and read with one relaxed
// v2.u64 access. Values of up to 4 bytes: {tag | status, run count << 32 |
// value bits}; the call's tag makes a word any earlier call left read as
// INVALID (TileStatusArray), so nothing is zeroed. An 8-byte value fills the
// second half, and the count of an inclusive prefix reaches `count` (< 2^31),
// leaving 30 bits for a tag, too few: those words are {status << 32 | run
// count, value bits}, zeroed before the launch.
template <typename T>
struct RunStatusArray {
  static_assert(sizeof(T) <= 8, "run status words hold values of up to 8 bytes");
  static constexpr bool kTagged = sizeof(T) <= 4;
  struct alignas(16) Word {
    unsigned long long head, bits;
  };
  Word* words;
  unsigned long long tag;  // the call's (tb_call_tag), where kTagged

  static constexpr size_t bytes(int64_t tiles) { return size_t(tiles) * sizeof(Word); }
  void bind(void* p, uint64_t call_tag) {
    words = static_cast<Word*>(p);
    tag = call_tag;
  }

  __device__ __forceinline__ void publish(int64_t tile, TileStatus st, RunPair<T> x) const {
    unsigned long long value = 0;
    memcpy(&value, &x.v, sizeof(T));
    const unsigned long long n = static_cast<unsigned>(x.n);
    const unsigned long long head =
        kTagged ? tag | st : static_cast<unsigned long long>(st) << 32 | n;
    const unsigned long long bits = kTagged ? n << 32 | value : value;
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + tile), "l"(head),
                 "l"(bits)
                 : "memory");
  }
  __device__ __forceinline__ TileStatus read(int64_t tile, RunPair<T>* x) const {
    unsigned long long head, bits;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(head), "=l"(bits)
                 : "l"(words + tile)
                 : "memory");
    if constexpr (kTagged) {
      const unsigned value = static_cast<unsigned>(bits);
      x->n = static_cast<int>(static_cast<unsigned>(bits >> 32));
      memcpy(&x->v, &value, sizeof(T));
      return (head & ~3ull) == tag ? static_cast<TileStatus>(head & 3) : kInvalid;
    } else {
      x->n = static_cast<int>(static_cast<unsigned>(head));
      memcpy(&x->v, &bits, sizeof(T));
      return static_cast<TileStatus>(head >> 32);
    }
  }
};

// Warp 0 finds the exclusive prefix pair of `tile` (> 0); each window is
// reduced in tile order and goes before what nearer windows gave.
template <tb_op OP, typename T>
__device__ RunPair<T> run_look_back(const RunStatusArray<T>& status, int64_t tile,
                                    LookBackDelay delay) {
  const int lane = threadIdx.x % 32;
  return look_back_over(
      status, tile, delay, run_identity<OP, T>(),
      [lane](RunPair<T> x) { return warp_run_reduce<OP>(x, lane); },
      [](RunPair<T> a, RunPair<T> b) { return run_combine<OP>(a, b); });
}

// Post the tile's aggregate, look back, post its inclusive prefix (warp 0).
// Returns the tile's exclusive prefix in every lane.
template <tb_op OP, typename T>
__device__ __forceinline__ RunPair<T> run_look_back_publish(const RunStatusArray<T>& status,
                                                            int64_t tile, RunPair<T> total,
                                                            LookBackDelay delay) {
  const bool leader = threadIdx.x == 0;
  if (tile == 0) {
    if (leader) status.publish(0, kPrefix, total);
    return run_identity<OP, T>();
  }
  if (leader) status.publish(tile, kAggregate, total);
  const RunPair<T> prefix = run_look_back<OP>(status, tile, delay);
  if (leader) status.publish(tile, kPrefix, run_combine<OP>(prefix, total));
  return prefix;
}

// CTA exclusive scan of one pair per thread, the tile's prefix from
// prefix_of(tile total), called by warp 0 between the two barriers (the
// shape of CtaScanWithPrefix). Also leaves the tile's first run index and
// run count in the storage for every thread.
template <tb_op OP, typename T, int NT>
struct CtaRunScan {
  static_assert(NT % 32 == 0 && NT <= 1024, "NT must be a multiple of the warp size");
  static constexpr int kWarps = NT / 32;
  struct Storage {
    RunPair<T> warp_prefix[kWarps];
    int tile_base;  // run ends before the tile
    int tile_runs;  // run ends in the tile
  };

  template <class PrefixOf>
  __device__ __forceinline__ static RunPair<T> scan_exclusive(RunPair<T> x, Storage& s,
                                                              PrefixOf prefix_of) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const RunPair<T> incl = warp_run_scan_inclusive<OP>(x, lane);
    if (lane == 31) s.warp_prefix[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      const RunPair<T> w = lane < kWarps ? s.warp_prefix[lane] : run_identity<OP, T>();
      const RunPair<T> wincl = warp_run_scan_inclusive<OP>(w, lane);
      const RunPair<T> total = run_shfl(wincl, 31);
      const RunPair<T> tile_prefix = prefix_of(total);
      const RunPair<T> wexcl = run_shfl_up(wincl, 1);
      if (lane < kWarps)
        s.warp_prefix[lane] = lane ? run_combine<OP>(tile_prefix, wexcl) : tile_prefix;
      if (lane == 0) {
        s.tile_base = tile_prefix.n;
        s.tile_runs = total.n;
      }
    }
    __syncthreads();
    const RunPair<T> excl = run_shfl_up(incl, 1);
    return lane ? run_combine<OP>(s.warp_prefix[warp], excl) : s.warp_prefix[warp];
  }
};

// What every run-based tile shares once its front has loaded the tile's
// items (blocked, VT per thread, into its warp's value buffer) and found
// which of them end a run: the scan of (run ends, value) pairs with the
// look-back, then each run's reduction stored at its rank when the rank is
// below `limit`. Fronts: reduce-by-key (keys), segmented reduction over CSR
// and its preprocessed codes (kernels/segreduce.cu).
//
// Only the run-end mask and the scan's pair stay in registers across the
// scan and look-back: after it each thread rereads its values from the load
// buffer, which nothing overwrites. A tile of more than stage_above runs
// writes each run's reduction over its own last item's slot and that item's
// position at the run's rank, then copies the runs out coalesced after one
// barrier; fewer runs are stored directly, which costs no barrier.
template <tb_op OP, typename T, int NT, int VT>
struct CtaRunReduce {
  static_assert(VT >= 1 && VT <= 32, "run ends are a 32-bit mask per thread");
  static_assert(NT * VT <= 65536, "positions in the tile are 16-bit");
  static constexpr int kWarps = NT / 32;
  static constexpr int kTile = NT * VT;
  using ValIO = WarpTranspose<T, VT>;
  using Scan = CtaRunScan<OP, T, NT>;
  static constexpr int kWarpItems = ValIO::kItems;
  struct Storage {
    typename ValIO::Storage vals[kWarps];
    uint16_t pos[kTile];  // by rank in the tile: the position of the run's last item
    typename Scan::Storage scan;
  };

  // x: this thread's items, also in its slots of s.vals[warp]; ends: which
  // of them end a run. store_beside(rank, warp, slot) stores what a front
  // keeps beside a run's value (its key), from the run's last item's slot.
  // Writes the run count to *num_out from the last tile, when num_out is
  // given.
  template <class StoreBeside>
  __device__ __forceinline__ static void run(const T (&x)[VT], unsigned ends,
                                             T* __restrict__ values_out, int limit,
                                             int32_t* num_out, const RunStatusArray<T>& status,
                                             LookBackDelay delay, int stage_above, Storage& s,
                                             StoreBeside store_beside) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned tile = blockIdx.x;
    const T identity = Op<OP>::template identity<T>();
    RunPair<T> agg = {__popc(ends), identity};
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      agg.v = Op<OP>::apply(agg.v, x[i]);
      if (ends >> i & 1) agg.v = identity;
    }

    const RunPair<T> pre = Scan::scan_exclusive(agg, s.scan, [&](RunPair<T> total) {
      return run_look_back_publish<OP>(status, tile, total, delay);
    });
    const int tile_base = s.scan.tile_base, tile_runs = s.scan.tile_runs;
    if (num_out && threadIdx.x == 0 && tile == gridDim.x - 1) *num_out = tile_base + tile_runs;

    T* my_vals = s.vals[warp].items;
    const int mine = lane * VT;  // this thread's first item in the warp's slice
    int r = pre.n;
    T v = pre.v;
    if (tile_runs > stage_above) {  // uniform over the CTA
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const int slot = ValIO::slot(mine + i);
        v = Op<OP>::apply(v, my_vals[slot]);
        if (ends >> i & 1) {
          my_vals[slot] = v;
          s.pos[r - tile_base] = uint16_t(warp * kWarpItems + mine + i);
          ++r;
          v = identity;
        }
      }
      __syncthreads();
      for (int j = threadIdx.x; j < tile_runs && tile_base + j < limit; j += NT) {
        const int p = s.pos[j], w = p / kWarpItems, slot = ValIO::slot(p - w * kWarpItems);
        values_out[tile_base + j] = s.vals[w].items[slot];
        store_beside(tile_base + j, w, slot);
      }
    } else {
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const int slot = ValIO::slot(mine + i);
        v = Op<OP>::apply(v, my_vals[slot]);
        if (ends >> i & 1) {
          if (r < limit) {
            values_out[r] = v;
            store_beside(r, warp, slot);
          }
          ++r;
          v = identity;
        }
      }
    }
  }
};

// One tile of reduce-by-key. keys_out and num_out may be NULL.
template <tb_op OP, typename T, int NT, int VT>
struct CtaReduceByKey {
  using Core = CtaRunReduce<OP, T, NT, VT>;
  static constexpr int kWarps = Core::kWarps;
  static constexpr int kTile = Core::kTile;
  using KeyIO = WarpTranspose<int32_t, VT>;
  using ValIO = typename Core::ValIO;
  static constexpr int kWarpItems = KeyIO::kItems;
  struct Storage {
    typename Core::Storage core;
    typename KeyIO::Storage keys[kWarps];
  };

  // count > 0; the grid has one CTA per tile.
  __device__ __forceinline__ static void run(const int32_t* __restrict__ keys,
                                             const T* __restrict__ values, int count,
                                             int32_t* __restrict__ keys_out,
                                             T* __restrict__ values_out, int32_t* num_out,
                                             const RunStatusArray<T>& status, LookBackDelay delay,
                                             int stage_above, Storage& s) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned tile = blockIdx.x;
    const unsigned n = unsigned(count);
    // Unsigned positions: the last tile may reach past INT32_MAX, not 2^32.
    const unsigned base = tile * unsigned(kTile) + unsigned(warp * kWarpItems);
    const int warp_count = int(n - tile * unsigned(kTile)) - warp * kWarpItems;

    // The key after the warp's slice, read before the loads' latency.
    int32_t next = 0;
    const unsigned after = base + kWarpItems;
    if (lane == 31 && after < n) next = keys[after];

    unsigned ends = 0;
    T x[VT];
    {
      int32_t k[VT];
      KeyIO::load_blocked(keys + base, warp_count, 0, k, s.keys[warp]);
      ValIO::load_blocked(values + base, warp_count, Op<OP>::template identity<T>(), x,
                          s.core.vals[warp]);
      const int from_right = __shfl_down_sync(kFullMask, k[0], 1);
      if (lane != 31) next = from_right;
      const unsigned first = base + unsigned(lane * VT);
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const unsigned g = first + unsigned(i);
        const int32_t after_i = i + 1 < VT ? k[i + 1] : next;
        const bool end = g + 1 < n ? k[i] != after_i : g + 1 == n;
        ends |= unsigned(end) << i;
      }
    }
    Core::run(x, ends, values_out, INT32_MAX, num_out, status, delay, stage_above, s.core,
              [&](int r, int w, int slot) {
                if (keys_out) keys_out[r] = s.keys[w].items[slot];
              });
  }
};

}  // namespace tb
