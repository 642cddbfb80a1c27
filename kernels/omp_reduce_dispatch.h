/* Internal: what omp_reduce.cu offers omp_reduce_api.c, which checks the
 * arguments first. */
#ifndef TB_KERNELS_OMP_REDUCE_DISPATCH_H
#define TB_KERNELS_OMP_REDUCE_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A reduction clause as the kernels take it (by value, as a kernel
 * parameter): each variable's input, result and (type, op) code. */
typedef struct tb_omp_clause {
  const void *in[TB_OMP_MAX_VARS];
  void *result[TB_OMP_MAX_VARS];
  uint8_t code[TB_OMP_MAX_VARS];
  int num_vars;
} tb_omp_clause;

static inline
#ifdef __cplusplus
    constexpr
#endif
    uint8_t
    tb_omp_code(tb_type t, tb_op op) {
  return (uint8_t)(t * TB_OP_COUNT + op);
}

/* The device addresses of the generated callbacks. */
tb_status tb_omp_device_callbacks(tb_omp_callbacks *out);
/* Bytes of one block's partial (the ReduceData). */
size_t tb_omp_partial_bytes(void);
/* Blocks of nt threads that fit on one SM of the current device (0: none),
 * and its SM count (tb_kernel_residency for the region kernel that
 * tb_omp_launch runs for this clause, method and callbacks). */
tb_status tb_omp_residency(const tb_omp_clause *clause, tb_omp_method method, bool generated,
                           int nt, int vt, int *per_sm, int *sm_count);
/* The region on `blocks` blocks; the tree path needs blocks partial slots
 * of tb_omp_partial_bytes. generated: cb holds the generated callbacks, so
 * the kernels may call them directly (and inline them) instead of through
 * the pointers; a clause of one variable then runs kernels typed for it. */
tb_status tb_omp_launch(const tb_omp_clause *clause, int64_t n, tb_omp_method method, int nt,
                        int vt, int64_t blocks, const tb_omp_callbacks *cb, bool generated,
                        void *partials, cudaStream_t stream);
tb_status tb_omp_launch_warps(const tb_omp_clause *clause, const uint32_t *d_masks, int num_warps,
                              int version, const tb_omp_callbacks *cb, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
