// cub::DeviceFind::UpperBoundSortedValues baselines (cub_find.h), compiled
// against the pinned CCCL only: the toolkit's CUB does not have it.
#include <cub/device/device_find.cuh>
#include <cuda/iterator>
#include <cuda/std/functional>

#include "suites/baselines/cub_find.h"
#include "suites/baselines/lbs_search.cuh"

namespace {

using tb_baseline::MinusOne;

tb_status check(int64_t num_objects, int64_t n_items) {
  return tb_baseline::check_lbs_sizes("CUB find", num_objects, n_items);
}

// The search into d_obj, or with d_obj NULL into the front of scratch, its
// own scratch after `offset` bytes; the pointers are taken once scratch is
// reserved, since a grown buffer moves.
tb_status lbs(const int32_t* d_scan, int64_t num_objects, int64_t n_items, int32_t* d_obj,
              size_t offset, tb_buffer* scratch, cudaStream_t stream) {
  const cuda::counting_iterator<int> items(0);
  auto search = [&](void* tmp, size_t& bytes, int32_t* d_obj) {
    return cub::DeviceFind::UpperBoundSortedValues(
        tmp, bytes, d_scan, int(num_objects), items, int(n_items),
        cuda::make_transform_output_iterator(d_obj, MinusOne{}), cuda::std::less<>{}, stream);
  };
  size_t bytes = 0;
  TB_CUDA_TRY(search(nullptr, bytes, nullptr));
  TB_TRY(tb_buffer_reserve(scratch, offset + bytes));
  if (!d_obj) d_obj = static_cast<int32_t*>(scratch->ptr);
  TB_CUDA_TRY(search(static_cast<char*>(scratch->ptr) + offset, bytes, d_obj));
  return TB_OK;
}

}  // namespace

extern "C" tb_status tb_cub_find_lbs(const int32_t* d_scan, int64_t num_objects, int64_t n_items,
                                     int32_t* d_obj, tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check(num_objects, n_items));
  if (n_items == 0) return TB_OK;
  return lbs(d_scan, num_objects, n_items, d_obj, 0, scratch, stream);
}

extern "C" tb_status tb_cub_find_interval_expand(tb_type type, const int32_t* d_scan,
                                                 int64_t num_objects, int64_t n_items,
                                                 const void* d_values, void* d_out,
                                                 tb_buffer* scratch, cudaStream_t stream) {
  TB_TRY(check(num_objects, n_items));
  if (n_items == 0) return TB_OK;
  // The objects at the front of scratch, the search's own scratch after them.
  const size_t obj_bytes = (size_t(n_items) * sizeof(int32_t) + 255) & ~size_t(255);
  TB_TRY(lbs(d_scan, num_objects, n_items, nullptr, obj_bytes, scratch, stream));
  return tb_baseline::gather_by_object("CUB find", type,
                                       static_cast<const int32_t*>(scratch->ptr), n_items,
                                       d_values, d_out, stream);
}
