// The per-type families' entry points across the C/CUDA boundary: a
// run-time element type to the table of launches its translation unit
// compiled (reduce_scan.cu, interval.cu and segreduce.cu, one per type and
// kernel set). Compiled once per set; each set's names are written out.
#include "kernels/dispatch.cuh"
#include "kernels/interval_dispatch.h"
#include "kernels/reduce_scan_dispatch.h"
#include "kernels/segreduce_dispatch.h"

using tb::with_type;

#ifdef TB_GRID_WIDE
extern "C" const tb_scan_type_set* tb_scan_wide_set(tb_type type) {
  return with_type<const tb_scan_type_set*>(
      type, [](auto t) { return tb::scan_type_set<decltype(t), true>(); });
}
extern "C" const tb_interval_type_set* tb_interval_wide_set(tb_type type) {
  return with_type<const tb_interval_type_set*>(
      type, [](auto t) { return tb::interval_type_set<decltype(t), true>(); });
}
extern "C" const tb_seg_type_set* tb_seg_wide_set(tb_type type) {
  return with_type<const tb_seg_type_set*>(
      type, [](auto t) { return tb::seg_type_set<decltype(t), true>(); });
}
#else
extern "C" const tb_scan_type_set* tb_scan_tuned_set(tb_type type) {
  return with_type<const tb_scan_type_set*>(
      type, [](auto t) { return tb::scan_type_set<decltype(t), false>(); });
}
extern "C" const tb_interval_type_set* tb_interval_tuned_set(tb_type type) {
  return with_type<const tb_interval_type_set*>(
      type, [](auto t) { return tb::interval_type_set<decltype(t), false>(); });
}
extern "C" const tb_seg_type_set* tb_seg_tuned_set(tb_type type) {
  return with_type<const tb_seg_type_set*>(
      type, [](auto t) { return tb::seg_type_set<decltype(t), false>(); });
}
#endif
