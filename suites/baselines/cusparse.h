/* cuSPARSE SpMV baseline (generic API, CSR with 32-bit indices, float and
 * double) behind C signatures, for the spmv sweeps to measure beside
 * tilebench's kernels. */
#ifndef TB_SUITES_BASELINES_CUSPARSE_H
#define TB_SUITES_BASELINES_CUSPARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_cusparse_spmv tb_cusparse_spmv; /* opaque: handle, descriptors, buffer */

/* y = A x for a CSR matrix A (rows x cols, nnz entries; d_row_offsets has
 * rows + 1 int32 entries, d_cols nnz int32, d_values nnz elements of type,
 * d_x cols elements, d_y rows elements), with cusparseSpMV algorithm alg = 1
 * (CUSPARSE_SPMV_CSR_ALG1) or 2 (CUSPARSE_SPMV_CSR_ALG2), alpha 1, beta 0, on
 * stream. create() does everything that is not per call (handle, descriptors,
 * buffer size and allocation, and with preprocess cusparseSpMV_preprocess:
 * the partner of tilebench's preprocess + apply) so that run() is only the
 * cusparseSpMV call. The arrays are bound at create(): their contents may
 * change between runs, their addresses and the sparsity pattern may not. */
tb_status tb_cusparse_spmv_create(tb_type type, int alg, int64_t rows, int64_t cols, int64_t nnz,
                                  const int32_t *d_row_offsets, const int32_t *d_cols,
                                  const void *d_values, const void *d_x, void *d_y,
                                  bool preprocess, cudaStream_t stream, tb_cusparse_spmv **out);
tb_status tb_cusparse_spmv_run(tb_cusparse_spmv *s);
/* cuSPARSE's version as linked, "12.6.3". */
const char *tb_cusparse_version(void);
void tb_cusparse_spmv_destroy(tb_cusparse_spmv *s); /* NULL is fine */

#ifdef __cplusplus
}
#endif
#endif
