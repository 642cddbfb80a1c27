// The interval family: the entry points across the C/CUDA boundary, a run-time
// element type to the table of launches its translation unit compiled
// (interval.cu, one per type and kernel set). Compiled once per set, apart
// from the other families' so that a program links only the families it
// calls; each set's name is written out.
#include "kernels/dispatch.cuh"
#include "kernels/interval_dispatch.h"

extern "C" const tb_interval_type_set* TB_KERNEL_SET(tb_interval_tuned_set,
                                                     tb_interval_wide_set)(tb_type type) {
  return tb::with_type<const tb_interval_type_set*>(
      type, [](auto t) { return tb::interval_type_set<decltype(t), tb::kWideSet>(); });
}
