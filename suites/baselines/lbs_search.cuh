// What the upper-bound searches of the load-balancing baselines share
// (thrust.cu, cub_find.cu): object = upper_bound(scan, item) - 1, written as
// the search stores, the sizes both take, and expand's gather.
#pragma once

#include <stdint.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>

#include <exception>

#include "core/cuda.h"
#include "core/types.h"

namespace tb_baseline {

struct MinusOne {
  __host__ __device__ int operator()(long long upper) const { return int(upper) - 1; }
};

inline tb_status check_lbs_sizes(const char* who, int64_t num_objects, int64_t n_items) {
  if (num_objects < 0 || num_objects > INT32_MAX || n_items < 0 || n_items > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s baseline: sizes outside [0, 2^31)", who);
  return TB_OK;
}

// d_out[i] = d_values[obj[i]] for i < n: interval expand's second half.
// Elements are copied, not computed on: only their size matters.
inline tb_status gather_by_object(const char* who, tb_type type, const int32_t* obj, int64_t n,
                                  const void* d_values, void* d_out, cudaStream_t stream) {
  try {
    const auto policy = thrust::cuda::par_nosync.on(stream);
    if (tb_type_size(type) == 4)
      thrust::gather(policy, obj, obj + n, static_cast<const int*>(d_values),
                     static_cast<int*>(d_out));
    else if (tb_type_size(type) == 8)
      thrust::gather(policy, obj, obj + n, static_cast<const long long*>(d_values),
                     static_cast<long long*>(d_out));
    else
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s baseline: unknown type %d", who, int(type));
  } catch (const std::exception& e) {
    return tb_fail(TB_ERR_CUDA, "%s baseline: %s", who, e.what());
  }
  return TB_OK;
}

}  // namespace tb_baseline
