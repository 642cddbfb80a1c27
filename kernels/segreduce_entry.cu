// The segmented-reduction family's entry points across the C/CUDA boundary
// (kernels/segreduce_dispatch.h): a run-time element type to the policy its
// translation unit compiled (segreduce.cu, one per type and kernel set).
// Compiled once per set; each set's names are written out below.
#include "kernels/dispatch.cuh"
#include "kernels/segreduce_dispatch.h"

namespace tb {
namespace seg {
namespace {

template <bool kWide>
const tb_seg_policy* policy_of(tb_type type, tb_op op, tb_launch_box box) {
  return with_type<const tb_seg_policy*>(type, [&](auto t) {
    return resolve<decltype(t), kWide>(op, box);
  });
}

template <bool kWide>
tb_seg_launch by_key_of(tb_type type, tb_op op, tb_launch_box box) {
  return with_type<tb_seg_launch>(type, [&](auto t) {
    return resolve_by_key<decltype(t), kWide>(op, box);
  });
}

template <bool kWide>
const tb_grid* grid_of(tb_type type) {
  return with_type<const tb_grid*>(type, [](auto t) { return grid<decltype(t), kWide>(); });
}

template <bool kWide>
const tb_grid* by_key_grid_of(tb_type type) {
  return with_type<const tb_grid*>(type, [](auto t) { return by_key_grid<decltype(t), kWide>(); });
}

}  // namespace
}  // namespace seg
}  // namespace tb

#ifdef TB_GRID_WIDE
extern "C" const tb_seg_policy* tb_seg_resolve_wide(tb_type type, tb_op op, tb_launch_box box) {
  return tb::seg::policy_of<true>(type, op, box);
}
extern "C" tb_seg_launch tb_rbk_resolve_wide(tb_type type, tb_op op, tb_launch_box box) {
  return tb::seg::by_key_of<true>(type, op, box);
}
extern "C" const tb_grid* tb_seg_grid_wide(tb_type type) { return tb::seg::grid_of<true>(type); }
extern "C" const tb_grid* tb_rbk_grid_wide(tb_type type) {
  return tb::seg::by_key_grid_of<true>(type);
}
#else
extern "C" const tb_seg_policy* tb_seg_resolve(tb_type type, tb_op op, tb_launch_box box) {
  return tb::seg::policy_of<false>(type, op, box);
}
extern "C" tb_seg_launch tb_rbk_resolve(tb_type type, tb_op op, tb_launch_box box) {
  return tb::seg::by_key_of<false>(type, op, box);
}
extern "C" const tb_grid* tb_seg_grid(tb_type type) { return tb::seg::grid_of<false>(type); }
extern "C" const tb_grid* tb_rbk_grid(tb_type type) { return tb::seg::by_key_grid_of<false>(type); }
extern "C" tb_status tb_seg_fill(tb_seg_call* call) {
  return tb::with_type<tb_status>(call->type,
                                  [&](auto t) { return tb::seg::fill<decltype(t)>(call); });
}
#endif
