/* Internal: what lbs.cu (type-free) and interval.cu (one translation unit
 * per element type) export to interval_api.c, which checks the arguments
 * first. Sizes arrive as int: the API has rejected anything past INT32_MAX.
 * With scratch == NULL the run functions only write the scratch size they
 * need to *scratch_bytes. */
#ifndef TB_KERNELS_INTERVAL_DISPATCH_H
#define TB_KERNELS_INTERVAL_DISPATCH_H

#include "kernels/grid.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* lbs.cu */
/* Per kernel set (kernels/grid.h): the search at a box, and its grid. */
#define TB_LBS_RUN(name)                                                                 \
  tb_status name(tb_launch_box box, const int32_t *d_scan, int num_objects, int n_items, \
                 int32_t *d_obj, int32_t *d_rank, void *scratch, size_t *scratch_bytes,  \
                 cudaStream_t stream);
TB_LBS_RUN(tb_lbs_run)
TB_LBS_RUN(tb_lbs_run_wide)
#undef TB_LBS_RUN
extern const tb_grid tb_lbs_kernel_grid, tb_lbs_kernel_grid_wide;
/* Per kernel set: the most tiles at box that tb_lbs runs as one wave, the
 * tiles searching their own bounds (lbs.cu); more take the partition pass.
 * 0 for a box the set does not run. */
int tb_lbs_wave_tiles_run(tb_launch_box box);
int tb_lbs_wave_tiles_run_wide(tb_launch_box box);
/* The same for whichever set runs box (interval_api.c), for tests at the
 * switch. */
int tb_lbs_wave_tiles(tb_launch_box box);
/* The Merge Path partition every tiled kernel of the family starts from:
 * partition[p] = scan entries among the first p * tile merged elements, for
 * p = 0 .. tiles, written to the start of scratch. Sets *scratch_bytes to
 * what that needs and *tiles to the grid to launch; with scratch NULL, or
 * no items, it only sizes, and *tiles is 0. */
tb_status tb_lbs_partition(const int32_t *d_scan, int num_objects, int n_items, int tile,
                           void *scratch, size_t *scratch_bytes, int *tiles,
                           cudaStream_t stream);
/* Writes to *d_first_bad the smallest index whose entry breaks the scan's
 * rules (UINT32_MAX when none); the caller reads it back. strict: entries
 * ascending and the last one below n_items (CSR offsets of non-empty
 * segments). Also what tb_segreduce_validate runs. */
tb_status tb_offsets_validate_run(const int32_t *d_scan, int num_objects, int n_items,
                                  bool strict, uint32_t *d_first_bad, cudaStream_t stream);

/* interval.cu, per type. op picks move, gather or scatter for the second. */
#define TB_INTERVAL_DECLARE(name)                                                              \
  tb_status tb_interval_expand_##name(tb_launch_box box, const int32_t *d_scan, int num_objects, \
                                      int n_items, const void *d_values, void *d_out,          \
                                      void *scratch, size_t *scratch_bytes, cudaStream_t stream); \
  tb_status tb_interval_move_##name(tb_interval_op op, tb_launch_box box, const int32_t *d_gather, \
                                    const int32_t *d_scatter, const int32_t *d_scan,           \
                                    int num_objects, int n_items, const void *d_in, int64_t n_in, \
                                    void *d_out, int64_t n_out, void *scratch,                 \
                                    size_t *scratch_bytes, cudaStream_t stream);               \
  extern const tb_grid tb_interval_grid_##name;
TB_INTERVAL_DECLARE(int32)
TB_INTERVAL_DECLARE(int64)
TB_INTERVAL_DECLARE(float)
TB_INTERVAL_DECLARE(double)
/* The wide kernel set's (kernels/grid.h). */
TB_INTERVAL_DECLARE(int32_wide)
TB_INTERVAL_DECLARE(int64_wide)
TB_INTERVAL_DECLARE(float_wide)
TB_INTERVAL_DECLARE(double_wide)
#undef TB_INTERVAL_DECLARE

#ifdef __cplusplus
}
#endif
#endif
