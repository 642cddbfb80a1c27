// What the upper-bound searches of the load-balancing baselines share
// (thrust.cu, cub_find.cu): object = upper_bound(scan, item) - 1, written as
// the search stores, and the sizes both take.
#pragma once

#include <stdint.h>

#include "core/cuda.h"

namespace tb_baseline {

struct MinusOne {
  __host__ __device__ int operator()(long long upper) const { return int(upper) - 1; }
};

inline tb_status check_lbs_sizes(const char* who, int64_t num_objects, int64_t n_items) {
  if (num_objects < 0 || num_objects > INT32_MAX || n_items < 0 || n_items > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s baseline: sizes outside [0, 2^31)", who);
  return TB_OK;
}

}  // namespace tb_baseline
