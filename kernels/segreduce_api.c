/* Public segmented-reduction entry points (CSR, reduce-by-key, SpMV, their
 * preprocess/apply forms, validation): argument checks, launch boxes and the
 * scratch layout around segreduce_prep.cu and the per-type segreduce.cu. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h" /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"
#include "kernels/interval_dispatch.h" /* tb_offsets_validate_run */
#include "kernels/segreduce_dispatch.h"
#include "kernels/tilebench.h"
#include "kernels/tuned.h"

/* ---- the kernel sets ---------------------------------------------------------- */

/* Each kernel set's table for a type (kernels/segreduce_entry.cu), the
 * tuned set's first; and the preprocessed forms' sets. */
#ifdef TB_WIDE_SET
static const tb_seg_type_set *(*const kSets[TB_KERNEL_SETS])(tb_type) = {tb_seg_tuned_set,
                                                                         tb_seg_wide_set};
static const tb_seg_prep_set *const kPrep[TB_KERNEL_SETS] = {&tb_seg_prep_tuned_set,
                                                             &tb_seg_prep_wide_set};
#else
static const tb_seg_type_set *(*const kSets[TB_KERNEL_SETS])(tb_type) = {tb_seg_tuned_set};
static const tb_seg_prep_set *const kPrep[TB_KERNEL_SETS] = {&tb_seg_prep_tuned_set};
#endif

static tb_grid_sets seg_grids(tb_type t) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kSets[s](t)->grid;
  return g;
}

/* Reduce-by-key in one pass has boxes of its own (its tuned ones for every
 * operator). */
static tb_grid_sets by_key_grids(tb_type t) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kSets[s](t)->by_key_grid;
  return g;
}

static tb_grid_sets prep_grids(void) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kPrep[s]->grid;
  return g;
}

/* The policy of a resolved box: the first set's that compiles it. */
static const tb_seg_policy *policy_of(tb_type t, tb_op op, tb_launch_box box) {
  const tb_seg_policy *p = NULL;
  for (int s = 0; s < TB_KERNEL_SETS && !p; ++s) p = kSets[s](t)->resolve(op, box);
  return p;
}

static tb_seg_launch by_key_of(tb_type t, tb_op op, tb_launch_box box) {
  tb_seg_launch k = NULL;
  for (int s = 0; s < TB_KERNEL_SETS && !k; ++s) k = kSets[s](t)->resolve_by_key(op, box);
  return k;
}

/* The preprocessed forms' set that runs a plan's box. */
static const tb_seg_prep_set *prep_of(tb_launch_box box) {
  return kPrep[tb_grid_set_of(prep_grids().set, TB_OP_PLUS, box)];
}

/* ---- launch boxes ------------------------------------------------------------ */

int tb_segreduce_grid(tb_type type, tb_op op, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(seg_grids(type).set, op, out, cap) : 0;
}

int tb_reduce_by_key_grid(tb_type type, tb_op op, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(by_key_grids(type).set, op, out, cap) : 0;
}

/* From the generated table (kernels/tuned/): per type, the best geometric
 * mean over every average length of segreduce among the boxes a plan takes
 * (reduce_by_key for its own), and the fastest box per average length. */
tb_launch_box tb_segreduce_default_box(tb_type type) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return tb_tuned_box(TB_TUNED_SEGREDUCE, type, 0, 0);
}
/* The mean length of a CSR geometry, 0 (not known) when it has no rows or
 * no items. */
static double mean_length(int64_t rows, int64_t items) {
  return rows > 0 && items > 0 ? (double)items / (double)rows : 0;
}
tb_launch_box tb_segreduce_default_box_for(tb_type type, int64_t num_segments, int64_t count) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return tb_tuned_box(TB_TUNED_SEGREDUCE, type, mean_length(num_segments, count), count);
}
tb_launch_box tb_spmv_default_box_for(tb_type type, int64_t num_rows, int64_t nz) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  const tb_launch_box b = tb_tuned_box(TB_TUNED_SPMV, type, mean_length(num_rows, nz), 0);
  return b.nt ? b : tb_segreduce_default_box(type);
}
tb_launch_box tb_spmv_default_box(tb_type type) { return tb_spmv_default_box_for(type, 0, 0); }

/* Up to this many items a direct call with support_empty leaves a length's
 * box whose tiles take no empty rows for the length-free one, whose tiles
 * do: the CSR2 prepass, the partition, the tiles, the fold and the fill
 * become one launch (or three), 2.2-3.3x faster a call at 2^16-2^20, and
 * 1.04-1.09x at 2^24 (H100, 4-byte values, L = 44-64, a tenth of the rows
 * empty); at 2^26 (L = 256) the wider box and its prepass were 1.22x faster. */
enum { kEmptyTilesUpTo = 1 << 24 };

/* A direct call's default box (tilebench.h). */
static tb_launch_box direct_default(tb_type type, tb_launch_box length_box, bool support_empty,
                                    int64_t count) {
  if (!support_empty || count > kEmptyTilesUpTo ||
      tb_seg_tile_marks(tb_type_size(type), length_box.nt, length_box.vt))
    return length_box;
  return tb_segreduce_default_box(type);
}

tb_launch_box tb_spmv_default_box_empty(tb_type type, int64_t num_rows, int64_t nz) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return direct_default(type, tb_spmv_default_box_for(type, num_rows, nz), true, nz);
}

tb_launch_box tb_segreduce_default_box_empty(tb_type type, int64_t num_segments, int64_t count) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return direct_default(type, tb_segreduce_default_box_for(type, num_segments, count), true,
                        count);
}
tb_launch_box tb_reduce_by_key_default_box(tb_type type) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return tb_tuned_box(TB_TUNED_REDUCE_BY_KEY, type, 0, 0);
}

/* The box of a call with op (a preprocess: plus, which every box has). */
static tb_status resolve_box(const char *fn, tb_type type, tb_op op, const tb_launch_box *box,
                             tb_launch_box def, tb_launch_box *out) {
  return tb_resolve_box(fn, seg_grids(type).set, type, op, box, def, out);
}

/* The box of a call with op and its policy, resolved once for the call. */
static tb_status resolve_policy(const char *fn, tb_type type, tb_op op, const tb_launch_box *box,
                                tb_launch_box def, const tb_seg_policy **out) {
  tb_launch_box b;
  TB_TRY(resolve_box(fn, type, op, box, def, &b));
  *out = policy_of(type, op, b);
  if (!*out)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: box %dx%d runs, but no kernel set has its policy", fn,
                   b.nt, b.vt);
  return TB_OK;
}

/* A plan's box: its thread codes hold VT end flags. */
static tb_status resolve_plan_box(const char *fn, tb_type type, const tb_launch_box *box,
                                  tb_launch_box def, tb_launch_box *out) {
  TB_TRY(resolve_box(fn, type, TB_OP_PLUS, box, def, out));
  return tb_seg_plan_box_check(fn, out->nt, out->vt);
}

int tb_segreduce_wave_tiles(tb_type type, tb_op op, tb_launch_box box, tb_seg_wave_form form) {
  const tb_seg_policy *p = tb_type_valid(type) ? policy_of(type, op, box) : NULL;
  return p ? p->wave_tiles(form) : 0;
}

/* ---- argument checks --------------------------------------------------------- */

static tb_status check_size(const char *fn, const char *what, int64_t v, int64_t lo) {
  if (v < lo || v > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s = %lld outside [%lld, 2^31)", fn, what,
                   (long long)v, (long long)lo);
  return TB_OK;
}

static tb_status check_ptr(const char *fn, const char *what, const void *p) {
  if (!p) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, what);
  return TB_OK;
}

static tb_status check_type_op(const char *fn, tb_type t, tb_op op) {
  if (!tb_type_valid(t)) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown type %d", fn, (int)t);
  tb_status st = tb_check_type_op(t, op);
  if (st != TB_OK) return tb_fail(st, "%s: %s", fn, tb_last_error());
  return TB_OK;
}

/* The CSR rules the host can see: sizes, pointers and, where d_csr is
 * host-accessible memory (pinned or managed), its first entry. */
static tb_status check_csr(const char *fn, const int32_t *d_csr, int64_t num_segments,
                           int64_t count, const char *count_name, const char *segments_name) {
  TB_TRY(check_size(fn, count_name, count, 0));
  TB_TRY(check_size(fn, segments_name, num_segments, 1));
  TB_TRY(check_ptr(fn, "d_csr", d_csr));
  struct cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, d_csr) != cudaSuccess) {
    (void)cudaGetLastError();
    return TB_OK; /* not ours to judge */
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_csr is host memory the GPU cannot read", fn);
  if ((attr.type == cudaMemoryTypeHost || attr.type == cudaMemoryTypeManaged) &&
      attr.hostPointer) {
    const int32_t first = *(const int32_t *)attr.hostPointer;
    if (first != 0)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_csr[0] = %d, the first segment starts at 0",
                     fn, first);
  }
  return TB_OK;
}

/* ---- scratch ----------------------------------------------------------------- */

/* The scratch of a reduction over CSR, in one buffer (core/cuda.h): the
 * tiles' limits (unless a plan holds them), the kernels' own part, and with
 * support_empty, unless the tiles take empty segments themselves (the
 * direct form), the compacted results and (unless planned) the CSR2
 * prepass's arrays and its look-back status. */
typedef struct reduce_layout {
  int tiles, num_segments;
  size_t elem, kernel_bytes, status_bytes;
  bool empty, indirect, planned, marks;
  int32_t *limits, *ranks, *csr2, *sources2, *num2;
  void *kernel, *tmp, *status;
} reduce_layout;

/* Whether the tiles take empty segments themselves: the direct form, where
 * its tiles hold a mark per item (tb_seg_tile_marks). */
static bool tiles_take_empty(const reduce_layout *l) {
  return l->empty && !l->indirect && !l->planned && l->marks;
}

static void lay_out(tb_scratch *s, reduce_layout *l) {
  const size_t segment_ints = sizeof(int32_t) * (size_t)l->num_segments;
  l->limits = l->planned ? NULL : tb_scratch_take(s, sizeof(int32_t) * ((size_t)l->tiles + 1));
  l->kernel = tb_scratch_take(s, l->kernel_bytes);
  const bool compacted = l->empty && !tiles_take_empty(l);
  l->tmp = compacted ? tb_scratch_take(s, l->elem * (size_t)l->num_segments) : NULL;
  const bool prepass = compacted && !l->planned;
  l->ranks =
      prepass ? tb_scratch_take(s, sizeof(int32_t) * tb_seg_rank_ints(l->num_segments)) : NULL;
  l->csr2 = prepass ? tb_scratch_take(s, segment_ints) : NULL;
  l->sources2 = prepass && l->indirect ? tb_scratch_take(s, segment_ints) : NULL;
  l->num2 = prepass ? tb_scratch_take(s, 2 * sizeof(int32_t)) : NULL; /* count, malformed */
  l->status = prepass ? tb_scratch_take(s, l->status_bytes) : NULL;
}

/* ---- the reduction over CSR (segreduce and SpMV) ------------------------------- */

/* The fill of a reduction's segments: every one the identity (ranks NULL),
 * or each non-empty one its compacted result in tmp. */
static tb_status fill(const tb_seg_policy *k, const tb_seg_call *c, const int32_t *ranks,
                      const int32_t *num2, const void *tmp, void *out) {
  tb_seg_call f = {.type = c->type,
                   .op = c->op,
                   .ranks = ranks,
                   .num2 = num2,
                   .tmp = tmp,
                   .num_segments = c->num_segments,
                   .out = out,
                   .stream = c->stream};
  return k->fill(&f);
}

/* The whole reduction over CSR at the policy's box: the call's kernels,
 * with empty segments in the tiles or through the CSR2 prepass and the
 * fill. */
static tb_status run_csr(const tb_seg_policy *k, tb_seg_call *c, bool support_empty,
                         tb_buffer *scratch) {
  reduce_layout l = {.tiles = (int)tb_tiles(c->count, k->box),
                     .num_segments = c->num_segments,
                     .elem = tb_type_size(c->type),
                     .empty = support_empty,
                     .indirect = c->sources != NULL,
                     .marks = tb_seg_tile_marks(tb_type_size(c->type), k->box.nt, k->box.vt)};
  c->scratch = NULL;
  TB_TRY(k->csr(c));
  l.kernel_bytes = c->scratch_bytes;
  if (support_empty && !tiles_take_empty(&l))
    TB_TRY(tb_seg_csr2_run(NULL, NULL, c->num_segments, c->count, NULL, NULL, NULL, NULL, NULL,
                           &l.status_bytes, c->stream));
  tb_scratch s = {0};
  lay_out(&s, &l);
  TB_TRY(tb_scratch_begin(&s, scratch));
  lay_out(&s, &l);
  c->limits = l.limits;
  c->scratch = l.kernel;

  tb_status st = TB_OK;
  if (c->count == 0) {
    st = fill(k, c, NULL, NULL, NULL, c->out);
  } else if (!support_empty || tiles_take_empty(&l)) {
    c->empty = support_empty;
    st = k->csr(c);
  } else {
    st = tb_seg_csr2_run(c->csr, c->sources, c->num_segments, c->count, l.ranks, l.csr2,
                         l.sources2, l.num2, l.status, &l.status_bytes, c->stream);
    /* The tiles reduce the non-empty segments into tmp; on a malformed CSR
     * they may leave some of it unwritten, and the fill then gives the
     * identity without reading it. */
    void *const out = c->out;
    c->csr = l.csr2, c->sources = l.sources2, c->d_num_segments = l.num2, c->out = l.tmp;
    if (st == TB_OK) st = k->csr(c);
    if (st == TB_OK) st = fill(k, c, l.ranks, l.num2, l.tmp, out);
  }
  return tb_scratch_end(&s, st, c->stream);
}

/* Whole rows a CTA, in one kernel (with support_empty it also gives every
 * row the identity where a CTA finds the offsets malformed); a
 * call that may have rows to split (tb_seg_rows_split) gets their table and
 * units in scratch. */
static tb_status run_rows(tb_seg_call *c, tb_buffer *scratch) {
  const tb_seg_launch rows = kSets[0](c->type)->rows;
  const size_t bytes = !c->csr && tb_seg_fixed_own_kernel(c->fixed)
                           ? 0
                           : tb_seg_rows_scratch_bytes(c->count, tb_type_size(c->type), c->empty);
  if (bytes == 0) return rows(c);
  tb_scratch s;
  TB_TRY(tb_scratch_begin_one(&s, scratch, bytes, &c->scratch));
  c->tag = tb_call_tag();
  return tb_scratch_end(&s, rows(c), c->stream);
}

/* A reduction over CSR: where no box is given, the form is direct and
 * tb_seg_rows_fit takes the size, whole rows a CTA (one kernel); else the
 * tiles of the call's box, or of default_of(c, support_empty) where none is
 * given (looked up only then). */
static tb_status reduce_csr(const char *fn, tb_seg_call *c, const tb_launch_box *box,
                            tb_launch_box (*default_of)(const tb_seg_call *, bool),
                            bool support_empty, tb_buffer *scratch) {
  const bool given = box && (box->nt != 0 || box->vt != 0);
  if (!given && !c->sources && tb_seg_rows_fit(c->count, c->num_segments, support_empty)) {
    c->empty = support_empty;
    return run_rows(c, scratch);
  }
  const tb_seg_policy *k;
  TB_TRY(resolve_policy(fn, c->type, c->op, box, default_of(c, support_empty), &k));
  return run_csr(k, c, support_empty, scratch);
}

/* The default boxes of a segmented reduction and of SpMV. */
static tb_launch_box segreduce_default(const tb_seg_call *c, bool support_empty) {
  if (c->sources) return tb_segreduce_default_box(c->type);
  return direct_default(c->type, tb_segreduce_default_box_for(c->type, c->num_segments, c->count),
                        support_empty, c->count);
}
static tb_launch_box spmv_default(const tb_seg_call *c, bool support_empty) {
  const tb_launch_box def = tb_spmv_default_box_for(c->type, c->num_segments, c->count);
  return c->sources ? def : direct_default(c->type, def, support_empty, c->count);
}

tb_status tb_segreduce_csr(tb_type type, tb_op op, const void *d_in, int64_t count,
                           const int32_t *d_csr, int64_t num_segments, const int32_t *d_sources,
                           bool support_empty, void *d_out, const tb_launch_box *box,
                           tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_segreduce_csr";
  TB_TRY(check_type_op(fn, type, op));
  TB_TRY(check_csr(fn, d_csr, num_segments, count, "count", "num_segments"));
  if (count > 0) TB_TRY(check_ptr(fn, "d_in", d_in));
  TB_TRY(check_ptr(fn, "d_out", d_out));
  tb_seg_call c = {.type = type,
                   .op = op,
                   .in = {TB_SEG_VALUES, d_in, NULL, NULL, 0},
                   .csr = d_csr,
                   .sources = d_sources,
                   .num_segments = (int)num_segments,
                   .count = (int)count,
                   .out = d_out,
                   .stream = stream};
  return reduce_csr(fn, &c, box, segreduce_default, support_empty, scratch);
}

/* Segments of one length: whole rows a CTA with offsets computed, in
 * pieces of whole rows of up to TB_SEG_FIXED_ROWS_MOST items; a segment
 * longer than that is the call's only one, a plain reduction. */
tb_status tb_segreduce_fixed(tb_type type, tb_op op, const void *d_in, int64_t num_segments,
                             int64_t segment_size, void *d_out, tb_buffer *scratch,
                             cudaStream_t stream) {
  static const char fn[] = "tb_segreduce_fixed";
  TB_TRY(check_type_op(fn, type, op));
  TB_TRY(check_size(fn, "num_segments", num_segments, 0));
  TB_TRY(check_size(fn, "segment_size", segment_size, 0));
  const int64_t count = num_segments * segment_size;
  if (count > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: num_segments * segment_size = %lld * %lld = %lld items, past 2^31 - 1", fn,
                   (long long)num_segments, (long long)segment_size, (long long)count);
  if (num_segments == 0) return TB_OK;
  if (count > 0) TB_TRY(check_ptr(fn, "d_in", d_in));
  TB_TRY(check_ptr(fn, "d_out", d_out));
  if (segment_size > TB_SEG_FIXED_ROWS_MOST)
    return tb_reduce(type, op, d_in, count, d_out, NULL, NULL, scratch, stream);
  const size_t elem = tb_type_size(type);
  const int64_t rows_a_piece = TB_SEG_FIXED_ROWS_MOST / (segment_size > 0 ? segment_size : 1);
  for (int64_t first = 0; first < num_segments; first += rows_a_piece) {
    const int64_t rows = num_segments - first < rows_a_piece ? num_segments - first : rows_a_piece;
    const void *in = count > 0 ? (const char *)d_in + elem * (size_t)(first * segment_size) : d_in;
    tb_seg_call c = {.type = type,
                     .op = op,
                     .in = {TB_SEG_VALUES, in, NULL, NULL, 0},
                     .fixed = (int)segment_size,
                     .num_segments = (int)rows,
                     .count = (int)(rows * segment_size),
                     .out = (char *)d_out + elem * (size_t)first,
                     .stream = stream};
    TB_TRY(run_rows(&c, scratch));
  }
  return TB_OK;
}

static tb_status check_spmv(const char *fn, tb_type type, tb_op add_op, const int32_t *d_cols,
                            int64_t nz, const int32_t *d_csr, int64_t num_rows, const void *d_x,
                            int64_t x_len, void *d_y) {
  TB_TRY(check_type_op(fn, type, add_op));
  TB_TRY(check_csr(fn, d_csr, num_rows, nz, "nz", "num_rows"));
  TB_TRY(check_size(fn, "x_len", x_len, 0));
  if (nz > 0) TB_TRY(check_ptr(fn, "d_cols", d_cols));
  if (x_len > 0) TB_TRY(check_ptr(fn, "d_x", d_x));
  return check_ptr(fn, "d_y", d_y);
}

/* SpMV over CSR, checked: the rows' reduction with x (and the matrix) as
 * its front. */
static tb_status spmv(const char *fn, tb_type type, tb_op add_op, tb_seg_inputs in, int64_t nz,
                      const int32_t *d_csr, int64_t num_rows, const int32_t *d_sources,
                      bool support_empty, void *d_y, const tb_launch_box *box, tb_buffer *scratch,
                      cudaStream_t stream) {
  tb_seg_call c = {.type = type,
                   .op = add_op,
                   .in = in,
                   .csr = d_csr,
                   .sources = d_sources,
                   .num_segments = (int)num_rows,
                   .count = (int)nz,
                   .out = d_y,
                   .stream = stream};
  return reduce_csr(fn, &c, box, spmv_default, support_empty, scratch);
}

tb_status tb_spmv_csr_unary(tb_type type, tb_op add_op, const int32_t *d_cols, int64_t nz,
                            const int32_t *d_csr, int64_t num_rows, const int32_t *d_sources,
                            const void *d_x, int64_t x_len, bool support_empty, void *d_y,
                            const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_spmv_csr_unary";
  TB_TRY(check_spmv(fn, type, add_op, d_cols, nz, d_csr, num_rows, d_x, x_len, d_y));
  return spmv(fn, type, add_op, (tb_seg_inputs){TB_SEG_SPMV_UNARY, NULL, d_cols, d_x, (int)x_len},
              nz, d_csr, num_rows, d_sources, support_empty, d_y, box, scratch, stream);
}

tb_status tb_spmv_csr_binary(tb_type type, tb_op mul_op, tb_op add_op, const void *d_matrix,
                             const int32_t *d_cols, int64_t nz, const int32_t *d_csr,
                             int64_t num_rows, const int32_t *d_sources, const void *d_x,
                             int64_t x_len, bool support_empty, void *d_y,
                             const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_spmv_csr_binary";
  if (mul_op != TB_OP_MULTIPLIES)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: mul_op %s: the kernels implement multiplies",
                   fn, tb_op_valid(mul_op) ? tb_op_name(mul_op) : "(invalid)");
  TB_TRY(check_spmv(fn, type, add_op, d_cols, nz, d_csr, num_rows, d_x, x_len, d_y));
  if (nz > 0) TB_TRY(check_ptr(fn, "d_matrix", d_matrix));
  return spmv(fn, type, add_op,
              (tb_seg_inputs){TB_SEG_SPMV_BINARY, d_matrix, d_cols, d_x, (int)x_len}, nz, d_csr,
              num_rows, d_sources, support_empty, d_y, box, scratch, stream);
}

/* ---- reduce-by-key -------------------------------------------------------------- */

static tb_status num_to_host(const int32_t *d_num, int64_t *h_num, cudaStream_t stream) {
  int32_t v = 0;
  TB_CUDA_TRY(cudaMemcpyAsync(&v, d_num, sizeof v, cudaMemcpyDeviceToHost, stream));
  TB_CUDA_TRY(cudaStreamSynchronize(stream));
  *h_num = v;
  return TB_OK;
}

tb_status tb_reduce_by_key(tb_type type, tb_op op, const int32_t *d_keys, const void *d_values,
                           int64_t count, int32_t *d_keys_out, void *d_values_out,
                           int64_t *h_num_segments, int32_t *d_num_segments,
                           const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_reduce_by_key";
  TB_TRY(check_type_op(fn, type, op));
  TB_TRY(check_size(fn, "count", count, 0));
  if (count > 0) {
    TB_TRY(check_ptr(fn, "d_keys", d_keys));
    TB_TRY(check_ptr(fn, "d_values", d_values));
    TB_TRY(check_ptr(fn, "d_values_out", d_values_out));
  }
  tb_launch_box b;
  TB_TRY(tb_resolve_box(fn, by_key_grids(type).set, type, op, box,
                        tb_reduce_by_key_default_box(type), &b));
  const tb_seg_launch by_key = by_key_of(type, op, b);
  if (!by_key)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: box %dx%d runs, but no kernel set has it", fn,
                   b.nt, b.vt);
  tb_seg_call c = {.type = type,
                   .op = op,
                   .in = {TB_SEG_VALUES, d_values, NULL, NULL, 0},
                   .keys = d_keys,
                   .keys_out = d_keys_out,
                   .count = (int)count,
                   .out = d_values_out,
                   .stream = stream};
  TB_TRY(by_key(&c));
  tb_scratch s = {0};
  void *status = tb_scratch_take(&s, c.scratch_bytes);
  int32_t *num = tb_scratch_take(&s, sizeof(int32_t));
  TB_TRY(tb_scratch_begin(&s, scratch));
  status = tb_scratch_take(&s, c.scratch_bytes);
  num = tb_scratch_take(&s, sizeof(int32_t));
  c.scratch = status;
  c.d_num = d_num_segments ? d_num_segments : num;
  tb_status st = by_key(&c);
  if (st == TB_OK && h_num_segments) st = num_to_host(c.d_num, h_num_segments, stream);
  return tb_scratch_end(&s, st, stream);
}

/* ---- preprocess + apply ------------------------------------------------------------ */

typedef enum plan_kind { PLAN_SEGREDUCE, PLAN_BY_KEY, PLAN_SPMV } plan_kind;
static const char *const kPlanName[] = {"segreduce", "reduce_by_key", "spmv"};

struct tb_seg_plan {
  plan_kind kind;
  tb_type type;
  tb_launch_box box;
  int count, num_segments, tiles; /* reduce-by-key: num_segments = its runs */
  bool support_empty;
  bool malformed; /* support_empty: the prepass found the CSR malformed (num2[1]) */
  tb_buffer mem;
  int32_t *limits, *codes, *ranks, *num2; /* ranks, num2: support_empty only */
  int32_t *csr; /* whole rows a CTA (tb_seg_plan_rows): a copy of the offsets, else NULL */
};

void tb_seg_plan_free(tb_seg_plan *plan) {
  if (!plan) return;
  tb_buffer_free(&plan->mem);
  free(plan);
}

/* Allocates the plan and its device memory, with regions of extra[i] bytes
 * at *extra_ptr[i] for what only the preprocessing needs. */
enum { kMaxExtra = 2 };
static void plan_lay_out(tb_seg_plan *p, tb_scratch *s, bool rows, const size_t *extra,
                         void **extra_ptr) {
  if (rows) { /* only the offsets */
    p->csr = tb_scratch_take(s, sizeof(int32_t) * (size_t)p->num_segments);
    return;
  }
  p->limits = tb_scratch_take(s, sizeof(int32_t) * ((size_t)p->tiles + 1));
  p->codes = tb_scratch_take(s, sizeof(int32_t) * (size_t)p->tiles * (size_t)p->box.nt);
  p->ranks = p->support_empty
                 ? tb_scratch_take(s, sizeof(int32_t) * tb_seg_rank_ints(p->num_segments))
                 : NULL;
  p->num2 =
      p->support_empty ? tb_scratch_take(s, 2 * sizeof(int32_t)) : NULL; /* count, malformed */
  for (int i = 0; i < kMaxExtra; ++i) extra_ptr[i] = tb_scratch_take(s, extra[i]);
}

static tb_status plan_new(plan_kind kind, tb_type type, tb_launch_box box, int count,
                          int num_segments, bool support_empty, bool rows, const size_t *extra,
                          void **extra_ptr, tb_seg_plan **out) {
  tb_seg_plan *p = calloc(1, sizeof *p);
  if (!p) return tb_fail(TB_ERR_OUT_OF_MEMORY, "tb_seg_plan: out of host memory");
  p->kind = kind, p->type = type, p->box = box, p->count = count;
  p->num_segments = num_segments, p->support_empty = support_empty;
  p->tiles = (int)tb_tiles(count, box);
  /* The plan owns its memory: the scratch layout over p->mem, never ended. */
  tb_scratch s = {0};
  plan_lay_out(p, &s, rows, extra, extra_ptr);
  const tb_status st = tb_scratch_begin(&s, &p->mem);
  if (st != TB_OK) {
    free(p);
    return st;
  }
  plan_lay_out(p, &s, rows, extra, extra_ptr);
  *out = p;
  return TB_OK;
}

/* Whether a plan that may take whole rows a CTA does (tb_seg_plan_rows):
 * its rows measured on the device, dealt to CTAs as the rows kernel would. */
static tb_status plan_rows(bool spmv, const int32_t *d_csr, int num_segments, int count, bool *rows,
                           cudaStream_t stream) {
  const int per_cta = tb_seg_rows_per_cta_of(count, num_segments);
  tb_buffer d_stats = {0};
  tb_seg_rows_stats stats = {0, 0};
  TB_TRY(tb_buffer_reserve(&d_stats, sizeof stats));
  tb_status st = tb_seg_rows_stats_run(d_csr, num_segments, count, per_cta, d_stats.ptr, stream);
  if (st == TB_OK)
    TB_CUDA_GOTO(
        st, done,
        cudaMemcpyAsync(&stats, d_stats.ptr, sizeof stats, cudaMemcpyDeviceToHost, stream));
  if (st == TB_OK) TB_CUDA_GOTO(st, done, cudaStreamSynchronize(stream));
done:
  tb_buffer_free(&d_stats);
  *rows = st == TB_OK && tb_seg_plan_rows(spmv, count, num_segments, stats);
  return st;
}

/* The CSR geometry's plan (segreduce and SpMV share it). */
static tb_status csr_preprocess(const char *fn, plan_kind kind, tb_type type, int64_t count,
                                const int32_t *d_csr, int64_t num_segments, bool support_empty,
                                const tb_launch_box *box, tb_seg_plan **plan,
                                cudaStream_t stream) {
  TB_TRY(check_ptr(fn, "plan", plan));
  *plan = NULL;
  if (!tb_type_valid(type))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown type %d", fn, (int)type);
  const bool spmv = kind == PLAN_SPMV;
  TB_TRY(check_csr(fn, d_csr, num_segments, count, spmv ? "nz" : "count",
                   spmv ? "num_rows" : "num_segments"));
  /* A plan takes SpMV's box of any length, which the sweep chooses on the
   * apply path: the lengths' boxes, chosen on the plain path, lost there
   * (H100: float L = 1024 0.95 -> 0.92x cuSPARSE, double L = 64 1.01 ->
   * 0.97x). */
  tb_launch_box b;
  TB_TRY(resolve_plan_box(fn, type, box,
                          spmv ? tb_spmv_default_box(type) : tb_segreduce_default_box(type), &b));
  bool rows = false;
  if (!(box && (box->nt != 0 || box->vt != 0)) &&
      tb_seg_plan_rows_may(spmv, count, num_segments, support_empty))
    TB_TRY(plan_rows(spmv, d_csr, (int)num_segments, (int)count, &rows, stream));
  if (rows) {
    tb_seg_plan *p = NULL;
    TB_TRY(plan_new(kind, type, b, (int)count, (int)num_segments, support_empty, true, NULL, NULL,
                    &p));
    tb_status st = TB_OK;
    TB_CUDA_GOTO(st, rows_fail,
                 cudaMemcpyAsync(p->csr, d_csr, sizeof(int32_t) * (size_t)num_segments,
                                 cudaMemcpyDeviceToDevice, stream));
    TB_CUDA_GOTO(st, rows_fail, cudaStreamSynchronize(stream));
    *plan = p;
    return TB_OK;
  rows_fail:
    tb_seg_plan_free(p);
    return st;
  }
  size_t status_bytes = 0;
  if (support_empty)
    TB_TRY(tb_seg_csr2_run(NULL, NULL, (int)num_segments, (int)count, NULL, NULL, NULL, NULL, NULL,
                           &status_bytes, stream));
  /* The CSR2 array and the look-back status live only while preprocessing. */
  const size_t extra[kMaxExtra] = {support_empty ? sizeof(int32_t) * (size_t)num_segments : 0,
                                   support_empty ? status_bytes : 0};
  void *extra_ptr[kMaxExtra];
  tb_seg_plan *p = NULL;
  TB_TRY(plan_new(kind, type, b, (int)count, (int)num_segments, support_empty, false, extra,
                  extra_ptr, &p));
  const int32_t *csr = d_csr;
  tb_status st = TB_OK;
  if (support_empty) {
    int32_t *csr2 = extra_ptr[0];
    st = tb_seg_csr2_run(d_csr, NULL, p->num_segments, p->count, p->ranks, csr2, NULL, p->num2,
                         extra_ptr[1], &status_bytes, stream);
    csr = csr2;
  }
  if (st == TB_OK && p->count > 0)
    st = tb_seg_partition_run(csr, p->num_segments, p->num2, p->count, b, p->limits, NULL, stream);
  if (st == TB_OK && p->count > 0)
    st = prep_of(b)->codes(b, csr, p->num_segments, p->count, p->limits, p->codes, stream);
  if (st == TB_OK) TB_CUDA_GOTO(st, fail, cudaStreamSynchronize(stream));
  if (st == TB_OK && support_empty) {
    int32_t malformed = 0;
    TB_CUDA_GOTO(st, fail, cudaMemcpy(&malformed, p->num2 + 1, sizeof malformed,
                                      cudaMemcpyDeviceToHost));
    p->malformed = malformed != 0;
  }
  if (st == TB_OK) {
    *plan = p;
    return TB_OK;
  }
fail:
  tb_seg_plan_free(p);
  return st;
}

tb_status tb_segreduce_csr_preprocess(tb_type type, int64_t count, const int32_t *d_csr,
                                      int64_t num_segments, bool support_empty,
                                      const tb_launch_box *box, tb_seg_plan **plan,
                                      cudaStream_t stream) {
  return csr_preprocess("tb_segreduce_csr_preprocess", PLAN_SEGREDUCE, type, count, d_csr,
                        num_segments, support_empty, box, plan, stream);
}

tb_status tb_spmv_preprocess(tb_type type, int64_t nz, const int32_t *d_csr, int64_t num_rows,
                             bool support_empty, const tb_launch_box *box, tb_seg_plan **plan,
                             cudaStream_t stream) {
  return csr_preprocess("tb_spmv_preprocess", PLAN_SPMV, type, nz, d_csr, num_rows,
                        support_empty, box, plan, stream);
}

tb_status tb_reduce_by_key_preprocess(tb_type type, const int32_t *d_keys, int64_t count,
                                      int32_t *d_keys_out, int64_t *h_num_segments,
                                      int32_t *d_num_segments, const tb_launch_box *box,
                                      tb_seg_plan **plan, cudaStream_t stream) {
  static const char fn[] = "tb_reduce_by_key_preprocess";
  TB_TRY(check_ptr(fn, "plan", plan));
  *plan = NULL;
  if (!tb_type_valid(type))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown type %d", fn, (int)type);
  TB_TRY(check_size(fn, "count", count, 0));
  if (count > 0) TB_TRY(check_ptr(fn, "d_keys", d_keys));
  tb_launch_box b;
  TB_TRY(resolve_plan_box(fn, type, box, tb_segreduce_default_box(type), &b));
  tb_seg_key_runs_fn *const key_runs = prep_of(b)->key_runs;
  size_t extra[kMaxExtra] = {0, 0};
  TB_TRY(key_runs(b, NULL, (int)count, NULL, NULL, NULL, NULL, NULL, &extra[0], stream));
  void *extra_ptr[kMaxExtra];
  tb_seg_plan *p = NULL;
  TB_TRY(
      plan_new(PLAN_BY_KEY, type, b, (int)count, (int)count, false, false, extra, extra_ptr, &p));
  tb_status st = key_runs(b, d_keys, p->count, p->limits, p->codes, d_keys_out, d_num_segments,
                          extra_ptr[0], &extra[0], stream);
  /* The run count bounds the apply's outputs and gives the average run
   * length, which picks its core. */
  int64_t runs = 0;
  if (st == TB_OK) st = num_to_host(p->limits + p->tiles, &runs, stream);
  if (st == TB_OK && h_num_segments) *h_num_segments = runs;
  if (st == TB_OK) p->num_segments = (int)runs;
  if (st == TB_OK) TB_CUDA_GOTO(st, fail, cudaStreamSynchronize(stream));
  if (st == TB_OK) {
    *plan = p;
    return TB_OK;
  }
fail:
  tb_seg_plan_free(p);
  return st;
}

static tb_status check_plan(const char *fn, const tb_seg_plan *plan, plan_kind kind, tb_op op) {
  TB_TRY(check_ptr(fn, "plan", plan));
  if (plan->kind != kind)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: the plan was made for %s, not %s", fn,
                   kPlanName[plan->kind], kPlanName[kind]);
  TB_TRY(check_type_op(fn, plan->type, op));
  /* A plan made at a box that op does not have in this build. */
  tb_launch_box b;
  return resolve_box(fn, plan->type, op, &plan->box, plan->box, &b);
}

static tb_status run_apply(const tb_seg_plan *p, tb_op op, const tb_seg_inputs *in, void *d_out,
                           tb_buffer *scratch, cudaStream_t stream) {
  tb_seg_call c = {.type = p->type,
                   .op = op,
                   .in = *in,
                   .num_segments = p->num_segments,
                   .count = p->count,
                   .out = d_out,
                   .stream = stream};
  if (p->csr) { /* whole rows a CTA over the plan's offsets */
    c.csr = p->csr, c.empty = p->support_empty;
    return run_rows(&c, scratch);
  }
  c.codes = p->codes, c.limits = p->limits;
  const tb_seg_policy *k = policy_of(p->type, op, p->box); /* check_plan resolved the box */
  reduce_layout l = {.tiles = p->tiles,
                     .num_segments = p->num_segments,
                     .elem = tb_type_size(p->type),
                     .empty = p->support_empty,
                     .planned = true};
  TB_TRY(k->apply(&c));
  l.kernel_bytes = c.scratch_bytes;
  tb_scratch s = {0};
  lay_out(&s, &l);
  TB_TRY(tb_scratch_begin(&s, scratch));
  lay_out(&s, &l);
  c.scratch = l.kernel;

  tb_status st = TB_OK;
  if (p->count == 0) {
    if (p->kind != PLAN_BY_KEY) st = fill(k, &c, NULL, NULL, NULL, d_out);
  } else if (!p->support_empty) {
    st = k->apply(&c);
  } else {
    /* A malformed CSR's fill gives the identity without reading the
     * compacted results, which its tiles may not all have written. */
    c.out = l.tmp;
    if (!p->malformed) st = k->apply(&c);
    if (st == TB_OK) st = fill(k, &c, p->ranks, p->num2, l.tmp, d_out);
  }
  return tb_scratch_end(&s, st, stream);
}

tb_status tb_segreduce_apply(const tb_seg_plan *plan, tb_op op, const void *d_in, void *d_out,
                             tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_segreduce_apply";
  TB_TRY(check_plan(fn, plan, PLAN_SEGREDUCE, op));
  if (plan->count > 0) TB_TRY(check_ptr(fn, "d_in", d_in));
  TB_TRY(check_ptr(fn, "d_out", d_out));
  const tb_seg_inputs in = {TB_SEG_VALUES, d_in, NULL, NULL, 0};
  return run_apply(plan, op, &in, d_out, scratch, stream);
}

tb_status tb_reduce_by_key_apply(const tb_seg_plan *plan, tb_op op, const void *d_values,
                                 void *d_values_out, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_reduce_by_key_apply";
  TB_TRY(check_plan(fn, plan, PLAN_BY_KEY, op));
  if (plan->count > 0) {
    TB_TRY(check_ptr(fn, "d_values", d_values));
    TB_TRY(check_ptr(fn, "d_values_out", d_values_out));
  }
  const tb_seg_inputs in = {TB_SEG_VALUES, d_values, NULL, NULL, 0};
  return run_apply(plan, op, &in, d_values_out, scratch, stream);
}

tb_status tb_spmv_apply(const tb_seg_plan *plan, tb_op add_op, const void *d_matrix,
                        const int32_t *d_cols, const void *d_x, int64_t x_len, void *d_y,
                        tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_spmv_apply";
  TB_TRY(check_plan(fn, plan, PLAN_SPMV, add_op));
  TB_TRY(check_size(fn, "x_len", x_len, 0));
  if (plan->count > 0) TB_TRY(check_ptr(fn, "d_cols", d_cols));
  if (x_len > 0) TB_TRY(check_ptr(fn, "d_x", d_x));
  TB_TRY(check_ptr(fn, "d_y", d_y));
  const tb_seg_inputs in = {d_matrix ? TB_SEG_SPMV_BINARY : TB_SEG_SPMV_UNARY, d_matrix, d_cols,
                            d_x, (int)x_len};
  return run_apply(plan, add_op, &in, d_y, scratch, stream);
}

/* ---- validation ------------------------------------------------------------------- */

static tb_status read_int(const int32_t *d, int64_t i, int32_t *out) {
  TB_CUDA_TRY(cudaMemcpy(out, d + i, sizeof *out, cudaMemcpyDeviceToHost));
  return TB_OK;
}

tb_status tb_segreduce_validate(const int32_t *d_csr, int64_t num_segments, int64_t count,
                                bool support_empty, const int32_t *d_cols, int64_t x_len,
                                tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_segreduce_validate";
  TB_TRY(check_csr(fn, d_csr, num_segments, count, "count", "num_segments"));
  if (d_cols) TB_TRY(check_size(fn, "x_len", x_len, 0));
  tb_scratch s;
  void *region = NULL;
  TB_TRY(tb_scratch_begin_one(&s, scratch, 2 * sizeof(uint32_t), &region));
  uint32_t *d_bad = region, bad[2] = {UINT32_MAX, UINT32_MAX};
  tb_status st = tb_offsets_validate_run(d_csr, (int)num_segments, (int)count, !support_empty,
                                         d_bad, stream);
  if (st == TB_OK && d_cols) st = tb_seg_cols_validate_run(d_cols, (int)count, (int)x_len, d_bad + 1, stream);
  if (st == TB_OK)
    TB_CUDA_GOTO(st, done, cudaMemcpyAsync(bad, d_bad, d_cols ? sizeof bad : sizeof bad[0],
                                           cudaMemcpyDeviceToHost, stream));
  if (st == TB_OK) TB_CUDA_GOTO(st, done, cudaStreamSynchronize(stream));
  if (st != TB_OK) goto done;
  if (bad[0] != UINT32_MAX) {
    const int64_t i = bad[0];
    int32_t v = 0, prev = 0;
    st = read_int(d_csr, i, &v);
    if (st == TB_OK && i > 0) st = read_int(d_csr, i - 1, &prev);
    if (st != TB_OK) goto done;
    if (i == 0 && v != 0)
      st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[0] = %d, the first segment starts at 0", fn, v);
    else if (i > 0 && (support_empty ? prev > v : prev >= v))
      st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[%lld] = %d after csr[%lld] = %d (%s)", fn,
                   (long long)i, v, (long long)(i - 1), prev,
                   support_empty ? "descending" : "an empty or descending segment");
    else
      st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[%lld] = %d, the last start, %s count = %lld",
                   fn, (long long)i, v, support_empty ? "exceeds" : "is not below",
                   (long long)count);
  } else if (d_cols && bad[1] != UINT32_MAX) {
    int32_t col = 0;
    st = read_int(d_cols, bad[1], &col);
    if (st == TB_OK)
      st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: cols[%u] = %d outside [0, x_len = %lld)", fn,
                   bad[1], col, (long long)x_len);
  }
done:
  return tb_scratch_end(&s, st, stream);
}
