#define _POSIX_C_SOURCE 200809L /* clock_gettime, getpid */
#include "core/cuda.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

tb_status tb_cuda_error(cudaError_t e, const char *expr, const char *file, int line) {
  /* Reset the runtime's last-error slot: this error is now reported, and a
   * later cudaGetLastError() check must not see it again. (Sticky errors
   * stay; nothing can clear those.) */
  (void)cudaGetLastError();
  /* No GPU or no driver is the caller's situation, not a failure of the call. */
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
    return tb_fail(TB_ERR_NO_DEVICE, "no CUDA device found (%s: %s)", cudaGetErrorName(e),
                   cudaGetErrorString(e));
  return tb_fail(TB_ERR_CUDA, "CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(e),
                 cudaGetErrorString(e), expr ? expr : "?", file ? file : "?", line);
}

tb_status tb_device_check(void) {
  tb_device_info info;
  return tb_device_get(&info);
}

tb_status tb_device_get(tb_device_info *out) {
  if (out == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_device_get: out is NULL");
  memset(out, 0, sizeof *out);
  int count = 0;
  TB_CUDA_TRY(cudaGetDeviceCount(&count));
  if (count == 0)
    return tb_fail(TB_ERR_NO_DEVICE, "no CUDA device found (cudaGetDeviceCount reports 0)");

  int dev = 0;
  struct cudaDeviceProp p;
  TB_CUDA_TRY(cudaGetDevice(&dev));
  TB_CUDA_TRY(cudaGetDeviceProperties(&p, dev));
  out->ordinal = dev;
  snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof p.name, p.name);
  out->sm_major = p.major;
  out->sm_minor = p.minor;
  out->sm_count = p.multiProcessorCount;
  out->l2_bytes = p.l2CacheSize;
  out->shared_per_block_optin = p.sharedMemPerBlockOptin;
  out->global_bytes = p.totalGlobalMem;
  TB_CUDA_TRY(cudaDeviceGetPCIBusId(out->pci_bus_id, (int)sizeof out->pci_bus_id, dev));
  TB_CUDA_TRY(cudaDriverGetVersion(&out->driver_version));
  TB_CUDA_TRY(cudaRuntimeGetVersion(&out->runtime_version));
  return TB_OK;
}

/* The residency cache: open addressing over (device, kernel, nt, dynamic
 * shared bytes), one lock. A full table still answers, uncached. */
enum { kResidencySlots = 4096 };
typedef struct residency_entry {
  const void *kernel; /* NULL: empty */
  int device, nt, per_sm, sm_count;
  size_t shared;
} residency_entry;
static residency_entry residency_table[kResidencySlots];
static pthread_mutex_t residency_lock = PTHREAD_MUTEX_INITIALIZER;

static residency_entry *residency_slot(const void *kernel, int device, int nt, size_t shared) {
  uint64_t h = (uint64_t)(uintptr_t)kernel * 0x9e3779b97f4a7c15ull ^ (uint64_t)device << 40 ^
               (uint64_t)nt ^ (uint64_t)shared << 12;
  h ^= h >> 29;
  for (int probe = 0; probe < kResidencySlots; ++probe) {
    residency_entry *e = &residency_table[(h + (uint64_t)probe) % kResidencySlots];
    if (!e->kernel ||
        (e->kernel == kernel && e->device == device && e->nt == nt && e->shared == shared))
      return e;
  }
  return NULL;
}

tb_status tb_kernel_residency(const void *kernel, int nt, size_t shared, int *per_sm,
                              int *sm_count) {
  if (!kernel || !per_sm || !sm_count)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_kernel_residency: kernel or an output is NULL");
  int device = 0;
  TB_CUDA_TRY(cudaGetDevice(&device));
  pthread_mutex_lock(&residency_lock);
  residency_entry *e = residency_slot(kernel, device, nt, shared);
  const residency_entry found = e ? *e : (residency_entry){0};
  pthread_mutex_unlock(&residency_lock);
  if (found.kernel) {
    *per_sm = found.per_sm;
    *sm_count = found.sm_count;
    return TB_OK;
  }
  int blocks = 0, sms = 0;
  TB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, nt, shared));
  *per_sm = blocks;
  *sm_count = sms;
  pthread_mutex_lock(&residency_lock);
  e = residency_slot(kernel, device, nt, shared);
  if (e) *e = (residency_entry){kernel, device, nt, *per_sm, sms, shared};
  pthread_mutex_unlock(&residency_lock);
  return TB_OK;
}

tb_status tb_buffer_alloc(tb_buffer *b, size_t bytes) {
  if (b == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_buffer_alloc: buffer is NULL");
  tb_buffer_free(b);
  if (bytes == 0) return TB_OK;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  /* not sticky: later calls must not see it */
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "out of device memory allocating %zu bytes (%.3f GiB)",
                   bytes, (double)bytes / (1024.0 * 1024.0 * 1024.0));
  }
  if (e != cudaSuccess) return tb_cuda_error(e, "cudaMalloc(&p, bytes)", __FILE__, __LINE__);
  b->ptr = p;
  b->bytes = bytes;
  return TB_OK;
}

tb_status tb_buffer_reserve(tb_buffer *b, size_t bytes) {
  if (b == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_buffer_reserve: buffer is NULL");
  return b->bytes >= bytes && (b->ptr != NULL || bytes == 0) ? TB_OK : tb_buffer_alloc(b, bytes);
}

void tb_buffer_free(tb_buffer *b) {
  if (b == NULL) return;
  /* Errors here are from earlier asynchronous work and were (or will be)
   * reported there; freeing must not fail. */
  if (b->ptr != NULL) (void)cudaFree(b->ptr);
  b->ptr = NULL;
  b->bytes = 0;
}

static tb_status check_copy(const char *fn, const tb_buffer *b, const void *host, size_t bytes) {
  if (b == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: buffer is NULL", fn);
  if (bytes > b->bytes)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %zu bytes do not fit a buffer of %zu bytes", fn,
                   bytes, b->bytes);
  if (bytes > 0 && host == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: host pointer is NULL", fn);
  return TB_OK;
}

tb_status tb_buffer_upload(tb_buffer *b, const void *host, size_t bytes) {
  TB_TRY(check_copy("tb_buffer_upload", b, host, bytes));
  if (bytes > 0) TB_CUDA_TRY(cudaMemcpy(b->ptr, host, bytes, cudaMemcpyHostToDevice));
  return TB_OK;
}

tb_status tb_buffer_put(tb_buffer *b, const void *host, size_t bytes) {
  TB_TRY(tb_buffer_reserve(b, bytes));
  return tb_buffer_upload(b, host, bytes);
}

void *tb_scratch_take(tb_scratch *s, size_t bytes) {
  void *p = s->base ? s->base + s->bytes : NULL;
  s->bytes += (bytes + 255) / 256 * 256;
  return p;
}

tb_status tb_scratch_begin(tb_scratch *s, tb_buffer *caller) {
  s->owned = (tb_buffer){0};
  s->buf = caller ? caller : &s->owned;
  /* One byte at least: an empty call still hands its kernels a pointer. */
  TB_TRY(tb_buffer_reserve(s->buf, s->bytes > 0 ? s->bytes : 1));
  s->base = s->buf->ptr;
  s->bytes = 0;
  return TB_OK;
}

tb_status tb_scratch_begin_one(tb_scratch *s, tb_buffer *caller, size_t bytes, void **region) {
  *s = (tb_scratch){0};
  tb_scratch_take(s, bytes);
  TB_TRY(tb_scratch_begin(s, caller));
  *region = tb_scratch_take(s, bytes);
  return TB_OK;
}

tb_status tb_scratch_end(tb_scratch *s, tb_status st, cudaStream_t stream) {
  if (s->owned.ptr && st == TB_OK) {
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
      st = tb_cuda_error(e, "cudaStreamSynchronize(stream)", __FILE__, __LINE__);
  }
  tb_buffer_free(&s->owned);
  s->buf = NULL, s->base = NULL;
  return st;
}

uint64_t tb_call_tag(void) {
  static _Atomic uint64_t salt, calls;
  uint64_t s = atomic_load(&salt);
  if (!s) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t none = 0;
    const uint64_t mine = ((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec) ^
                          ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&salt;
    atomic_compare_exchange_strong(&salt, &none, mine | 1);
    s = atomic_load(&salt);
  }
  uint64_t z = s + 0x9e3779b97f4a7c15ull * (atomic_fetch_add(&calls, 1) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z = (z ^ (z >> 31)) & ~3ull;
  return z ? z : 4;
}

tb_status tb_buffer_download(const tb_buffer *b, void *host, size_t bytes) {
  TB_TRY(check_copy("tb_buffer_download", b, host, bytes));
  if (bytes > 0) TB_CUDA_TRY(cudaMemcpy(host, b->ptr, bytes, cudaMemcpyDeviceToHost));
  return TB_OK;
}
