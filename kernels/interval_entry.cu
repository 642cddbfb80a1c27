// The interval family's entry points across the C/CUDA boundary
// (kernels/interval_dispatch.h): a run-time element type to the policy its
// translation unit compiled (interval.cu, one per type and kernel set).
// Compiled once per set; each set's names are written out below.
#include "kernels/dispatch.cuh"
#include "kernels/interval_dispatch.h"

namespace tb {
namespace iv {
namespace {

template <bool kWide>
const tb_interval_policy* policy_of(tb_type type, tb_launch_box box) {
  return with_type<const tb_interval_policy*>(
      type, [&](auto t) { return resolve<decltype(t), kWide>(box); });
}

template <bool kWide>
const tb_grid* grid_of(tb_type type) {
  return with_type<const tb_grid*>(type, [](auto t) { return grid<decltype(t), kWide>(); });
}

}  // namespace
}  // namespace iv
}  // namespace tb

#ifdef TB_GRID_WIDE
extern "C" const tb_interval_policy* tb_interval_resolve_wide(tb_type type, tb_launch_box box) {
  return tb::iv::policy_of<true>(type, box);
}
extern "C" const tb_grid* tb_interval_kernel_grid_wide(tb_type type) {
  return tb::iv::grid_of<true>(type);
}
#else
extern "C" const tb_interval_policy* tb_interval_resolve(tb_type type, tb_launch_box box) {
  return tb::iv::policy_of<false>(type, box);
}
extern "C" const tb_grid* tb_interval_kernel_grid(tb_type type) {
  return tb::iv::grid_of<false>(type);
}
#endif
