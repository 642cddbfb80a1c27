// Segmented-reduction CUB baselines for one element type (TB_ELEM);
// cub_seg_api.c picks the type.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/limits>

#include "core/cuda.h"
#include "suites/baselines/cub_seg.h"

#define TB_CAT_(a, b) a##b
#define TB_CAT(a, b) TB_CAT_(a, b)

namespace {

using int32 = int32_t;
using int64 = long long;
using T = TB_ELEM;
using limits = cuda::std::numeric_limits<T>;

// Runs f(temp, &bytes) once to size the scratch, grows it, and runs it again.
template <class F>
tb_status with_scratch(tb_buffer* scratch, F f) {
  size_t bytes = 0;
  TB_CUDA_TRY(f(nullptr, bytes));
  TB_TRY(tb_buffer_reserve(scratch, bytes));
  TB_CUDA_TRY(f(scratch->ptr, bytes));
  return TB_OK;
}

tb_status check_items(const char* what, int64_t n) {
  if (n < 0 || n > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: %s = %lld outside [0, 2^31)", what,
                   (long long)n);
  return TB_OK;
}

}  // namespace

extern "C" tb_status TB_CAT(tb_cub_segreduce_, TB_ELEM)(tb_op op, const void* d_in,
                                                        const int32_t* d_offsets,
                                                        int64_t num_segments, void* d_out,
                                                        tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check_items("num_segments", num_segments));
  const T* in = static_cast<const T*>(d_in);
  T* out = static_cast<T*>(d_out);
  const int32_t* begin = d_offsets;
  const int32_t* end = d_offsets + 1;
  if (op == TB_OP_PLUS)
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Sum(tmp, bytes, in, out, num_segments, begin, end, stream);
    });
  // Reduce with cuda::maximum / minimum is what ::Max / ::Min dispatch to (same
  // kernels); only the initial value differs: CUB's lowest() / max() would give
  // ±FLT_MAX for an empty float segment where the project's identity is ±inf.
  if (op == TB_OP_MAX) {
    const T init = limits::has_infinity ? -limits::infinity() : limits::lowest();
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, in, out, num_segments, begin, end,
                                                cuda::maximum<>{}, init, stream);
    });
  }
  if (op == TB_OP_MIN) {
    const T init = limits::has_infinity ? limits::infinity() : limits::max();
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Reduce(tmp, bytes, in, out, num_segments, begin, end,
                                                cuda::minimum<>{}, init, stream);
    });
  }
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: segmented reduce with %s is not wrapped",
                 tb_op_name(op));
}

extern "C" tb_status TB_CAT(tb_cub_reduce_by_key_, TB_ELEM)(tb_op op, const int32_t* d_keys,
                                                            const void* d_values, int64_t count,
                                                            int32_t* d_unique_keys,
                                                            void* d_aggregates, int32_t* d_num_runs,
                                                            tb_buffer* scratch,
                                                            cudaStream_t stream) {
  TB_TRY(check_items("count", count));
  const T* values = static_cast<const T*>(d_values);
  T* aggregates = static_cast<T*>(d_aggregates);
  const int items = int(count);
  auto run = [&](auto reduction_op) {
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(tmp, bytes, d_keys, d_unique_keys, values, aggregates,
                                            d_num_runs, reduction_op, items, stream);
    });
  };
  if (op == TB_OP_PLUS) return run(cuda::std::plus<>{});
  if (op == TB_OP_MAX) return run(cuda::maximum<>{});
  if (op == TB_OP_MIN) return run(cuda::minimum<>{});
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: reduce by key with %s is not wrapped",
                 tb_op_name(op));
}
