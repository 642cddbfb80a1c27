// Segmented-reduction CUB baselines for one element type (TB_ELEM) and one
// CUB (TB_CUB: cub, the toolkit's, or cub35, the pinned CCCL's);
// cub_seg_api.c picks both.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <cuda/std/functional>

#include "core/cuda.h"
#include "suites/baselines/cub_seg.h"
#include "suites/baselines/cub_unit.cuh"

// The longest-segment hint and the fixed-size overloads came with CCCL 3.4.
#define TB_CUB_HAS_HINT (CUB_VERSION >= 300400)

namespace {

tb_status check_items(const char* what, int64_t n) {
  if (n < 0 || n > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: %s = %lld outside [0, 2^31)", what,
                   (long long)n);
  return TB_OK;
}

// Calls f(reduction operator, initial value) for op. Plus only: what the
// sweeps measure (each operator would compile every CUB path again); ::Sum
// dispatches to the same kernels as Reduce with these.
template <class F>
tb_status with_op(tb_op op, const char* what, F f) {
  if (op == TB_OP_PLUS) return f(cuda::std::plus<>{}, T{});
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: %s with %s is not wrapped (plus only)",
                 what, tb_op_name(op));
}

[[maybe_unused]] tb_status too_old(const char* what) {
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: %s needs CUB 3.4 or newer (this is %d.%d.%d)",
                 what, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
}

}  // namespace

extern "C" tb_status TB_NAME(segreduce)(tb_op op, const void* d_in, const int32_t* d_offsets,
                                        int64_t num_segments, int64_t max_segment, void* d_out,
                                        tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check_items("num_segments", num_segments));
  if (max_segment < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: max_segment = %lld is negative",
                   (long long)max_segment);
#if !TB_CUB_HAS_HINT
  if (max_segment != 0) return too_old("the longest-segment hint");
#endif
  const T* in = static_cast<const T*>(d_in);
  T* out = static_cast<T*>(d_out);
  const int32_t* begin = d_offsets;
  const int32_t* end = d_offsets + 1;
  return with_op(op, "segmented reduce", [&](auto reduction_op, T init) {
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
#if TB_CUB_HAS_HINT
      // Told the longest segment, CUB picks a thread or a warp per segment
      // where they fit; 0 is its "not told" (a block per segment).
      return cub::detail::segmented_reduce::dispatch(tmp, bytes, in, out, num_segments, begin, end,
                                                     reduction_op, init, size_t(max_segment),
                                                     stream);
#else
      return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, in, out, num_segments, begin, end,
                                                reduction_op, init, stream);
#endif
    });
  });
}

extern "C" tb_status TB_NAME(segreduce_fixed)(tb_op op, const void* d_in, int64_t num_segments,
                                              int64_t segment_size, void* d_out,
                                              tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check_items("num_segments", num_segments));
  TB_TRY(check_items("segment_size", segment_size));
#if TB_CUB_HAS_HINT
  const T* in = static_cast<const T*>(d_in);
  T* out = static_cast<T*>(d_out);
  return with_op(op, "fixed-size segmented reduce", [&](auto reduction_op, T init) {
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, in, out, num_segments,
                                                int(segment_size), reduction_op, init, stream);
    });
  });
#else
  (void)op, (void)d_in, (void)d_out, (void)scratch, (void)stream;
  return too_old("fixed-size segmented reduce");
#endif
}

extern "C" tb_status TB_NAME(reduce_by_key)(tb_op op, const int32_t* d_keys, const void* d_values,
                                            int64_t count, int32_t* d_unique_keys,
                                            void* d_aggregates, int32_t* d_num_runs,
                                            tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check_items("count", count));
  const T* values = static_cast<const T*>(d_values);
  T* aggregates = static_cast<T*>(d_aggregates);
  const int items = int(count);
  return with_op(op, "reduce by key", [&](auto reduction_op, T) {
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(tmp, bytes, d_keys, d_unique_keys, values, aggregates,
                                            d_num_runs, reduction_op, items, stream);
    });
  });
}
