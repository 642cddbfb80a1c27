// Segmented reduction over CSR, its preprocessed apply, fused reduce-by-key
// and the fill of empty segments, for one element type (TB_ELEM), every
// operator that fits it and every box of kernels/segreduce_grid.def. The
// build compiles this file once per type.
//
// Two cores. Segmented reduction and SpMV run the tile core of
// kernels/device/cta_segreduce.cuh, whose tiles pass their carries on at
// their boundaries without waiting, with a fold after them into each
// continued first row; reduce-by-key runs the one-pass run core of
// kernels/device/cta_reduce_by_key.cuh, whose tiles scan (run ends, value)
// pairs with a decoupled look-back. Fronts over the tile core produce the
// tile's values in thread order and their local rows:
//   csr:    values loaded striped and transposed, each segment start in
//           the tile's CSR slice marking the item that ends the row before
//           it, the tile reduced in place in the values' buffer (the
//           indirect form: values gathered through sources, rows by a
//           search of the slice);
//   apply:  values striped, rows from the preprocessed thread codes.
// SpMV is the csr and apply fronts with x[cols[m]] (times the matrix entry)
// as item m's value. 8-byte values ran the run core below segments of 4096
// until the tile was reduced in place: the tile core is now 8-17 points of
// copy faster for them at every length up to 1024 (H100, docs/segreduce.md,
// "8-byte values: the tile core, not the run core").
#include <stdint.h>

#include <algorithm>
#include <type_traits>

#include <cooperative_groups.h>

#include "core/cuda.h"
#include "kernels/device/cta_reduce_by_key.cuh"
#include "kernels/device/cta_segreduce.cuh"
#include "kernels/device/dependent_launch.cuh"
#include "kernels/device/tile_io.cuh"
#include "kernels/dispatch.cuh"
#include "kernels/segreduce_dispatch.h"

namespace tb {
namespace {

using T = TB_ELEM;

template <tb_op OP>
__host__ __device__ __forceinline__ T identity() { return Op<OP>::template identity<T>(); }

struct Inputs {
  const T* values;  // the items, or the matrix (SpMV binary)
  const int* cols;
  const T* x;
  int x_len;
};

// The value of item m; a column outside x (malformed input) counts as the
// identity.
template <tb_seg_front F, tb_op OP>
__device__ __forceinline__ T item_value(const Inputs& in, int m) {
  if (F == TB_SEG_VALUES) return in.values[m];
  const int c = in.cols[m];
  if (c < 0 || c >= in.x_len) return identity<OP>();
  if (F == TB_SEG_SPMV_UNARY) return in.x[c];
  return Op<TB_OP_MULTIPLIES>::apply(in.values[m], in.x[c]);
}

template <tb_op OP, int NT, int VT>
struct Tile {
  static constexpr int kTile = NT * VT;
  using Seg = CtaSegReduce<OP, T, NT, VT>;
  using Carry = CtaSegCarry<OP, T, NT, VT>;
  using Ends = CtaCsrEnds<NT, VT, false, Seg::kMarks>;
  // Striped to thread order within each warp (no CTA barrier); the largest
  // tiles across the CTA in two rounds through half a tile, with their marks
  // read before (the two share memory), so that they fit 48 KiB.
  static constexpr bool kWarpIO = !Seg::kHalf;
  using WarpIO = WarpTranspose<T, VT>;
  using CtaIO = TileTransposeRounds<T, NT, VT, 2>;
  struct alignas(16) WarpIOs {
    typename WarpIO::Storage warp[NT / 32];
  };
  using IO = cuda::std::conditional_t<kWarpIO, WarpIOs, typename CtaIO::Storage>;
  // A 4-byte tile of up to 11 items per thread fits 32 registers (one
  // spilled at VT = 11), which lets an SM hold 2048 threads: the direct CSR
  // form otherwise takes 40 and loses a quarter of its occupancy (H100).
  // Larger tiles and 8-byte values would spill heavily: no bound.
  static constexpr int kMinCtasPerSm = sizeof(T) == 4 && VT <= 11 ? 2048 / NT : 1;
  // The direct form with empty rows (EmptyRows) spilled at that bound (8-12
  // bytes, 4-byte values at 512x11): three quarters of the threads instead.
  // Its tiles of bits only (Seg::kMarks false: 4-byte values from 512x21)
  // fit 32 registers without spilling where they read values (SpMV's
  // gathers spill): a whole SM of threads holds twice the items of 512x11,
  // which kept more of the H200's bandwidth busy (docs/segreduce.md, "Bit
  // tiles at 512x21").
  template <tb_seg_front F, bool kEmpty>
  static constexpr int min_ctas() {
    if (sizeof(T) == 4 && !Seg::kMarks && F == TB_SEG_VALUES) return 2048 / NT;
    return kEmpty && kMinCtasPerSm > 1 ? kMinCtasPerSm * 3 / 4 : kMinCtasPerSm;
  }
  // Shared memory: one region reused phase by phase, owned by the kernel.
  struct DirectApart {
    IO io;
    typename Ends::Storage ends;
  };
  union DirectShared {
    IO io;
    typename Ends::Storage ends;
  };
  union Shared {
    // values, and the rows from the CSR slice
    cuda::std::conditional_t<kWarpIO, DirectApart, DirectShared> direct;
    typename Seg::Partials partials;
    typename Carry::Storage carry;
  };
  // The indirect form's: its CSR slice, no marks (as apply's, for the L1
  // its gathers through sources hit).
  union IndirectShared {
    int csr[kTile + 1];
    typename Seg::Partials partials;
    typename Carry::Storage carry;
  };
  // The apply form's: no marks. Unified memory that shared memory leaves
  // free is L1, where SpMV's gathers of x hit (with the marks in it, double
  // SpMV apply took 13% longer at L = 16, H100).
  union ApplyShared {
    IO io;
    typename Seg::Partials partials;
    typename Carry::Storage carry;
  };

  // Value slot i of this thread before the transpose is item
  // striped_base() + i * kStride of the tile.
  static constexpr int kStride = kWarpIO ? 32 : NT;
  __device__ __forceinline__ static int striped_base() {
    const int tid = threadIdx.x;
    return kWarpIO ? (tid / 32) * 32 * VT + tid % 32 : tid;
  }

  __device__ __forceinline__ static void to_blocked(const T (&v)[VT], T (&x)[VT], IO& io) {
    if constexpr (kWarpIO) WarpIO::blocked_from_striped(v, x, io.warp[threadIdx.x / 32]);
    else CtaIO::blocked_from_striped(v, x, io);
  }

  // Values as one bulk copy a tile (the copy engine), issued by thread 0
  // straight into the warps' buffers, which then hold them in item order.
  // For values 16-byte aligned (the host checks), unpadded warp buffers and
  // the direct CSR front: 4-byte values take no load instructions but
  // thread 0's, no transpose stores and no registers until the values are
  // read. cp.async of 16 bytes a lane, before, took 42 instructions a warp
  // (2.3-3.5 points of copy from L = 4 to 1024 over striped loads, H100);
  // the bulk copy cut the int32 tile's instructions 13% at L = 256 and ran
  // 1-2.5% faster on the H200, a tie on the H100.
  static constexpr bool kWordsFit = kWarpIO && !WarpIO::kPad;
  struct WordsBar {
    unsigned long long bar;  // the tile's mbarrier
  };
  struct Words {
    unsigned bar;  // its shared-window address
  };

  // The last tile, short: item by item, the identity past count, stored.
  // Every thread waits for the copy (to_blocked) after a CTA barrier, which
  // makes thread 0's initialization of the mbarrier visible (copy_visible,
  // or a barrier the kernel has there anyway).
  __device__ __forceinline__ static void load_words(const T* values, int first, int count, Words& s,
                                                    IO& io, WordsBar& b) {
    static_assert(kWordsFit, "item order in an unpadded warp buffer");
    static_assert(sizeof(IO) == kTile * sizeof(T) && kTile * sizeof(T) % 16 == 0,
                  "the tile's values are whole 16-byte words, in order");
    s.bar = unsigned(__cvta_generic_to_shared(&b.bar));
    if (count - first >= kTile) {
      if (threadIdx.x == 0) bulk_copy_begin(s.bar, &io, values + first, kTile * sizeof(T));
      return;
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int left = count - first - warp * 32 * VT;  // the warp's items from its first on
    const T* src = values + first + warp * 32 * VT;
    T* items = io.warp[warp].items;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const int k = i * 32 + lane;
      items[k] = k < left ? src[k] : identity<OP>();
    }
    if (threadIdx.x == 0) bulk_copy_none(s.bar);
  }

  // After a CTA barrier that follows load_words.
  __device__ __forceinline__ static void to_blocked(const Words& s, T (&x)[VT], IO& io) {
    __syncwarp();  // every lane's stores (the last tile)
    bulk_copy_wait(s.bar);
    const T* items = io.warp[threadIdx.x / 32].items;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < VT; ++i) x[i] = items[lane * VT + i];
  }

  // What a thread holds from its loads to the transpose: VT striped values,
  // or (W) its words of the warp's values.
  struct Striped {
    T v[VT];
  };
  template <bool W>
  using Staged = cuda::std::conditional_t<W, Words, Striped>;

  template <tb_seg_front F>
  __device__ __forceinline__ static void load(const Inputs& in, int first, int count, Striped& s,
                                              IO&, WordsBar&) {
    load_striped<F>(in, first, count, s.v);
  }
  template <tb_seg_front F>
  __device__ __forceinline__ static void load(const Inputs& in, int first, int count, Words& s,
                                              IO& io, WordsBar& b) {
    static_assert(F == TB_SEG_VALUES, "words of values only");
    load_words(in.values, first, count, s, io, b);
  }
  // Between load and to_blocked, where the kernel has no CTA barrier anyway:
  // thread 0's mbarrier initialized for every thread (striped values need
  // nothing).
  __device__ __forceinline__ static void copy_visible(const Words&) { __syncthreads(); }
  __device__ __forceinline__ static void copy_visible(const Striped&) {}

  __device__ __forceinline__ static void to_blocked(const Striped& s, T (&x)[VT], IO& io) {
    to_blocked(s.v, x, io);
  }

  // A tile inside one segment: its total as a carry. `io` and `carry`
  // share memory.
  template <class Carries>
  __device__ __forceinline__ static void carry(const Striped& s, const Carries& carries,
                                               int64_t tile, bool next_none, IO&,
                                               typename Carry::Storage& c) {
    Carry::run(s.v, carries, tile, next_none, c);
  }
  template <class Carries>
  __device__ __forceinline__ static void carry(const Words& s, const Carries& carries,
                                               int64_t tile, bool next_none, IO& io,
                                               typename Carry::Storage& c) {
    T x[VT];
    copy_visible(s);
    to_blocked(s, x, io);
    __syncthreads();  // every read of io before the carry's storage is written
    Carry::run(x, carries, tile, next_none, c);
  }

  // The tile's values in striped slots, the identity past count. Column
  // indices are loaded for the whole tile before the first gather. Offsets
  // are taken within the tile: first + k may pass INT32_MAX in the last
  // tile, and a wrapped index would pass a `< count` test.
  template <tb_seg_front F>
  __device__ __forceinline__ static void load_striped(const Inputs& in, int first, int count,
                                                      T (&v)[VT]) {
    const int left = count - first;  // items from first on
    const int base = striped_base();
    if constexpr (F == TB_SEG_VALUES) {
      const T* values = in.values + first + base;
      if (left >= kTile) {
#pragma unroll
        for (int i = 0; i < VT; ++i) v[i] = values[i * kStride];
      } else {
#pragma unroll
        for (int i = 0; i < VT; ++i)
          v[i] = base + i * kStride < left ? values[i * kStride] : identity<OP>();
      }
    } else {
      const int* cols = in.cols + first + base;
      int c[VT];
#pragma unroll
      for (int i = 0; i < VT; ++i)
        c[i] = load_once_if(base + i * kStride < left, cols + i * kStride, -1);
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const bool ok = c[i] >= 0 && c[i] < in.x_len;
        const T xv = ok ? in.x[c[i]] : identity<OP>();
        if (F == TB_SEG_SPMV_UNARY) {
          v[i] = xv;
        } else {
          const T a = load_once_if(ok, in.values + int64_t(first) + base + i * kStride, T());
          v[i] = ok ? Op<TB_OP_MULTIPLIES>::apply(a, xv) : identity<OP>();
        }
      }
    }
  }
};

// ---- kernels ------------------------------------------------------------

// Empty segments where the direct tiles take them (csr_kernel's kEmpty).
// Each tile stores the identity into its empty rows, rows begin + 1 ..
// begin + total - 1 (tile 0 from row 0: the empty ones before its first),
// and checks their offsets by the prepass's rule (csr2_kernel): none outside
// [0, count] or below the one before it, and no limits that descend (a
// well-formed CSR gives ordered ones, whose tiles' rows then cover every
// row). A tile of more than four tiles' worth of rows (runs of empty rows
// longer than its items) leaves both to empty_kernel, after the tiles, over
// every row: a tile would otherwise take a round per NT of them. The fold
// gives every segment the identity on a malformed CSR, as the prepass's
// fill does.
struct EmptyRows {
  unsigned* malformed;  // zeroed before the tiles, set on a malformed CSR
  unsigned* deferred;   // zeroed before the tiles, set by a tile of more rows

  // Row s: the identity into it when it is empty, and *bad set when its
  // offsets break the rule.
  template <tb_op OP>
  __device__ __forceinline__ static void row(const int* __restrict__ csr, int s, int num_segments,
                                             int count, bool store, bool* bad,
                                             T* __restrict__ out) {
    const int start = csr[s], next = s + 1 < num_segments ? csr[s + 1] : count;
    row_from<OP>(s, start, next, count, store, bad, out);
  }
  template <tb_op OP>
  __device__ __forceinline__ static void row_from(int64_t s, int start, int next, int count,
                                                  bool store, bool* bad, T* __restrict__ out) {
    *bad |= start < 0 || start > count || next < start;
    if (start == next && store) out[s] = identity<OP>();
  }

  // Row begin + k by thread k % NT, after any store of the tile into it (by
  // row or from the partials, rows_by_row and store_partials: a
  // neighbour's value), kRowsInFlight rows a thread a round: a round is a
  // load's latency, and the busiest tile of a web graph (12,211 rows, more
  // than half of them empty) took 48 rounds of one row. Eight for 8-byte
  // values (with eight slice entries, csr_tile: the web graph's double SpMV
  // 28 -> 22 us), four for 4-byte ones (eight took float power-law SpMV at
  // 2^22, L = 16, 52 -> 59-61 us, H200). kMaxRows: more are deferred.
  template <tb_op OP, int NT, int kMaxRows>
  __device__ __forceinline__ void tile(const int* __restrict__ csr, const SegRange& r, int64_t tile,
                                       int num_segments, int count, T* __restrict__ out) const {
    constexpr int kRowsInFlight = sizeof(T) == 8 ? 8 : 4;
    const int lo = tile == 0 ? 0 : r.begin, hi = r.begin + r.total;  // total <= n - begin
    if (hi - lo > kMaxRows) {
      if (threadIdx.x == 0) *deferred = 1;
      return;
    }
    const int base = r.begin - (r.begin - lo + NT - 1) / NT * NT;  // r.begin - a multiple of NT
    bool bad = r.disordered;
    for (int64_t s0 = base + int(threadIdx.x); s0 < hi; s0 += kRowsInFlight * NT) {
      int start[kRowsInFlight], next[kRowsInFlight];
#pragma unroll
      for (int q = 0; q < kRowsInFlight; ++q) {
        const int64_t s = s0 + q * NT;
        const bool in = s >= lo && s < hi;
        start[q] = in ? csr[s] : 0;
        next[q] = in ? (s + 1 < num_segments ? csr[s + 1] : count) : 0;
      }
#pragma unroll
      for (int q = 0; q < kRowsInFlight; ++q) {
        const int64_t s = s0 + q * NT;
        if (s >= lo && s < hi) row_from<OP>(s, start[q], next[q], count, s != r.begin, &bad, out);
      }
    }
    if (bad) *malformed = 1;
  }
};

// The rows tiles left to it (EmptyRows::deferred), after them: every empty
// row the identity, every offset checked. A grid of kEmptyCtas that returns
// at once where no tile did.
constexpr int kEmptyThreads = 256, kEmptyCtas = 264;
template <tb_op OP>
__global__ void __launch_bounds__(kEmptyThreads)
    empty_kernel(const int* __restrict__ csr, int num_segments, int count, EmptyRows empty,
                 T* __restrict__ out) {
  wait_for_prior_kernel();  // the tiles' flags and stores
  if (!*empty.deferred) return;
  bool bad = false;
  for (int64_t s = int64_t(blockIdx.x) * kEmptyThreads + threadIdx.x; s < num_segments;
       s += int64_t(kEmptyCtas) * kEmptyThreads)
    EmptyRows::row<OP>(csr, int(s), num_segments, count, true, &bad, out);  // s < num_segments
  if (bad) *empty.malformed = 1;
}

// Segmented reduction over CSR, direct: item g of the values is item g of
// the segments. Rows from the marks of the tile's CSR slice. W: values by
// one bulk copy (Tile::Words). kLong: segments of two tiles or more on average, where most
// tiles end none and the values load first (see below). kPublished: limits
// as the partition publishes them (TileRangeLoad). kEmpty: segments may be
// empty (CtaCsrEnds), and the tile stores the identity into its empty rows
// and checks its offsets (EmptyRows), in place of a prepass that strips
// them and a fill after.
// kWave: a grid of one wave, launched cooperatively (SegPolicy::csr_front):
// each tile searches its own limits and the carries are folded after a grid
// barrier (WaveCarries), so that the whole call is this one launch. With kEmpty the
// rows a tile defers and a malformed CSR's identities are the grid's work
// after the barrier too (csr_kernel), in place of empty_kernel and the fold.
template <tb_op OP, bool kWave>
using CarriesOf = std::conditional_t<kWave, WaveCarries<OP, T>, TileCarries<OP, T>>;

template <tb_seg_front F, tb_op OP, int NT, int VT, bool W, bool kLong, bool kPublished,
          bool kEmpty, bool kWave>
__device__ __forceinline__ void csr_tile(const Inputs& in, const int* __restrict__ csr,
                                         int num_segments, int count, const TileLimits& limits,
                                         const CarriesOf<OP, kWave>& carries, T* __restrict__ out,
                                         const EmptyRows& empty) {
  static_assert(!(kWave && kPublished), "a wave searches its own limits");
  using K = Tile<OP, NT, VT>;
  // Eight slice entries in flight for 8-byte values with empty rows, where
  // a web graph's tiles hold up to 3.2 tiles' worth of rows (its double
  // SpMV 28 -> 22 us, with EmptyRows' eight rows in flight); four for 4-byte
  // values, whose tile has more values in flight as the marks load (eight
  // made float no faster there, H200).
  using Ends = CtaCsrEnds<NT, VT, kEmpty, K::Seg::kMarks, kEmpty && sizeof(T) == 8 ? 8 : 4>;
  constexpr int kTile = K::kTile;
  __shared__ typename K::Shared u;
  __shared__ typename K::Seg::Storage seg;
  __shared__ typename K::WordsBar bar;  // W only
  const int64_t tile = blockIdx.x;
  const int first = int(tile * kTile);
  // The partition's limits first (or the loads of them), then the values,
  // unless segments are long: loading the values first lost 4-byte values
  // 10-13 points of copy at L = 16..1024 (the marks load behind them) and
  // gained 2-3 at L = 16384 (H100), where most tiles only pass their total
  // on.
  typename K::template Staged<W> v;
  if constexpr (kLong) K::template load<F>(in, first, count, v, u.direct.io, bar);
  auto limits_of = [&] {
    if constexpr (kWave)
      return TileRangeSearch<kTile, kEmpty>(csr, num_segments, count, tile, gridDim.x);
    else
      return TileRangeLoad<kTile, kPublished, kEmpty>(limits, tile, gridDim.x, num_segments);
  }();
  if constexpr (!kLong) K::template load<F>(in, first, count, v, u.direct.io, bar);
  const SegRange r = limits_of.range(num_segments);
  if (r.total == 0) {
    if constexpr (kEmpty) empty.tile<OP, NT, 4 * kTile>(csr, r, tile, num_segments, count, out);
    K::carry(v, carries, tile, r.next_none, u.direct.io, u.carry);
    return;
  }
  // The marks while the values are still in flight: where segments are
  // short the slice is as long as the values, and both streams then load
  // at once instead of one after the other. Where the rows' ends come from
  // the slice (in place, at most a row a thread, or any number in a tile
  // without the marks), only bits.
  const bool bits = K::kWarpIO && (!K::Seg::kMarks || K::Seg::rows_by_row(r, num_segments));
  if constexpr (K::Seg::kMarks) {
    if (!bits) Ends::clear(u.direct.ends);
  }
  if (bits) Ends::clear_bits(u.direct.ends);
  __syncthreads();  // the marks are cleared (and the values' copy visible: Tile::Words)
  const unsigned end = min(unsigned(first) + kTile, unsigned(count));  // when r.flush
  if constexpr (K::Seg::kMarks) {
    if (!bits) Ends::mark(csr, r, unsigned(first), end, u.direct.ends);
  }
  if (bits) Ends::mark_bits(csr, r, unsigned(first), end, u.direct.ends);
  __syncthreads();
  T x[VT];
  if constexpr (K::kWarpIO) {
    // Reduced in place: the warp transposes leave the tile's values in item
    // order, and the marks, which the partials leave alone, name each item's
    // row; the slice names each row's last item (the flushing tile's last
    // row: its last item).
    static_assert(!K::WarpIO::kPad && sizeof(typename K::IO) == kTile * sizeof(T),
                  "item e of the tile at slot e of the warps' buffers");
    K::to_blocked(v, x, u.direct.io);
    const auto& ends = u.direct.ends;
    unsigned flags;
    if constexpr (K::Seg::kMarks)
      flags = bits ? Ends::flags_bits(ends) : Ends::flags(ends);
    else
      flags = Ends::flags_bits(ends);
    const unsigned last = end - 1u - unsigned(first);
    const auto end_of = [&](int k) {
      const unsigned e =
          k + 1 < r.slice ? unsigned(csr[r.begin + k + 1]) - 1u - unsigned(first) : last;
      return int(min(e, unsigned(kTile - 1)));  // malformed: any item of the tile
    };
    const auto row_at = [&](int e) {
      if constexpr (K::Seg::kMarks) return Ends::row_at(ends, e);
      return -1;  // never asked: bits only go by row
    };
    K::Seg::reduce_in_place(x, flags, reinterpret_cast<T*>(&u.direct.io), bits, end_of, row_at, r,
                            num_segments, carries, tile, out, seg);
  } else {
    int rows[VT];
    const unsigned flags = Ends::read(u.direct.ends, rows);
    __syncthreads();  // the marks are read before the transpose overwrites them
    K::to_blocked(v, x, u.direct.io);
    K::Seg::reduce_to_global(x, flags, rows, r, num_segments, carries, tile, out, u.partials, seg);
  }
  if constexpr (kEmpty) empty.tile<OP, NT, 4 * kTile>(csr, r, tile, num_segments, count, out);
}

template <tb_seg_front F, tb_op OP, int NT, int VT, bool W, bool kLong, bool kPublished,
          bool kEmpty = false, bool kWave = false>
__global__ void __launch_bounds__(NT, Tile<OP, NT, VT>::template min_ctas<F, kEmpty>())
    csr_kernel(Inputs in, const int* __restrict__ csr, int num_segments, int count,
               TileLimits limits, CarriesOf<OP, kWave> carries, T* __restrict__ out,
               EmptyRows empty) {
  csr_tile<F, OP, NT, VT, W, kLong, kPublished, kEmpty, kWave>(in, csr, num_segments, count,
                                                               limits, carries, out, empty);
  if constexpr (kWave) {
    auto grid = cooperative_groups::this_grid();
    grid.sync();  // every tile's carries (and EmptyRows' flags) stored
    if constexpr (kEmpty) {
      // The flags are final after a barrier, so every CTA takes one branch.
      const int64_t first = int64_t(blockIdx.x) * NT + threadIdx.x, step = int64_t(gridDim.x) * NT;
      if (*empty.deferred) {  // empty_kernel's work, by the whole grid
        bool bad = false;
        for (int64_t s = first; s < num_segments; s += step)
          EmptyRows::row<OP>(csr, int(s), num_segments, count, true, &bad, out);
        if (bad) *empty.malformed = 1;
        grid.sync();
      }
      if (*empty.malformed) {  // fold_kernel's answer to a malformed CSR
        for (int64_t s = first; s < num_segments; s += step) out[s] = identity<OP>();
        return;
      }
    }
    carries.template fold_tile<NT>(blockIdx.x, out);
  }
}

// Segmented reduction over CSR, indirect: segment s reads its items from
// sources[s] on, so the rows come first (a search of the tile's CSR slice)
// and item g of row s is item g - csr[s] of the row's source range. A
// kernel of its own: its registers would cost the direct form occupancy.
template <tb_seg_front F, tb_op OP, int NT, int VT>
__global__ void __launch_bounds__(NT)
    csr_indirect_kernel(Inputs in, const int* __restrict__ csr, const int* __restrict__ sources,
                        int num_segments, int count, TileLimits limits, TileCarries<OP, T> carries,
                        T* __restrict__ out) {
  using K = Tile<OP, NT, VT>;
  constexpr int kTile = K::kTile;
  __shared__ typename K::IndirectShared u;
  __shared__ typename K::Seg::Storage seg;
  const int64_t tile = blockIdx.x;
  const int first = int(tile * kTile);
  const SegRange r =
      TileRangeLoad<kTile, true>(limits, tile, gridDim.x, num_segments).range(num_segments);
  const unsigned end = r.flush ? min(unsigned(first) + kTile, unsigned(count)) : UINT32_MAX;
  const unsigned thread_first = unsigned(first) + threadIdx.x * VT;
  int rows[VT + 1];
  unsigned starts[VT];
  for (int k = threadIdx.x; k < r.slice; k += NT) u.csr[k] = csr[r.begin + k];
  __syncthreads();
  expand_csr_rows<VT>(thread_first, u.csr, r.slice, end, rows, starts);
  T x[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const unsigned g = thread_first + i;
    const int s = r.begin + rows[i];
    x[i] = identity<OP>();
    if (g < unsigned(count) && rows[i] < r.slice && s < num_segments) {
      const int64_t m = sources[s] + (int64_t(g) - int64_t(starts[i]));
      if (m >= 0 && m < count) x[i] = item_value<F, OP>(in, int(m));
    }
  }
  if (r.total == 0) {
    __syncthreads();  // every CSR read before the carry storage is written
    K::Carry::run(x, carries, tile, r.next_none, u.carry);
    return;
  }
  K::Seg::reduce_to_global(x, end_flags<VT>(rows), rows, r, num_segments, carries, tile, out,
                           u.partials, seg);
}

// The preprocessed form: rows from one code word per thread, so a tile reads
// only its values (and no CSR). W: the values as one bulk copy (Tile::Words).
template <tb_seg_front F, tb_op OP, int NT, int VT, bool W, bool kWave>
__device__ __forceinline__ void apply_tile(const Inputs& in, const int* __restrict__ codes,
                                           const int* limits, int num_segments, int count,
                                           const CarriesOf<OP, kWave>& carries,
                                           T* __restrict__ out) {
  using K = Tile<OP, NT, VT>;
  constexpr int kTile = K::kTile;
  __shared__ typename K::ApplyShared u;
  __shared__ typename K::Seg::Storage seg;
  __shared__ typename K::WordsBar bar;  // W only
  const int64_t tile = blockIdx.x;
  const int first = int(tile * kTile);
  // The bulk copy against striped loads: 4-byte apply 6-8% faster at
  // L = 4..1024 on the H200, a tie on the H100 (cp.async of 16-byte words
  // a lane had lost 1-4 points of copy there from L = 16).
  typename K::template Staged<W> v;
  K::template load<F>(in, first, count, v, u.io, bar);
  const int code = codes[tile * NT + threadIdx.x];
  // The values and the code are issued before the wait and the limits:
  // 4-byte apply ran at 83% of copy at L = 64 so, 77% with the wait first
  // and 75% with no wait (H100). In apply_run a memset is ahead of this
  // kernel, so the wait returns at once.
  wait_for_prior_kernel();
  const SegRange r = tile_range<kTile>(limits, tile, gridDim.x, num_segments);
  if (r.total == 0) {
    K::carry(v, carries, tile, r.next_none, u.io, u.carry);
    return;
  }
  T x[VT];
  K::copy_visible(v);
  K::to_blocked(v, x, u.io);
  K::Seg::reduce_to_global(x, code_flags(code), code_row(code), r, num_segments, carries, tile, out,
                           u.partials, seg);
}

// kWave: one wave, launched cooperatively, its carries folded after a grid
// barrier (csr_kernel's kWave): the apply is this one launch.
template <tb_seg_front F, tb_op OP, int NT, int VT, bool W, bool kWave = false>
__global__ void __launch_bounds__(NT, Tile<OP, NT, VT>::kMinCtasPerSm)
    apply_kernel(Inputs in, const int* __restrict__ codes, const int* limits, int num_segments,
                 int count, CarriesOf<OP, kWave> carries, T* __restrict__ out) {
  apply_tile<F, OP, NT, VT, W, kWave>(in, codes, limits, num_segments, count, carries, out);
  if constexpr (kWave) {
    cooperative_groups::this_grid().sync();  // every tile's carries stored
    carries.template fold_tile<NT>(blockIdx.x, out);
  }
}

#ifndef TB_GRID_WIDE  // the tuned set's alone (RowsPolicy)
// ---- whole rows a CTA: small calls ----------------------------------------

// Segmented reduction and SpMV over CSR for calls of up to 2^22 items
// (RowsPolicy, the C layer's tb_seg_rows_fit): each CTA
// takes a run of whole rows, so no row crosses CTAs and there is nothing to
// search, carry or fold: the call is this one kernel, which does what CUB's
// segment-per-thread/warp/CTA kernels do. A group of `lanes` lanes reduces
// a row, TB_SEG_ROWS_BATCH rows a group with their loads in flight
// together; rows longer than four of a group's rounds of loads
// (tb_seg_rows_long) are reduced by a warp each after the groups' rows,
// rows longer than eight of a warp's by the whole CTA after those, and rows
// longer than TB_SEG_ROWS_SPLIT are split: their owner posts them in a
// table, then the owner and every CTA that has finished its own rows claim
// units of TB_SEG_ROWS_UNIT items, and the owner combines the units'
// results in order. Each row's order of operations is fixed by the call's
// geometry: results are deterministic. An empty row gets the identity as
// any row gets its reduction; with support_empty each CTA also checks its
// offsets by EmptyRows' rule, and where one breaks it every row gets the
// identity, as the tiles do (settle_malformed). (Splitting over a cluster of CTAs
// cost every other call 1.3-2.5x on the H100: the cluster's barriers and
// scheduling.)
constexpr int kRowsThreads = TB_SEG_ROWS_THREADS;
constexpr int kRowsBatch = TB_SEG_ROWS_BATCH;
// Rows up to this long are a warp's: eight of its rounds of kWarpUnroll
// loads a lane. A CTA's long rows run one after the other, its warps' side
// by side: SpMV on a Groebner-basis matrix (rows of up to 829 items, about
// 20 a CTA) took 28 us a call with every row over 256 items the CTA's, 18
// with those up to 512 its warps' (H100).
constexpr int kWarpUnroll = 8, kWarpLongRow = TB_SEG_ROWS_WARP_LONG;
static_assert(kWarpLongRow == 8 * kWarpUnroll * 32, "eight rounds of a warp");
constexpr int kUnit = TB_SEG_ROWS_UNIT, kSplitRow = TB_SEG_ROWS_SPLIT, kSlots = TB_SEG_ROWS_SLOTS;
static_assert(kUnit == kRowsThreads * TB_SEG_ROWS_CTA_UNROLL, "a unit is a round of the CTA");
// A split row of up to this many units is combined by one thread.
constexpr int kFewUnits = 4;
static_assert((kSlots & (kSlots - 1)) == 0 && kSlots <= kRowsThreads, "a slot a thread");
static_assert(int64_t(TB_SEG_ROWS_MAX_COUNT) / (kSplitRow + 1) < kSlots, "a slot a split row");

// The loads of one round: items m, m + width, ... (kUnroll of them) below
// e. SpMV's column indices are loaded for the whole round before the first
// gather of x (as Tile::load_striped does): item by item, each gather
// waited on its index, and a row of 46,500 nonzeros took 80 us in one CTA
// (H100, ncu).
template <tb_seg_front F, tb_op OP, int kUnroll, int kRows>
__device__ __forceinline__ void load_rounds(const Inputs& in, const int (&m)[kRows],
                                            const int (&e)[kRows], int width,
                                            T (&v)[kRows][kUnroll]) {
  if constexpr (F == TB_SEG_VALUES) {
#pragma unroll
    for (int b = 0; b < kRows; ++b)
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        v[b][u] = m[b] + u * width < e[b] ? in.values[m[b] + u * width] : identity<OP>();
  } else {
    int c[kRows][kUnroll];
#pragma unroll
    for (int b = 0; b < kRows; ++b)
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        c[b][u] = load_once_if(m[b] + u * width < e[b], in.cols + m[b] + u * width, -1);
#pragma unroll
    for (int b = 0; b < kRows; ++b)
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const bool ok = c[b][u] >= 0 && c[b][u] < in.x_len;
        const T xv = ok ? in.x[c[b][u]] : identity<OP>();
        if constexpr (F == TB_SEG_SPMV_UNARY) {
          v[b][u] = xv;
        } else {
          const T a = load_once_if(ok, in.values + m[b] + u * width, T());
          v[b][u] = ok ? Op<TB_OP_MULTIPLIES>::apply(a, xv) : identity<OP>();
        }
      }
  }
}

// Reduces the kRows rows [s[b], e[b]) with `width` threads, this one at
// `lane`, round by round with every row's loads of a round in flight
// together; this thread's shares.
template <tb_seg_front F, tb_op OP, int kUnroll, int kRows>
__device__ __forceinline__ void reduce_rows(const Inputs& in, const int (&s)[kRows],
                                            const int (&e)[kRows], int lane, int width,
                                            T (&acc)[kRows]) {
  int m[kRows];
  bool more = false;
#pragma unroll
  for (int b = 0; b < kRows; ++b) {
    acc[b] = identity<OP>();
    m[b] = s[b] + lane;
    more |= m[b] < e[b];
  }
  while (more) {
    T v[kRows][kUnroll];
    load_rounds<F, OP, kUnroll>(in, m, e, width, v);
    more = false;
#pragma unroll
    for (int b = 0; b < kRows; ++b) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc[b] = Op<OP>::apply(acc[b], v[b][u]);
      m[b] += width * kUnroll;
      more |= m[b] < e[b];
    }
  }
}

template <tb_seg_front F, tb_op OP, int kUnroll>
__device__ __forceinline__ T reduce_strided(const Inputs& in, int s, int e, int lane, int width) {
  T acc[1];
  reduce_rows<F, OP, kUnroll, 1>(in, {s}, {e}, lane, width, acc);
  return acc[0];
}

// The split rows of a call (rows longer than kSplitRow), in its scratch,
// which nothing zeroes. A slot of the table counts only where its tag word
// holds the call's tag (even; tag | 1 marks a slot being written), which no
// earlier call of the process had and which anything else left in the
// scratch matches only by chance (one in 2^63); a slot's fields are checked
// all the same. The owner of a row writes everything else before it posts
// it: the slot's row, its bounds and its count of units claimed, and the
// done word of each unit. A row's unit j (its items s + j * kUnit on) has
// its done word and partial result at unit(s) + j: distinct for every unit
// of every split row of a well-formed CSR, and inside the scratch for any
// bounds in [0, count].
struct RowsSplit {
  unsigned long long* slot_tag;  // kSlots, then the call's tag once a row is posted
  int4* slot_row;                // kSlots: row, start, end
  int* slot_next;                // kSlots: units claimed
  unsigned* done;                // a unit's, 1 once its partial is stored
  T* partial;
  unsigned long long tag;
  int owners;  // CTAs with rows; those after them only take units
  int count;

  // Distinct for rows longer than kWarpLongRow, the shortest posted.
  __device__ static int unit(int s) { return s / kUnit + s / kWarpLongRow; }
  __device__ static int units(int s, int e) { return (e - s + kUnit - 1) / kUnit; }

  // The slot of the row, or -1: none free in `probes` tries (the table full:
  // malformed offsets, rows of one length past TB_SEG_ROWS_MAX_COUNT items,
  // or an overloaded CTA's rows).
  // One thread. Its done words are cleared only once it has a slot: a row that gets
  // none (its CTA reduces it) leaves alone those of another row over the
  // same items (malformed offsets), which that row's units set.
  __device__ int post(int row, int s, int e, int probes) const {
    for (int i = 0; i < probes; ++i) {
      const int t = (row + i) & (kSlots - 1);
      unsigned long long seen = load(slot_tag + t);
      while (seen != tag && seen != (tag | 1)) {
        const unsigned long long was = atomicCAS(slot_tag + t, seen, tag | 1);
        if (was == seen) {
          for (int j = 0, u0 = unit(s); j < units(s, e); ++j) done[u0 + j] = 0;
          slot_row[t] = make_int4(row, s, e, 0);
          slot_next[t] = 0;
          __threadfence();
          atomicExch(slot_tag + t, tag);
          atomicExch(slot_tag + kSlots, tag);  // some row is posted
          return t;
        }
        seen = was;
      }
    }
    return -1;
  }
  // The split row of slot t now, or nothing (an empty or stale slot).
  __device__ bool posted(int t, int4& r) const {
    if (load(slot_tag + t) != tag) return false;
    __threadfence();
    r = __ldcg(slot_row + t);
    r.w = t;
    return 0 <= r.y && r.y < r.z && r.z <= count && r.z - r.y > kWarpLongRow;
  }
  __device__ void finish(int u, T value) const {
    partial[u] = value;
    __threadfence();
    atomicExch(done + u, 1u);
  }
  __device__ T result(int u) const {
    for (unsigned ns = 64; *reinterpret_cast<const volatile unsigned*>(done + u) == 0;
         ns = min(2 * ns, 1024u))
      __nanosleep(ns);
    __threadfence();
    return __ldcg(partial + u);
  }
  // Units u0 .. u0 + n - 1 (n <= N, at least one), their done words read
  // together, one fence.
  template <int N>
  __device__ void results(int u0, int n, T (&part)[N]) const {
    for (unsigned ns = 64;; ns = min(2 * ns, 1024u)) {
      bool all = true;
#pragma unroll
      for (int i = 0; i < N; ++i)
        all &= i >= n || *reinterpret_cast<const volatile unsigned*>(done + u0 + i) != 0;
      if (all) break;
      __nanosleep(ns);
    }
    __threadfence();
#pragma unroll
    for (int i = 0; i < N; ++i) part[i] = i < n ? __ldcg(partial + u0 + i) : T();
  }
  __device__ static unsigned long long load(const unsigned long long* p) {
    return *reinterpret_cast<const volatile unsigned long long*>(p);
  }
};

// The CTA takes units of the split row r (start r.y, end r.z, slot r.w)
// until every unit is claimed, each claim made while the unit before is
// reduced. Its own row's units need no fence: only its threads read them.
template <tb_seg_front F, tb_op OP>
__device__ void take_units(const Inputs& in, const RowsSplit& split, int4 r, bool own,
                           typename CtaReduce<OP, T, kRowsThreads>::Storage& reduce, int& claimed) {
  const int u0 = RowsSplit::unit(r.y), n = RowsSplit::units(r.y, r.z);
  if (threadIdx.x == 0) claimed = atomicAdd(split.slot_next + r.w, 1);
  __syncthreads();
  for (int j = claimed; j < n;) {
    int next = 0;
    if (threadIdx.x == 0) next = atomicAdd(split.slot_next + r.w, 1);
    const int a = r.y + j * kUnit;
    T acc = reduce_strided<F, OP, TB_SEG_ROWS_CTA_UNROLL>(in, a, min(r.z, a + kUnit),
                                                          int(threadIdx.x), kRowsThreads);
    acc = CtaReduce<OP, T, kRowsThreads>::reduce(acc, reduce);
    if (threadIdx.x == 0) {
      if (own)
        split.partial[u0 + j] = acc, split.done[u0 + j] = 1;
      else
        split.finish(u0 + j, acc);
      claimed = next;
    }
    __syncthreads();  // claimed, reduce's storage
    j = claimed;
  }
  __syncthreads();  // claimed
}

// Of the split rows rows[0, n) (n <= kSlots), counted cyclically from
// `from`, the first that still has units to claim, or -1: a load a row, all
// at once. A CTA that tried them one claim after another spent a round trip
// on each row others had taken: an overloaded CTA posts a hundred.
__device__ int next_with_units(const RowsSplit& split, const int4* rows, int n, int from,
                               int& found) {
  if (threadIdx.x == 0) found = n;
  __syncthreads();
  if (int(threadIdx.x) < n) {
    const int4 r = rows[threadIdx.x];
    if (*reinterpret_cast<const volatile int*>(split.slot_next + r.w) < RowsSplit::units(r.y, r.z))
      atomicMin(&found, (int(threadIdx.x) - from + n) % n);
  }
  __syncthreads();
  return found < n ? (found + from) % n : -1;
}

// Units of every split row in the table until none is left to claim. A
// CTA without rows of its own waits for the first post (its owner starts
// with it) a bounded time: an owner takes every unit no one else claims.
template <tb_seg_front F, tb_op OP>
__device__ void help_split(const Inputs& in, const RowsSplit& split, bool wait, int4* posted,
                           int& num_posted, int& found,
                           typename CtaReduce<OP, T, kRowsThreads>::Storage& reduce, int& claimed) {
  for (unsigned ns = 256, slept = 0;;) {
    __syncthreads();  // num_posted and posted, read the round before
    if (threadIdx.x == 0) num_posted = 0;
    __syncthreads();
    int4 r;
    if (threadIdx.x < kSlots && split.posted(threadIdx.x, r)) posted[atomicAdd(&num_posted, 1)] = r;
    __syncthreads();
    const int n = num_posted;
    if (n == 0) {
      if (!wait || slept > 20000) return;
      __nanosleep(ns);
      slept += ns, ns = min(2 * ns, 2048u);
      continue;
    }
    for (int j; (j = next_with_units(split, posted, n, int(blockIdx.x % n), found)) >= 0;)
      take_units<F, OP>(in, split, posted[j], false, reduce, claimed);  // ends on a barrier
    if (!wait) return;
    wait = false;  // once more, for rows posted since
  }
}

// support_empty on rows_kernel, once a CTA's own rows are stored: where a
// CTA found the offsets malformed (*word holds the call's tag), every row
// the identity. The CTA that set the word first (`setter`) stores it into
// every row; every other CTA reads the word behind a fence after its own
// stores, so that either it sees the word and stores the identity into its
// own rows, or its stores came before the setter's (sequentially consistent
// fences). In place of a second kernel, which cost a call 2-3 us (H200).
template <tb_op OP>
__device__ void settle_malformed(const unsigned long long* word, unsigned long long tag,
                                 bool setter, int first, int rows, int num_segments,
                                 T* __restrict__ out) {
  __shared__ bool seen;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) seen = RowsSplit::load(word) == tag;
  __syncthreads();
  const int64_t lo = setter ? 0 : first, hi = setter ? num_segments : int64_t(first) + rows;
  if (setter || seen)
    for (int64_t s = lo + threadIdx.x; s < hi; s += kRowsThreads) out[s] = identity<OP>();
}

// Three CTAs an SM where the registers allow it without more than a few
// bytes of spills (4-byte values; SpMV's gathers and 8-byte values spill
// hundreds at 40 registers a thread), else two.
template <tb_seg_front F, tb_op OP>
__global__ void __launch_bounds__(kRowsThreads, F == TB_SEG_VALUES && sizeof(T) == 4 ? 3 : 2)
    rows_kernel(Inputs in, const int* __restrict__ csr, int fixed, int num_segments, int count,
                int lanes, int long_row, int rows_per_cta, RowsSplit split,
                unsigned long long* malformed, T* __restrict__ out) {
  constexpr int NT = kRowsThreads;
  // The rows' offsets, then warp rows from the front of a list and the
  // CTA's from its back (tb_seg_rows_shared); split rows apart.
  extern __shared__ int rows_shared[];
  int* const offsets = rows_shared;
  int* const listed = rows_shared + rows_per_cta + 1;
  const int last = rows_per_cta - 1;  // the list's back
  __shared__ int4 split_rows[kSlots], posted[kSlots];
  __shared__ int num_warp, num_long, num_split, num_posted, claimed, found;
  __shared__ T team[kRowsBatch][NT / 32];  // groups of several warps
  __shared__ typename CtaReduce<OP, T, NT>::Storage reduce;
  wait_for_prior_kernel();  // the call's inputs
  if (split.slot_tag && blockIdx.x >= split.owners) {
    help_split<F, OP>(in, split, true, posted, num_posted, found, reduce, claimed);
    return;
  }
  const int first = int(int64_t(blockIdx.x) * rows_per_cta);  // < num_segments
  const int rows = min(rows_per_cta, num_segments - first);
  if (threadIdx.x == 0) num_warp = 0, num_long = 0, num_split = 0;
  // Offsets clamped into [0, count] and each row's end to its start or
  // past: a malformed CSR reads nothing outside the items (its results are
  // unspecified, as documented, but with support_empty the identity). Without
  // a CSR, rows of `fixed` items.
  bool bad = false;
  // Five loads a thread in flight: a CTA of more than 2,559 rows loads
  // twice.
  for (int c0 = 0; c0 <= rows; c0 += (kRowsBatch + 1) * NT) {
    int o[kRowsBatch + 1];
#pragma unroll
    for (int i = 0; i <= kRowsBatch; ++i) {
      const int k = c0 + int(threadIdx.x) + i * NT, r = first + k;
      const bool load = csr && k <= rows && r < num_segments;  // predicated, not branched
      o[i] = load_once_if(load, csr + (load ? r : 0),
                          k > rows            ? 0
                          : r >= num_segments ? count
                                              : r * fixed);
    }
#pragma unroll
    for (int i = 0; i <= kRowsBatch; ++i) {
      const int k = c0 + int(threadIdx.x) + i * NT;
      if (k <= rows) offsets[k] = min(max(o[i], 0), count);
      bad |= k <= rows && (o[i] < 0 || o[i] > count);
    }
  }
  __syncthreads();
  __shared__ bool setter;  // this CTA set *malformed first
  if (malformed) {  // support_empty: EmptyRows' rule, the CTA's rows and the next start
    for (int k = threadIdx.x; k < rows; k += NT) bad |= offsets[k + 1] < offsets[k];
    if (threadIdx.x == 0) setter = false;
    if (__syncthreads_or(bad) && threadIdx.x == 0)
      setter = atomicExch(malformed, split.tag) != split.tag;
  }
  // Where the CTA's rows are all stored (each return below).
  const auto settle = [&] {
    if (malformed)
      settle_malformed<OP>(malformed, split.tag, setter, first, rows, num_segments, out);
  };
  // Split rows posted first, so that other CTAs can start on them; whether
  // any CTA has posted, read while this one works and again once it is done
  // (an L2 hit): a CTA that finds none does not look for units (the table's
  // scan costs a CTA a round trip). A CTA of more than kSplitRow items
  // (rows dealt by count: a run of long rows) also posts its rows of more
  // than a warp's: a bundle-adjustment J^T (144 rows of up to 19,012 items
  // first, 2 M in all) took one CTA 718 us, where the call takes 23 (H200).
  // Only a CTA of more than kSplitRow items can hold a row that long: the
  // others skip the scan (a tenth of a CTA's instructions at a row a
  // thread). Rows it does not post, the CTA reduces (malformed offsets).
  unsigned long long posted_any = 0;
  const bool overloaded = split.slot_tag && offsets[rows] - offsets[0] > kSplitRow;
  const auto posts = [&](int len) { return overloaded && len > max(kWarpLongRow, long_row); };
  if (split.slot_tag && threadIdx.x == 0) posted_any = RowsSplit::load(split.slot_tag + kSlots);
  if (overloaded) {
    for (int k = threadIdx.x; k < rows; k += NT) {
      const int s = offsets[k], e = max(offsets[k + 1], s);
      if (posts(e - s)) {
        const int t = split.post(first + k, s, e, e - s > kSplitRow ? kSlots : 8);
        if (t >= 0)
          split_rows[atomicAdd(&num_split, 1)] = make_int4(k, s, e, t);
        else
          listed[last - atomicAdd(&num_long, 1)] = k;
      }
    }
  }
  // lanes is a power of two: shifts, not divisions (70 instructions a warp).
  // Where each group has one row at most, its row takes the CTA tier's
  // unroll: one round of loads where the group's 4 would take several.
  const int shift = __ffs(lanes) - 1, lane = int(threadIdx.x) & (lanes - 1), groups = NT >> shift;
  const bool strided = lanes > 32 || rows <= groups;
  // Whole warps round by round, so that the group's shuffles see every lane.
  for (int base = 0; base < rows; base += groups * kRowsBatch) {
    int k[kRowsBatch], s[kRowsBatch], e[kRowsBatch];
    bool alone[kRowsBatch];
#pragma unroll
    for (int b = 0; b < kRowsBatch; ++b) {
      k[b] = base + b * groups + (int(threadIdx.x) >> shift);
      s[b] = 0, e[b] = 0;
      if (k[b] < rows) s[b] = offsets[k[b]], e[b] = max(offsets[k[b] + 1], s[b]);
      alone[b] = e[b] - s[b] > long_row;
      if (alone[b]) {
        if (lane == 0 && !posts(e[b] - s[b])) {
          if (e[b] - s[b] > kWarpLongRow)
            listed[last - atomicAdd(&num_long, 1)] = k[b];
          else
            listed[atomicAdd(&num_warp, 1)] = k[b];
        }
        e[b] = s[b];
      }
    }
    T acc[kRowsBatch];
    if (strided) {  // a row a group at most
#pragma unroll
      for (int b = 1; b < kRowsBatch; ++b) acc[b] = identity<OP>();
      acc[0] = reduce_strided<F, OP, TB_SEG_ROWS_CTA_UNROLL>(in, s[0], e[0], lane, lanes);
    } else {
      reduce_rows<F, OP, TB_SEG_ROWS_UNROLL>(in, s, e, lane, lanes, acc);
    }
    // Each warp's shuffles only for a batch where it has rows (the rows
    // dealt to CTAs often leave batches empty).
    const int width = min(lanes, 32), warp_rows = base + ((int(threadIdx.x) & ~31) >> shift);
#pragma unroll
    for (int b = 0; b < kRowsBatch; ++b)
      if (warp_rows + b * groups < rows)
        for (int offset = width / 2; offset > 0; offset /= 2)
          acc[b] = Op<OP>::apply(acc[b], __shfl_xor_sync(kFullMask, acc[b], offset, width));
    if (lanes > 32) {  // a group of several warps: their results through shared memory
      const int warp = int(threadIdx.x) / 32;
      if (threadIdx.x % 32 == 0)
#pragma unroll
        for (int b = 0; b < kRowsBatch; ++b) team[b][warp] = acc[b];
      __syncthreads();
      if (lane == 0)
#pragma unroll
        for (int b = 0; b < kRowsBatch; ++b)
          for (int w = 1; w < lanes / 32; ++w) acc[b] = Op<OP>::apply(acc[b], team[b][warp + w]);
      __syncthreads();  // team, for the next rows
    }
#pragma unroll
    for (int b = 0; b < kRowsBatch; ++b)
      if (k[b] < rows && !alone[b] && lane == 0) out[first + k[b]] = acc[b];
  }
  __syncthreads();  // the lists
  const int lane32 = int(threadIdx.x) % 32;
  for (int j = int(threadIdx.x) / 32; j < num_warp; j += NT / 32) {
    const int k = listed[j];
    const T acc = warp_reduce<OP>(reduce_strided<F, OP, kWarpUnroll>(
        in, offsets[k], max(offsets[k + 1], offsets[k]), lane32, 32));
    if (lane32 == 0) out[first + k] = acc;
  }
  for (int j = 0; j < num_long; ++j) {
    const int k = listed[last - j];
    const int s = offsets[k], e = max(offsets[k + 1], s);
    T acc = reduce_strided<F, OP, TB_SEG_ROWS_CTA_UNROLL>(in, s, e, int(threadIdx.x), NT);
    acc = CtaReduce<OP, T, NT>::reduce(acc, reduce);
    if (threadIdx.x == 0) out[first + k] = acc;
    __syncthreads();  // reduce's storage, for the next row
  }
  if (!split.slot_tag) return settle();
  // Own split rows' units, then other CTAs' (while theirs run), then the
  // own rows' results from their units in order.
  const int mine = num_split;
  if (threadIdx.x == 0 && posted_any != split.tag)
    posted_any = RowsSplit::load(split.slot_tag + kSlots);
  if (__syncthreads_or(threadIdx.x == 0 && posted_any == split.tag) == 0 && mine == 0)
    return settle();
  // Own rows with units left (next_with_units), then combined: a row of a
  // few units a thread's, its units awaited together and folded in order; a
  // row of more a warp's. Row after row, a claim each and the CTA's barriers
  // to combine each, a bundle-adjustment J^T's 144 rows took their owner
  // 240 us (H200); a warp a row, nine rows a warp one after the other (a
  // wait, a fence and a load each), 26.9 us the SpMV, a thread a row 22.0.
  for (int j; (j = next_with_units(split, split_rows, mine, 0, found)) >= 0;)
    take_units<F, OP>(in, split, split_rows[j], true, reduce, claimed);  // ends on a barrier
  help_split<F, OP>(in, split, false, posted, num_posted, found, reduce, claimed);
  for (int j = int(threadIdx.x); j < mine; j += NT) {
    const int4 r = split_rows[j];
    const int u0 = RowsSplit::unit(r.y), n = RowsSplit::units(r.y, r.z);
    if (n > kFewUnits) continue;
    T part[kFewUnits];
    split.results<kFewUnits>(u0, n, part);
    T acc = part[0];
#pragma unroll
    for (int i = 1; i < kFewUnits; ++i)
      if (i < n) acc = Op<OP>::apply(acc, part[i]);
    out[first + r.x] = acc;
  }
  for (int j = int(threadIdx.x) / 32; j < mine; j += NT / 32) {
    const int4 r = split_rows[j];
    const int u0 = RowsSplit::unit(r.y), n = RowsSplit::units(r.y, r.z);
    if (n <= kFewUnits) continue;
    T acc = identity<OP>();
    for (int i = lane32; i < n; i += 32) acc = Op<OP>::apply(acc, split.result(u0 + i));
    acc = warp_reduce<OP>(acc);
    if (lane32 == 0) out[first + r.x] = acc;
  }
  settle();
}

// ---- rows of one short length (tb_segreduce_fixed) --------------------------

// Rows of 2^log_len items, up to kFixedVT: each warp loads 32 * kFixedVT
// consecutive items coalesced and turns them blocked through shared memory
// (kFixedVT a thread: whole rows, none across threads); each thread
// reduces its rows into the same storage, and the warp stores its 32 *
// kFixedVT >> log_len results coalesced. No offsets and no rows a CTA to
// deal: the rows kernel took 1.15-1.6x the time of CUB's
// fixed-size overload at L = 1-16 from 2^22 items up (H200).
constexpr int kFixedThreads = 256, kFixedVT = TB_SEG_FIXED_SHORT;

template <tb_op OP>
__global__ void __launch_bounds__(kFixedThreads)
    fixed_short_kernel(const T* __restrict__ in, int count, int log_len, T* __restrict__ out) {
  using IO = WarpTranspose<T, kFixedVT>;
  __shared__ typename IO::Storage io[kFixedThreads / 32];
  wait_for_prior_kernel();  // the call's inputs
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t offset = (int64_t(blockIdx.x) * (kFixedThreads / 32) + warp) * IO::kItems;
  if (offset >= count) return;  // a warp past the end: no CTA barrier follows
  const int items = int(min(int64_t(IO::kItems), count - offset));  // a multiple of the rows'
  T x[kFixedVT];
  IO::load_blocked(in + offset, items, identity<OP>(), x, io[warp]);
  __syncwarp();  // every lane has its items: the storage takes the results
  const int last = (1 << log_len) - 1;
  T acc = identity<OP>();
#pragma unroll
  for (int i = 0; i < kFixedVT; ++i) {
    acc = Op<OP>::apply(acc, x[i]);
    if ((i & last) == last) {
      io[warp].items[IO::slot((lane * kFixedVT + i) >> log_len)] = acc;
      acc = identity<OP>();
    }
  }
  __syncwarp();
  T* dst = out + (offset >> log_len);
  for (int k = lane; k < items >> log_len; k += 32) dst[k] = io[warp].items[IO::slot(k)];
}

// Rows of one length from 256 to 2,048 items (tb_seg_fixed_warp): a warp a
// row, eight rows a CTA, a row's loads a round kFixedWarpUnroll a lane in
// flight together, then the warp's shuffles: no offsets staged, no CTA
// barrier (CUB's fixed-size overload's warp a segment). The rows kernel's
// group of a row paid its prologue and its team's barriers: 0.74-0.84x at
// L = 1024, 2^18-2^20 (H200).
constexpr int kFixedWarpThreads = 256, kFixedWarpUnroll = 8;

template <tb_op OP>
__global__ void __launch_bounds__(kFixedWarpThreads)
    fixed_warp_kernel(const T* __restrict__ in, int num_rows, int len, T* __restrict__ out) {
  wait_for_prior_kernel();  // the call's inputs
  const int lane = threadIdx.x % 32;
  const int row = int(blockIdx.x) * (kFixedWarpThreads / 32) + int(threadIdx.x) / 32;
  if (row >= num_rows) return;  // a warp past the end: no CTA barrier follows
  const T* __restrict__ p = in + int64_t(row) * len;
  T acc = identity<OP>();
  for (int i = lane; i < len; i += 32 * kFixedWarpUnroll) {
    T v[kFixedWarpUnroll];
#pragma unroll
    for (int u = 0; u < kFixedWarpUnroll; ++u)
      v[u] = i + u * 32 < len ? p[i + u * 32] : identity<OP>();
#pragma unroll
    for (int u = 0; u < kFixedWarpUnroll; ++u) acc = Op<OP>::apply(acc, v[u]);
  }
  acc = warp_reduce<OP>(acc);
  if (lane == 0) out[row] = acc;
}
#endif  // TB_GRID_WIDE

// ---- reduce-by-key over the run core --------------------------------------

// Reduce-by-key in one pass (kernels/device/cta_reduce_by_key.cuh): runs
// found by a discontinuity test, a scan of (run ends, value) pairs with a
// look-back over one 16-byte word per tile, runs stored from the tile. The
// tile's shared memory is dynamic: large boxes of 8-byte values need more
// than the static 48 KiB.
template <tb_op OP, int NT, int VT>
__global__ void __launch_bounds__(NT)
by_key_kernel(const int* __restrict__ keys, const T* __restrict__ values, int count,
              RunStatusArray<T> status, LookBackDelay delay, int* __restrict__ keys_out,
              T* __restrict__ values_out, int* __restrict__ d_num) {
  using K = CtaReduceByKey<OP, T, NT, VT>;
  extern __shared__ __align__(16) unsigned char by_key_shared[];
  // More runs than threads: staged through shared memory, coalesced.
  K::run(keys, values, count, keys_out, values_out, d_num, status, delay, NT,
         *reinterpret_cast<typename K::Storage*>(by_key_shared));
}

// out[s] = tmp[its rank] for a non-empty segment, the identity for an empty
// one (every segment when ranks is NULL, or when the prepass found the CSR
// malformed, num2[1]: its tiles may not have written every slot of tmp). A
// warp's segments share one rank word (segreduce_prep.cu). kFillRows rows a
// thread, a CTA's apart, for more loads in flight (one a thread: 35% of DRAM
// throughput, ncu).
constexpr int kFillThreads = 256, kFillRows = 4;
template <tb_op OP>
__global__ void __launch_bounds__(kFillThreads)
    fill_kernel(const uint2* __restrict__ ranks, int num_segments, const int* __restrict__ num2,
                const T* __restrict__ tmp, T* __restrict__ out) {
  wait_for_prior_kernel();  // the tiles' and the fold's results
  const int64_t first = int64_t(blockIdx.x) * kFillThreads * kFillRows + threadIdx.x;
  const bool none = !ranks || num2[1];
  T v[kFillRows];
#pragma unroll
  for (int j = 0; j < kFillRows; ++j) {
    const int64_t s = first + j * kFillThreads;
    v[j] = identity<OP>();
    if (none || s >= num_segments) continue;
    const uint2 word = ranks[s / 32];
    const unsigned bit = unsigned(s % 32);
    const int r = int(word.y) + __popc(word.x & ((1u << bit) - 1));
    if ((word.x >> bit & 1) && r < num_segments) v[j] = __ldcg(tmp + r);
  }
#pragma unroll
  for (int j = 0; j < kFillRows; ++j)
    if (first + j * kFillThreads < num_segments) out[first + j * kFillThreads] = v[j];
}

// After the tiles: each continued row 0 completed (one thread a tile). Where
// the tiles or empty_kernel found the CSR malformed (malformed: NULL without
// empty segments) every segment gets the identity instead (EmptyRows).
constexpr int kFoldThreads = 256;
template <tb_op OP>
__global__ void __launch_bounds__(kFoldThreads)
    fold_kernel(TileCarries<OP, T> carries, const unsigned* __restrict__ malformed,
                int num_segments, T* __restrict__ out) {
  wait_for_prior_kernel();  // the tiles' carries
  const int64_t t = int64_t(blockIdx.x) * kFoldThreads + threadIdx.x;
  if (malformed && *malformed) {
    for (int64_t s = t; s < num_segments; s += int64_t(gridDim.x) * kFoldThreads)
      out[s] = identity<OP>();
    return;
  }
  if (t < carries.tiles) carries.fold(t, out);
}

// ---- host side ----------------------------------------------------------

size_t status_bytes(int tiles) { return round_up(RunStatusArray<T>::bytes(tiles)); }

// The tiles' carries in scratch: boundary words, the partition's published
// limits and EmptyRows' two flags (zeroed on the stream, by one memset),
// row-0 partials, row-0 indices.
size_t published_bytes(int tiles) { return sizeof(unsigned) * (size_t(tiles) + 3); }
size_t carries_bytes(int tiles) {
  return round_up(TileCarries<TB_OP_PLUS, T>::words_bytes(tiles) + published_bytes(tiles)) +
         round_up(sizeof(T) * size_t(tiles)) + round_up(sizeof(int) * size_t(tiles));
}
template <tb_op OP>
tb_status zeroed_carries(void* scratch, int tiles, cudaStream_t stream, TileCarries<OP, T>* c,
                         Published* published = nullptr, EmptyRows* empty = nullptr) {
  using C = TileCarries<OP, T>;
  char* b = static_cast<char*>(scratch);
  const size_t zeroed = C::words_bytes(tiles) + published_bytes(tiles);
  const size_t words = round_up(zeroed);
  c->words = reinterpret_cast<typename C::Word*>(b);
  unsigned* const tail = reinterpret_cast<unsigned*>(b + C::words_bytes(tiles));
  if (published) published->words = tail;
  if (empty) *empty = EmptyRows{tail + tiles + 1, tail + tiles + 2};
  c->row0 = reinterpret_cast<T*>(b + words);
  c->head = reinterpret_cast<int*>(b + words + round_up(sizeof(T) * size_t(tiles)));
  c->tiles = tiles;
  TB_CUDA_TRY(cudaMemsetAsync(scratch, 0, zeroed, stream));
  return TB_OK;
}

// The carries of one wave (WaveCarries) in the same scratch: carry-outs and
// end flags where TileCarries keeps its 16-byte words, row-0 partials and
// rows where it keeps them. Nothing is zeroed.
template <tb_op OP>
WaveCarries<OP, T> wave_carries(void* scratch, int tiles) {
  char* b = static_cast<char*>(scratch);
  const size_t words = round_up(TileCarries<OP, T>::words_bytes(tiles) + published_bytes(tiles));
  WaveCarries<OP, T> c;
  c.last = reinterpret_cast<T*>(b);
  c.ends = reinterpret_cast<int*>(b + sizeof(T) * size_t(tiles));  // 12 of a tile's 16 bytes
  c.row0 = reinterpret_cast<T*>(b + words);
  c.head = reinterpret_cast<int*>(b + words + round_up(sizeof(T) * size_t(tiles)));
  c.tiles = tiles;
  return c;
}

// EmptyRows' two flags for one wave: where zeroed_carries keeps them, after
// the partition's published limits (which a wave does not use), adjacent.
EmptyRows wave_empty_rows(void* scratch, int tiles) {
  unsigned* const tail = reinterpret_cast<unsigned*>(static_cast<char*>(scratch) +
                                                     TileCarries<TB_OP_PLUS, T>::words_bytes(tiles));
  return EmptyRows{tail + tiles + 1, tail + tiles + 2};
}

// The fold after the tiles.
template <tb_op OP>
tb_status fold(const TileCarries<OP, T>& carries, T* out, cudaStream_t stream,
               const unsigned* malformed = nullptr, int num_segments = 0) {
  return launch_dependent(fold_kernel<OP>, unsigned(ceil_div(carries.tiles, kFoldThreads)),
                          kFoldThreads, 0, stream, carries, malformed, num_segments, out);
}

Inputs inputs_of(const tb_seg_inputs* in) {
  return Inputs{static_cast<const T*>(in->values), in->cols, static_cast<const T*>(in->x),
                in->x_len};
}

// A one-pass kernel's launch: dynamic shared memory past 48 KiB allowed,
// the status words tagged (zeroed for 8-byte values), the look-back delay of the scan (fixed on
// grids of more than one wave), then launch(status, delay) puts the kernel on the stream.
template <class Kernel, class Launch>
tb_status run_one_pass(Kernel kernel, int nt, int shared, int tiles, void* scratch,
                       cudaStream_t stream, Launch launch) {
  if (shared > 48 * 1024)
    TB_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  int per_sm = 0, sms = 0;
  TB_TRY(tb_kernel_residency(reinterpret_cast<const void*>(kernel), nt, shared, &per_sm, &sms));
  RunStatusArray<T> status;
  status.bind(scratch, tb_call_tag());
  if constexpr (!RunStatusArray<T>::kTagged)
    TB_CUDA_TRY(cudaMemsetAsync(scratch, 0, RunStatusArray<T>::bytes(tiles), stream));
  launch(status, tiles > per_sm * sms ? kFixedDelay : kBackOff);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

bool words_aligned(const tb_seg_inputs& in) { return uintptr_t(in.values) % 16 == 0; }

// Empty rows in one wave (kEmpty with kWave) for the values and SpMV-with-
// values fronts and the arithmetic operators only: with every front and
// operator its kernels cost a cold two-core build 85 s of its 600; pattern-
// only SpMV and the bitwise operators keep the partitioned tiles with empty
// rows.
template <tb_seg_front F, tb_op OP>
constexpr bool kWaveEmpty = kOneWave && F != TB_SEG_SPMV_UNARY && OP != TB_OP_BIT_AND &&
                            OP != TB_OP_BIT_OR && OP != TB_OP_BIT_XOR;

// ---- the policy of one box ----------------------------------------------
//
// Segmented reduction and SpMV over CSR, and a plan's apply, at one box:
// which kernels a call runs and how they are launched. Every choice between
// variants, and every size threshold behind one, is here.
//
// Over CSR (csr), in order:
//   one wave (kOneWave sets only): a grid whose tiles are all resident at
//     once runs as one cooperative launch that searches its own limits and
//     folds its carries after a grid barrier; with empty rows too where the
//     tiles take them (kMarks, kWaveEmpty);
//   indirect (sources): the partition, csr_indirect_kernel, the fold;
//   empty rows (the tiles take them): the partition, the tiles,
//     empty_kernel, the fold;
//   otherwise the partition, the tiles (values as one bulk copy where they
//     fit and are aligned; which wait on the partition by the rows' mean
//     length) and the fold.
// Behind the CSR2 prepass (d_num_segments given) the segment count is on
// the device: never one wave.
template <tb_op OP, int NT, int VT>
struct SegPolicy {
  using K = Tile<OP, NT, VT>;
  static constexpr tb_launch_box kBox{NT, VT};
  // The direct tiles hold a row mark per item, which empty rows need (the
  // host's tb_seg_tile_marks).
  static constexpr bool kMarks = K::Seg::kMarks;
  // A plan's thread codes hold VT end flags.
  static constexpr bool kPlan = VT <= kCodeFlagBits;
  // Values as one bulk copy a tile (Tile::Words), where aligned: the values
  // front, unpadded warp buffers.
  template <tb_seg_front F>
  static constexpr bool kWords = F == TB_SEG_VALUES && K::kWordsFit;

  static int tiles_of(const tb_seg_call* c) { return int(tb_tiles(c->count, kBox)); }
  template <tb_seg_front F>
  static bool words(const tb_seg_call* c) {
    if constexpr (kWords<F>) return words_aligned(c->in);
    return false;
  }
  // Segments of two tiles or more on average: most tiles end none, and the
  // values load ahead of the limits (csr_tile's kLong).
  static bool long_rows(const tb_seg_call* c) {
    return c->count / 2 >= int64_t(NT * VT) * c->num_segments;
  }
  // Rows under 8 items on average keep the wait for the whole partition:
  // waiting on published limits there ran 2-4% slower end to end (H200),
  // and a tile compiled with both waits 3-8% slower alone (ncu, int32 at
  // L = 1 and 4).
  static bool short_rows(const tb_seg_call* c) {
    return c->count / 8 < int64_t(c->num_segments);
  }

  // The one-wave kernels over CSR, without and with empty rows.
  template <tb_seg_front F>
  static auto wave_kernel() {
    return csr_kernel<F, OP, NT, VT, kWords<F>, false, false, false, true>;
  }
  template <tb_seg_front F>
  static auto wave_empty_kernel() {
    return csr_kernel<F, OP, NT, VT, false, false, false, true, true>;
  }

  static tb_status csr(tb_seg_call* c) {
    if (!c->scratch) {
      c->scratch_bytes = carries_bytes(tiles_of(c));
      return TB_OK;
    }
    if (tiles_of(c) == 0) return TB_OK;
    switch (c->in.front) {
      case TB_SEG_VALUES: return csr_front<TB_SEG_VALUES>(c);
      case TB_SEG_SPMV_UNARY: return csr_front<TB_SEG_SPMV_UNARY>(c);
      case TB_SEG_SPMV_BINARY: return csr_front<TB_SEG_SPMV_BINARY>(c);
    }
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "unknown segmented-reduction front %d", int(c->in.front));
  }

  template <tb_seg_front F>
  static tb_status csr_front(tb_seg_call* c) {
    const int tiles = tiles_of(c);
    const Inputs in = inputs_of(&c->in);
    T* out = static_cast<T*>(c->out);
    const bool direct = !c->sources && !c->d_num_segments;
    if constexpr (kOneWave) {
      if (direct && !c->empty && (!kWords<F> || words<F>(c)) &&
          fits_one_wave(wave_kernel<F>(), NT, tiles))
        return launch_cooperative(wave_kernel<F>(), unsigned(tiles), NT, 0, c->stream, in, c->csr,
                                  c->num_segments, c->count, TileLimits{c->limits, {}},
                                  wave_carries<OP>(c->scratch, tiles), out, EmptyRows{});
      if constexpr (kMarks && kWaveEmpty<F, OP>) {
        if (direct && c->empty && fits_one_wave(wave_empty_kernel<F>(), NT, tiles)) {
          const EmptyRows flags = wave_empty_rows(c->scratch, tiles);
          TB_CUDA_TRY(cudaMemsetAsync(flags.malformed, 0, 2 * sizeof(unsigned), c->stream));
          return launch_cooperative(wave_empty_kernel<F>(), unsigned(tiles), NT, 0, c->stream, in,
                                    c->csr, c->num_segments, c->count, TileLimits{c->limits, {}},
                                    wave_carries<OP>(c->scratch, tiles), out, flags);
        }
      }
    }
    TileCarries<OP, T> carries;
    TileLimits limits{c->limits, {}};
    EmptyRows empty{};
    TB_TRY(zeroed_carries<OP>(c->scratch, tiles, c->stream, &carries, &limits.published, &empty));
    TB_TRY(tb_seg_partition_run(c->csr, c->num_segments, c->d_num_segments, c->count, kBox,
                                c->limits, limits.published.words, c->stream));
    if (c->sources) {
      TB_TRY(launch_dependent(csr_indirect_kernel<F, OP, NT, VT>, unsigned(tiles), NT, 0,
                              c->stream, in, c->csr, c->sources, c->num_segments, c->count, limits,
                              carries, out));
      return fold(carries, out, c->stream);
    }
    if (c->empty) {
      // Tiles without the marks leave empty rows to the prepass (the host
      // sends such calls there: tb_seg_tile_marks).
      if constexpr (!kMarks) {
        return tb_fail(TB_ERR_INVALID_ARGUMENT,
                       "segreduce: box %dx%d takes no empty rows in its tiles", NT, VT);
      } else {
        TB_TRY(launch_dependent(csr_kernel<F, OP, NT, VT, false, false, true, true>,
                                unsigned(tiles), NT, 0, c->stream, in, c->csr, c->num_segments,
                                c->count, limits, carries, out, empty));
        TB_TRY(launch_dependent(empty_kernel<OP>, kEmptyCtas, kEmptyThreads, 0, c->stream, c->csr,
                                c->num_segments, c->count, empty, out));
        return fold(carries, out, c->stream, empty.malformed, c->num_segments);
      }
    }
    auto kernel = csr_kernel<F, OP, NT, VT, false, false, true>;
    if constexpr (kWords<F>) {
      if (words<F>(c))
        kernel = long_rows(c)    ? csr_kernel<F, OP, NT, VT, true, true, true>
                 : short_rows(c) ? csr_kernel<F, OP, NT, VT, true, false, false>
                                 : csr_kernel<F, OP, NT, VT, true, false, true>;
    }
    TB_TRY(launch_dependent(kernel, unsigned(tiles), NT, 0, c->stream, in, c->csr,
                            c->num_segments, c->count, limits, carries, out, EmptyRows{}));
    return fold(carries, out, c->stream);
  }

  // A plan's apply: one wave where the tiles fit, else the tiles and the
  // fold over the plan's complete limits.
  static tb_status apply(tb_seg_call* c) {
    if (!c->scratch) {
      c->scratch_bytes = carries_bytes(tiles_of(c));
      return TB_OK;
    }
    if constexpr (!kPlan) {  // no apply kernel for a box wider than a plan's codes
      return tb_seg_plan_box_check("segreduce apply", NT, VT);
    } else {
      if (tiles_of(c) == 0) return TB_OK;
      switch (c->in.front) {
        case TB_SEG_VALUES: return apply_front<TB_SEG_VALUES>(c);
        case TB_SEG_SPMV_UNARY: return apply_front<TB_SEG_SPMV_UNARY>(c);
        case TB_SEG_SPMV_BINARY: return apply_front<TB_SEG_SPMV_BINARY>(c);
      }
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "unknown segmented-reduction front %d",
                     int(c->in.front));
    }
  }

  template <tb_seg_front F>
  static tb_status apply_front(tb_seg_call* c) {
    const int tiles = tiles_of(c);
    const Inputs in = inputs_of(&c->in);
    T* out = static_cast<T*>(c->out);
    if constexpr (kOneWave) {
      const auto wave = apply_kernel<F, OP, NT, VT, kWords<F>, true>;
      if ((!kWords<F> || words<F>(c)) && fits_one_wave(wave, NT, tiles))
        return launch_cooperative(wave, unsigned(tiles), NT, 0, c->stream, in, c->codes,
                                  c->limits, c->num_segments, c->count,
                                  wave_carries<OP>(c->scratch, tiles), out);
    }
    TileCarries<OP, T> carries;
    TB_TRY(zeroed_carries<OP>(c->scratch, tiles, c->stream, &carries));
    auto kernel = apply_kernel<F, OP, NT, VT, false>;
    if constexpr (kWords<F>) {
      if (words<F>(c)) kernel = apply_kernel<F, OP, NT, VT, true>;
    }
    TB_TRY(launch_dependent(kernel, unsigned(tiles), NT, 0, c->stream, in, c->codes, c->limits,
                            c->num_segments, c->count, carries, out));
    return fold(carries, out, c->stream);
  }

  // The one-wave capacity of a form over values (0: none at this box).
  static int wave_tiles(tb_seg_wave_form form) {
    if constexpr (!kOneWave) {
      return 0;  // partitioned at every size
    } else {
      constexpr tb_seg_front F = TB_SEG_VALUES;
      const void* kernel = reinterpret_cast<const void*>(wave_kernel<F>());
      if (form == TB_WAVE_APPLY) {
        if constexpr (!kPlan) return 0;
        else kernel = reinterpret_cast<const void*>(apply_kernel<F, OP, NT, VT, kWords<F>, true>);
      }
      if (form == TB_WAVE_CSR_EMPTY) {
        if constexpr (!(kMarks && kWaveEmpty<F, OP>)) return 0;
        else kernel = reinterpret_cast<const void*>(wave_empty_kernel<F>());
      }
      int per_sm = 0, sms = 0;
      if (tb_kernel_residency(kernel, NT, 0, &per_sm, &sms) != TB_OK) return 0;
      return per_sm * sms;
    }
  }

  // The fill after the CSR2 prepass's tiles (out[s] from the compacted
  // results), or of every segment with the identity (ranks NULL).
  static tb_status fill(tb_seg_call* c) {
    return launch_dependent(fill_kernel<OP>,
                            unsigned(ceil_div(c->num_segments, kFillThreads * kFillRows)),
                            kFillThreads, 0, c->stream, reinterpret_cast<const uint2*>(c->ranks),
                            c->num_segments, c->num2, static_cast<const T*>(c->tmp),
                            static_cast<T*>(c->out));
  }

  static constexpr tb_seg_policy kTable = {kBox, csr, apply, fill, wave_tiles};
};

#ifndef TB_GRID_WIDE
// The launch of rows_kernel: its lanes from the rows' mean length, rows a
// CTA from their number (tb_seg_rows_lanes, tb_seg_rows_per_cta).
struct RowsPolicy {
  template <tb_seg_front F, tb_op OP>
  static tb_status launch(const tb_seg_call* c) {
    if constexpr (F == TB_SEG_VALUES)
      if (!c->csr && tb_seg_fixed_short(c->fixed)) {
        constexpr int kItems = kFixedThreads * kFixedVT;
        return launch_dependent(fixed_short_kernel<OP>, unsigned(ceil_div(c->count, kItems)),
                                kFixedThreads, 0, c->stream, static_cast<const T*>(c->in.values),
                                c->count, __builtin_ctz(unsigned(c->fixed)),
                                static_cast<T*>(c->out));
      }
    if constexpr (F == TB_SEG_VALUES)
      if (!c->csr && tb_seg_fixed_warp(c->fixed)) {
        constexpr int kRows = kFixedWarpThreads / 32;
        return launch_dependent(fixed_warp_kernel<OP>, unsigned(ceil_div(c->num_segments, kRows)),
                                kFixedWarpThreads, 0, c->stream,
                                static_cast<const T*>(c->in.values), c->num_segments, c->fixed,
                                static_cast<T*>(c->out));
      }
    const int lanes = tb_seg_rows_lanes(double(c->count) / c->num_segments);
    const int r = tb_seg_rows_per_cta_of(c->count, c->num_segments);
    const int g = tb_seg_rows_width(lanes, r);
    RowsSplit split = split_of(c, int(tb_seg_rows_owners(c->num_segments, r)));
    split.tag = c->tag;
    unsigned long long* const malformed =
        c->empty ? static_cast<unsigned long long*>(c->scratch) : nullptr;
    T* const out = static_cast<T*>(c->out);
    return launch_dependent(
        rows_kernel<F, OP>, unsigned(tb_seg_rows_grid(c->count, c->num_segments, r)), kRowsThreads,
        int(tb_seg_rows_shared(r)), c->stream, inputs_of(&c->in), c->csr, c->fixed, c->num_segments,
        c->count, g, tb_seg_rows_long(g), r, split, malformed, out);
  }

  // The split rows' scratch (tb_seg_rows_split_bytes, after the malformed
  // word with support_empty), or none.
  static RowsSplit split_of(const tb_seg_call* c, int owners) {
    RowsSplit s = {};
    if (!tb_seg_rows_split(c->count)) return s;
    char* b = static_cast<char*>(c->scratch) + (c->empty ? TB_SEG_ROWS_MALFORMED : 0);
    s.slot_tag = reinterpret_cast<unsigned long long*>(b);
    s.slot_row = reinterpret_cast<int4*>(b + kSlots * 8 + 16);
    s.slot_next = reinterpret_cast<int*>(b + kSlots * 24 + 16);
    s.partial = reinterpret_cast<T*>(b + kSlots * 28 + 16);
    s.done = reinterpret_cast<unsigned*>(s.partial + tb_seg_rows_units(c->count));
    s.owners = owners;
    s.count = c->count;
    return s;
  }

  template <tb_seg_front F>
  static tb_status front(tb_seg_call* c) {
    return with_op<T>(c->op, [&](auto op) { return launch<F, decltype(op)::value>(c); });
  }

  static tb_status rows(tb_seg_call* c) {
    switch (c->in.front) {
      case TB_SEG_VALUES:
        return front<TB_SEG_VALUES>(c);
      case TB_SEG_SPMV_UNARY:
        return front<TB_SEG_SPMV_UNARY>(c);
      case TB_SEG_SPMV_BINARY:
        return front<TB_SEG_SPMV_BINARY>(c);
    }
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "unknown segmented-reduction front %d",
                   int(c->in.front));
  }
};
#endif

// Reduce-by-key in one pass at one box.
template <tb_op OP, int NT, int VT>
struct ByKeyPolicy {
  static constexpr int kShared = sizeof(typename CtaReduceByKey<OP, T, NT, VT>::Storage);

  static tb_status by_key(tb_seg_call* c) {
    const int tiles = int(tb_tiles(c->count, tb_launch_box{NT, VT}));
    if (!c->scratch) {
      c->scratch_bytes = status_bytes(tiles);
      return TB_OK;
    }
    if (tiles == 0) {
      if (c->d_num) TB_CUDA_TRY(cudaMemsetAsync(c->d_num, 0, sizeof(int), c->stream));
      return TB_OK;
    }
    const T* values = static_cast<const T*>(c->in.values);
    T* out = static_cast<T*>(c->out);
    auto kernel = by_key_kernel<OP, NT, VT>;
    return run_one_pass(kernel, NT, kShared, tiles, c->scratch, c->stream,
                        [&](auto status, auto delay) {
                          kernel<<<tiles, NT, kShared, c->stream>>>(c->keys, values, c->count,
                                                                    status, delay, c->keys_out,
                                                                    out, c->d_num);
                        });
  }

  static constexpr tb_seg_launch kTable = by_key;
};

// ---- the grid -------------------------------------------------------------

constexpr GridRow kRows[] = {
#include "kernels/segreduce_grid.def"
};
constexpr auto kGrid = boxes_of<kRows>();

// Every box fits (8-byte tiles stage half a tile at a time). Segmented
// reduction and SpMV (the csr and apply fronts) have their tuned boxes,
// reduce-by-key in one pass its own: each compiles the other operators at
// its own only.
template <tb_op OP>
using Boxes = Compiled<kRows, family_bit(TB_TUNED_SEGREDUCE) | family_bit(TB_TUNED_SPMV),
                       kTypeOf<T>, AnyBoxFits, OP>;
template <tb_op OP>
using ByKeyBoxes = Compiled<kRows, family_bit(TB_TUNED_REDUCE_BY_KEY), kTypeOf<T>, AnyBoxFits, OP>;

const tb_seg_policy* resolve(tb_op op, tb_launch_box box) {
  return resolve_policy<tb_seg_policy, T, kGrid, Boxes, SegPolicy>(op, box);
}

tb_seg_launch resolve_by_key(tb_op op, tb_launch_box box) {
  const tb_seg_launch* p = resolve_policy<tb_seg_launch, T, kGrid, ByKeyBoxes, ByKeyPolicy>(op, box);
  return p ? *p : nullptr;
}

constexpr tb_grid kSegGrid = OpGrid<T, kGrid, Boxes>::grid("segreduce");
constexpr tb_grid kByKeyGrid = OpGrid<T, kGrid, ByKeyBoxes>::grid("reduce_by_key");
// Whole rows a CTA in the tuned set only (the installed library's; the wide
// set's boxes are the sweeps' box rows).
#ifdef TB_GRID_WIDE
constexpr tb_seg_launch kRowsLaunch = nullptr;
#else
constexpr tb_seg_launch kRowsLaunch = RowsPolicy::rows;
#endif
constexpr tb_seg_type_set kTypeSet = {resolve, resolve_by_key, kRowsLaunch, &kSegGrid, &kByKeyGrid};

}  // namespace

template <>
const tb_seg_type_set* seg_type_set<T, kWideSet>() {
  return &kTypeSet;
}

}  // namespace tb
