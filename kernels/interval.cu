// IntervalExpand, IntervalMove, IntervalGather and IntervalScatter for one
// element type (TB_ELEM) and every box of kernels/interval_grid.def. The
// build compiles this file once per type.
//
// Every kernel starts from the Merge Path partition (lbs.cu) and the CTA
// load-balancing search (kernels/device/cta_load_balance.cuh): a tile knows
// the object of each of its items, and loads each per-object array (values,
// gather and scatter offsets) once, for the tile's slice of objects, into
// shared memory. Each warp then handles its items striped, so global loads
// and stores of runs are coalesced.
#include <stdint.h>

#include "core/cuda.h"
#include "kernels/device/cta_load_balance.cuh"
#include "kernels/device/dependent_launch.cuh"
#include "kernels/dispatch.cuh"
#include "kernels/interval_dispatch.h"

namespace tb {
namespace {

using T = TB_ELEM;

// ---- kernels ------------------------------------------------------------

// out[i] = values[obj(i)].
template <int NT, int VT, bool kSearch = false>
__global__ void __launch_bounds__(NT)
    expand_kernel(const int* __restrict__ scan, int n_objects, int n_items, const int* partition,
                  const T* __restrict__ values, T* __restrict__ out) {
  using LB = CtaLoadBalance<NT, VT>;
  __shared__ struct {
    typename LB::Storage lb;
    T values[LB::kTile + 1];
  } s;
  wait_for_prior_kernel();  // the partition, or the scan's producer
  const typename LB::Tile t =
      LB::template tile<kSearch>(partition, scan, blockIdx.x, n_items, n_objects, s.lb);
  LB::clear(t, s.lb);  // before the loads (see clear())
  LB::load_scan(scan, t, s.lb);
  cta_load_slice<NT>(values + t.b_lo, t.n_slice, s.values);
  cta_slices_landed();
  LB::search(t, s.lb);
  // Every shared read before the first store.
  T v[VT];
  bool ok[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int k = LB::slot_of(i);
    const int o = s.lb.obj[k];  // every slot is written; only the tile's items count
    ok[i] = k < t.a_count && o >= 0;
    if (ok[i]) v[i] = s.values[LB::slot(t, o)];
  }
#pragma unroll
  for (int i = 0; i < VT; ++i)
    if (ok[i]) out[t.a0 + LB::slot_of(i)] = v[i];
}

// Item r of interval j: out[dst] = in[src] with src = gather[j] + r
// (kGather) or the item's index, dst = scatter[j] + r (kScatter) or the
// item's index. Items whose src or dst falls outside in / out (only bad
// offsets or a malformed scan make them) are skipped.
template <int NT, int VT, bool kGather, bool kScatter, bool kSearch = false>
__global__ void __launch_bounds__(NT)
    move_kernel(const int* __restrict__ scan, int n_objects, int n_items, const int* partition,
                const int* __restrict__ gather, const int* __restrict__ scatter,
                const T* __restrict__ in, int64_t n_in, T* __restrict__ out, int64_t n_out) {
  using LB = CtaLoadBalance<NT, VT>;
  constexpr int kSlice = LB::kTile + 1;
  __shared__ struct {
    typename LB::Storage lb;
    int gather[kGather ? kSlice : 1];
    int scatter[kScatter ? kSlice : 1];
  } s;
  wait_for_prior_kernel();  // the partition, or the scan's producer
  const typename LB::Tile t =
      LB::template tile<kSearch>(partition, scan, blockIdx.x, n_items, n_objects, s.lb);
  LB::clear(t, s.lb);
  LB::load_scan(scan, t, s.lb);
  if (kGather) cta_load_slice<NT>(gather + t.b_lo, t.n_slice, s.gather);
  if (kScatter) cta_load_slice<NT>(scatter + t.b_lo, t.n_slice, s.scatter);
  cta_slices_landed();
  LB::search(t, s.lb);

  // Every load in flight before the first store.
  T v[VT];
  int64_t dst[VT];
  bool ok[VT];
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int k = LB::slot_of(i);
    const int o = k < t.a_count ? s.lb.obj[k] : -1;
    int64_t src = -1;
    dst[i] = -1;
    if (o >= 0) {
      // Formed only for the tile's items (k < a_count), so it fits int32
      // (32-bit: a 64-bit item costs registers, and CTAs, at VT 11).
      const int item = t.a0 + k;
      const int j = LB::slot(t, o);
      const int64_t rank = int64_t(item) - s.lb.scan[j];
      src = kGather ? s.gather[j] + rank : item;
      dst[i] = kScatter ? s.scatter[j] + rank : item;
    }
    ok[i] = o >= 0 && src >= 0 && src < n_in && dst[i] >= 0 && dst[i] < n_out;
    if (ok[i]) v[i] = in[src];
  }
#pragma unroll
  for (int i = 0; i < VT; ++i)
    if (ok[i]) out[dst[i]] = v[i];
}

// ---- host side ----------------------------------------------------------


// The largest storage of the family is move's (three int slices) or, for
// 8-byte types, expand's; boxes whose kernels do not fit in 48 KiB of static
// shared memory are left out of the grid for this type.
template <int NT, int VT>
constexpr size_t lb_bytes() {
  return sizeof(typename CtaLoadBalance<NT, VT>::Storage);
}
template <int NT, int VT>
constexpr bool expand_fits() {
  return lb_bytes<NT, VT>() + (NT * VT + 1) * sizeof(T) <= 48 * 1024;
}
template <int NT, int VT>
constexpr bool move_fits() {
  return lb_bytes<NT, VT>() + 2 * (NT * VT + 1) * sizeof(int) <= 48 * 1024;
}
// One grid for the family: a box runs every operation or none.
struct Fits {
  template <int NT, int VT>
  static constexpr bool fits() { return expand_fits<NT, VT>() && move_fits<NT, VT>(); }
};
constexpr GridRow kRows[] = {
#include "kernels/interval_grid.def"
};
constexpr auto kGrid = boxes_of<kRows>();
using Boxes =
    Compiled<kRows, family_bit(TB_TUNED_EXPAND) | family_bit(TB_TUNED_MOVE), kTypeOf<T>, Fits>;

template <int NT, int VT>
tb_status expand_run(const int* scan, int n_objects, int n_items, const T* values, T* out,
                     void* scratch, size_t* scratch_bytes, cudaStream_t stream) {
  if constexpr (kOneWave) {
    const int64_t wave = ceil_div(int64_t(n_objects) + n_items, NT * VT);
    if (scratch && n_items > 0 && fits_one_wave(expand_kernel<NT, VT, true>, NT, wave))
      return launch_dependent(expand_kernel<NT, VT, true>, unsigned(wave), NT, 0, stream, scan,
                              n_objects, n_items, nullptr, values, out);
  }
  int tiles = 0;
  TB_TRY(tb_lbs_partition(scan, n_objects, n_items, NT * VT, scratch, scratch_bytes, &tiles,
                          stream));
  if (tiles == 0) return TB_OK;
  const int* partition = static_cast<const int*>(scratch);
  return launch_dependent(expand_kernel<NT, VT>, unsigned(tiles), NT, 0, stream, scan, n_objects,
                          n_items, partition, values, out);
}

// The move kernel of one operation: one wave (kOneWave) without the
// partition pass, the tiles searching their own bounds, else partitioned.
template <int NT, int VT, bool kGather, bool kScatter>
tb_status move_launch(const int* gather, const int* scatter, const int* scan, int n_objects,
                      int n_items, const T* in, int64_t n_in, T* out, int64_t n_out,
                      void* scratch, size_t* scratch_bytes, cudaStream_t stream) {
  if constexpr (kOneWave) {
    const auto searched = move_kernel<NT, VT, kGather, kScatter, true>;
    const int64_t wave = ceil_div(int64_t(n_objects) + n_items, NT * VT);
    if (scratch && n_items > 0 && fits_one_wave(searched, NT, wave))
      return launch_dependent(searched, unsigned(wave), NT, 0, stream, scan, n_objects, n_items,
                              nullptr, gather, scatter, in, n_in, out, n_out);
  }
  int tiles = 0;
  TB_TRY(tb_lbs_partition(scan, n_objects, n_items, NT * VT, scratch, scratch_bytes, &tiles,
                          stream));
  if (tiles == 0) return TB_OK;
  return launch_dependent(move_kernel<NT, VT, kGather, kScatter>, unsigned(tiles), NT, 0, stream,
                          scan, n_objects, n_items, static_cast<const int*>(scratch), gather,
                          scatter, in, n_in, out, n_out);
}

// Expand, move, gather and scatter at one box.
template <int NT, int VT>
struct IntervalPolicy {
  static tb_status expand(tb_interval_call* c) {
    return expand_run<NT, VT>(c->scan, c->num_objects, c->n_items, static_cast<const T*>(c->in),
                              static_cast<T*>(c->out), c->scratch, &c->scratch_bytes, c->stream);
  }
  // Move, gather or scatter: the kernel of the call's operation.
  static tb_status move(tb_interval_call* c) {
    if (c->op == TB_INTERVAL_GATHER) return move_op<true, false>(c);
    if (c->op == TB_INTERVAL_SCATTER) return move_op<false, true>(c);
    return move_op<true, true>(c);
  }
  template <bool kGather, bool kScatter>
  static tb_status move_op(tb_interval_call* c) {
    return move_launch<NT, VT, kGather, kScatter>(
        c->gather, c->scatter, c->scan, c->num_objects, c->n_items, static_cast<const T*>(c->in),
        c->n_in, static_cast<T*>(c->out), c->n_out, c->scratch, &c->scratch_bytes, c->stream);
  }
  static constexpr tb_interval_policy kTable = {{NT, VT}, expand, move};
};

const tb_interval_policy* resolve(tb_launch_box box) {
  return find_policy<tb_interval_policy, kGrid, Boxes>(box, [](auto b) {
    return &IntervalPolicy<decltype(b)::NT, decltype(b)::VT>::kTable;
  });
}

constexpr tb_grid kIntervalGrid = PlainGrid<kGrid, Boxes>::grid("interval");
constexpr tb_interval_type_set kTypeSet = {resolve, &kIntervalGrid};

}  // namespace

template <>
const tb_interval_type_set* interval_type_set<T, kWideSet>() {
  return &kTypeSet;
}

}  // namespace tb
