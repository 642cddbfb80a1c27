// CUB baselines for one element type (TB_ELEM) and one CUB (TB_CUB: cub, the
// toolkit's, or cub35, the pinned CCCL's); cub_api.c picks both.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/limits>

#include "core/cuda.h"
#include "suites/baselines/cub.h"
#include "suites/baselines/cub_unit.cuh"

namespace {

tb_status check_items(int64_t n) {
  if (n < 0 || n > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: n = %lld outside [0, 2^31)", (long long)n);
  return TB_OK;
}

}  // namespace

extern "C" tb_status TB_NAME(reduce)(tb_op op, const void* d_in, int64_t n,
                                                     void* d_total, tb_buffer* scratch,
                                                     cudaStream_t stream) {
  TB_TRY(check_items(n));
  const T* in = static_cast<const T*>(d_in);
  T* out = static_cast<T*>(d_total);
  const int items = int(n);
  if (op == TB_OP_PLUS)
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceReduce::Sum(tmp, bytes, in, out, items, stream);
    });
  if (op == TB_OP_MAX)
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceReduce::Max(tmp, bytes, in, out, items, stream);
    });
  if (op == TB_OP_MIN)
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return cub::DeviceReduce::Min(tmp, bytes, in, out, items, stream);
    });
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: reduce with %s is not wrapped", tb_op_name(op));
}

extern "C" tb_status TB_NAME(scan)(tb_op op, tb_scan_kind kind, const void* d_in,
                                                   void* d_out, int64_t n, tb_buffer* scratch,
                                                   cudaStream_t stream) {
  TB_TRY(check_items(n));
  const T* in = static_cast<const T*>(d_in);
  T* out = static_cast<T*>(d_out);
  const int items = int(n);
  const bool inclusive = kind == TB_SCAN_INCLUSIVE;
  if (op == TB_OP_PLUS)
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return inclusive ? cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, items, stream)
                       : cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, items, stream);
    });
  if (op == TB_OP_MAX) {
    const T lowest = cuda::std::numeric_limits<T>::lowest();
    const T init = cuda::std::numeric_limits<T>::has_infinity ? -cuda::std::numeric_limits<T>::infinity() : lowest;
    return with_scratch(scratch, [&](void* tmp, size_t& bytes) {
      return inclusive
                 ? cub::DeviceScan::InclusiveScan(tmp, bytes, in, out, cuda::maximum<>{}, items, stream)
                 : cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, cuda::maximum<>{}, init, items,
                                                  stream);
    });
  }
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: scan with %s is not wrapped", tb_op_name(op));
}
