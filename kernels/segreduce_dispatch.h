/* Internal: what segreduce_prep.cu (type-free) and segreduce.cu (one
 * translation unit per element type) export to segreduce_api.c, which has
 * checked the arguments. Sizes arrive as int (the API rejects anything past
 * INT32_MAX); every box has been checked against the grid.
 *
 * Device arrays of a run, for tiles = tb_tiles(count, box):
 *   limits: tiles + 1 ints, the segment of each tile's first item (bit 31:
 *           it continues from an earlier tile), limits[tiles] = segments;
 *   codes:  tiles * NT ints, one per thread of the preprocessed form;
 *   scratch: what a run needs besides (the per-tile carries or status
 *           words); each run sizes it CUB's way: called with scratch NULL, it
 *           sets *scratch_bytes and launches nothing (core/cuda.h). */
#ifndef TB_KERNELS_SEGREDUCE_DISPATCH_H
#define TB_KERNELS_SEGREDUCE_DISPATCH_H

#include "core/cuda.h" /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"
#include "kernels/grid.h"
#include "kernels/seg_tile.h" /* tb_seg_tile_marks */
#include "kernels/tilebench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where each item's value comes from. */
typedef enum tb_seg_front {
  TB_SEG_VALUES,      /* values[m] */
  TB_SEG_SPMV_UNARY,  /* x[cols[m]] */
  TB_SEG_SPMV_BINARY, /* values[m] * x[cols[m]] (values: the matrix) */
} tb_seg_front;

typedef struct tb_seg_inputs {
  tb_seg_front front;
  const void *values;
  const int32_t *cols;
  const void *x;
  int x_len;
} tb_seg_inputs;

/* A plan's thread codes hold VT end flags: TB_OK for a box a plan takes,
 * else the error of every preprocess and apply (fn: the entry point). The
 * host checks first; the device paths, which compile no plan kernel for a
 * wider box, give the same. */
static inline tb_status tb_seg_plan_box_check(const char *fn, int nt, int vt) {
  if (vt <= TB_SEG_PLAN_MAX_VT) return TB_OK;
  return tb_fail(TB_ERR_INVALID_ARGUMENT,
                 "%s: launch box %dx%d: a plan takes VT up to %d (the plain forms take it)", fn, nt,
                 vt, TB_SEG_PLAN_MAX_VT);
}

/* The forms tb_segreduce_wave_tiles answers for: the direct CSR reduction
 * over values, a plan's apply, the direct one with empty rows in its tiles
 * (support_empty at a box whose tiles take them, tb_seg_tile_marks; not for
 * the bitwise operators, which keep the partitioned tiles there). */
typedef enum tb_seg_wave_form { TB_WAVE_CSR, TB_WAVE_APPLY, TB_WAVE_CSR_EMPTY } tb_seg_wave_form;

/* The most tiles at box whose form over values is one cooperative launch on
 * this GPU (kernels/segreduce.cu, fits_one_wave); more take the partition,
 * the tiles and the fold. 0 for a box the build does not run for op or that
 * has no such form, and for the wide kernel set's boxes, which are
 * partitioned at every size. For tests at the switch. */
int tb_segreduce_wave_tiles(tb_type type, tb_op op, tb_launch_box box, tb_seg_wave_form form);

/* ---- segreduce_prep.cu ---- */

/* limits for the tiles of count items at box; segments come from
 * *d_num_segments when given (the CSR2 count, on the device), num_segments
 * otherwise. d_published (or NULL): tiles + 1 words zeroed before the call,
 * where each limit is also stored, plus one, as soon as it is found, for
 * tiles launched behind the partition (Published, dependent_launch.cuh). */
tb_status tb_seg_partition_run(const int32_t *d_csr, int num_segments,
                               const int32_t *d_num_segments, int count, tb_launch_box box,
                               int32_t *d_limits, uint32_t *d_published, cudaStream_t stream);
/* CSR -> CSR2 in one pass: d_ranks, for each 32 segments, two words: their
 * non-empty flags (bit i for segment 32 w + i) and the non-empty segments
 * before them (tb_seg_rank_ints(num_segments) ints); d_csr2 the non-empty
 * segments' start offsets (d_sources2 their sources, when d_sources is given),
 * d_num2[0] how many, d_num2[1] whether the CSR is malformed (an offset
 * outside [0, count] or descending: the fill then gives every segment the
 * identity). scratch holds the tiles' look-back status (NULL: size query
 * into *scratch_bytes). */
static inline size_t tb_seg_rank_ints(int num_segments) {
  return 2 * (((size_t)num_segments + 31) / 32);
}
tb_status tb_seg_csr2_run(const int32_t *d_csr, const int32_t *d_sources, int num_segments,
                          int count, int32_t *d_ranks, int32_t *d_csr2, int32_t *d_sources2,
                          int32_t *d_num2, void *scratch, size_t *scratch_bytes,
                          cudaStream_t stream);
/* The preprocessed form of a CSR geometry: codes from limits. */
typedef tb_status tb_seg_codes_fn(tb_launch_box box, const int32_t *d_csr, int num_segments,
                                  int count, const int32_t *d_limits, int32_t *d_codes,
                                  cudaStream_t stream);
/* The runs of equal adjacent keys, preprocessed: limits, codes, the first
 * key of each run (d_keys_out, may be NULL) and the run count (d_num, may be
 * NULL; limits[tiles] has it too). */
typedef tb_status tb_seg_key_runs_fn(tb_launch_box box, const int32_t *d_keys, int count,
                                     int32_t *d_limits, int32_t *d_codes, int32_t *d_keys_out,
                                     int32_t *d_num, void *scratch, size_t *scratch_bytes,
                                     cudaStream_t stream);
/* The preprocessed forms, type-free, in each kernel set: the two forms and
 * the boxes they run (every type's). */
typedef struct tb_seg_prep_set {
  tb_seg_codes_fn *codes;
  tb_seg_key_runs_fn *key_runs;
  const tb_grid *grid;
} tb_seg_prep_set;
extern const tb_seg_prep_set tb_seg_prep_tuned_set, tb_seg_prep_wide_set;
/* First column outside [0, x_len) into *d_first_bad (UINT32_MAX if none). */
tb_status tb_seg_cols_validate_run(const int32_t *d_cols, int nz, int x_len,
                                   uint32_t *d_first_bad, cudaStream_t stream);

/* Whole rows a CTA (segreduce.cu's rows_kernel): the calls it takes, among
 * the direct forms with no box given, and its launch.
 *
 * Up to TB_SEG_ROWS_MAX_COUNT items, where the tiles' fixed cost (the
 * search of their limits, a grid barrier, the fold of their carries) is
 * most of a call. An empty row is a row like any other there (its result
 * the identity), so with support_empty a call may have more segments than
 * items; without it, such a call (malformed) keeps the tiles. With
 * support_empty only up to TB_SEG_ROWS_EMPTY_MAX_COUNT: rows are dealt to
 * CTAs by count, and the inputs that have empty rows (power-law rows, web
 * graphs) have runs of long rows that leave a few CTAs most of the items.
 * H200, SpMV, rows here ÷ the better cuSPARSE algorithm: power-law rows
 * (mean 4-64) 1.14-1.55 at 2^16 nonzeros (two runs), 0.87-1.01 at 2^18 and
 * 0.74-0.85 at 2^22; the web graph notredame_www (930 k nonzeros, a CTA of
 * 23 k of them where the mean is 3.6 k) 0.33, where the tiles take 10 us. */
#define TB_SEG_ROWS_MAX_COUNT (1 << 22)
#define TB_SEG_ROWS_EMPTY_MAX_COUNT (1 << 16)
/* Rows of one length (tb_segreduce_fixed) take it at any count up to this,
 * a call's larger ones in pieces of whole rows: past it, a row's last
 * round of loads would take its int indices past INT32_MAX. */
#define TB_SEG_FIXED_ROWS_MOST (1 << 30)
/* Rows of one length that divides TB_SEG_FIXED_SHORT (1, 2, 4, 8, 16) are a
 * thread's, its items from its warp's coalesced loads (segreduce.cu,
 * fixed_short_kernel): no rows a CTA, nothing to split. */
#define TB_SEG_FIXED_SHORT 16
static inline bool tb_seg_fixed_short(int fixed) {
  return fixed > 0 && fixed <= TB_SEG_FIXED_SHORT && TB_SEG_FIXED_SHORT % fixed == 0;
}
/* Rows of one length from 256 to 2,048 items are a warp's each (segreduce.cu,
 * fixed_warp_kernel): no offsets staged, no CTA barrier. */
#define TB_SEG_FIXED_WARP_LEAST 256
#define TB_SEG_FIXED_WARP_MOST 2048
static inline bool tb_seg_fixed_warp(int fixed) {
  return fixed >= TB_SEG_FIXED_WARP_LEAST && fixed <= TB_SEG_FIXED_WARP_MOST;
}
/* Rows of one length that a kernel of their own takes: no offsets, no
 * scratch. */
static inline bool tb_seg_fixed_own_kernel(int fixed) {
  return tb_seg_fixed_short(fixed) || tb_seg_fixed_warp(fixed);
}
static inline bool tb_seg_rows_fit(int64_t count, int64_t num_segments, bool support_empty) {
  return count > 0 && (support_empty ? count <= TB_SEG_ROWS_EMPTY_MAX_COUNT
                                     : count <= TB_SEG_ROWS_MAX_COUNT && num_segments <= count);
}

/* A CTA's threads; each lane's loads in flight a round in a group's rows
 * and in the CTA's long rows; the rows a group has in flight at once, and
 * the most it takes (in batches of those); the fewest CTAs a grid should
 * have (about two an SM: loads in flight on every SM) where there are rows
 * enough. Rows of more than TB_SEG_ROWS_SPLIT items are split into units
 * of TB_SEG_ROWS_UNIT (one round of the CTA's loads),
 * which any CTA of the call may take (tb_seg_rows_grid), posted in a table
 * of TB_SEG_ROWS_SLOTS (more than the longest call has rows of that
 * length); so are the rows of more than TB_SEG_ROWS_WARP_LONG of a CTA
 * that holds more than TB_SEG_ROWS_SPLIT items (rows are dealt by count),
 * where the table has room. Eight units and not four: where no other CTA is
 * free to help, a split row costs its owner a claim and a reduction a unit,
 * and SpMV over a row of 46,500 nonzeros among 46,499 short ones took 18-20
 * us split, 8-10 as one CTA's rows (H100). */
enum {
  TB_SEG_ROWS_THREADS = 512,
  TB_SEG_ROWS_UNROLL = 4,
  TB_SEG_ROWS_CTA_UNROLL = 16,
  TB_SEG_ROWS_BATCH = 4,
  TB_SEG_ROWS_GROUP_MOST = 8,
  TB_SEG_ROWS_MIN_CTAS = 256,
  TB_SEG_ROWS_WARP_LONG = 2048,
  TB_SEG_ROWS_UNIT = TB_SEG_ROWS_THREADS * TB_SEG_ROWS_CTA_UNROLL,
  TB_SEG_ROWS_SPLIT = 8 * TB_SEG_ROWS_UNIT,
  TB_SEG_ROWS_SLOTS = 256
};

/* The lanes of a group, which reduce one row: a round of loads a row of
 * the mean length. A row of more than four of its group's rounds
 * (tb_seg_rows_long) is a warp's, after the groups' rows, one of more
 * than TB_SEG_ROWS_WARP_LONG items the whole CTA's, after those, and one of
 * more than TB_SEG_ROWS_SPLIT the call's (split). */
static inline int tb_seg_rows_lanes(double mean) {
  int g = 1;
  while (g < 32 && g * TB_SEG_ROWS_UNROLL < mean) g *= 2;
  return g;
}
static inline int tb_seg_rows_long(int lanes) {
  return 4 * (lanes > 32 ? TB_SEG_ROWS_CTA_UNROLL : TB_SEG_ROWS_UNROLL) * lanes;
}

/* Rows a CTA: TB_SEG_ROWS_GROUP_MOST a group, fewer where the grid would
 * have fewer than TB_SEG_ROWS_MIN_CTAS CTAs. Eight and not four: 2^20 rows
 * of one item were 1.3-1.9 waves of CTAs of 2,048 rows (H200); the
 * kernel's shared memory follows its rows a CTA (tb_seg_rows_shared),
 * since room for 4,096 in every call cost each about a microsecond.
 * Where a group is narrower than a warp (one round of its loads takes a
 * row of the mean length, so wider groups, tb_seg_rows_width, would not
 * take fewer), up to a row a group while the grid keeps
 * TB_SEG_ROWS_MIN_CTAS / 2 CTAs (about one an SM): an
 * idle warp still runs the CTA's instructions (a tomography matrix's 1,440
 * rows of 44 items, five a CTA of 512 threads: issue-bound under ncu, a
 * third of the instructions the shuffles of warps without rows; SpMV 8.2
 * -> 4.3 us, H200), and fewer, fuller CTAs gather a skewed input's long
 * rows in a few of them. At least one. */
static inline int tb_seg_rows_per_cta(int64_t num_segments, int lanes) {
  const int64_t rows = num_segments / TB_SEG_ROWS_MIN_CTAS;
  const int most = TB_SEG_ROWS_GROUP_MOST * TB_SEG_ROWS_THREADS / lanes;
  int64_t least = 1;
  if (lanes < 32) { /* a row a group, or the rows of TB_SEG_ROWS_MIN_CTAS / 2 CTAs */
    const int64_t half_grid = TB_SEG_ROWS_MIN_CTAS / 2;
    least = (num_segments + half_grid - 1) / half_grid;
    if (least > TB_SEG_ROWS_THREADS / lanes) least = TB_SEG_ROWS_THREADS / lanes;
  }
  return rows < least ? (int)least : rows > most ? most : (int)rows;
}

/* A plan (preprocess + apply) of a call that takes the rows kernel
 * (tb_seg_rows_fit, no box given) applies with that kernel over its copy of
 * the offsets, one launch with nothing to search, where the rows suit it;
 * else with the tiles, which stream codes through a partition of the call.
 * Its preprocess measures the rows (tb_seg_rows_stats_run): the longest,
 * and the most items of a CTA as the rows kernel deals them by count.
 * H200, the tiles' apply against the rows kernel (the plain call):
 * - SpMV: rows up to 2^20 nonzeros, at least TB_SEG_PLAN_ROWS_LEAST of them,
 *   none longer than a warp's group takes (tb_seg_rows_long(32)) or than
 *   four times the mean. Matrices of 22 k-1 M nonzeros with such rows 5.0-13.1
 *   against 3.1-12.1 us; uniform rows at 2^16-2^20 (mean 4-1024) 6.3-17.8
 *   against 3.7-15.7. The tiles won with long rows sharing CTAs (a
 *   Groebner-basis matrix's rows of up to 829 items, mean 35: 6.2 against
 *   8.2), at 2 M nonzeros (9.3 against 10.0) and with 256 rows of 256 (4.8
 *   against 5.2): the gathers of x make a CTA's serial rows costly.
 * - Segmented reduction: rows up to TB_SEG_ROWS_MAX_COUNT items unless the
 *   mean is under two and there are more than TB_SEG_PLAN_ROWS_SHORT_COUNT
 *   items (2^20 rows of one item: 7.2 against 7.7 us, 2^22: 16 against
 *   27), and no CTA of more than TB_SEG_ROWS_SPLIT items (a
 *   bundle-adjustment J^T, 144 rows of up to 19 k first: 8.6 against 22
 *   us). Uniform rows at 2^16-2^22, mean 4-16384: 5.7-19.8 against
 *   3.1-18.1 us; an arrow matrix (one row of 46,500) 6.0 against 5.0. */
enum {
  TB_SEG_PLAN_ROWS_LEAST = 1024,
  TB_SEG_PLAN_ROWS_MAX_COUNT = 1 << 20,
  TB_SEG_PLAN_ROWS_SHORT_COUNT = 1 << 18
};
typedef struct {
  int32_t longest; /* items of the longest row */
  int32_t busiest; /* items of the CTA with the most, rows dealt rows_per_cta a CTA */
} tb_seg_rows_stats;
/* The rows' tb_seg_rows_stats into *d_stats, rows dealt rows_per_cta a CTA
 * (0 where none has items). */
tb_status tb_seg_rows_stats_run(const int32_t *d_csr, int num_segments, int count, int rows_per_cta,
                                tb_seg_rows_stats *d_stats, cudaStream_t stream);
static inline bool tb_seg_plan_rows_may(bool spmv, int64_t count, int64_t num_segments,
                                        bool support_empty) {
  if (!tb_seg_rows_fit(count, num_segments, support_empty)) return false;
  if (spmv) return count <= TB_SEG_PLAN_ROWS_MAX_COUNT && num_segments >= TB_SEG_PLAN_ROWS_LEAST;
  return count <= TB_SEG_PLAN_ROWS_SHORT_COUNT || count >= 2 * num_segments;
}
static inline bool tb_seg_plan_rows(bool spmv, int64_t count, int64_t num_segments,
                                    tb_seg_rows_stats s) {
  if (spmv) return s.longest <= tb_seg_rows_long(32) || s.longest * num_segments <= 4 * count;
  return s.busiest <= TB_SEG_ROWS_SPLIT;
}

/* Rows a CTA of a call over CSR, as the rows kernel's launch deals them:
 * its lanes from the mean row. */
static inline int tb_seg_rows_per_cta_of(int64_t count, int64_t num_segments) {
  return tb_seg_rows_per_cta(num_segments, tb_seg_rows_lanes((double)count / (double)num_segments));
}

/* The rows kernel's dynamic shared memory: its rows' offsets and the list
 * of those its warps and the whole CTA take. */
static inline size_t tb_seg_rows_shared(int rows_per_cta) {
  return (2 * (size_t)rows_per_cta + 1) * sizeof(int);
}

/* The lanes of a group where a CTA has fewer rows than groups of `lanes`:
 * wider, up to the whole CTA a row, with the CTA's unroll (a group of more
 * than a warp has one row), so that a few long rows a CTA take one round
 * of loads or two instead of a warp's eight. */
static inline int tb_seg_rows_width(int lanes, int rows_per_cta) {
  int w = lanes;
  while (w < TB_SEG_ROWS_THREADS && (int64_t)rows_per_cta * w * 2 <= TB_SEG_ROWS_THREADS) w *= 2;
  return w;
}

/* Whether a call may have rows to split, and then its grid: the CTAs of
 * its rows and, where the mean row is longer than TB_SEG_ROWS_SPLIT (so
 * that some row is split), a CTA for every unit of the items, those
 * without rows only taking units; and its scratch: the table of split rows
 * (a slot: a tag, the row, its start and end, its units claimed) and, for
 * every unit a split row can have, its partial result and a done word. */
static inline bool tb_seg_rows_split(int64_t count) { return count > TB_SEG_ROWS_SPLIT; }
static inline int64_t tb_seg_rows_owners(int64_t num_segments, int rows_per_cta) {
  return (num_segments + rows_per_cta - 1) / rows_per_cta;
}
static inline int64_t tb_seg_rows_grid(int64_t count, int64_t num_segments, int rows_per_cta) {
  const int64_t rows = tb_seg_rows_owners(num_segments, rows_per_cta);
  const int64_t units = (count + TB_SEG_ROWS_UNIT - 1) / TB_SEG_ROWS_UNIT;
  const bool helpers = tb_seg_rows_split(count) && num_segments * TB_SEG_ROWS_SPLIT < count;
  return helpers && units > rows ? units : rows;
}
/* Units a call's posted rows may have: a row of more than
 * TB_SEG_ROWS_WARP_LONG items (the shortest an overloaded CTA posts) has
 * its units from s / TB_SEG_ROWS_UNIT + s / TB_SEG_ROWS_WARP_LONG on. */
static inline int64_t tb_seg_rows_units(int64_t count) {
  return count / TB_SEG_ROWS_UNIT + count / TB_SEG_ROWS_WARP_LONG + 2;
}
static inline size_t tb_seg_rows_split_bytes(int64_t count, size_t elem) {
  return TB_SEG_ROWS_SLOTS * (8 + 16 + 4) + 16 + (size_t)tb_seg_rows_units(count) * (elem + 4);
}
/* A call's scratch: with support_empty first a word that a CTA sets to the
 * call's tag where it finds the offsets malformed (TB_SEG_ROWS_MALFORMED
 * bytes, so that the table stays aligned), then the split rows' table. */
#define TB_SEG_ROWS_MALFORMED 16
static inline size_t tb_seg_rows_scratch_bytes(int64_t count, size_t elem, bool empty) {
  return (empty ? TB_SEG_ROWS_MALFORMED : 0) +
         (tb_seg_rows_split(count) ? tb_seg_rows_split_bytes(count, elem) : 0);
}

/* ---- segreduce.cu: one call, by name ---- */

/* A call of the per-type kernels, filled by segreduce_api.c (which has
 * checked the arguments) and passed to a policy's launch. Which fields a
 * form reads:
 *   csr:    in, csr, sources (the indirect form, or NULL), d_num_segments
 *           (behind the CSR2 prepass: the segment count on the device, or
 *           NULL), empty (segments may be empty: the direct tiles take them
 *           and store the identity, and a malformed CSR gives every segment
 *           the identity, kernels/tilebench.h), num_segments, count, limits
 *           (the partition's output), out;
 *   apply:  in, codes, limits (the plan's), num_segments, count, out;
 *   by_key: keys, in.values, count, keys_out, out (the values), d_num;
 *   fill:   ranks, num2, tmp, num_segments, out: out[s] = tmp[the rank of
 *           s] for a non-empty s, the identity for an empty one (every s
 *           when ranks is NULL); ranks as tb_seg_csr2_run writes them.
 * Every launch but the fill sizes its scratch when scratch is NULL: it sets
 * scratch_bytes and launches nothing (core/cuda.h). */
typedef struct tb_seg_call {
  tb_type type;
  tb_op op;
  tb_seg_inputs in;
  const int32_t *csr, *sources, *d_num_segments, *codes, *keys;
  int32_t *limits, *keys_out, *d_num;
  const int32_t *ranks, *num2;
  const void *tmp;
  int num_segments, count;
  int fixed;  /* rows_kernel with csr NULL: every row this many items */
  bool empty; /* support_empty, of the direct tiles or of rows_kernel */
  void *out;
  void *scratch;
  size_t scratch_bytes;
  uint64_t tag; /* rows_kernel's split rows and malformed word: the call's (tb_call_tag) */
  cudaStream_t stream;
} tb_seg_call;

typedef tb_status (*tb_seg_launch)(tb_seg_call *call);

/* The launches of one compiled (type, operator, box): a SegPolicy
 * (segreduce.cu), which owns the choice between its kernels' variants. */
typedef struct tb_seg_policy {
  tb_launch_box box;
  tb_seg_launch csr;   /* segmented reduction and SpMV over CSR */
  tb_seg_launch apply; /* a plan's apply (a box wider than a plan's: the refusal) */
  tb_seg_launch fill;  /* the fill after the CSR2 prepass, or of identities */
  /* The most tiles whose form over values is one cooperative launch on this
   * GPU; 0 where the form has none at this box. */
  int (*wave_tiles)(tb_seg_wave_form form);
} tb_seg_policy;

/* One type's launches in one kernel set (segreduce.cu): the policy of
 * (op, box) and reduce-by-key's launch, NULL where the set does not compile
 * them (reduce-by-key in one pass has boxes of its own), and the grids. */
typedef struct tb_seg_type_set {
  const tb_seg_policy *(*resolve)(tb_op op, tb_launch_box box);
  tb_seg_launch (*resolve_by_key)(tb_op op, tb_launch_box box);
  /* Whole rows a CTA, no box (tb_seg_rows_fit): the tuned set's; NULL in
   * the wide set. */
  tb_seg_launch rows;
  const tb_grid *grid, *by_key_grid;
} tb_seg_type_set;

/* type's table in the tuned kernel set, and in the wide one (linked by the
 * tests and sweeps) (kernels/segreduce_entry.cu). */
const tb_seg_type_set *tb_seg_tuned_set(tb_type type);
const tb_seg_type_set *tb_seg_wide_set(tb_type type);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif
