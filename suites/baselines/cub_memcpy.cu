// The cub::DeviceMemcpy::Batched baseline (cub_memcpy.h). Type-free: the
// element type only scales offsets and sizes.
#include <cub/device/device_memcpy.cuh>

#include "suites/baselines/cub_memcpy.h"

namespace {

__global__ void make_batches(const int* __restrict__ gather, const int* __restrict__ scatter,
                             const int* __restrict__ scan, int num_objects, int n_items,
                             unsigned size, const char* in, char* out, const void** src,
                             void** dst, unsigned* bytes) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= num_objects) return;
  const int begin = scan[j], end = j + 1 < num_objects ? scan[j + 1] : n_items;
  src[j] = in + size_t(gather ? gather[j] : begin) * size;
  dst[j] = out + size_t(scatter ? scatter[j] : begin) * size;
  bytes[j] = unsigned(end - begin) * size;
}

}  // namespace

extern "C" tb_status tb_cub_batches_make(tb_cub_batches* b, tb_type type, const int32_t* d_gather,
                                         const int32_t* d_scatter, const int32_t* d_scan,
                                         int64_t num_objects, int64_t n_items, const void* d_in,
                                         void* d_out, cudaStream_t stream) {
  const size_t size = tb_type_size(type);
  if (size == 0 || num_objects < 0 || num_objects > INT32_MAX || n_items < 0 ||
      uint64_t(n_items) * size > UINT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "CUB memcpy baseline: type %d, %lld objects, %lld items not wrapped", int(type),
                   (long long)num_objects, (long long)n_items);
  const size_t n = size_t(num_objects);
  TB_TRY(tb_buffer_reserve(&b->src, n * sizeof(void*)));
  TB_TRY(tb_buffer_reserve(&b->dst, n * sizeof(void*)));
  TB_TRY(tb_buffer_reserve(&b->sizes, n * sizeof(unsigned)));
  b->count = num_objects;
  if (num_objects == 0) return TB_OK;
  make_batches<<<unsigned((n + 255) / 256), 256, 0, stream>>>(
      d_gather, d_scatter, d_scan, int(num_objects), int(n_items), unsigned(size),
      static_cast<const char*>(d_in), static_cast<char*>(d_out),
      static_cast<const void**>(b->src.ptr), static_cast<void**>(b->dst.ptr),
      static_cast<unsigned*>(b->sizes.ptr));
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

extern "C" tb_status tb_cub_batches_copy(const tb_cub_batches* b, tb_buffer* scratch,
                                         cudaStream_t stream) {
  if (b->count == 0) return TB_OK;
  const void* const* src = static_cast<const void* const*>(b->src.ptr);
  void* const* dst = static_cast<void* const*>(b->dst.ptr);
  const unsigned* sizes = static_cast<const unsigned*>(b->sizes.ptr);
  size_t bytes = 0;
  TB_CUDA_TRY(cub::DeviceMemcpy::Batched(nullptr, bytes, src, dst, sizes, b->count, stream));
  TB_TRY(tb_buffer_reserve(scratch, bytes));
  TB_CUDA_TRY(
      cub::DeviceMemcpy::Batched(scratch->ptr, bytes, src, dst, sizes, b->count, stream));
  return TB_OK;
}

extern "C" void tb_cub_batches_free(tb_cub_batches* b) {
  tb_buffer_free(&b->src), tb_buffer_free(&b->dst), tb_buffer_free(&b->sizes);
  b->count = 0;
}
