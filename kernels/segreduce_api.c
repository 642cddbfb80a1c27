/* Public segmented-reduction entry points (CSR, reduce-by-key, SpMV, their
 * preprocess/apply forms, validation): argument checks, launch boxes and the
 * scratch layout around segreduce_prep.cu and the per-type segreduce.cu. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/interval_dispatch.h" /* tb_offsets_validate_run */
#include "kernels/segreduce_dispatch.h"
#include "kernels/tuned.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

/* ---- per-type kernels ------------------------------------------------------ */

/* Each run sizes its scratch when given none (core/cuda.h). */
typedef struct per_type {
  tb_status (*csr)(tb_op, tb_launch_box, const tb_seg_inputs *, const int32_t *, const int32_t *,
                   int, const int32_t *, bool, int, int32_t *, void *, size_t *, void *,
                   cudaStream_t);
  tb_status (*apply)(tb_op, tb_launch_box, const tb_seg_inputs *, const int32_t *, const int32_t *,
                     int, int, void *, size_t *, void *, cudaStream_t);
  tb_status (*by_key)(tb_op, tb_launch_box, const int32_t *, const void *, int, int32_t *, void *,
                      int32_t *, void *, size_t *, cudaStream_t);
  tb_status (*fill)(tb_op, const int32_t *, int, const int32_t *, const void *, void *,
                    cudaStream_t);
  int (*wave_tiles)(tb_op, tb_launch_box, tb_seg_wave_form);
} per_type;

/* [type][kernel set] (kernels/grid.h); the fill is box-free, in the tuned
 * set. */
#define TB_KERNELS(T, S) \
  {                                                                                     \
    tb_seg_csr_##T##S, tb_seg_apply_##T##S, tb_seg_reduce_by_key_##T##S, tb_seg_fill_##T, \
        tb_seg_wave_tiles_##T##S                                                          \
  }
#ifdef TB_WIDE_SET
#define TB_PER_TYPE(T) \
  { TB_KERNELS(T, ), TB_KERNELS(T, _wide) }
#else
#define TB_PER_TYPE(T) \
  { TB_KERNELS(T, ) }
#endif
static const per_type kKernels[TB_TYPE_COUNT][TB_KERNEL_SETS] = {
    TB_PER_TYPE(int32), TB_PER_TYPE(int64), TB_PER_TYPE(float), TB_PER_TYPE(double)};
#undef TB_PER_TYPE
#undef TB_KERNELS
static const tb_grid *const kGrids[TB_TYPE_COUNT][TB_KERNEL_SETS] = TB_SETS_PER_TYPE(tb_seg_grid_);

/* Reduce-by-key in one pass has boxes of its own (its tuned ones for every
 * operator). */
static const tb_grid *const kByKeyGrids[TB_TYPE_COUNT][TB_KERNEL_SETS] =
    TB_SETS_PER_TYPE(tb_rbk_grid_);

/* The kernels of the set that runs box for op (the box is resolved). */
static const per_type *kernels_of(tb_type t, tb_op op, tb_launch_box box) {
  return &kKernels[t][tb_grid_set_of(kGrids[t], op, box)];
}

/* The preprocessed forms are type-free, with sets of their own. */
typedef tb_status (*codes_fn)(tb_launch_box, const int32_t *, int, int, const int32_t *, int32_t *,
                              cudaStream_t);
typedef tb_status (*key_runs_fn)(tb_launch_box, const int32_t *, int, int32_t *, int32_t *,
                                 int32_t *, int32_t *, void *, size_t *, cudaStream_t);
static const tb_grid *const kPrepGrids[TB_KERNEL_SETS] = TB_SETS(tb_seg_prep_grid);
static const codes_fn kCodes[TB_KERNEL_SETS] = TB_SETS(tb_seg_csr_codes_run);
static const key_runs_fn kKeyRuns[TB_KERNEL_SETS] = TB_SETS(tb_seg_key_runs_run);

/* ---- launch boxes ------------------------------------------------------------ */

int tb_segreduce_grid(tb_type type, tb_op op, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(kGrids[type], op, out, cap) : 0;
}

int tb_reduce_by_key_grid(tb_type type, tb_op op, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(kByKeyGrids[type], op, out, cap) : 0;
}

/* From the generated table (kernels/tuned/): per type, the best geometric
 * mean over every average length of segreduce among the boxes a plan takes
 * (reduce_by_key for its own), and the fastest box per average length. */
tb_launch_box tb_segreduce_default_box(tb_type type) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return tb_tuned_box(TB_TUNED_SEGREDUCE, type, 0);
}
/* The mean length of a CSR geometry, 0 (not known) when it has no rows or
 * no items. */
static double mean_length(int64_t rows, int64_t items) {
  return rows > 0 && items > 0 ? (double)items / (double)rows : 0;
}
tb_launch_box tb_segreduce_default_box_for(tb_type type, int64_t num_segments, int64_t count) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  return tb_tuned_box(TB_TUNED_SEGREDUCE, type, mean_length(num_segments, count));
}
tb_launch_box tb_spmv_default_box_for(tb_type type, int64_t num_rows, int64_t nz) {
  if (!tb_type_valid(type)) return (tb_launch_box){0, 0};
  const tb_launch_box b = tb_tuned_box(TB_TUNED_SPMV, type, mean_length(num_rows, nz));
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
  return tb_tuned_box(TB_TUNED_REDUCE_BY_KEY, type, 0);
}

/* The box of a call with op (a preprocess: plus, which every box has). */
static tb_status resolve_box(const char *fn, tb_type type, tb_op op, const tb_launch_box *box,
                             tb_launch_box def, tb_launch_box *out) {
  return tb_resolve_box(fn, kGrids[type], type, op, box, def, out);
}

/* A plan's box: its thread codes hold VT end flags. */
static tb_status resolve_plan_box(const char *fn, tb_type type, const tb_launch_box *box,
                                  tb_launch_box def, tb_launch_box *out) {
  TB_TRY(resolve_box(fn, type, TB_OP_PLUS, box, def, out));
  return tb_seg_plan_box_check(fn, out->nt, out->vt);
}

int tb_segreduce_wave_tiles(tb_type type, tb_op op, tb_launch_box box, tb_seg_wave_form form) {
  if (!tb_type_valid(type) || tb_grid_set_of(kGrids[type], op, box) < 0) return 0;
  return kernels_of(type, op, box)->wave_tiles(op, box, form);
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

typedef struct csr_problem {
  tb_type type;
  tb_op op;
  tb_seg_inputs in;
  const int32_t *csr, *sources;
  int num_segments, count;
  bool support_empty;
  void *out;
} csr_problem;

static tb_status run_csr(const csr_problem *p, tb_launch_box box, tb_buffer *scratch,
                         cudaStream_t stream) {
  const per_type *k = kernels_of(p->type, p->op, box);
  reduce_layout l = {.tiles = (int)tb_tiles(p->count, box),
                     .num_segments = p->num_segments,
                     .elem = tb_type_size(p->type),
                     .empty = p->support_empty,
                     .indirect = p->sources != NULL,
                     .marks = tb_seg_tile_marks(tb_type_size(p->type), box.nt, box.vt)};
  TB_TRY(k->csr(p->op, box, &p->in, NULL, NULL, p->num_segments, NULL, false, p->count, NULL, NULL,
                &l.kernel_bytes, NULL, stream));
  if (p->support_empty && !tiles_take_empty(&l))
    TB_TRY(tb_seg_csr2_run(NULL, NULL, p->num_segments, p->count, NULL, NULL, NULL, NULL, NULL,
                           &l.status_bytes, stream));
  tb_scratch s = {0};
  lay_out(&s, &l);
  TB_TRY(tb_scratch_begin(&s, scratch));
  lay_out(&s, &l);

  tb_status st = TB_OK;
  if (p->count == 0) {
    st = k->fill(p->op, NULL, p->num_segments, NULL, NULL, p->out, stream);
  } else if (!p->support_empty || tiles_take_empty(&l)) {
    st = k->csr(p->op, box, &p->in, p->csr, p->sources, p->num_segments, NULL, p->support_empty,
                p->count, l.limits, l.kernel, &l.kernel_bytes, p->out, stream);
  } else {
    st = tb_seg_csr2_run(p->csr, p->sources, p->num_segments, p->count, l.ranks, l.csr2, l.sources2,
                         l.num2, l.status, &l.status_bytes, stream);
    /* On a malformed CSR the tiles may leave compacted results unwritten;
     * the fill then gives the identity without reading them. */
    if (st == TB_OK)
      st = k->csr(p->op, box, &p->in, l.csr2, l.sources2, p->num_segments, l.num2, false, p->count,
                  l.limits, l.kernel, &l.kernel_bytes, l.tmp, stream);
    if (st == TB_OK) st = k->fill(p->op, l.ranks, p->num_segments, l.num2, l.tmp, p->out, stream);
  }
  return tb_scratch_end(&s, st, stream);
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
  tb_launch_box b;
  const tb_launch_box def =
      d_sources ? tb_segreduce_default_box(type)
                : direct_default(type, tb_segreduce_default_box_for(type, num_segments, count),
                                 support_empty, count);
  TB_TRY(resolve_box(fn, type, op, box, def, &b));
  const csr_problem p = {type, op, {TB_SEG_VALUES, d_in, NULL, NULL, 0}, d_csr, d_sources,
                         (int)num_segments, (int)count, support_empty, d_out};
  return run_csr(&p, b, scratch, stream);
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

tb_status tb_spmv_csr_unary(tb_type type, tb_op add_op, const int32_t *d_cols, int64_t nz,
                            const int32_t *d_csr, int64_t num_rows, const int32_t *d_sources,
                            const void *d_x, int64_t x_len, bool support_empty, void *d_y,
                            const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_spmv_csr_unary";
  TB_TRY(check_spmv(fn, type, add_op, d_cols, nz, d_csr, num_rows, d_x, x_len, d_y));
  tb_launch_box b;
  const tb_launch_box def = tb_spmv_default_box_for(type, num_rows, nz);
  TB_TRY(resolve_box(fn, type, add_op, box,
                     d_sources ? def : direct_default(type, def, support_empty, nz), &b));
  const csr_problem p = {type,    add_op,    {TB_SEG_SPMV_UNARY, NULL, d_cols, d_x, (int)x_len},
                         d_csr,   d_sources, (int)num_rows,
                         (int)nz, support_empty, d_y};
  return run_csr(&p, b, scratch, stream);
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
  tb_launch_box b;
  const tb_launch_box def = tb_spmv_default_box_for(type, num_rows, nz);
  TB_TRY(resolve_box(fn, type, add_op, box,
                     d_sources ? def : direct_default(type, def, support_empty, nz), &b));
  const csr_problem p = {type,    add_op,   {TB_SEG_SPMV_BINARY, d_matrix, d_cols, d_x, (int)x_len},
                         d_csr,   d_sources, (int)num_rows,
                         (int)nz, support_empty, d_y};
  return run_csr(&p, b, scratch, stream);
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
  TB_TRY(
      tb_resolve_box(fn, kByKeyGrids[type], type, op, box, tb_reduce_by_key_default_box(type), &b));
  const per_type *k = &kKernels[type][tb_grid_set_of(kByKeyGrids[type], op, b)];
  size_t bytes = 0;
  TB_TRY(k->by_key(op, b, NULL, NULL, (int)count, NULL, NULL, NULL, NULL, &bytes, stream));
  tb_scratch s = {0};
  void *status = tb_scratch_take(&s, bytes);
  int32_t *num = tb_scratch_take(&s, sizeof(int32_t));
  TB_TRY(tb_scratch_begin(&s, scratch));
  status = tb_scratch_take(&s, bytes);
  num = tb_scratch_take(&s, sizeof(int32_t));
  int32_t *d_num = d_num_segments ? d_num_segments : num;
  tb_status st = k->by_key(op, b, d_keys, d_values, (int)count, d_keys_out, d_values_out, d_num,
                           status, &bytes, stream);
  if (st == TB_OK && h_num_segments) st = num_to_host(d_num, h_num_segments, stream);
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
};

void tb_seg_plan_free(tb_seg_plan *plan) {
  if (!plan) return;
  tb_buffer_free(&plan->mem);
  free(plan);
}

/* Allocates the plan and its device memory, with regions of extra[i] bytes
 * at *extra_ptr[i] for what only the preprocessing needs. */
enum { kMaxExtra = 2 };
static void plan_lay_out(tb_seg_plan *p, tb_scratch *s, const size_t *extra, void **extra_ptr) {
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
                          int num_segments, bool support_empty, const size_t *extra,
                          void **extra_ptr, tb_seg_plan **out) {
  tb_seg_plan *p = calloc(1, sizeof *p);
  if (!p) return tb_fail(TB_ERR_OUT_OF_MEMORY, "tb_seg_plan: out of host memory");
  p->kind = kind, p->type = type, p->box = box, p->count = count;
  p->num_segments = num_segments, p->support_empty = support_empty;
  p->tiles = (int)tb_tiles(count, box);
  /* The plan owns its memory: the scratch layout over p->mem, never ended. */
  tb_scratch s = {0};
  plan_lay_out(p, &s, extra, extra_ptr);
  const tb_status st = tb_scratch_begin(&s, &p->mem);
  if (st != TB_OK) {
    free(p);
    return st;
  }
  plan_lay_out(p, &s, extra, extra_ptr);
  *out = p;
  return TB_OK;
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
  size_t status_bytes = 0;
  if (support_empty)
    TB_TRY(tb_seg_csr2_run(NULL, NULL, (int)num_segments, (int)count, NULL, NULL, NULL, NULL, NULL,
                           &status_bytes, stream));
  /* The CSR2 array and the look-back status live only while preprocessing. */
  const size_t extra[kMaxExtra] = {support_empty ? sizeof(int32_t) * (size_t)num_segments : 0,
                                   support_empty ? status_bytes : 0};
  void *extra_ptr[kMaxExtra];
  tb_seg_plan *p = NULL;
  TB_TRY(
      plan_new(kind, type, b, (int)count, (int)num_segments, support_empty, extra, extra_ptr, &p));
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
    st = kCodes[tb_grid_set_of(kPrepGrids, TB_OP_PLUS, b)](b, csr, p->num_segments, p->count,
                                                           p->limits, p->codes, stream);
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
  const key_runs_fn key_runs = kKeyRuns[tb_grid_set_of(kPrepGrids, TB_OP_PLUS, b)];
  size_t extra[kMaxExtra] = {0, 0};
  TB_TRY(key_runs(b, NULL, (int)count, NULL, NULL, NULL, NULL, NULL, &extra[0], stream));
  void *extra_ptr[kMaxExtra];
  tb_seg_plan *p = NULL;
  TB_TRY(plan_new(PLAN_BY_KEY, type, b, (int)count, (int)count, false, extra, extra_ptr, &p));
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
  const per_type *k = kernels_of(p->type, op, p->box);
  reduce_layout l = {.tiles = p->tiles,
                     .num_segments = p->num_segments,
                     .elem = tb_type_size(p->type),
                     .empty = p->support_empty,
                     .planned = true};
  TB_TRY(k->apply(op, p->box, in, NULL, NULL, p->num_segments, p->count, NULL, &l.kernel_bytes,
                  NULL, stream));
  tb_scratch s = {0};
  lay_out(&s, &l);
  TB_TRY(tb_scratch_begin(&s, scratch));
  lay_out(&s, &l);

  tb_status st = TB_OK;
  if (p->count == 0) {
    if (p->kind != PLAN_BY_KEY) st = k->fill(op, NULL, p->num_segments, NULL, NULL, d_out, stream);
  } else if (!p->support_empty) {
    st = k->apply(op, p->box, in, p->codes, p->limits, p->num_segments, p->count, l.kernel,
                  &l.kernel_bytes, d_out, stream);
  } else {
    /* A malformed CSR's fill gives the identity without reading the
     * compacted results, which its tiles may not all have written. */
    if (!p->malformed)
      st = k->apply(op, p->box, in, p->codes, p->limits, p->num_segments, p->count, l.kernel,
                    &l.kernel_bytes, l.tmp, stream);
    if (st == TB_OK) st = k->fill(op, p->ranks, p->num_segments, p->num2, l.tmp, d_out, stream);
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
