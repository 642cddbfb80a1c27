// Reduce and scan for one element type (TB_ELEM), every operator that fits it
// and every box of kernels/reduce_grid.def and kernels/scan_grid.def. The
// build compiles this file once per type, so the types build in parallel.
//
// Layering: kernels (bottom of the file's first half) are built from the CTA
// blocks in kernels/device/; the host side chooses a grid, sizes the scratch
// and launches; the extern "C" entry points at the end map an operator and a
// box to a template instance.
#include <stdint.h>
#include <string.h>

#include <algorithm>

#include "core/cuda.h"
#include "kernels/device/cta_reduce.cuh"
#include "kernels/device/cta_scan.cuh"
#include "kernels/device/ops.cuh"
#include "kernels/device/tile_io.cuh"
#include "kernels/device/tile_status.cuh"
#include "kernels/dispatch.cuh"
#include "kernels/reduce_scan_dispatch.h"

namespace tb {
namespace {

using T = TB_ELEM;

template <tb_op OP>
__host__ __device__ __forceinline__ T identity() { return Op<OP>::template identity<T>(); }

// ---- kernels ------------------------------------------------------------

// Widest load (at most 16 bytes) whose item count divides VT.
template <int VT>
__host__ __device__ constexpr int vec_width() {
  int v = 16 / int(sizeof(T));
  while (v > 1 && VT % v != 0) v /= 2;
  return v;
}

template <int V>
struct alignas(sizeof(T) * V) Vec { T v[V]; };

// Each CTA folds tiles blockIdx.x, blockIdx.x + gridDim.x, ... of the aligned
// body with vector loads, then the few leftover items (the unaligned head and
// the partial last tile) with scalar loads, and writes one partial to out.
template <tb_op OP, int NT, int VT>
__global__ void __launch_bounds__(NT)
reduce_kernel(const T* __restrict__ in, int64_t head, int64_t tiles, int64_t n,
              T* __restrict__ out) {
  constexpr int V = vec_width<VT>();
  constexpr int kTile = NT * VT;
  using Reduce = CtaReduce<OP, T, NT>;
  __shared__ typename Reduce::Storage storage;

  T acc = identity<OP>();
  const T* body = in + head;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const Vec<V>* src = reinterpret_cast<const Vec<V>*>(body + tile * kTile);
    Vec<V> v[VT / V];
#pragma unroll
    for (int j = 0; j < VT / V; ++j) v[j] = src[j * NT + threadIdx.x];
#pragma unroll
    for (int j = 0; j < VT / V; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) acc = Op<OP>::apply(acc, v[j].v[k]);
  }
  const int64_t tail = head + tiles * kTile;
  const int64_t leftover = head + (n - tail);
  for (int64_t i = int64_t(blockIdx.x) * NT + threadIdx.x; i < leftover;
       i += int64_t(gridDim.x) * NT)
    acc = Op<OP>::apply(acc, in[i < head ? i : tail + (i - head)]);

  acc = Reduce::reduce(acc, storage);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

// Scans one tile held blocked in registers: x holds this thread's VT
// consecutive items on entry and their scan on exit. prefix_of(tile_total),
// run by warp 0 between the CTA scan's two barriers, returns the tile's
// exclusive prefix (a carry, or the result of a look-back).
template <tb_op OP, int NT, int VT, class PrefixOf>
__device__ __forceinline__ void scan_tile(T (&x)[VT], bool inclusive,
                                          typename CtaScanWithPrefix<OP, T, NT>::Storage& storage,
                                          PrefixOf prefix_of) {
  T thread_total = x[0];
#pragma unroll
  for (int i = 1; i < VT; ++i) thread_total = Op<OP>::apply(thread_total, x[i]);
  T running = CtaScanWithPrefix<OP, T, NT>::scan_exclusive(thread_total, storage, prefix_of);
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const T item = x[i];
    x[i] = inclusive ? Op<OP>::apply(running, item) : running;
    running = Op<OP>::apply(running, item);
  }
}

// The tile's shared memory: a transpose buffer per warp, then the scan's.
template <tb_op OP, int NT, int VT>
struct ScanTileStorage {
  typename WarpTranspose<T, VT>::Storage io[NT / 32];
  typename CtaScanWithPrefix<OP, T, NT>::Storage scan;
};

// Single-pass scan, one tile per CTA. The tile is the CTA's index: the
// hardware dispatches CTAs in index order (CUB relies on the same), so every
// predecessor a tile waits for is running or done, and the tile's loads need
// not wait for a round trip to a global tile counter. Each warp moves its
// own 32*VT items, so the CTA meets only at the scan's two barriers.
template <tb_op OP, int NT, int VT>
__global__ void __launch_bounds__(NT)
scan_lookback_kernel(const T* in, T* out, int64_t n, TileStatusArray<T> status,
                     LookBackDelay delay, bool inclusive, T* d_total) {
  using IO = WarpTranspose<T, VT>;
  constexpr int kTile = NT * VT;
  __shared__ ScanTileStorage<OP, NT, VT> s;
  const int64_t tile = blockIdx.x;
  const int warp = threadIdx.x / 32;
  const int64_t offset = tile * kTile + warp * IO::kItems;
  const int count = int(min(int64_t(IO::kItems), n - offset));  // <= 0 past the end

  T x[VT];
  IO::load_blocked(in + offset, count, identity<OP>(), x, s.io[warp]);
  scan_tile<OP, NT, VT>(x, inclusive, s.scan, [&](T tile_total) {
    const T prefix = look_back_publish<OP>(status, tile, tile_total, delay);
    if (d_total && threadIdx.x == 0 && tile == gridDim.x - 1)
      *d_total = Op<OP>::apply(prefix, tile_total);
    return prefix;
  });
  IO::store_blocked(x, count, out + offset, s.io[warp]);
}

// Reduce-then-scan, pass 1: CTA b reduces tiles [b * tiles_per_cta, ...).
template <tb_op OP, int NT, int VT>
__global__ void __launch_bounds__(NT)
scan_upsweep_kernel(const T* in, int64_t n, int64_t tiles_per_cta, T* partials) {
  constexpr int kTile = NT * VT;
  using Reduce = CtaReduce<OP, T, NT>;
  __shared__ typename Reduce::Storage storage;
  const int64_t begin = blockIdx.x * tiles_per_cta * kTile;
  const int64_t end = min(n, begin + tiles_per_cta * kTile);
  T acc = identity<OP>();
  for (int64_t offset = begin; offset < end; offset += kTile) {
    const int count = int(min(int64_t(kTile), end - offset));
    T v[VT];
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      const int k = i * NT + threadIdx.x;
      v[i] = k < count ? in[offset + k] : identity<OP>();
    }
#pragma unroll
    for (int i = 0; i < VT; ++i) acc = Op<OP>::apply(acc, v[i]);
  }
  acc = Reduce::reduce(acc, storage);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

// Reduce-then-scan, passes 2 and 3: CTA b scans its tiles in order, starting
// from carry_in[b] (the identity when carry_in is NULL). The spine is this
// kernel on one CTA over the partials, exclusive and in place. Only warp 0
// reads or advances the carry.
template <tb_op OP, int NT, int VT>
__global__ void __launch_bounds__(NT)
scan_downsweep_kernel(const T* in, T* out, int64_t n, int64_t tiles_per_cta,
                      const T* carry_in, bool inclusive, T* d_total) {
  using IO = WarpTranspose<T, VT>;
  constexpr int kTile = NT * VT;
  __shared__ ScanTileStorage<OP, NT, VT> s;
  const int warp = threadIdx.x / 32;
  const int64_t begin = blockIdx.x * tiles_per_cta * kTile;
  const int64_t end = min(n, begin + tiles_per_cta * kTile);
  T carry = carry_in ? carry_in[blockIdx.x] : identity<OP>();
  for (int64_t offset = begin + warp * IO::kItems; offset - warp * IO::kItems < end;
       offset += kTile) {
    const int count = int(min(int64_t(IO::kItems), end - offset));
    T x[VT];
    IO::load_blocked(in + offset, count, identity<OP>(), x, s.io[warp]);
    scan_tile<OP, NT, VT>(x, inclusive, s.scan, [&](T tile_total) {
      const T prefix = carry;
      carry = Op<OP>::apply(carry, tile_total);
      return prefix;
    });
    IO::store_blocked(x, count, out + offset, s.io[warp]);
  }
  if (d_total && threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) *d_total = carry;
}

// ---- host side ----------------------------------------------------------


// CTAs of `kernel` that fit on the device at once.
template <auto kKernel>
tb_status resident_ctas(int nt, int* out) {
  int per_sm = 0, sms = 0;
  TB_TRY(tb_kernel_residency(reinterpret_cast<const void*>(kKernel), nt, 0, &per_sm, &sms));
  *out = sms * std::max(per_sm, 1);
  return TB_OK;
}

tb_status write_value(T value, T* d_dst, cudaStream_t stream) {
  if (d_dst) TB_CUDA_TRY(cudaMemcpyAsync(d_dst, &value, sizeof(T), cudaMemcpyHostToDevice, stream));
  return TB_OK;
}

template <tb_op OP, int NT, int VT>
tb_status reduce_run(const T* in, int64_t n, T* d_total, void* scratch, size_t* scratch_bytes,
                     cudaStream_t stream) {
  constexpr int kTile = NT * VT;
  constexpr int V = vec_width<VT>();
  auto kernel = reduce_kernel<OP, NT, VT>;
  int ctas = 0;
  TB_TRY((resident_ctas<reduce_kernel<OP, NT, VT>>(NT, &ctas)));
  const int grid = int(std::min<int64_t>(ceil_div(n > 0 ? n : 1, kTile), ctas));
  *scratch_bytes = grid > 1 ? round_up(grid * sizeof(T)) : 0;
  if (!scratch) return TB_OK;  // size query
  if (n == 0) return write_value(identity<OP>(), d_total, stream);

  const uintptr_t misalign = reinterpret_cast<uintptr_t>(in) % (V * sizeof(T));
  const int64_t head = std::min<int64_t>(n, misalign ? (V * sizeof(T) - misalign) / sizeof(T) : 0);
  const int64_t tiles = (n - head) / kTile;
  if (grid == 1) {
    kernel<<<1, NT, 0, stream>>>(in, head, tiles, n, d_total);
  } else {
    T* partials = static_cast<T*>(scratch);
    kernel<<<grid, NT, 0, stream>>>(in, head, tiles, n, partials);
    kernel<<<1, NT, 0, stream>>>(partials, 0, grid / kTile, grid, d_total);
  }
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

template <tb_op OP, int NT, int VT>
tb_status scan_lookback_run(const T* in, T* out, int64_t n, bool inclusive, T* d_total,
                            void* scratch, size_t* scratch_bytes, cudaStream_t stream) {
  constexpr int kTile = NT * VT;
  const int64_t tiles = ceil_div(n, kTile);
  using Status = TileStatusArray<T>;
  // One CTA per tile: the grid's x dimension bounds the tiles.
  if (tiles > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_scan: n = %lld needs more than 2^31 - 1 look-back tiles of %dx%d; use a "
                   "larger box or TB_SCAN_REDUCE_THEN_SCAN",
                   (long long)n, NT, VT);
  *scratch_bytes = round_up(Status::bytes(tiles));
  if (!scratch) return TB_OK;  // size query
  if (n == 0) return write_value(identity<OP>(), d_total, stream);

  // A grid of more than one wave waits a fixed time (kFixedDelay); in one
  // wave every tile starts at once, and waiting only costs.
  int resident = 0;
  TB_TRY((resident_ctas<scan_lookback_kernel<OP, NT, VT>>(NT, &resident)));
  const LookBackDelay delay = tiles > resident ? kFixedDelay : kBackOff;
  Status status;
  status.bind(scratch, tb_call_tag());
  scan_lookback_kernel<OP, NT, VT><<<unsigned(tiles), NT, 0, stream>>>(in, out, n, status, delay,
                                                                     inclusive, d_total);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

template <tb_op OP, int NT, int VT>
tb_status scan_rts_run(const T* in, T* out, int64_t n, bool inclusive, T* d_total, void* scratch,
                       size_t* scratch_bytes, cudaStream_t stream) {
  constexpr int kTile = NT * VT;
  auto downsweep = scan_downsweep_kernel<OP, NT, VT>;
  int ctas = 0;
  TB_TRY((resident_ctas<scan_downsweep_kernel<OP, NT, VT>>(NT, &ctas)));
  const int64_t tiles = ceil_div(n > 0 ? n : 1, kTile);
  const int64_t tiles_per_cta = ceil_div(tiles, ctas);
  const int grid = int(ceil_div(tiles, tiles_per_cta));
  *scratch_bytes = grid > 1 ? round_up(grid * sizeof(T)) : 0;
  if (!scratch) return TB_OK;  // size query
  if (n == 0) return write_value(identity<OP>(), d_total, stream);

  if (grid == 1) {
    downsweep<<<1, NT, 0, stream>>>(in, out, n, tiles, nullptr, inclusive, d_total);
  } else {
    T* partials = static_cast<T*>(scratch);
    scan_upsweep_kernel<OP, NT, VT><<<grid, NT, 0, stream>>>(in, n, tiles_per_cta, partials);
    downsweep<<<1, NT, 0, stream>>>(partials, partials, grid, ceil_div(grid, kTile), nullptr,
                                    false, d_total);
    downsweep<<<grid, NT, 0, stream>>>(in, out, n, tiles_per_cta, partials, inclusive, nullptr);
  }
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

// ---- the grids ------------------------------------------------------------

constexpr GridRow kReduceRows[] = {
#include "kernels/reduce_grid.def"
};
constexpr auto kReduceGrid = boxes_of<kReduceRows>();
constexpr GridRow kScanRows[] = {
#include "kernels/scan_grid.def"
};
constexpr auto kScanGrid = boxes_of<kScanRows>();

// Scans keep a tile in shared memory; boxes whose tile does not fit in the
// static 48 KiB are left out of the grid for this type.
struct ScanFits {
  template <int NT, int VT>
  static constexpr bool fits() {
    return sizeof(ScanTileStorage<TB_OP_PLUS, NT, VT>) <= 48 * 1024;
  }
};

template <tb_op OP>
using ReduceBoxes = Compiled<kReduceRows, family_bit(TB_TUNED_REDUCE), kTypeOf<T>, AnyBoxFits, OP>;
template <tb_op OP>
using ScanBoxes = Compiled<kScanRows, family_bit(TB_TUNED_SCAN), kTypeOf<T>, ScanFits, OP>;

// ---- the policies of one box ----------------------------------------------

template <tb_op OP, int NT, int VT>
struct ReducePolicy {
  static tb_status reduce(tb_scan_call* c) {
    return reduce_run<OP, NT, VT>(static_cast<const T*>(c->in), c->n, static_cast<T*>(c->total),
                                  c->scratch, &c->scratch_bytes, c->stream);
  }
  static constexpr tb_scan_launch kTable = reduce;
};

// The algorithm is the call's (tb_scan_default_algo chose it when asked).
template <tb_op OP, int NT, int VT>
struct ScanPolicy {
  static tb_status scan(tb_scan_call* c) {
    const T* in = static_cast<const T*>(c->in);
    T* out = static_cast<T*>(c->out);
    T* total = static_cast<T*>(c->total);
    const bool inclusive = c->kind == TB_SCAN_INCLUSIVE;
    if (c->algo == TB_SCAN_REDUCE_THEN_SCAN)
      return scan_rts_run<OP, NT, VT>(in, out, c->n, inclusive, total, c->scratch,
                                      &c->scratch_bytes, c->stream);
    return scan_lookback_run<OP, NT, VT>(in, out, c->n, inclusive, total, c->scratch,
                                         &c->scratch_bytes, c->stream);
  }
  static constexpr tb_scan_launch kTable = scan;
};

tb_scan_launch resolve_reduce(tb_op op, tb_launch_box box) {
  const tb_scan_launch* p =
      resolve_policy<tb_scan_launch, T, kReduceGrid, ReduceBoxes, ReducePolicy>(op, box);
  return p ? *p : nullptr;
}

tb_scan_launch resolve_scan(tb_op op, tb_launch_box box) {
  const tb_scan_launch* p =
      resolve_policy<tb_scan_launch, T, kScanGrid, ScanBoxes, ScanPolicy>(op, box);
  return p ? *p : nullptr;
}

constexpr tb_grid kReduceKernelGrid = OpGrid<T, kReduceGrid, ReduceBoxes>::grid("reduce");
constexpr tb_grid kScanKernelGrid = OpGrid<T, kScanGrid, ScanBoxes>::grid("scan");
constexpr tb_scan_type_set kTypeSet = {resolve_reduce, resolve_scan, &kReduceKernelGrid,
                                       &kScanKernelGrid};

}  // namespace

template <>
const tb_scan_type_set* scan_type_set<T, kWideSet>() {
  return &kTypeSet;
}

}  // namespace tb
