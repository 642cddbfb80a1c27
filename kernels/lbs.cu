// Load-balancing search, the Merge Path partition the interval family shares,
// and the opt-in scan validation. Type-free: compiled once.
//
// Layering: kernels built from kernels/device/cta_load_balance.cuh; the host
// side sizes the scratch and launches; the extern "C" functions at the end
// map a box to a template instance.
#include <stdint.h>

#include <algorithm>

#include "core/cuda.h"
#include "kernels/device/cta_load_balance.cuh"
#include "kernels/device/dependent_launch.cuh"
#include "kernels/dispatch.cuh"
#include "kernels/interval_dispatch.h"

namespace tb {
namespace {

[[maybe_unused]] constexpr int kPartitionThreads = 128;

// ---- kernels ------------------------------------------------------------

// partition[p] = scan entries among the first p * tile merged elements,
// kPartitionThreads boundaries a CTA (CtaMergePath). Not the segmented
// partition's warp search (warp_partition_point): 32 probes a round for each
// boundary are 32 lines no other boundary reads. Tried (with another
// change, docs/interval.md, "Decisions"), lbs and expand lost 8-17 points
// of copy bandwidth at one and two items per object (H100, 2^26).
#ifndef TB_GRID_WIDE  // box-free: the tuned set has it
__global__ void __launch_bounds__(kPartitionThreads)
partition_kernel(const int* __restrict__ scan, int n_objects, int n_items, int tile, int bounds,
                 int* __restrict__ partition) {
  let_dependents_start();  // the tiles may be scheduled meanwhile
  using MergePath = CtaMergePath<kPartitionThreads>;
  __shared__ typename MergePath::Storage s;
  const int64_t total = int64_t(n_items) + n_objects;
  const int64_t first = int64_t(blockIdx.x) * kPartitionThreads;
  const int64_t last = min(first + kPartitionThreads, int64_t(bounds)) - 1;
  const int64_t p = first + threadIdx.x;  // past last: a copy of last, for the CTA's rounds
  const auto diag = [&](int64_t q) { return min(q * tile, total); };
  const int b = MergePath::partition(scan, n_items, n_objects, diag(min(p, last)), diag(first),
                                     diag(last), s);
  if (p <= last) partition[p] = b;
}
#endif

// obj[i] = upper_bound(scan, i) - 1 and, with kRank,
// rank[i] = i - scan[obj[i]] (the scan entry of a tile's first object is the
// one loaded before its slice). kRank is a template argument: a null test
// in the store loop kept every item's predicate live across it.
template <int NT, int VT, bool kRank, bool kSearch>
__global__ void __launch_bounds__(NT)
    lbs_kernel(const int* __restrict__ scan, int n_objects, int n_items, const int* partition,
               int* __restrict__ obj, int* __restrict__ rank) {
  using LB = CtaLoadBalance<NT, VT>;
  __shared__ typename LB::Storage s;
  wait_for_prior_kernel();  // the partition, or the scan's producer
  const typename LB::Tile t =
      LB::template tile<kSearch>(partition, scan, blockIdx.x, n_items, n_objects, s);
  LB::load_scan(scan, t, s);
  LB::clear(t, s);
  cta_slices_landed();
  LB::search(t, s);
  int o[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int k = LB::slot_of(i);
    o[i] = s.obj[k];  // every slot is written; only the tile's items are stored
  }
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int k = LB::slot_of(i);
    if (k >= t.a_count) continue;
    const int item = t.a0 + k;  // < n_items: formed only for the tile's items
    obj[item] = o[i];
    // An item before scan[0] (a malformed scan) has object -1 and rank item.
    if (kRank) rank[item] = o[i] >= 0 ? item - s.scan[LB::slot(t, o[i])] : item;
  }
}

// The first index that breaks the rules: scan[0] == 0, non-decreasing
// (ascending when strict), scan[n - 1] <= n_items (< n_items when strict:
// the last run is not empty either).
#ifndef TB_GRID_WIDE
__global__ void validate_kernel(const int* __restrict__ scan, int n, int n_items, bool strict,
                                unsigned* first_bad) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int v = scan[i];
    bool bad = i == 0 ? v != 0 : (strict ? scan[i - 1] >= v : scan[i - 1] > v);
    bad |= i == n - 1 && (strict ? v >= n_items : v > n_items);
    if (bad) atomicMin(first_bad, unsigned(i));
  }
}
#endif

// ---- host side ----------------------------------------------------------

#ifndef TB_GRID_WIDE
int tiles_of(int n_objects, int n_items, int tile) {
  return int(ceil_div(int64_t(n_objects) + n_items, tile));
}
#endif

struct Fits {
  template <int NT, int VT>
  static constexpr bool fits() {
    return sizeof(typename CtaLoadBalance<NT, VT>::Storage) <= 48 * 1024;
  }
};
constexpr GridRow kRows[] = {
#include "kernels/interval_grid.def"
};
constexpr auto kGrid = boxes_of<kRows>();
using Boxes = Compiled<kRows, family_bit(TB_TUNED_LBS), TB_TYPE_ANY, Fits>;

template <int NT, int VT>
tb_status lbs_run(const int* scan, int n_objects, int n_items, int* obj, int* rank, void* scratch,
                  size_t* scratch_bytes, cudaStream_t stream) {
  const auto searched = rank ? lbs_kernel<NT, VT, true, true> : lbs_kernel<NT, VT, false, true>;
  const int64_t wave = ceil_div(int64_t(n_objects) + n_items, NT * VT);
  if (scratch && n_items > 0 && fits_one_wave(searched, NT, wave))  // no partition pass
    return launch_dependent(searched, unsigned(wave), NT, 0, stream, scan, n_objects, n_items,
                            nullptr, obj, rank);
  int tiles = 0;
  TB_TRY(tb_lbs_partition(scan, n_objects, n_items, NT * VT, scratch, scratch_bytes, &tiles,
                          stream));
  if (tiles == 0) return TB_OK;
  const int* partition = static_cast<const int*>(scratch);
  if (rank)
    return launch_dependent(lbs_kernel<NT, VT, true, false>, unsigned(tiles), NT, 0, stream, scan,
                            n_objects, n_items, partition, obj, rank);
  return launch_dependent(lbs_kernel<NT, VT, false, false>, unsigned(tiles), NT, 0, stream, scan,
                          n_objects, n_items, partition, obj, nullptr);
}

}  // namespace
}  // namespace tb

#ifndef TB_GRID_WIDE  // box-free: the tuned set has it
extern "C" tb_status tb_lbs_partition(const int32_t* d_scan, int num_objects, int n_items,
                                      int tile, void* scratch, size_t* scratch_bytes, int* tiles,
                                      cudaStream_t stream) {
  using namespace tb;
  const int bounds = tiles_of(num_objects, n_items, tile) + 1;
  *scratch_bytes = round_up(sizeof(int) * size_t(bounds));
  *tiles = 0;
  if (!scratch || n_items == 0) return TB_OK;
  const int grid = int(ceil_div(bounds, kPartitionThreads));
  partition_kernel<<<grid, kPartitionThreads, 0, stream>>>(
      d_scan, num_objects, n_items, tile, bounds, static_cast<int*>(scratch));
  TB_CUDA_TRY(cudaGetLastError());
  *tiles = bounds - 1;
  return TB_OK;
}
#endif

namespace tb {
namespace {

// The search at one box: one wave without the partition pass where the
// tiles fit the GPU at once (lbs_run), else partitioned.
template <int NT, int VT>
struct LbsPolicy {
  static tb_status lbs(tb_interval_call* c) {
    return lbs_run<NT, VT>(c->scan, c->num_objects, c->n_items, c->obj, c->rank, c->scratch,
                           &c->scratch_bytes, c->stream);
  }
  static int wave_tiles() {
    int per_sm = 0, sms = 0;
    const void* kernel = reinterpret_cast<const void*>(lbs_kernel<NT, VT, true, true>);
    if (tb_kernel_residency(kernel, NT, 0, &per_sm, &sms) != TB_OK) return 0;
    return per_sm * sms;
  }
  static constexpr tb_lbs_policy kTable = {{NT, VT}, lbs, wave_tiles};
};

const tb_lbs_policy* resolve(tb_launch_box box) {
  return find_policy<tb_lbs_policy, kGrid, Boxes>(
      box, [](auto b) { return &LbsPolicy<decltype(b)::NT, decltype(b)::VT>::kTable; });
}

}  // namespace
}  // namespace tb

// ---- the kernel set (kernels/interval_dispatch.h) -------------------------

namespace tb {
namespace {
constexpr tb_grid kLbsGrid = PlainGrid<kGrid, Boxes>::grid("lbs");
}  // namespace
}  // namespace tb

#ifdef TB_GRID_WIDE
extern "C" const tb_lbs_set tb_lbs_wide_set = {tb::resolve, &tb::kLbsGrid};
#else
extern "C" const tb_lbs_set tb_lbs_tuned_set = {tb::resolve, &tb::kLbsGrid};
#endif

#ifndef TB_GRID_WIDE
extern "C" tb_status tb_offsets_validate_run(const int32_t* d_scan, int num_objects, int n_items,
                                             bool strict, uint32_t* d_first_bad,
                                             cudaStream_t stream) {
  using namespace tb;
  TB_CUDA_TRY(cudaMemsetAsync(d_first_bad, 0xff, sizeof(uint32_t), stream));
  if (num_objects == 0) return TB_OK;
  const int grid = int(std::min<int64_t>(ceil_div(num_objects, 256), 4096));
  validate_kernel<<<grid, 256, 0, stream>>>(d_scan, num_objects, n_items, strict,
                                            d_first_bad);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}
#endif
