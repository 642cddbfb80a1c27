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

/* ---- one call, by name ---- */

/* A call of lbs.cu or interval.cu, by name. Which fields a form reads:
 *   lbs:    scan, num_objects, n_items, obj, rank (or NULL);
 *   expand: scan, num_objects, n_items, in (the values), out;
 *   move:   op (move, gather or scatter), gather, scatter, scan,
 *           num_objects, n_items, in, n_in, out, n_out.
 * A launch with scratch NULL sets scratch_bytes and launches nothing
 * (core/cuda.h). */
typedef struct tb_interval_call {
  tb_interval_op op;
  const int32_t *scan, *gather, *scatter;
  int num_objects, n_items;
  const void *in;
  void *out;
  int64_t n_in, n_out;
  int32_t *obj, *rank;
  void *scratch;
  size_t scratch_bytes;
  cudaStream_t stream;
} tb_interval_call;

typedef tb_status (*tb_interval_launch)(tb_interval_call *call);

/* The launches of one compiled box: the search, and its one-wave capacity
 * (the most tiles run without the partition pass, the tiles searching their
 * own bounds: for tests at the switch). */
typedef struct tb_lbs_policy {
  tb_launch_box box;
  tb_interval_launch lbs;
  int (*wave_tiles)(void);
} tb_lbs_policy;

/* The launches of one compiled (type, box). */
typedef struct tb_interval_policy {
  tb_launch_box box;
  tb_interval_launch expand, move;
} tb_interval_policy;

/* The search's kernel set (lbs.cu): the policy of a box, NULL where the
 * set does not compile it, and the grid. */
typedef struct tb_lbs_set {
  const tb_lbs_policy *(*resolve)(tb_launch_box box);
  const tb_grid *grid;
} tb_lbs_set;
extern const tb_lbs_set tb_lbs_tuned_set, tb_lbs_wide_set;

/* One type's launches in one kernel set (interval.cu). */
typedef struct tb_interval_type_set {
  const tb_interval_policy *(*resolve)(tb_launch_box box);
  const tb_grid *grid;
} tb_interval_type_set;

/* type's table in the tuned kernel set, and in the wide one (linked by the
 * tests and sweeps) (kernels/interval_entry.cu). */
const tb_interval_type_set *tb_interval_tuned_set(tb_type type);
const tb_interval_type_set *tb_interval_wide_set(tb_type type);
/* The one-wave capacity at box in whichever set runs it (0: none). */
int tb_lbs_wave_tiles(tb_launch_box box);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif
