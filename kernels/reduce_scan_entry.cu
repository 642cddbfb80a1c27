// Reduce and scan's entry points across the C/CUDA boundary
// (kernels/reduce_scan_dispatch.h): a run-time element type to the launch
// its translation unit compiled (reduce_scan.cu, one per type and kernel
// set). Compiled once per set; each set's names are written out below.
#include "kernels/dispatch.cuh"
#include "kernels/reduce_scan_dispatch.h"

namespace tb {
namespace rs {
namespace {

template <bool kWide>
tb_scan_launch reduce_of(tb_type type, tb_op op, tb_launch_box box) {
  return with_type<tb_scan_launch>(
      type, [&](auto t) { return resolve_reduce<decltype(t), kWide>(op, box); });
}

template <bool kWide>
tb_scan_launch scan_of(tb_type type, tb_op op, tb_launch_box box) {
  return with_type<tb_scan_launch>(
      type, [&](auto t) { return resolve_scan<decltype(t), kWide>(op, box); });
}

template <bool kWide>
const tb_grid* reduce_grid_of(tb_type type) {
  return with_type<const tb_grid*>(type, [](auto t) { return reduce_grid<decltype(t), kWide>(); });
}

template <bool kWide>
const tb_grid* scan_grid_of(tb_type type) {
  return with_type<const tb_grid*>(type, [](auto t) { return scan_grid<decltype(t), kWide>(); });
}

}  // namespace
}  // namespace rs
}  // namespace tb

#ifdef TB_GRID_WIDE
extern "C" tb_scan_launch tb_reduce_resolve_wide(tb_type type, tb_op op, tb_launch_box box) {
  return tb::rs::reduce_of<true>(type, op, box);
}
extern "C" tb_scan_launch tb_scan_resolve_wide(tb_type type, tb_op op, tb_launch_box box) {
  return tb::rs::scan_of<true>(type, op, box);
}
extern "C" const tb_grid* tb_reduce_kernel_grid_wide(tb_type type) {
  return tb::rs::reduce_grid_of<true>(type);
}
extern "C" const tb_grid* tb_scan_kernel_grid_wide(tb_type type) {
  return tb::rs::scan_grid_of<true>(type);
}
#else
extern "C" tb_scan_launch tb_reduce_resolve(tb_type type, tb_op op, tb_launch_box box) {
  return tb::rs::reduce_of<false>(type, op, box);
}
extern "C" tb_scan_launch tb_scan_resolve(tb_type type, tb_op op, tb_launch_box box) {
  return tb::rs::scan_of<false>(type, op, box);
}
extern "C" const tb_grid* tb_reduce_kernel_grid(tb_type type) {
  return tb::rs::reduce_grid_of<false>(type);
}
extern "C" const tb_grid* tb_scan_kernel_grid(tb_type type) {
  return tb::rs::scan_grid_of<false>(type);
}
#endif
