/* cub::DeviceMemcpy::Batched as the baseline of interval move, gather and
 * scatter: one buffer (source pointer, destination pointer, size in bytes)
 * per interval. The pointer arrays are built once by tb_cub_batches_make,
 * outside any timed region; tb_cub_batches_copy is what a benchmark times. */
#ifndef TB_SUITES_BASELINES_CUB_MEMCPY_H
#define TB_SUITES_BASELINES_CUB_MEMCPY_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_cub_batches {
  tb_buffer src, dst, sizes; /* void *[count], void *[count], uint32_t[count] */
  int64_t count;
} tb_cub_batches;

/* Interval j of the scan copies its count_j elements of type from
 * d_in + (d_gather ? d_gather[j] : d_scan[j]) to
 * d_out + (d_scatter ? d_scatter[j] : d_scan[j]): move with both, gather
 * with d_scatter NULL, scatter with d_gather NULL. Zero the struct first;
 * remaking reuses its buffers. */
tb_status tb_cub_batches_make(tb_cub_batches *b, tb_type type, const int32_t *d_gather,
                              const int32_t *d_scatter, const int32_t *d_scan, int64_t num_objects,
                              int64_t n_items, const void *d_in, void *d_out, cudaStream_t stream);
tb_status tb_cub_batches_copy(const tb_cub_batches *b, tb_buffer *scratch, cudaStream_t stream);
void tb_cub_batches_free(tb_cub_batches *b);

#ifdef __cplusplus
}
#endif
#endif
