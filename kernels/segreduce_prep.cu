// The type-free half of the segmented-reduction family: the tile partition of
// a CSR geometry, the CSR -> CSR2 prepass that strips empty segments, the
// preprocessed forms (thread codes from CSR or from runs of keys), a plan's
// row statistics and the column check of the opt-in validation.
#include <stdint.h>

#include <algorithm>

#include "core/cuda.h"
#include "kernels/device/cta_segreduce.cuh"
#include "kernels/device/dependent_launch.cuh"
#include "kernels/device/warp_search.cuh"
#include "kernels/dispatch.cuh"
#include "kernels/segreduce_dispatch.h"

namespace tb {
namespace {

[[maybe_unused]] constexpr int kThreads = 256;

// ---- kernels ------------------------------------------------------------

#ifndef TB_GRID_WIDE  // the box-free ones: the tuned set has them
unsigned grid_of(int64_t n) { return unsigned(std::max<int64_t>(ceil_div(n, kThreads), 1)); }

// limits[p] = upper_bound(csr, p * tile) - 1, the segment holding the tile's
// first item, with kContinued when that segment starts before it;
// limits[tiles] = the number of segments. The search is bound by the latency
// of its dependent loads, and one warp a limit (warp_partition_point, 4-5
// rounds) ran the double SpMV box's 47K limits in 5-6 waves (22 us, H100).
// So each warp takes `group` consecutive limits, a lane each: it searches the
// first unresolved one, then every lane whose limit lies in the
// `window_rows` offsets from there finds it by a binary search of them, in
// L1; it repeats until every lane has its own. The host sizes group and
// window for rows of the average length (tb_seg_partition_run). No shared
// memory: the tiles launched behind the partition (dependent_launch.cuh)
// then find each SM drained and configured for their own (a window staged in
// shared memory left them a few CTAs an SM: the indirect tiles took 1.1-1.8x
// as long at L = 16-256, H100). A malformed CSR narrows to some entry:
// unspecified, in range, and each round resolves a lane.
constexpr int kMaxPartitionWindow = 1024;

__global__ void partition_kernel(const int* __restrict__ csr, int num_segments,
                                 const int* __restrict__ d_num, int count, int tile, int tiles,
                                 int group, int window_rows, int* __restrict__ limits,
                                 Published published) {
  let_dependents_start();  // the tiles may be scheduled meanwhile
  const int lane = threadIdx.x % 32;
  const int64_t first = (int64_t(blockIdx.x) * kThreads + threadIdx.x) / 32 * group;
  if (first > tiles) return;  // the whole warp
  const int n = d_num ? min(max(*d_num, 0), num_segments) : num_segments;
  const int64_t p = first + lane;
  const bool mine = lane < group && p <= tiles;
  const int64_t key = min(p * tile, int64_t(count));
  const bool search = mine && key < count && n > 0;
  const auto store = [&](int limit) {
    limits[p] = limit;
    if (published.words) published.publish(p, unsigned(limit));
  };
  if (mine && !search) store(n);
  for (unsigned todo = __ballot_sync(kFullMask, search); todo;) {
    const int leader = __ffs(todo) - 1;
    const int64_t leader_key = __shfl_sync(kFullMask, key, leader);
    const int lo = warp_partition_point(0, n, [&](int m) { return csr[m] <= leader_key; });
    int upper = lane == leader ? lo : -1;  // upper_bound(csr, key), once known
    // Offsets before base are at most the leader's key, so at most every
    // later lane's: a lane's upper bound lies in the window when an offset
    // there passes its key, or the window runs to n. The window's lines go
    // to L1 first (a line a lane), where the lanes' searches then hit.
    const int base = max(lo - 1, 0);
    const int rows = min(window_rows, n - base);
    if (lane * 32 < rows) asm volatile("prefetch.global.L1 [%0];" ::"l"(csr + base + lane * 32));
    if ((todo >> lane & 1) && lane != leader) {
      int a = 0, b = rows;
      while (a < b) {
        const int mid = (a + b) / 2;
        if (csr[base + mid] <= key)
          a = mid + 1;
        else
          b = mid;
      }
      if (a < rows || base + rows == n) upper = base + a;
    }
    const bool done = (todo >> lane & 1) && upper >= 0;
    if (done) store(limit_at(csr, upper, key, n));
    todo &= ~__ballot_sync(kFullMask, done);
  }
}

// CSR -> CSR2 in one pass over the offsets. Each warp takes kCsr2Words
// words of 32 segments, a lane a segment (loads coalesced, no shared memory
// but the scan's): each word's non-empty flags by ballot, the warps' counts
// scanned across the CTA and across CTAs by decoupled look-back, then per
// word its rank word (the flags and the non-empty segments before them: an
// eighth of a rank per segment, which the fill reads back) and the non-empty
// segments' starts compacted into csr2 (and sources2). The last tile stores
// the count (num2[0]); num2[1] = 1 (from 0) on a malformed CSR: an offset
// outside [0, count] or below the one before it. The tiles then may leave
// compacted results unwritten, which the fill must not read.
// (H100, 2^24 segments: 86 us; a thread per 8 consecutive segments staged
// through shared memory took 107 us, its blocked reads conflicting on banks;
// the loads issued before the ballots, or 16 words a warp, cost occupancy:
// 99 and 102 us.)
constexpr int kCsr2Words = 8;
constexpr int kCsr2Rows = kThreads * kCsr2Words;
__global__ void __launch_bounds__(kThreads)
    csr2_kernel(const int* __restrict__ csr, const int* __restrict__ sources, int num_segments,
                int count, TileStatusArray<int> status, LookBackDelay delay,
                uint2* __restrict__ ranks, int* __restrict__ csr2, int* __restrict__ sources2,
                int* __restrict__ num2) {
  using Scan = CtaScanWithPrefix<TB_OP_PLUS, int, kThreads>;
  __shared__ typename Scan::Storage scan;
  const int lane = threadIdx.x % 32;
  const int64_t row0 = int64_t(blockIdx.x) * kCsr2Rows + threadIdx.x / 32 * 32 * kCsr2Words;
  int start[kCsr2Words];
  unsigned words[kCsr2Words];
  int total = 0;
  bool malformed = false;
#pragma unroll
  for (int i = 0; i < kCsr2Words; ++i) {
    const int64_t s = row0 + i * 32 + lane;
    start[i] = s < num_segments ? csr[s] : count;
    const int next = s + 1 < num_segments ? csr[s + 1] : count;
    words[i] = __ballot_sync(kFullMask, next > start[i]);
    total += __popc(words[i]);
    malformed |= s < num_segments && (start[i] < 0 || start[i] > count || next < start[i]);
  }
  if (malformed) num2[1] = 1;
  const int before = Scan::scan_exclusive(lane == 0 ? total : 0, scan, [&](int tile_total) {
    const int prefix = look_back_publish<TB_OP_PLUS>(status, blockIdx.x, tile_total, delay);
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) num2[0] = prefix + tile_total;
    return prefix;
  });
  int r = __shfl_sync(kFullMask, before, 0);
#pragma unroll
  for (int i = 0; i < kCsr2Words; ++i) {
    const int64_t s = row0 + i * 32 + lane;
    if (lane == 0 && s < num_segments) ranks[row0 / 32 + i] = make_uint2(words[i], unsigned(r));
    if (words[i] >> lane & 1) {
      const int at = r + __popc(words[i] & ((1u << lane) - 1));
      csr2[at] = start[i];
      if (sources) sources2[at] = sources[s];
    }
    r += __popc(words[i]);
  }
}

#endif

// One code per thread: its end flags and first local row, from the CSR slice.
template <int NT, int VT>
__global__ void __launch_bounds__(NT)
csr_codes_kernel(const int* __restrict__ csr, int num_segments, int count,
                 const int* __restrict__ limits, int* __restrict__ codes) {
  constexpr int kTile = NT * VT;
  __shared__ int slice[kTile + 1];
  const int64_t tile = blockIdx.x;
  const int first = int(tile * kTile);
  const SegRange r = seg_range<kTile>(limits[tile], limits[tile + 1], num_segments);
  int code = 0;
  if (r.total > 0) {
    for (int k = threadIdx.x; k < r.slice; k += NT) slice[k] = csr[r.begin + k];
    __syncthreads();
    int rows[VT + 1];
    unsigned starts[VT];
    const unsigned end = r.flush ? min(unsigned(first) + kTile, unsigned(count)) : UINT32_MAX;
    expand_csr_rows<VT>(unsigned(first) + threadIdx.x * VT, slice, r.slice, end, rows, starts);
    code = pack_code(end_flags<VT>(rows), rows[0]);
  }
  codes[tile * NT + threadIdx.x] = code;
}

// The preprocessed form of reduce-by-key: codes, limits, keys, run count.
template <int NT, int VT>
__global__ void __launch_bounds__(NT)
key_runs_kernel(const int* __restrict__ keys, int count, TileStatusArray<int> counts,
                int* __restrict__ limits, int* __restrict__ codes, int* __restrict__ keys_out,
                int* __restrict__ d_num) {
  using Runs = CtaKeyRuns<NT, VT>;
  __shared__ typename Runs::Storage s;
  const int64_t tile = blockIdx.x;
  const typename Runs::Runs runs = Runs::find(keys, count, tile, counts, keys_out, s);
  codes[tile * NT + threadIdx.x] = pack_code(runs.flags, runs.row);
  if (threadIdx.x == 0) {
    limits[tile] = runs.base | (runs.fresh ? 0 : kContinued);
    if (tile == gridDim.x - 1) {
      limits[tile + 1] = runs.base + runs.total;
      if (d_num) *d_num = runs.base + runs.total;
    }
  }
}

#ifndef TB_GRID_WIDE
__global__ void cols_validate_kernel(const int* __restrict__ cols, int nz, int x_len,
                                     unsigned* first_bad) {
  const int64_t stride = int64_t(gridDim.x) * kThreads;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < nz; i += stride)
    if (cols[i] < 0 || cols[i] >= x_len) atomicMin(first_bad, unsigned(i));
}

// The rows' longest and busiest CTA (tb_seg_rows_stats) for a plan's
// choice of kernel; a descending pair counts as no items.
__device__ __forceinline__ int items_between(int64_t s, int64_t e) {
  return int(min(max(e - s, int64_t(0)), int64_t(INT32_MAX)));
}
__global__ void rows_stats_kernel(const int* __restrict__ csr, int num_segments, int count,
                                  int rows_per_cta, tb_seg_rows_stats* stats) {
  const int64_t stride = int64_t(gridDim.x) * kThreads;
  int longest = 0, busiest = 0;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < num_segments; i += stride) {
    const int s = csr[i];
    longest = max(longest, items_between(s, i + 1 < num_segments ? csr[i + 1] : count));
    if (i % rows_per_cta == 0) {
      const int64_t j = i + rows_per_cta;
      busiest = max(busiest, items_between(s, j < num_segments ? csr[j] : count));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, offset));
    busiest = max(busiest, __shfl_xor_sync(0xffffffffu, busiest, offset));
  }
  if (threadIdx.x % 32 == 0) {
    if (longest > 0) atomicMax(&stats->longest, longest);
    if (busiest > 0) atomicMax(&stats->busiest, busiest);
  }
}
#endif

// The boxes of every type's segreduce.cu (kernels/dispatch.cuh): the
// preprocessed forms are type-free.
constexpr GridRow kRows[] = {
#include "kernels/segreduce_grid.def"
};
constexpr auto kGrid = boxes_of<kRows>();
using Boxes = Compiled<kRows,
                       family_bit(TB_TUNED_SEGREDUCE) | family_bit(TB_TUNED_REDUCE_BY_KEY) |
                           family_bit(TB_TUNED_SPMV),
                       TB_TYPE_ANY, AnyBoxFits>;

}  // namespace
}  // namespace tb

#ifndef TB_GRID_WIDE  // box-free: the tuned set has them
extern "C" tb_status tb_seg_partition_run(const int32_t* d_csr, int num_segments,
                                          const int32_t* d_num_segments, int count,
                                          tb_launch_box box, int32_t* d_limits,
                                          uint32_t* d_published, cudaStream_t stream) {
  using namespace tb;
  const int tiles = int(tb_tiles(count, box));
  const int tile = box.nt * box.vt;
  // Limits a warp: the most (a power of two, up to 32) whose rows, at the
  // average length, fill at most 3/4 of the largest window, and the window a
  // third more than those rows. Below 8 limits a warp, a search a limit is
  // cheaper (H100: 2 a warp took int32 L = 16's partition from 9.9 to 12.7
  // us; 8 and more, 22 -> 7-9 us on the double SpMV box's 47K limits).
  const double rows_per_limit = count > 0 ? double(tile) * num_segments / count : 0;
  int group = 1;
  while (group < 32 && 2 * group * rows_per_limit <= 0.75 * kMaxPartitionWindow) group *= 2;
  if (group < 8) group = 1;
  const int window_rows =
      group > 1
          ? int(std::min<int64_t>(kMaxPartitionWindow,
                                  ceil_div(int64_t(group * rows_per_limit * 4 / 3) + 1, 32) * 32))
          : 0;
  const int64_t warps = ceil_div(int64_t(tiles) + 1, group);
  partition_kernel<<<grid_of(32 * warps), kThreads, 0, stream>>>(
      d_csr, num_segments, d_num_segments, count, tile, tiles, group, window_rows, d_limits,
      Published{d_published});
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

extern "C" tb_status tb_seg_csr2_run(const int32_t* d_csr, const int32_t* d_sources,
                                     int num_segments, int count, int32_t* d_ranks, int32_t* d_csr2,
                                     int32_t* d_sources2, int32_t* d_num2, void* scratch,
                                     size_t* scratch_bytes, cudaStream_t stream) {
  using namespace tb;
  const int tiles = int(ceil_div(int64_t(num_segments), kCsr2Rows));
  if (!scratch) {  // never 0 bytes: a NULL scratch would read as this size query
    *scratch_bytes = std::max<size_t>(TileStatusArray<int>::bytes(tiles), 1);
    return TB_OK;
  }
  TB_CUDA_TRY(cudaMemsetAsync(d_num2, 0, 2 * sizeof *d_num2, stream));
  if (tiles == 0) return TB_OK;
  TileStatusArray<int> status;
  status.bind(scratch, tb_call_tag());
  // Polled from the start: a tile takes about a microsecond, where the fixed
  // delay of long scans sleeps three.
  csr2_kernel<<<tiles, kThreads, 0, stream>>>(d_csr, d_sources, num_segments, count, status,
                                              kBackOff, reinterpret_cast<uint2*>(d_ranks), d_csr2,
                                              d_sources2, d_num2);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}
#endif

namespace tb {
namespace {

tb_status csr_codes(tb_launch_box box, const int32_t* d_csr, int num_segments, int count,
                    const int32_t* d_limits, int32_t* d_codes, cudaStream_t stream) {
  return with_box<kGrid, Boxes>(box, [&](auto b) {
    if constexpr (b.VT > kCodeFlagBits) {
      return tb_seg_plan_box_check("segreduce plan", b.NT, b.VT);
    } else {
      const int tiles = int(tb_tiles(count, box));
      if (tiles == 0) return TB_OK;
      csr_codes_kernel<b.NT, b.VT>
          <<<tiles, b.NT, 0, stream>>>(d_csr, num_segments, count, d_limits, d_codes);
      TB_CUDA_TRY(cudaGetLastError());
      return TB_OK;
    }
  });
}

tb_status key_runs(tb_launch_box box, const int32_t* d_keys, int count, int32_t* d_limits,
                   int32_t* d_codes, int32_t* d_keys_out, int32_t* d_num, void* scratch,
                   size_t* scratch_bytes, cudaStream_t stream) {
  const int tiles = int(tb_tiles(count, box));
  if (!scratch) {
    *scratch_bytes = round_up(TileStatusArray<int>::bytes(tiles));
    return TB_OK;
  }
  return with_box<kGrid, Boxes>(box, [&](auto b) {
    if constexpr (b.VT > kCodeFlagBits) {
      return tb_seg_plan_box_check("segreduce plan", b.NT, b.VT);
    } else {
      if (tiles == 0) {
        TB_CUDA_TRY(cudaMemsetAsync(d_limits, 0, sizeof(int32_t), stream));
        if (d_num) TB_CUDA_TRY(cudaMemsetAsync(d_num, 0, sizeof(int32_t), stream));
        return TB_OK;
      }
      TileStatusArray<int> counts;
      counts.bind(scratch, tb_call_tag());
      key_runs_kernel<b.NT, b.VT>
          <<<tiles, b.NT, 0, stream>>>(d_keys, count, counts, d_limits, d_codes, d_keys_out, d_num);
      TB_CUDA_TRY(cudaGetLastError());
      return TB_OK;
    }
  });
}

constexpr tb_grid kPrepGrid = PlainGrid<kGrid, Boxes>::grid("segreduce");

}  // namespace
}  // namespace tb

#ifdef TB_GRID_WIDE
extern "C" const tb_seg_prep_set tb_seg_prep_wide_set = {tb::csr_codes, tb::key_runs,
                                                         &tb::kPrepGrid};
#else
extern "C" const tb_seg_prep_set tb_seg_prep_tuned_set = {tb::csr_codes, tb::key_runs,
                                                          &tb::kPrepGrid};
#endif

#ifndef TB_GRID_WIDE
extern "C" tb_status tb_seg_cols_validate_run(const int32_t* d_cols, int nz, int x_len,
                                              uint32_t* d_first_bad, cudaStream_t stream) {
  using namespace tb;
  TB_CUDA_TRY(cudaMemsetAsync(d_first_bad, 0xff, sizeof(uint32_t), stream));
  if (nz == 0) return TB_OK;
  const unsigned grid = std::min<unsigned>(grid_of(nz), 4096);
  cols_validate_kernel<<<grid, kThreads, 0, stream>>>(d_cols, nz, x_len, d_first_bad);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

extern "C" tb_status tb_seg_rows_stats_run(const int32_t* d_csr, int num_segments, int count,
                                           int rows_per_cta, tb_seg_rows_stats* d_stats,
                                           cudaStream_t stream) {
  using namespace tb;
  TB_CUDA_TRY(cudaMemsetAsync(d_stats, 0, sizeof *d_stats, stream));
  if (num_segments == 0) return TB_OK;
  const unsigned grid = std::min<unsigned>(grid_of(num_segments), 1024);
  rows_stats_kernel<<<grid, kThreads, 0, stream>>>(d_csr, num_segments, count,
                                                   std::max(rows_per_cta, 1), d_stats);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}
#endif
