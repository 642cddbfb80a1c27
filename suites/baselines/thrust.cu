// Thrust baselines (thrust.h). Thrust reports CUDA failures by throwing;
// they come back here as TB_ERR_CUDA with its message.
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/system/system_error.h>
#include <thrust/version.h>

#include <cstdio>

#include "suites/baselines/thrust.h"
#include "suites/baselines/lbs_search.cuh"

namespace {

using tb_baseline::MinusOne;

tb_status check(int64_t num_objects, int64_t n_items) {
  return tb_baseline::check_lbs_sizes("Thrust", num_objects, n_items);
}

template <class F>
tb_status guarded(F f) {
  try {
    f();
  } catch (const thrust::system_error& e) {
    return tb_fail(TB_ERR_CUDA, "Thrust baseline: %s", e.what());
  } catch (const std::exception& e) {
    return tb_fail(TB_ERR_CUDA, "Thrust baseline: %s", e.what());
  }
  return TB_OK;
}

void lbs(const int* scan, int64_t b, int64_t n, int* obj, cudaStream_t stream) {
  const thrust::counting_iterator<int> items(0);
  thrust::upper_bound(thrust::cuda::par_nosync.on(stream), scan, scan + b, items, items + n,
                      thrust::make_transform_output_iterator(obj, MinusOne{}));
}

}  // namespace

extern "C" const char* tb_thrust_version(void) {
  static char text[32];
  if (!text[0])
    snprintf(text, sizeof text, "%d.%d.%d", THRUST_MAJOR_VERSION, THRUST_MINOR_VERSION,
             THRUST_SUBMINOR_VERSION);
  return text;
}

extern "C" tb_status tb_thrust_lbs(const int32_t* d_scan, int64_t num_objects, int64_t n_items,
                                   int32_t* d_obj, cudaStream_t stream) {
  TB_TRY(check(num_objects, n_items));
  if (n_items == 0) return TB_OK;
  return guarded([&] { lbs(d_scan, num_objects, n_items, d_obj, stream); });
}

extern "C" tb_status tb_thrust_interval_expand(tb_type type, const int32_t* d_scan,
                                               int64_t num_objects, int64_t n_items,
                                               const void* d_values, void* d_out,
                                               tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check(num_objects, n_items));
  if (n_items == 0) return TB_OK;
  TB_TRY(tb_buffer_reserve(scratch, size_t(n_items) * sizeof(int)));
  int* obj = static_cast<int*>(scratch->ptr);
  TB_TRY(guarded([&] { lbs(d_scan, num_objects, n_items, obj, stream); }));
  return tb_baseline::gather_by_object("Thrust", type, obj, n_items, d_values, d_out, stream);
}
