/* CUDA context, error checks and device buffers, as C.
 *
 * TB_CUDA_TRY(expr) turns a failing cudaError_t into TB_ERR_CUDA carrying
 * CUDA's own error string and the call site (TB_ERR_NO_DEVICE, "no CUDA
 * device found", when it means there is no GPU or no driver), and returns it
 * from the enclosing function (use TB_CUDA_GOTO to jump to a cleanup label instead). */
#ifndef TB_CORE_CUDA_H
#define TB_CORE_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

tb_status tb_cuda_error(cudaError_t e, const char *expr, const char *file, int line);

#define TB_CUDA_TRY(expr)                                                   \
  do {                                                                      \
    cudaError_t tb_e_ = (expr);                                             \
    if (tb_e_ != cudaSuccess) return tb_cuda_error(tb_e_, #expr, __FILE__, __LINE__); \
  } while (0)

#define TB_CUDA_GOTO(st, label, expr)                                       \
  do {                                                                      \
    cudaError_t tb_e_ = (expr);                                             \
    if (tb_e_ != cudaSuccess) { st = tb_cuda_error(tb_e_, #expr, __FILE__, __LINE__); goto label; } \
  } while (0)

/* The device the process runs on, read once. */
typedef struct tb_device_info {
  int ordinal;
  char name[256];
  int sm_major, sm_minor;  /* compute capability */
  int sm_count;
  int l2_bytes;
  size_t shared_per_block_optin;
  size_t global_bytes;
  int driver_version, runtime_version; /* as CUDA encodes them: 13000 = 13.0 */
  char pci_bus_id[32];     /* "0000:1B:00.0": which board, whatever CUDA_VISIBLE_DEVICES says */
} tb_device_info;

/* TB_ERR_NO_DEVICE with a clear message when no usable GPU is present. */
tb_status tb_device_get(tb_device_info *out);

/* How many CTAs of `kernel` (the address of a __global__ function) with nt
 * threads and `shared` bytes of dynamic shared memory fit on one SM of the
 * current device (*per_sm; 0 when one does not fit), and that device's SM
 * count (*sm_count). Kept per (device, kernel, nt, shared): the occupancy
 * query costs more than a small launch, and a process may switch between GPU
 * models. Safe for concurrent callers. */
tb_status tb_kernel_residency(const void *kernel, int nt, size_t shared, int *per_sm,
                              int *sm_count);

/* tb_buffer (a device allocation that remembers its size) and tb_buffer_free
 * are in core/tilebench_base.h. Releases what b held, then allocates. 0 bytes succeeds with ptr NULL. On
 * failure b is left empty: TB_ERR_OUT_OF_MEMORY when the device is full.
 * Upload/download move `bytes` (<= b->bytes) from/to the start of b. */
tb_status tb_buffer_alloc(tb_buffer *b, size_t bytes);
/* Grows b to at least `bytes` (reallocating: contents are not kept); a no-op
 * when it is already large enough. Scratch buffers kept across calls use it. */
tb_status tb_buffer_reserve(tb_buffer *b, size_t bytes);
tb_status tb_buffer_upload(tb_buffer *b, const void *host, size_t bytes);
tb_status tb_buffer_download(const tb_buffer *b, void *host, size_t bytes);
/* Reserve, then upload: b holds a device copy of host[0, bytes). */
tb_status tb_buffer_put(tb_buffer *b, const void *host, size_t bytes);

/* The scratch of one call: the one convention of every entry point that
 * takes `tb_buffer *scratch`. The call lays its regions out twice with
 * tb_scratch_take, each 256-byte aligned: first to size them (base NULL,
 * every region NULL), then, after tb_scratch_begin, to place them. Its
 * memory is the caller's buffer, grown to fit, or for NULL one the call
 * owns, which tb_scratch_end frees once the stream has finished with it.
 *
 *   tb_scratch s = {0};
 *   lay_out(&s, ...);                  sizing
 *   TB_TRY(tb_scratch_begin(&s, caller));
 *   lay_out(&s, ...);                  placing
 *   return tb_scratch_end(&s, run(...), stream);
 *
 * A kernel run function sizes its own part CUB's way (called with scratch
 * NULL, it sets *scratch_bytes and launches nothing). */
typedef struct tb_scratch {
  size_t bytes; /* laid out so far */
  char *base;   /* NULL while sizing */
  tb_buffer *buf;
  tb_buffer owned;
} tb_scratch;

void *tb_scratch_take(tb_scratch *s, size_t bytes);
tb_status tb_scratch_begin(tb_scratch *s, tb_buffer *caller);
/* tb_scratch_begin for a layout of one region of `bytes`, at *region. */
tb_status tb_scratch_begin_one(tb_scratch *s, tb_buffer *caller, size_t bytes, void **region);
/* st, or the failure of waiting for the stream before freeing owned memory. */
tb_status tb_scratch_end(tb_scratch *s, tb_status st, cudaStream_t stream);

/* A tag unique to one call, for words a kernel leaves in scratch without
 * anything zeroing them first (a word counts only when it holds the tag):
 * never 0, the low two bits 0 for the word's own state, a 64-bit mix of a
 * count of calls salted by the process's start, so that no earlier call of
 * the process nor, all but surely, anything else left it in the scratch. */
uint64_t tb_call_tag(void);

#ifdef __cplusplus
}
#endif
#endif
