// Segmented reduction of one tile: the core that segmented reduction over
// CSR, reduce-by-key and CSR SpMV share (their front-ends only differ in
// where each item's value and segment come from).
//
// A tile is NT*VT consecutive items, VT per thread in thread order. Each
// thread folds its items left to right and, at every segment end, keeps the
// partial and restarts from the identity; what is left after its last end is
// its carry-out. A segmented scan of the carry-outs gives each thread its
// carry-in (the carry-outs from the nearest thread before it that holds an
// end), which completes the first segment the thread ends. The tile's own
// carry-out crosses tiles at their boundaries (TileCarries), and a fold
// after the tiles completes each continued first row: no tile waits.
//
// Segment indices inside a tile are local rows. The core takes a thread's
// end flags (bit i: item i ends its row) and, at each end, the row it ends;
// an item between ends needs no row, as only ends index the results. A
// front whose values sit in item order in shared memory may instead have
// them reduced in place (reduce_in_place): no row per item at all.
#pragma once

#include <stdint.h>
#include <string.h>

#include <cuda/std/type_traits>

#include "kernels/device/cta_reduce.cuh"
#include "kernels/device/cta_scan.cuh"
#include "kernels/device/dependent_launch.cuh"
#include "kernels/device/tile_status.cuh"
#include "kernels/device/warp_search.cuh"
#include "kernels/seg_tile.h"
#include "kernels/tilebench.h"

namespace tb {

// ---- the tile's segments ------------------------------------------------

// limits[p], from the partition, is the segment holding tile p's first item,
// with kContinued set when that segment started in an earlier tile.
constexpr int kContinued = int(0x80000000u);
constexpr int kSegmentMask = 0x7fffffff;

// The limit of key from upper = upper_bound(csr, key), in [0, n].
__device__ __forceinline__ int limit_at(const int* csr, int upper, int64_t key, int n) {
  const int seg = min(max(upper - 1, 0), n - 1);
  return seg | (csr[seg] != key ? kContinued : 0);
}

struct SegRange {
  int begin;  // the segment (global index) of the tile's first item: local row 0
  int total;  // segments ending in the tile: local rows 0 .. total - 1
  int slice;  // CSR entries the tile reads, from begin
  bool fresh; // row 0 starts at the tile's first item: no carry from earlier tiles
  bool flush; // the tile's last item ends a segment
  bool next_none;  // the next tile ends no segment (tile_range)
  bool disordered;  // kEmpty: its limits descend (a malformed CSR)
};

// Clamped so that a malformed descriptor can neither index outside the tile's
// storage nor outside the CSR array. kEmpty: segments may be empty, so a tile
// ends up to kTile non-empty rows and any number of empty ones between them
// (the tile's loops over its rows are then bounded by num_segments only).
template <int kTile, bool kEmpty = false>
__device__ __forceinline__ SegRange seg_range(int limit0, int limit1, int num_segments) {
  SegRange r;
  r.begin = min(limit0 & kSegmentMask, max(num_segments - 1, 0));
  r.fresh = !(limit0 & kContinued);
  r.flush = !(limit1 & kContinued);
  r.disordered = (limit1 & kSegmentMask) < (limit0 & kSegmentMask);
  if constexpr (kEmpty) {
    r.total = min(max((limit1 & kSegmentMask) - r.begin, 0), num_segments - r.begin);
    r.slice = min(r.total, num_segments - r.begin - !r.flush) + !r.flush;  // no int overflow
  } else {
    r.total = min(max((limit1 & kSegmentMask) - r.begin, 0), kTile);
    r.slice = min(r.total + !r.flush, min(kTile + 1, num_segments - r.begin));
  }
  r.next_none = false;
  return r;
}

// The same for tile `tile` of `tiles` from the partition, with next_none.
// limits must not be `__restrict__` in the kernel: the partition may be the
// kernel just ahead, which a dependent launch waits for, and ptxas may hoist
// a read-only load above the wait (kernels/device/dependent_launch.cuh).
// (__ldcg here cost the 4-byte CSR tile 10 points of copy, H100: it changed
// the code the tile compiles to.)
template <int kTile, bool kEmpty = false, typename Limit>
__device__ __forceinline__ SegRange tile_range(const Limit& limit, int64_t tile, int64_t tiles,
                                               int num_segments) {
  SegRange r = seg_range<kTile, kEmpty>(limit(0), limit(1), num_segments);
  r.next_none =
      tile + 1 < tiles && seg_range<kTile, kEmpty>(limit(1), limit(2), num_segments).total == 0;
  return r;
}
template <int kTile, bool kEmpty = false>
__device__ __forceinline__ SegRange tile_range(const int* limits, int64_t tile, int64_t tiles,
                                               int num_segments) {
  return tile_range<kTile, kEmpty>([&](int k) { return limits[tile + k]; }, tile, tiles,
                                   num_segments);
}

// Where a tile finds its limits: in `limits` once the partition, the kernel
// ahead, has completed, or (kPublished) as the partition publishes them, so
// that tiles start on the limits they need instead of after the whole
// partition (its last wave and its flush).
struct TileLimits {
  const int* limits;  // not __restrict__ (tile_range)
  Published published;
};

// A tile's range from TileLimits in two steps: the constructor issues the
// loads of its limits (or waits for the partition), the tile may then issue
// other loads (its values), and range() takes them, waiting for any limit
// not yet published.
template <int kTile, bool kPublished, bool kEmpty = false>
struct TileRangeLoad {
  const TileLimits& from;
  int64_t tile, tiles;
  unsigned l[3];
  SegRange whole;  // !kPublished: the range, after the partition

  __device__ __forceinline__ TileRangeLoad(const TileLimits& f, int64_t t, int64_t n,
                                           int num_segments)
      : from(f), tile(t), tiles(n) {
    if constexpr (kPublished) {
      from.published.peek(tile, count(), l);
    } else {
      wait_for_prior_kernel();
      whole = tile_range<kTile, kEmpty>(from.limits, tile, tiles, num_segments);
    }
  }
  __device__ __forceinline__ SegRange range(int num_segments) {
    if constexpr (!kPublished) return whole;
    from.published.settle(tile, count(), l);
    return tile_range<kTile, kEmpty>([&](int k) { return int(l[k]); }, tile, tiles, num_segments);
  }

 private:
  __device__ __forceinline__ int count() const { return tile + 1 < tiles ? 3 : 2; }
};

// A tile's range found by the tile itself, for a grid of one wave
// (WaveCarries), which has no partition ahead of it: warps 0-2 each search
// one of the limits tile_range reads (warp_partition_point, 4-5 rounds
// where one thread's binary search takes 20), the same limits the partition
// stores. Two steps as TileRangeLoad: the constructor searches (the other
// warps go on to issue their loads), range() is the CTA barrier after which
// every thread has them. kEmpty: segments may be empty (the partition's
// search finds the same limits either way; tile_range reads them so).
template <int kTile, bool kEmpty = false>
struct TileRangeSearch {
  int64_t tile, tiles;
  int* shared_limits;

  __device__ __forceinline__ TileRangeSearch(const int* csr, int num_segments, int count,
                                             int64_t t, int64_t n)
      : tile(t), tiles(n) {
    __shared__ int limits[3];
    shared_limits = limits;
    const int k = int(threadIdx.x / 32), p = int(tile) + k;
    if (k >= 3 || p > tiles || (k == 2 && tile + 1 >= tiles)) return;  // whole warps
    const int64_t key = min(int64_t(p) * kTile, int64_t(count));
    int limit = num_segments;  // past the last tile, or no segment to find
    if (key < count && num_segments > 0) {
      const int upper =
          warp_partition_point(0, num_segments, [&](int m) { return int64_t(csr[m]) <= key; });
      limit = limit_at(csr, upper, key, num_segments);
    }
    if (threadIdx.x % 32 == 0) limits[k] = limit;
  }
  __device__ __forceinline__ SegRange range(int num_segments) {
    __syncthreads();
    return tile_range<kTile, kEmpty>([&](int k) { return shared_limits[k]; }, tile, tiles,
                                     num_segments);
  }
};

// The local rows of this thread's VT items, which start at global item
// `first`, from the tile's CSR slice in shared memory (entries of segments
// begin ..). `end` is where the slice's last segment ends: the tile's end
// when it flushes, beyond every item (UINT32_MAX) otherwise. starts[i] is the
// global offset at which rows[i] starts. Positions are unsigned 32-bit: the
// threads of the last tile that lie past count may lie past INT32_MAX, never
// past INT32_MAX + NT * VT, so nothing wraps, and the registers stay those
// of int positions (64-bit ones cost the CSR path 40% of its throughput on
// the H100). A malformed, negative entry reads as a huge one: the results
// are then unspecified, as documented, and every index stays clamped.
template <int VT>
__device__ __forceinline__ void expand_csr_rows(unsigned first, const int* csr, int slice,
                                                unsigned end, int (&rows)[VT + 1],
                                                unsigned (&starts)[VT]) {
  int lo = 0, hi = slice;  // upper bound of first
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (unsigned(csr[mid]) <= first) lo = mid + 1;
    else hi = mid;
  }
  int row = max(lo - 1, 0);
  unsigned start = slice > 0 ? unsigned(csr[row]) : first;
  unsigned next = row + 1 < slice ? unsigned(csr[row + 1]) : end;
  rows[0] = row;
  starts[0] = start;
#pragma unroll
  for (int i = 1; i <= VT; ++i) {
    if (first + i == next) {
      ++row;
      start = next;
      next = row + 1 < slice ? unsigned(csr[row + 1]) : end;
    }
    rows[i] = row;
    if (i < VT) starts[i] = start;
  }
}

// The marks of CtaCsrEnds: a word an item, or a bit an item; kMarks false:
// the bits only (a tile with no room for a word an item).
template <int NT, int VT, bool kMarks = true>
struct CsrEndsStorage {
  static constexpr int kQuads = (NT * VT + 3) / 4;  // 16 bytes = 4 marks
  union {
    uint4 quads[kQuads];
    int mark[4 * kQuads];
    unsigned bits[NT];
  };
};
template <int NT, int VT>
struct CsrEndsStorage<NT, VT, false> {
  unsigned bits[NT];
};

// The ends of a tile's segments from its CSR slice, without a search per
// thread: every segment that starts inside the tile marks the item before
// it with the row that item ends, plus one (the segment's slice index), and
// a flushing tile marks its last item with its last row. Each thread then
// reads its VT marks. A mark is a word set with atomicMax: each value is set
// on one item at most, so an item keeps one of the values set on it and no
// two items hold the same one. Entries of a malformed CSR (descending or
// repeated offsets) that land on one item thus race on nothing and still
// leave every end a row of its own, so that no two ends write one partial
// (the results are unspecified, as documented, and the core bounds the
// rows by the tile's row count). With 16-bit marks ORed into shared words
// two rows could merge into one another end holds; detecting that cost the
// 4-byte core 3-7 points of copy bandwidth (H100).
//
// A tile that ends at most a row per thread takes each row's end from the
// slice (CtaSegReduce::rows_by_row) and needs only its end flags: one bit
// per item instead (bits[t] holds thread t's VT flags), cleared with one
// store a thread and read with one load instead of VT (int32 at L = 16:
// 65.5 M warp instructions against 68.3 M, about a point of copy, H100).
//
// kEmpty (empty segments allowed): every segment of a run of empty ones
// starts at the same offset, so their marks land on one item, which ends
// the least of their rows minus one, the last non-empty row before them.
// The marks then keep the least value (as kEmptyTop - k, by the same
// atomicMax); the empty rows themselves end no item (the caller stores them).
//
// kMarks false: bits only, for tiles whose values leave no room for a word
// an item; their rows are stored by row whatever their number.
// kBatch: slice entries in flight per thread as the marks load.
template <int NT, int VT, bool kEmpty = false, bool kMarks = true, int kBatch = 4>
struct CtaCsrEnds {
  static constexpr int kTile = NT * VT;
  using Storage = CsrEndsStorage<NT, VT, kMarks>;  // the same with or without kEmpty
  static_assert(kMarks || !kEmpty, "empty rows need the marks (a run's least row)");
  static constexpr int kQuads = Storage::kQuads;
  static_assert(VT <= 32, "a thread's flags in one word");
  // A mark for row k - 1 (k >= 1), never 0 (no mark), and its row back.
  static constexpr int kEmptyTop = 0x7fffffff;
  __device__ __forceinline__ static int encode(int k) { return kEmpty ? kEmptyTop - (k - 1) : k; }
  __device__ __forceinline__ static int decode(int m) {
    if constexpr (kEmpty) return m ? kEmptyTop - m : -1;
    return m - 1;
  }

  // Zeroes the marks; the caller's barrier orders this before mark().
  // Unrolled: the trip count is known (a loop cost 40 instructions a thread).
  __device__ __forceinline__ static void clear(Storage& s) {
#pragma unroll
    for (int j = 0; j < (kQuads + NT - 1) / NT; ++j) {
      const int q = j * NT + int(threadIdx.x);
      if ((j + 1) * NT <= kQuads || q < kQuads) s.quads[q] = make_uint4(0, 0, 0, 0);
    }
  }
  __device__ __forceinline__ static void clear_bits(Storage& s) { s.bits[threadIdx.x] = 0; }

  // Marks from slice entries 1 .. slice - 1 (entry 0 starts row 0: no end),
  // read straight from global memory (staging them in registers across the
  // value transpose cost the kernel a third of its occupancy, H100), kBatch
  // loads in flight per thread. `end`: one past the tile's last item (count
  // in the last tile).
  __device__ __forceinline__ static void mark(const int* __restrict__ csr, const SegRange& r,
                                              unsigned first, unsigned end, Storage& s) {
    each_end<kBatch>(csr, r, first, end,
                     [&](bool ok, unsigned e, int k) { shared_max_if(ok, &s.mark[e], encode(k)); });
  }
  // Bits go with at most NT rows a tile (rows_by_row), so the slice holds at
  // most NT + 1 entries (seg_range) and one round of one entry a thread marks
  // them all: the batched rounds' idle entries were a sixth of the 4-byte
  // tile's instructions at L = 16 (H100 SASS). Still a loop: as one round
  // only, ptxas kept more live across it (double 512x5: 40 -> 42 registers,
  // a third of SpMV's CTAs).
  __device__ __forceinline__ static void mark_bits(const int* __restrict__ csr, const SegRange& r,
                                                   unsigned first, unsigned end, Storage& s) {
    each_end<1>(csr, r, first, end, [&](bool ok, unsigned e, int) {
      shared_or_if(ok, &s.bits[e / VT], 1u << (e % VT));
    });
  }

  // set(ok, e, k) for each item e that ends row k - 1 (ok: e inside the tile;
  // a malformed CSR names any e), as one predicated instruction; kN entries
  // in flight per thread a round. With kEmpty the slice may hold up to
  // INT32_MAX entries (unsigned indices: no overflow) and a round that ends
  // inside a run of equal offsets skips the rest of it (past_run).
  template <int kN, typename Set>
  __device__ __forceinline__ static void each_end(const int* __restrict__ csr, const SegRange& r,
                                                  unsigned first, unsigned end, const Set& set) {
    using Index = cuda::std::conditional_t<kEmpty, unsigned, int>;
    const Index slice = Index(r.slice);
    for (Index base = 1; base < slice; base += kN * NT) {
      unsigned e[kN];
#pragma unroll
      for (int q = 0; q < kN; ++q) {
        const Index k = base + q * NT + Index(threadIdx.x);
        e[q] = k < slice ? unsigned(csr[r.begin + int(k)]) - 1u - first : ~0u;
      }
#pragma unroll
      for (int q = 0; q < kN; ++q)
        set(e[q] < unsigned(kTile), e[q], int(base + q * NT + Index(threadIdx.x)));
      if constexpr (kEmpty) base = past_run(csr, r, base + kN * NT, kN * NT) - kN * NT;
    }
    if (threadIdx.x == 0 && r.flush)
      set(end - 1u - first < unsigned(kTile), end - 1u - first, r.total);
  }

  // Where the marks of a tile with empty rows go on from entry `next`: past
  // the entries left of a run of equal offsets that the round before ended
  // inside, whose marks would lose to the run's first, where the run fills
  // the whole next round (`round` entries); a shorter one the next round
  // passes (its entries' marks lose, as said). A tile then takes at most a
  // round per row that ends in it, not per row: 2^31 - 1 empty rows after
  // one item took one CTA 2^21 rounds otherwise. The three loads go out at
  // once and the search (an upper bound of the run's offset, the same in
  // every thread) is for long runs only: searching every run a round ended
  // in took a web graph's busiest tile (12,211 rows, more than half empty)
  // a dozen searches of ten dependent loads each.
  __device__ __forceinline__ static unsigned past_run(const int* __restrict__ csr,
                                                      const SegRange& r, unsigned next,
                                                      unsigned round) {
    const unsigned slice_len = unsigned(r.slice);
    if (next >= slice_len) return next;
    const int* const slice = csr + r.begin;
    const unsigned ahead = min(next + round - 1u, slice_len - 1u);
    const int v = slice[next - 1], at = slice[next], last = slice[ahead];
    if (at != v || last != v) return next;
    unsigned lo = ahead + 1, hi = slice_len;
    while (lo < hi) {
      const unsigned mid = lo + (hi - lo) / 2;
      if (slice[mid] <= v)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }

  __device__ __forceinline__ static unsigned flags_bits(const Storage& s) {
    return s.bits[threadIdx.x];
  }

  // This thread's end flags.
  __device__ __forceinline__ static unsigned flags(const Storage& s) {
    const int p = int(threadIdx.x) * VT;
    unsigned flags = 0;
#pragma unroll
    for (int i = 0; i < VT; ++i) flags |= unsigned(s.mark[p + i] != 0) << i;
    return flags;
  }

  // The row item e of the tile ends, -1 for none.
  __device__ __forceinline__ static int row_at(const Storage& s, int e) {
    return decode(s.mark[e]);
  }

  // This thread's end flags and, at each end, the row it ends.
  __device__ __forceinline__ static unsigned read(const Storage& s, int (&rows)[VT]) {
    const int p = int(threadIdx.x) * VT;
    unsigned flags = 0;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const int m = s.mark[p + i];
      rows[i] = decode(m);
      flags |= unsigned(m != 0) << i;
    }
    return flags;
  }
};

// The end flags of a thread's rows: bit i when item i ends its row.
template <int VT>
__device__ __forceinline__ unsigned end_flags(const int (&rows)[VT + 1]) {
  unsigned flags = 0;
#pragma unroll
  for (int i = 0; i < VT; ++i) flags |= unsigned(rows[i] != rows[i + 1]) << i;
  return flags;
}

// Thread codes of the preprocessed form: end flags in the low bits, the
// thread's first local row above them.
constexpr int kCodeFlagBits = TB_SEG_PLAN_MAX_VT;
__device__ __forceinline__ int pack_code(unsigned flags, int row) {
  return int(flags | (unsigned(row) << kCodeFlagBits));
}
__device__ __forceinline__ unsigned code_flags(int code) {
  return unsigned(code) & ((1u << kCodeFlagBits) - 1);
}
__device__ __forceinline__ int code_row(int code) { return int(unsigned(code) >> kCodeFlagBits); }

// ---- segmented scan of the carry-outs -----------------------------------

// tidDelta: how far back from this lane the nearest lane holding a segment
// end is (0 for a lane that holds one); lane + 1 when no lane at or before
// this one does, so the run reaches into earlier warps.
__device__ __forceinline__ int seg_scan_delta(unsigned ends, int lane) {
  const unsigned at_or_before = ends & (0xffffffffu >> (31 - lane));
  return at_or_before ? lane - (31 - __clz(at_or_before)) : lane + 1;
}

// Inclusive segmented scan within the warp: x folded with the lanes back to
// the nearest lane at or before this one holding an end (lane 0 if none).
// Lanes from kSpan on are left unspecified.
template <tb_op OP, typename T, int kSpan = 32>
__device__ __forceinline__ T warp_seg_scan(T x, int delta, int lane) {
#pragma unroll
  for (int offset = 1; offset < kSpan; offset *= 2) {
    const T y = __shfl_up_sync(kFullMask, x, offset);
    if (delta >= offset && lane >= offset) x = Op<OP>::apply(y, x);
  }
  return x;
}

template <tb_op OP, typename T, int NT>
struct CtaSegScan {
  static_assert(NT % 32 == 0 && NT >= 64, "NT: whole warps, at least two");
  static constexpr int kWarps = NT / 32;
  struct Storage {
    T warp_carry[kWarps];  // inclusive scan at the thread before each warp
    T warp_tail[kWarps];
    bool warp_has_end[kWarps];
    T tile_carry;
  };

  // Returns the thread's carry-in: its predecessors' carry-outs folded back
  // to the nearest thread holding an end (the identity for thread 0).
  // *tile_carry_out gets the same taken through the last thread. Its
  // barriers also order every thread's earlier shared reads before what the
  // caller writes next (the front-ends rely on that: NT >= 64). Warp 0 scans
  // the warps' tails while the others wait at the second barrier: every warp
  // scanning them itself, with one barrier, was 0.2-2.6 points of copy
  // slower for each tile front (H100).
  __device__ __forceinline__ static T carry_in(bool has_end, T carry_out, T* tile_carry_out,
                                               Storage& s) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const T identity = Op<OP>::template identity<T>();
    const unsigned ends = __ballot_sync(kFullMask, has_end);
    const int delta = seg_scan_delta(ends, lane);
    T x = warp_seg_scan<OP>(carry_out, delta, lane);
    T before = identity;  // the inclusive scan at the thread before this warp
    if (kWarps > 1) {
      if (lane == 31) {
        s.warp_tail[warp] = x;
        s.warp_has_end[warp] = ends != 0;
      }
      __syncthreads();
      if (warp == 0) {
        // The same scan over the warps' tails.
        const unsigned wends = __ballot_sync(kFullMask, lane < kWarps && s.warp_has_end[lane]);
        const T tail = lane < kWarps ? s.warp_tail[lane] : identity;
        const T w = warp_seg_scan<OP, T, kWarps>(tail, seg_scan_delta(wends, lane), lane);
        const T wexcl = __shfl_up_sync(kFullMask, w, 1);
        if (lane < kWarps) s.warp_carry[lane] = lane ? wexcl : identity;
        if (lane == kWarps - 1) s.tile_carry = w;
      }
      __syncthreads();
      before = s.warp_carry[warp];
      if (delta > lane) x = Op<OP>::apply(before, x);
      *tile_carry_out = s.tile_carry;
    } else {
      *tile_carry_out = __shfl_sync(kFullMask, x, 31);
    }
    const T up = __shfl_up_sync(kFullMask, x, 1);
    return lane ? up : before;
  }
};

// ---- carries between tiles ----------------------------------------------

// Tile b needs the carry into it, C_b (what follows the last segment end
// before it), only for a row 0 that started in an earlier tile; a tile that
// ends no segment passes it on, C_b+1 = C_b + its total. Each boundary b has
// a 16-byte word for C_b. A tile that ends a segment stores its carry-out
// there for its successor, and its continued row 0's partial for the fold
// after the tiles (fold): no tile waits, no atomics where segments are
// shorter than a tile. Into a tile that ends none, the carry meets the
// tile's total by exchange: each half is swapped into the word atomically,
// and the second to arrive gets the first back and passes the carry on (its
// word says whether the tile after it ends none too). This replaced a
// one-CTA scan of the carries (8 us of int32's 108 us at 2^26 items, H100,
// ncu). Two ways without the fold lost occupancy to CTAs held by their
// thread 0: a look-back from each continued row 0 (10-17 points of copy
// from L = 16), and every boundary by exchange (4-byte direct CSR: 93 ->
// 73% achieved occupancy, 113 -> 131 us).
template <tb_op OP, typename T>
struct TileCarries {
  static_assert(sizeof(T) <= 8, "a value in 8 bytes");
  struct alignas(16) Word {
    unsigned long long head;  // kEmpty, kCarry, or kTotal (| kThenNone)
    unsigned long long bits;  // the value
  };
  enum : unsigned long long { kEmpty = 0, kCarry = 1, kTotal = 2, kThenNone = 4 };
  static constexpr int kNoRow = -1;
  Word* words;  // per tile: the carry into it (tile 0's unused); zeroed before the launch
  T* row0;      // per tile: its continued row 0's partial
  int* head;    // per tile: that row, or kNoRow
  int64_t tiles;

  static size_t words_bytes(int64_t tiles) { return size_t(tiles) * sizeof(Word); }

  // A tile that ends a segment (thread 0). next_none: the next tile ends
  // none.
  __device__ __forceinline__ void end_tile(int64_t tile, T carry_out, bool next_none, bool fresh,
                                           int row, T partial) const {
    head[tile] = fresh ? kNoRow : row;
    row0[tile] = partial;
    if (tile + 1 < tiles) carry_into(tile + 1, carry_out, next_none);
  }
  // A tile that ends none (thread 0).
  __device__ __forceinline__ void through_tile(int64_t tile, T total, bool next_none) const {
    head[tile] = kNoRow;
    if (tile == 0) {
      if (tiles > 1) carry_into(1, total, next_none);
      return;
    }
    const Word old = exchange(tile, word(kTotal | (next_none ? kThenNone : 0), total));
    if (old.head == kCarry && tile + 1 < tiles)
      carry_into(tile + 1, Op<OP>::apply(value(old), total), next_none);
  }
  // After the tiles: tile t's continued row 0 (one thread a tile).
  __device__ __forceinline__ void fold(int64_t t, T* __restrict__ out) const {
    const int row = head[t];
    const T in = t > 0 ? value(words[t]) : Op<OP>::template identity<T>();
    if (row >= 0) out[row] = Op<OP>::apply(in, row0[t]);
  }

 private:
  __device__ __forceinline__ static Word word(unsigned long long head, T v) {
    Word w{head, 0};
    memcpy(&w.bits, &v, sizeof(T));
    return w;
  }
  __device__ __forceinline__ static T value(const Word& w) {
    T v;
    memcpy(&v, &w.bits, sizeof(T));
    return v;
  }
  __device__ __forceinline__ Word exchange(int64_t b, Word w) const {
    Word old;
    asm volatile(
        "{\n\t.reg .b128 d, s;\n\t"
        "mov.b128 s, {%2, %3};\n\t"
        "atom.relaxed.gpu.global.exch.b128 d, [%4], s;\n\t"
        "mov.b128 {%0, %1}, d;\n\t}"
        : "=l"(old.head), "=l"(old.bits)
        : "l"(w.head), "l"(w.bits), "l"(words + b)
        : "memory");
    return old;
  }
  // c = C_b; none: tile b ends no segment.
  __device__ void carry_into(int64_t b, T c, bool none) const {
    while (none) {
      const Word old = exchange(b, word(kCarry, c));
      if (!(old.head & kTotal)) return;  // the tile's total comes later and passes c on
      c = Op<OP>::apply(c, value(old));
      none = old.head & kThenNone;
      if (++b == tiles) return;
    }
    words[b] = word(kCarry, c);
  }
};

// The carries of a grid of one wave, launched cooperatively: each tile
// stores what TileCarries would hand on (its carry-out or total, its
// continued row 0's partial) in plain words, a grid barrier follows, and
// then each tile completes its own row 0 (fold_tile). Nothing to zero before
// the launch and no fold kernel after it: the call is one launch.
template <tb_op OP, typename T>
struct WaveCarries {
  static constexpr int kNoRow = -1;
  T* last;    // per tile: its carry-out, or its total when it ends none
  int* ends;  // per tile: whether it ends a segment
  T* row0;    // per tile: its continued row 0's partial
  int* head;  // per tile: that row, or kNoRow
  int64_t tiles;

  __device__ __forceinline__ void end_tile(int64_t tile, T carry_out, bool, bool fresh, int row,
                                           T partial) const {
    head[tile] = fresh ? kNoRow : row;
    row0[tile] = partial;
    last[tile] = carry_out;
    ends[tile] = 1;
  }
  __device__ __forceinline__ void through_tile(int64_t tile, T total, bool) const {
    head[tile] = kNoRow;
    last[tile] = total;
    ends[tile] = 0;
  }

  // After the grid barrier, by every thread of tile t: its continued row 0
  // gets the carry into the tile, the carry-out of the nearest tile before
  // it that ends a segment (tile 0 at the latest) and the totals of the
  // tiles between, as TileCarries hands them on (here reduced across the
  // CTA: a row over many tiles costs a round, not a load per tile).
  template <int NT>
  __device__ __forceinline__ void fold_tile(int64_t t, T* __restrict__ out) const {
    const int row = head[t];
    if (row < 0) return;  // the whole CTA
    using MaxReduce = CtaReduce<TB_OP_MAX, int, NT>;
    using Reduce = CtaReduce<OP, T, NT>;
    __shared__ typename MaxReduce::Storage max_storage;
    __shared__ typename Reduce::Storage reduce_storage;
    __shared__ int nearest;
    // Tile 0 continues no row but for a malformed CSR (csr[0] != 0): no carry.
    int64_t from = t > 0 ? -1 : 0;
    for (int64_t base = t - 1; from < 0; base -= NT) {  // uniform: from is broadcast
      const int64_t i = base - int64_t(threadIdx.x);
      const int found = i >= 0 && (i == 0 || ends[i]) ? int(i) : -1;
      const int k = MaxReduce::reduce(found, max_storage);  // thread 0's
      if (threadIdx.x == 0) nearest = k;
      __syncthreads();
      from = nearest;
      __syncthreads();
    }
    T acc = Op<OP>::template identity<T>();
    for (int64_t i = from + int64_t(threadIdx.x); i < t; i += NT) acc = Op<OP>::apply(acc, last[i]);
    acc = Reduce::reduce(acc, reduce_storage);
    if (threadIdx.x == 0) out[row] = Op<OP>::apply(acc, row0[t]);
  }
};

// ---- the whole tile -----------------------------------------------------

// kHalf ("half capacity", for large tiles): when a tile of values and a
// 32-bit mark per item would not fit the shared-memory budget, it holds
// only half a tile of partials; a tile ending more segments than that
// (average length under 2) stores its partials straight from registers.
// kMarks false (tb_seg_tile_marks, the host's rule too): the boxes wider
// than a plan whose values and a bit per item fit keep the whole tile with
// bits only (CtaCsrEnds), and the host leaves empty rows to the prepass.
template <tb_op OP, typename T, int NT, int VT>
struct CtaSegReduce {
  static constexpr int kTile = NT * VT;
  static constexpr bool kMarks = tb_seg_tile_marks(sizeof(T), NT, VT);
  static constexpr bool kHalf = kMarks && (sizeof(T) + 4) * kTile > TB_SEG_TILE_BUDGET;
  static constexpr int kCapacity = kHalf ? kTile / 2 : kTile;
  using Scan = CtaSegScan<OP, T, NT>;
  struct Partials { T values[kCapacity]; };  // the caller unions these
  struct Storage {
    typename Scan::Storage scan;
    T carry_out;  // thread 0's, for the hand-off
    T row0;       // a continued row 0's partial, for the hand-off
  };

  // Folds the thread's items left to right, restarting after every end
  // (keep(i, v): v is the running value at item i), and returns the
  // thread's carry-in; thread 0 keeps the tile's carry-out. For tiles that
  // end a segment (r.total > 0).
  template <typename Keep>
  __device__ __forceinline__ static T fold(const T (&x)[VT], unsigned flags, const Keep& keep,
                                           Storage& s) {
    const T identity = Op<OP>::template identity<T>();
    T acc = identity;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      acc = Op<OP>::apply(acc, x[i]);
      keep(i, acc);
      if ((flags >> i) & 1) acc = identity;
    }
    if (threadIdx.x == 0) s.row0 = identity;  // a malformed CSR may end no item in row 0
    T tile_carry_out;
    const T carry = Scan::carry_in(flags != 0, acc, &tile_carry_out, s.scan);
    if (threadIdx.x == 0) s.carry_out = tile_carry_out;
    return carry;
  }

  // After the partials are in shared memory: the rows' results, coalesced.
  __device__ __forceinline__ static void store_partials(const Partials& partials, const SegRange& r,
                                                        int num_segments, T* __restrict__ out,
                                                        Storage& s) {
    __syncthreads();
    const int end = min(r.total, num_segments - r.begin);
    for (int k = threadIdx.x; k < end; k += NT) store(k, partials.values[k], r, out, s);
  }

  // Reduces the tile's items x (thread order) over their rows and stores the
  // results of rows 0 .. total - 1 to out[begin + row] (rows past
  // num_segments are dropped). `flags` has bit i when item i ends a row;
  // rows says which: a row per item (int[N]: rows[i], read only at an end)
  // or the thread's first row (int: its ends take consecutive rows from it,
  // the preprocessed codes). A row 0 continued from earlier tiles is stored
  // by the hand-off (hand_off).
  template <class Rows, class Carries>
  __device__ __forceinline__ static void reduce_to_global(const T (&x)[VT], unsigned flags,
                                                          const Rows& rows, const SegRange& r,
                                                          int num_segments, const Carries& carries,
                                                          int64_t tile, T* __restrict__ out,
                                                          Partials& partials, Storage& s) {
    constexpr bool kRowPerItem = cuda::std::is_array<Rows>::value;
    static_assert(!kRowPerItem || cuda::std::extent<Rows>::value >= VT, "a row per item");
    const T identity = Op<OP>::template identity<T>();
    T scan[VT];
    T carry = fold(
        x, flags, [&](int i, T v) { scan[i] = v; }, s);
    int row = 0;  // the running row's next
    if constexpr (!kRowPerItem) row = rows;
    if (!kHalf || r.total <= kCapacity) {
      // Partials in shared memory, then stored coalesced. Each row source
      // keeps its own scatter (a row per item branched, the running row
      // predicated): one loop for both cost 8-byte values 9-12% in the
      // indirect form at 2^26 items and up to 1.6x in the apply at 2^20
      // (H100).
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        if constexpr (kRowPerItem) {
          if ((flags >> i) & 1) {
            if (unsigned(rows[i]) < unsigned(r.total))
              partials.values[rows[i]] = Op<OP>::apply(carry, scan[i]);
            carry = identity;
          }
        } else {
          const bool end = (flags >> i) & 1;
          if (end && unsigned(row) < unsigned(r.total))
            partials.values[row] = Op<OP>::apply(carry, scan[i]);
          carry = end ? identity : carry;
          row += end;
        }
      }
      store_partials(partials, r, num_segments, out, s);
    } else {
#pragma unroll
      for (int i = 0; i < VT; ++i)
        if ((flags >> i) & 1) {
          if constexpr (kRowPerItem) {
            if (unsigned(rows[i]) < unsigned(r.total) && r.begin + rows[i] < num_segments)
              store(rows[i], Op<OP>::apply(carry, scan[i]), r, out, s);
          } else {
            if (unsigned(row) < unsigned(r.total) && r.begin + row < num_segments)
              store(row, Op<OP>::apply(carry, scan[i]), r, out, s);
            ++row;
          }
          carry = identity;
        }
      __syncthreads();  // row 0's partial, from any thread
    }
    hand_off(r, carries, tile, s);
  }

  // The same, in place, for a front whose tile values sit in item order in
  // shared memory (item e at tile[e], this thread's VT items from
  // tile[threadIdx.x * VT]) and that can name the item ending row k
  // (end_of(k), within the tile) and the row item e ends (row_at(e), -1 for
  // none). Each item's running value goes back to its own slot,
  // unconditionally; the carry-in completes the thread's first end; each
  // row's result is then read from its end's slot. No row per item and no
  // predicated scatter: at 4 bytes and 512x11 that scatter was a fifth of
  // the tile's instructions (H100 SASS). by_row: by row (end_of), a round
  // of NT rows at a time, at most a tile of them (more: a malformed CSR);
  // else by item (row_at).
  template <typename EndOf, typename RowAt, class Carries>
  __device__ __forceinline__ static void reduce_in_place(
      const T (&x)[VT], unsigned flags, T* tile_values, bool by_row, const EndOf& end_of,
      const RowAt& row_at, const SegRange& r, int num_segments, const Carries& carries,
      int64_t tile, T* __restrict__ out, Storage& s) {
    static_assert(!kHalf, "a whole tile of values");
    const T identity = Op<OP>::template identity<T>();
    // Only this thread reads or writes its slots once its values are read.
    T* const mine = tile_values + int(threadIdx.x) * VT;
    const T carry = fold(
        x, flags, [&](int i, T v) { mine[i] = v; }, s);
    if (flags) {
      const int i = __ffs(flags) - 1;
      mine[i] = Op<OP>::apply(carry, mine[i]);
    }
    __syncthreads();
    const int end = min(r.total, num_segments - r.begin);
    if (by_row) {
      // By row, from the item that ends it: at most a row a thread where
      // the tile has the marks (a loop there cost double SpMV 512x5 four
      // registers, a third of its CTAs).
      if constexpr (kMarks) {
        if (int(threadIdx.x) < end) store(threadIdx.x, tile_values[end_of(threadIdx.x)], r, out, s);
      } else {
        for (int k = threadIdx.x; k < min(end, kTile); k += NT)
          store(k, tile_values[end_of(k)], r, out, s);
      }
    } else {
      // Short segments: by item, from the row it ends (end_of may load, and
      // by then the slice has left L1: by row, one item a segment was 6%
      // slower, H100). Row 0 by row all the same, by thread 0, which
      // completes it: a malformed CSR may leave no item marked with it.
      // Rows from 1 on, never a continued row 0: stored straight to out,
      // one predicated store an item (through store(), a branch an item:
      // a tenth of the 4-byte tile's instructions at L = 4, H200 SASS).
      if (threadIdx.x == 0) store(0, tile_values[end_of(0)], r, out, s);
#pragma unroll
      for (int j = 0; j < VT; ++j) {
        const int e = j * NT + int(threadIdx.x);
        const int row = row_at(e);
        if (unsigned(row - 1) < unsigned(end - 1)) out[r.begin + row] = tile_values[e];
      }
    }
    hand_off(r, carries, tile, s);
  }

  // Whether a tile with the marks reduces in place by row (end_of), never
  // asking for an item's row (row_at): at most a row a thread.
  __device__ __forceinline__ static bool rows_by_row(const SegRange& r, int num_segments) {
    return min(r.total, num_segments - r.begin) <= NT;
  }

  // Row `row`'s result, or for a continued row 0 its partial.
  __device__ __forceinline__ static void store(int row, T v, const SegRange& r, T* __restrict__ out,
                                               Storage& s) {
    if (row == 0 && !r.fresh)
      s.row0 = v;
    else out[r.begin + row] = v;
  }

  // The tile's carry-out and its continued row 0, to the tile boundaries
  // (thread 0, which kept both, or a barrier since, orders its reads).
  template <class Carries>
  __device__ __forceinline__ static void hand_off(const SegRange& r, const Carries& carries,
                                                  int64_t tile, Storage& s) {
    if (threadIdx.x == 0)
      carries.end_tile(tile, s.carry_out, r.next_none, r.fresh, r.begin, s.row0);
  }
};

// A tile inside one segment (no end): its total is only a carry.
template <tb_op OP, typename T, int NT, int VT>
struct CtaSegCarry {
  using Reduce = CtaReduce<OP, T, NT>;
  using Storage = typename Reduce::Storage;
  template <class Carries>
  __device__ __forceinline__ static void run(const T (&x)[VT], const Carries& carries,
                                             int64_t tile, bool next_none, Storage& s) {
    T acc = x[0];
#pragma unroll
    for (int i = 1; i < VT; ++i) acc = Op<OP>::apply(acc, x[i]);
    acc = Reduce::reduce(acc, s);
    if (threadIdx.x == 0) carries.through_tile(tile, acc, next_none);
  }
};

// ---- reduce-by-key: segments from runs of equal keys --------------------

// Finds the runs of equal adjacent keys in a tile: each thread's end flags
// and first local row, the tile's number of ends, and (through a look-back
// on the counts) the global index of its first run. Also writes the key of
// every run that starts in the tile to keys_out (may be NULL).
template <int NT, int VT>
struct CtaKeyRuns {
  static constexpr int kTile = NT * VT;
  using Scan = CtaScan<TB_OP_PLUS, int, NT>;
  struct Storage {
    int keys[kTile + 2];  // keys[first - 1 .. first + kTile]
    typename Scan::Storage scan;
    int base;
  };
  struct Runs {
    unsigned flags;  // bit i: item tid * VT + i ends its run
    int row;         // local row of the thread's first item
    int base;        // global index of local row 0
    int total;       // runs ending in the tile
    bool fresh;      // local row 0 starts at the tile's first item
  };

  __device__ __forceinline__ static Runs find(const int* __restrict__ keys, int count,
                                              int64_t tile, const TileStatusArray<int>& counts,
                                              int* __restrict__ keys_out, Storage& s) {
    const int64_t first = tile * kTile;
    for (int k = threadIdx.x; k < kTile + 2; k += NT) {
      const int64_t g = first - 1 + k;
      if (g >= 0 && g < count) s.keys[k] = keys[g];
    }
    __syncthreads();
    Runs runs;
    runs.flags = 0;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const int l = threadIdx.x * VT + i;
      const int64_t g = first + l;
      if (g < count && (g == count - 1 || s.keys[l + 1] != s.keys[l + 2])) runs.flags |= 1u << i;
    }
    runs.fresh = first == 0 || s.keys[0] != s.keys[1];
    runs.row = Scan::scan_exclusive(__popc(runs.flags), &runs.total, s.scan);
    if (threadIdx.x < 32) {
      int base = 0;
      const bool leader = threadIdx.x == 0;
      if (tile == 0) {
        if (leader) counts.publish(0, kPrefix, runs.total);
      } else {
        if (leader) counts.publish(tile, kAggregate, runs.total);
        base = look_back<TB_OP_PLUS>(counts, tile);
        if (leader) counts.publish(tile, kPrefix, base + runs.total);
      }
      if (leader) s.base = base;
    }
    __syncthreads();
    runs.base = s.base;
    if (keys_out) {
      // The run after each end starts at the next item.
      int row = runs.base + runs.row;
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const int l = threadIdx.x * VT + i;
        if ((runs.flags >> i) & 1) {
          ++row;
          if (first + l + 1 < count) keys_out[row] = s.keys[l + 2];
        }
      }
      if (tile == 0 && threadIdx.x == 0 && count > 0) keys_out[0] = s.keys[1];
    }
    return runs;
  }
};

}  // namespace tb
