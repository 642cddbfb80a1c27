#include "suites/segreduce_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/validate.h"
#include "kernels/segreduce_dispatch.h" /* the rows path's policy */

/* ---- small helpers ------------------------------------------------------------ */

static tb_status cuda_status(cudaError_t e, const char *what) {
  return e == cudaSuccess ? TB_OK : tb_fail(TB_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

bool seg_poison(void *d, size_t bytes) {
  return bytes == 0 || TB_ASSERT_OK(cuda_status(cudaMemset(d, kPoison, bytes), "poison"), "poison");
}

int32_t *seg_alloc_i32(int64_t n) { return malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1)); }

bool seg_op_fits(tb_type t, int op) { return tb_test_fits(t, (tb_op)op); }

bool seg_op_swept(tb_type t, int op) {
  if (tb_test.sanitizer) return op == TB_OP_PLUS;
  return seg_op_fits(t, op) &&
         (!tb_test.quick || op == TB_OP_PLUS || op == TB_OP_MAX || op == TB_OP_BIT_AND);
}

bool seg_mode_swept(bool strict, int se, int form) {
  if (!strict) return se;
  return !tb_test.quick || se == form;
}

int seg_grid_of(tb_type t, tb_launch_box *out) {
  const int n = tb_segreduce_grid(t, TB_OP_PLUS, out, kMaxBoxes);
  CU_ASSERT(n > 0 && n <= kMaxBoxes);
  return n < 0 ? 0 : n > kMaxBoxes ? kMaxBoxes : n;
}

static bool in_grid(const tb_launch_box *grid, int n, tb_launch_box b) {
  for (int i = 0; i < n; ++i)
    if (grid[i].nt == b.nt && grid[i].vt == b.vt) return true;
  return false;
}

bool seg_in_op_grid(int (*grid)(tb_type, tb_op, tb_launch_box *, int), tb_type t, int op,
                    const tb_launch_box *box) {
  if (!box) return true;
  tb_launch_box g[kMaxBoxes];
  const int n = grid(t, (tb_op)op, g, kMaxBoxes);
  return in_grid(g, n < kMaxBoxes ? n : kMaxBoxes, *box);
}

bool seg_op_at_box(tb_type t, int op, const tb_launch_box *box) {
  return seg_in_op_grid(tb_segreduce_grid, t, op, box);
}

bool seg_op_swept_at(tb_type t, int op, const tb_launch_box *box) {
  return seg_op_swept(t, op) && seg_op_at_box(t, op, box);
}

bool seg_box_selected(int i, int n) { return !tb_test.quick || i == 0 || i == n / 2 || i == n - 1; }

/* The box a call runs with: box, or the tuned default for NULL / {0, 0}
 * (SpMV's when spmv). */
static tb_launch_box effective_box(tb_type t, const tb_launch_box *box, bool spmv) {
  if (box && (box->nt || box->vt)) return *box;
  return spmv ? tb_spmv_default_box(t) : tb_segreduce_default_box(t);
}

void seg_edge_boxes(tb_type t, tb_launch_box grid[kMaxBoxes], const tb_launch_box *boxes[3]) {
  int n = seg_grid_of(t, grid);
  while (n > 1 && grid[n - 1].vt > TB_SEG_PLAN_MAX_VT) --n; /* the plans' last */
  boxes[0] = NULL;
  boxes[1] = n > 0 ? &grid[0] : NULL;
  boxes[2] = n > 0 ? &grid[n - 1] : NULL;
}

static int64_t tile_items(tb_launch_box b) {
  return b.nt > 0 && b.vt > 0 ? (int64_t)b.nt * b.vt : 1024;
}
int64_t seg_tile_of(tb_type t, const tb_launch_box *box) {
  return tile_items(effective_box(t, box, false));
}
int64_t seg_spmv_tile_of(tb_type t, const tb_launch_box *box) {
  return tile_items(effective_box(t, box, true));
}

static void box_text(char *out, size_t cap, const tb_launch_box *box) {
  if (box)
    snprintf(out, cap, "%dx%d", box->nt, box->vt);
  else
    snprintf(out, cap, "default");
}

void seg_describe(char *out, size_t cap, const char *fn, tb_type t, tb_op op, const char *form,
                  const tb_launch_box *box, const char *geometry) {
  char b[32];
  box_text(b, sizeof b, box);
  snprintf(out, cap, "%s %s %s %s box=%s %s (seed %llu)", fn, tb_type_name(t), tb_op_name(op), form,
           b, geometry, (unsigned long long)tb_test.seed);
}

/* ---- segment geometries --------------------------------------------------------- */

void seg_geom_free(seg_geom *g) {
  free(g->lens), free(g->csr), free(g->sources);
  tb_buffer_free(&g->d_csr), tb_buffer_free(&g->d_sources);
  memset(g, 0, sizeof *g);
}

bool seg_geom_from_lens(seg_geom *g, int32_t *lens, int64_t n, bool overlap, tb_rng *r,
                        const char *label) {
  memset(g, 0, sizeof *g);
  g->lens = lens;
  g->num_segments = (int32_t)n;
  g->csr = seg_alloc_i32(n);
  g->sources = seg_alloc_i32(n);
  int32_t *order = seg_alloc_i32(n);
  if (!lens || !g->csr || !g->sources || !order) {
    free(order);
    CU_FAIL("host allocation");
    return false;
  }
  int64_t acc = 0;
  for (int64_t s = 0; s < n; ++s) g->csr[s] = (int32_t)acc, acc += lens[s];
  CU_ASSERT_FATAL(acc <= INT32_MAX);
  g->count = (int32_t)acc;
  if (overlap) {
    for (int64_t s = 0; s < n; ++s) g->sources[s] = (int32_t)tb_rng_range(r, 0, g->count - lens[s]);
  } else {
    for (int64_t s = 0; s < n; ++s) order[s] = (int32_t)s;
    for (int64_t s = n - 1; s > 0; --s) {
      const int64_t k = tb_rng_range(r, 0, s);
      const int32_t x = order[s];
      order[s] = order[k], order[k] = x;
    }
    int32_t at = 0;
    for (int64_t s = 0; s < n; ++s) g->sources[order[s]] = at, at += lens[order[s]];
  }
  free(order);
  snprintf(g->name, sizeof g->name, "%s: %d segments over %d items, %s sources", label,
           (int)g->num_segments, (int)g->count, overlap ? "overlapping" : "permuted");
  const size_t bytes = sizeof(int32_t) * (size_t)n;
  return tb_test_upload(&g->d_csr, g->csr, bytes) &&
         tb_test_upload(&g->d_sources, g->sources, bytes);
}

seg_case seg_spec_case(tb_geometry kind, double avg, bool strict, int64_t total) {
  seg_case c = {SEG_SHAPE_SPEC, tb_geometry_spec_default(kind, avg), strict, total};
  return c;
}

seg_case seg_runs_case(const seg_run *runs, int n_runs) {
  seg_case c = {.shape = SEG_SHAPE_RUNS, .strict = true, .runs = runs, .n_runs = n_runs};
  for (int k = 0; k < n_runs; ++k) {
    c.total += runs[k].rows * runs[k].len;
    c.strict = c.strict && runs[k].len > 0;
  }
  return c;
}

int seg_cases(int64_t T, tb_rng *r, seg_case *out) {
  const int64_t n = (4 * T + 13 > 3001 ? 4 * T + 13 : 3001) + tb_rng_range(r, 0, 63);
  int k = 0;
  out[k++] = seg_spec_case(TB_GEOM_FIXED, 7.0, true, n);
  out[k++] = seg_spec_case(TB_GEOM_UNIFORM, 16.0, true, n);
  out[k++] = seg_spec_case(TB_GEOM_ALL_ONE, 1.0, true, 4 * T); /* a segment per item */
  out[k++] = seg_spec_case(TB_GEOM_ONE_GIANT, 6.0, true, n);
  out[k++] = seg_spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n); /* crossing every boundary */
  out[k++] = seg_spec_case(TB_GEOM_FIXED, (double)(T - 1), true, n);
  out[k++] = (seg_case){SEG_SHAPE_ONE_SEGMENT, {0}, true, n};
  out[k++] = (seg_case){SEG_SHAPE_LONG_MIDDLE, {0}, true, n}; /* tiles without a segment end */
  out[k++] = seg_spec_case(TB_GEOM_EMPTY_FRACTION, 3.0, false, n);
  out[k] = seg_spec_case(TB_GEOM_ZERO_RUNS, 2.0, false, n);
  out[k++].spec.run_length = (double)(T / 2 + 1);
  out[k++] = seg_spec_case(TB_GEOM_POWER_LAW, 8.0, false, n);
  out[k++] = seg_spec_case(TB_GEOM_ZEROS_BUT_ONE, 1.0, false, n);
  return k;
}

void seg_plan_cases(int64_t T, seg_case out[4]) {
  const int64_t n = 3 * T + 29;
  out[0] = seg_spec_case(TB_GEOM_UNIFORM, 9.0, true, n);
  out[1] = seg_spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n);
  out[2] = seg_spec_case(TB_GEOM_POWER_LAW, 8.0, false, n);
  out[3] = seg_spec_case(TB_GEOM_ZEROS_BUT_ONE, 1.0, false, n);
}

bool seg_geom_make(seg_geom *g, const seg_case *c, bool overlap, tb_rng *r) {
  memset(g, 0, sizeof *g);
  char label[96];
  int32_t *lens = NULL;
  int64_t n = 0;
  if (c->shape == SEG_SHAPE_ONE_SEGMENT) {
    n = 1, lens = seg_alloc_i32(1);
    if (lens) lens[0] = (int32_t)c->total;
    snprintf(label, sizeof label, "one segment");
  } else if (c->shape == SEG_SHAPE_LONG_MIDDLE) {
    n = 4, lens = seg_alloc_i32(4);
    if (lens) lens[0] = 1, lens[1] = (int32_t)c->total - 3, lens[2] = 1, lens[3] = 1;
    snprintf(label, sizeof label, "one segment over many tiles");
  } else if (c->shape == SEG_SHAPE_RUNS) {
    for (int k = 0; k < c->n_runs; ++k) n += c->runs[k].rows;
    lens = seg_alloc_i32(n);
    int64_t s = 0;
    for (int k = 0; lens && k < c->n_runs; ++k)
      for (int64_t i = 0; i < c->runs[k].rows; ++i) lens[s++] = c->runs[k].len;
    int at = snprintf(label, sizeof label, "runs");
    for (int k = 0; k < c->n_runs && at < (int)sizeof label; ++k)
      at += snprintf(label + at, sizeof label - (size_t)at, " %lldx%d", (long long)c->runs[k].rows,
                     c->runs[k].len);
  } else {
    const int pad = c->strict ? 0 : 2;
    const int64_t num = tb_geometry_num_objects(&c->spec, c->total);
    CU_ASSERT_FATAL(num >= 0);
    n = num + 2 * pad;
    lens = calloc((size_t)(n > 0 ? n : 1), sizeof(int32_t));
    if (lens && !TB_ASSERT_OK(tb_geometry_counts(&c->spec, c->total, lens + pad, num, r),
                              tb_geometry_name(c->spec.kind))) {
      free(lens);
      return false;
    }
    if (lens && c->strict)
      for (int64_t s = 0; s < n; ++s) lens[s] = lens[s] > 0 ? lens[s] : 1;
    snprintf(label, sizeof label, "%s avg=%g%s", tb_geometry_name(c->spec.kind), c->spec.avg,
             c->strict ? "" : " +empty ends");
  }
  return seg_geom_from_lens(g, lens, n, overlap, r, label);
}

/* ---- values and outputs ------------------------------------------------------------ */

void seg_values_free(seg_values *v) {
  free(v->host);
  tb_buffer_free(&v->dev);
  memset(v, 0, sizeof *v);
}

bool seg_values_make_as(seg_values *v, tb_type t, tb_op op, int64_t n, int64_t as_n, tb_rng *r) {
  memset(v, 0, sizeof *v);
  v->t = t, v->op = op, v->n = n;
  if (as_n < n) as_n = n;
  v->host = malloc((size_t)(as_n > 0 ? as_n : 1) * tb_type_size(t));
  if (!v->host) {
    CU_FAIL("host allocation");
    return false;
  }
  tb_fill_random(r, t, op, v->host, as_n);
  return tb_test_upload(&v->dev, v->host, (size_t)n * tb_type_size(t));
}

bool seg_values_make(seg_values *v, tb_type t, tb_op op, int64_t n, tb_rng *r) {
  return seg_values_make_as(v, t, op, n, n, r);
}

bool seg_values_make_real(seg_values *v, tb_type t, int64_t n, tb_rng *r) {
  memset(v, 0, sizeof *v);
  v->t = t, v->op = TB_OP_PLUS, v->n = n;
  v->host = malloc((size_t)(n > 0 ? n : 1) * tb_type_size(t));
  if (!v->host) return false;
  for (int64_t i = 0; i < n; ++i) {
    tb_value x;
    if (t == TB_FLOAT)
      x.f32 = (float)(2 * tb_rng_unit(r) - 1);
    else
      x.f64 = 2 * tb_rng_unit(r) - 1;
    tb_store(t, v->host, i, x);
  }
  return tb_test_upload(&v->dev, v->host, (size_t)n * tb_type_size(t));
}

void seg_outputs_free(seg_outputs *o) {
  free(o->got), free(o->want), free(o->got_keys), free(o->want_keys);
  tb_buffer_free(&o->dev), tb_buffer_free(&o->dev_keys), tb_buffer_free(&o->dev_num);
  memset(o, 0, sizeof *o);
}

bool seg_outputs_reserve(seg_outputs *o, int64_t n) {
  if (n < 1) n = 1;
  if (o->got && n <= o->cap) return true;
  seg_outputs_free(o);
  o->cap = n;
  o->got = malloc(8 * (size_t)n), o->want = malloc(8 * (size_t)n);
  o->got_keys = seg_alloc_i32(n), o->want_keys = seg_alloc_i32(n);
  if (!o->got || !o->want || !o->got_keys || !o->want_keys) {
    CU_FAIL("host allocation");
    return false;
  }
  return TB_ASSERT_OK(tb_buffer_alloc(&o->dev, 8 * (size_t)n), "alloc out") &&
         TB_ASSERT_OK(tb_buffer_alloc(&o->dev_keys, 4 * (size_t)n), "alloc keys out") &&
         TB_ASSERT_OK(tb_buffer_alloc(&o->dev_num, 8), "alloc count");
}

bool seg_fetch(const tb_buffer *b, void *host, size_t bytes, const char *what) {
  return bytes == 0 || TB_ASSERT_OK(tb_buffer_download(b, host, bytes), what);
}

bool seg_compare(tb_type t, const void *got, const void *want, const double *bound, int64_t n,
                 const char *what) {
  return TB_ASSERT_OK(tb_compare(t, got, want, bound, n, what), what);
}

bool seg_all_identity(tb_type t, tb_op op, const void *got, int64_t n, const char *what) {
  const tb_value id = tb_identity(t, op);
  for (int64_t i = 0; i < n; ++i) {
    const tb_value x = tb_load(t, got, i);
    if (memcmp(&x, &id, tb_type_size(t)) != 0)
      return TB_ASSERT_OK(
          tb_fail(TB_ERR_MISMATCH, "%s: result %lld is %g, not the identity %g", what, (long long)i,
                  tb_test_as_double(t, x), tb_test_as_double(t, id)),
          what);
  }
  CU_PASS(what);
  return true;
}

/* ---- real-valued data: the rounding bound -------------------------------------------- */

static int ceil_log2(int64_t x) {
  int k = 0;
  while (((int64_t)1 << k) < x) ++k;
  return k;
}

/* Rounding depth of one segment's result on a box: a thread folds at most VT
 * items before the CTA scan and at most VT more after it (the walk to the
 * segment's end), the CTA's scan adds at most 2 log2(NT) levels, the carry
 * one rounding per tile the segment crosses, and a look-back 5 levels (a
 * warp's reduction of 32 tiles) per 32 tiles; 8 more for the final folds of
 * carry-in and partial. */
static int64_t rounding_depth(tb_launch_box b, int64_t count) {
  if (b.nt <= 0 || b.vt <= 0) return count + 1; /* no box: any order of count terms */
  const int64_t tile = (int64_t)b.nt * b.vt, tiles = (count + tile - 1) / tile;
  return 2 * b.vt + 2 * ceil_log2(b.nt) + tiles + 5 * (tiles / 32 + 1) + 8;
}

int64_t seg_rounding_depth(tb_type t, const tb_launch_box *box, int64_t count) {
  if (box) return rounding_depth(*box, count);
  tb_launch_box grid[kMaxBoxes];
  const int n = seg_grid_of(t, grid);
  int64_t worst = rounding_depth(tb_segreduce_default_box(t), count);
  for (int i = 0; i < n; ++i) {
    const int64_t d = rounding_depth(grid[i], count);
    worst = d > worst ? d : worst;
  }
  return worst;
}

void seg_check_real_bound(tb_type t, const double *sum_abs, int64_t depth, int64_t n,
                          const void *got, const void *want, const char *what) {
  double *bound = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!bound) return;
  for (int64_t s = 0; s < n; ++s) bound[s] = tb_sum_error_bound(t, depth, sum_abs[s]);
  seg_compare(t, got, want, bound, n, what);
  free(bound);
}

/* ---- plans over no items -------------------------------------------------------------- */

bool seg_no_items_geom(seg_geom *g, int32_t num_segments, tb_rng *r) {
  int32_t *lens = calloc((size_t)num_segments, sizeof(int32_t));
  return seg_geom_from_lens(g, lens, num_segments, false, r, "no items");
}

bool seg_plans_over_no_items(tb_type t, const seg_geom *g, tb_seg_plan **seg, tb_seg_plan **sp,
                             tb_seg_plan **rbk, int64_t *h_runs) {
  char what[400];
  seg_describe(what, sizeof what, "plans over no items", t, TB_OP_PLUS, "", NULL, g->name);
  return TB_ASSERT_OK(
             tb_segreduce_csr_preprocess(t, 0, g->d_csr.ptr, g->num_segments, true, NULL, seg, 0),
             what) &&
         TB_ASSERT_OK(tb_spmv_preprocess(t, 0, g->d_csr.ptr, g->num_segments, true, NULL, sp, 0),
                      what) &&
         TB_ASSERT_OK(
             tb_reduce_by_key_preprocess(t, g->d_csr.ptr, 0, NULL, h_runs, NULL, NULL, rbk, 0),
             what);
}

/* ---- bad input -------------------------------------------------------------------------- */

const char kRange0[] = "outside [0, 2^31)", kRange1[] = "outside [1, 2^31)";
const char kNotInGrid[] = "is not in the segreduce grid";
const char kCsr0[] = "d_csr[0] = 5, the first segment starts at 0";

static bool bad_input_begin(seg_bad_input *f) {
  enum { S = kBadSegments, C = kBadCount };
  memset(f, 0, sizeof *f);
  int32_t csr_host[S];
  for (int i = 0; i < S; ++i) csr_host[i] = 3 * i;
  int64_t h_runs = 0;
  const bool ready =
      tb_test_upload(&f->csr, csr_host, sizeof csr_host) &&
      TB_ASSERT_OK(tb_buffer_alloc(&f->zeros, 4096), "alloc") &&
      TB_ASSERT_OK(tb_buffer_alloc(&f->out, 4096), "alloc") &&
      TB_ASSERT_OK(cuda_status(cudaMemset(f->zeros.ptr, 0, 4096), "memset"), "memset") &&
      TB_ASSERT_OK(cuda_status(cudaMemset(f->out.ptr, kPoison, 4096), "memset"), "memset") &&
      TB_ASSERT_OK(
          cuda_status(cudaMallocManaged((void **)&f->managed, sizeof csr_host, cudaMemAttachGlobal),
                      "cudaMallocManaged"),
          "managed") &&
      TB_ASSERT_OK(
          cuda_status(cudaMallocHost((void **)&f->pinned, sizeof csr_host), "cudaMallocHost"),
          "pinned") &&
      TB_ASSERT_OK(cuda_status(cudaDeviceSynchronize(), "sync"), "sync") &&
      /* Valid plans of each kind (float), for the apply checks. */
      TB_ASSERT_OK(tb_segreduce_csr_preprocess(TB_FLOAT, C, f->csr.ptr, S, false, NULL, &f->seg, 0),
                   "segreduce plan") &&
      TB_ASSERT_OK(tb_spmv_preprocess(TB_FLOAT, C, f->csr.ptr, S, false, NULL, &f->sp, 0),
                   "spmv plan") &&
      TB_ASSERT_OK(tb_reduce_by_key_preprocess(TB_FLOAT, f->zeros.ptr, C, NULL, &h_runs, NULL, NULL,
                                               &f->rbk, 0),
                   "reduce_by_key plan");
  if (!ready) return false;
  memcpy(f->managed, csr_host, sizeof csr_host);
  memcpy(f->pinned, csr_host, sizeof csr_host);
  f->managed[0] = 5, f->pinned[0] = 5;
  f->free_before = tb_test_free_device_bytes();
  return true;
}

static void bad_input_check_clean(const seg_bad_input *f) {
  const size_t free_after = tb_test_free_device_bytes();
  if (free_after != f->free_before)
    printf("\n  bad input: free device memory %zu before, %zu after\n", f->free_before, free_after);
  CU_ASSERT_EQUAL(free_after, f->free_before);
  unsigned char got[4096], want[4096];
  memset(want, kPoison, sizeof want);
  if (seg_fetch(&f->out, got, sizeof got, "download"))
    CU_ASSERT(memcmp(got, want, sizeof got) == 0);
}

static void bad_input_end(seg_bad_input *f) {
  tb_seg_plan_free(f->seg), tb_seg_plan_free(f->sp), tb_seg_plan_free(f->rbk);
  if (f->managed) cudaFree(f->managed);
  if (f->pinned) cudaFreeHost(f->pinned);
  tb_buffer_free(&f->csr), tb_buffer_free(&f->zeros), tb_buffer_free(&f->out);
  memset(f, 0, sizeof *f);
}

void seg_with_bad_input(void (*body)(seg_bad_input *f)) {
  seg_bad_input f;
  if (bad_input_begin(&f)) {
    body(&f);
    bad_input_check_clean(&f);
  }
  bad_input_end(&f);
}

int seg_boxes_off_grid(tb_type t, tb_launch_box *out, int cap) {
  static const tb_launch_box candidates[] = {{100, 3},  {64, 2}, {1024, 1},
                                             {256, 64}, {32, 1}, {512, 16}};
  tb_launch_box grid[kMaxBoxes];
  const int n_grid = seg_grid_of(t, grid);
  int n = 0;
  for (int i = 0; i < TB_COUNT(candidates) && n < cap; ++i)
    if (!in_grid(grid, n_grid, candidates[i])) out[n++] = candidates[i];
  return n;
}

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

void *seg_guarded_mid(const seg_guarded *g) { return (char *)g->b.ptr + kGuard * g->size; }

bool seg_guarded_make(seg_guarded *g, size_t size, int64_t n) {
  g->size = size, g->n = n;
  const size_t bytes = size * (size_t)(n + 2 * kGuard);
  return TB_ASSERT_OK(tb_buffer_alloc(&g->b, bytes), "alloc") &&
         TB_ASSERT_OK(cuda_status(cudaMemset(g->b.ptr, kCanary, bytes), "canary"), "canary");
}

static bool guards_intact(const seg_guarded *g, const char *what) {
  const size_t guard = kGuard * g->size, bytes = g->size * (size_t)(g->n + 2 * kGuard);
  unsigned char *host = malloc(bytes);
  bool ok = host && seg_fetch(&g->b, host, bytes, what);
  for (size_t i = 0; ok && i < guard; ++i)
    ok = host[i] == kCanary && host[bytes - 1 - i] == kCanary;
  free(host);
  if (!ok) printf("\n  %s: a guard zone was written\n", what);
  CU_ASSERT(ok);
  return ok;
}

bool seg_after_call(tb_status st, const seg_guarded *const *outs, int n_outs, const char *label,
                    const char *call) {
  char what[256];
  snprintf(what, sizeof what, "%s: %s (returned %s; seed %llu)", label, call, tb_status_string(st),
           (unsigned long long)tb_test.seed);
  if (!TB_ASSERT_OK(cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"), what))
    return false;
  bool ok = true;
  for (int i = 0; i < n_outs; ++i) ok = guards_intact(outs[i], what) && ok;
  return ok;
}

static bool malformed_upload(seg_malformed_inputs *d, const seg_malformed *mc, int32_t num_segments,
                             int32_t count, int32_t x_len, tb_type t, tb_rng *r) {
  memset(d, 0, sizeof *d);
  const size_t sz = tb_type_size(t);
  void *host = malloc(sz * (size_t)count);
  if (!host) return false;
  tb_fill_random(r, t, TB_OP_PLUS, host, count);
  const bool ok =
      tb_test_upload(&d->csr, mc->csr, sizeof(int32_t) * (size_t)num_segments) &&
      tb_test_upload(&d->sources, mc->sources, sizeof(int32_t) * (size_t)num_segments) &&
      tb_test_upload(&d->cols, mc->cols, sizeof(int32_t) * (size_t)count) &&
      tb_test_upload(&d->in, host, sz * (size_t)count) &&
      tb_test_upload(&d->x, host, sz * (size_t)x_len);
  free(host);
  return ok;
}

/* One case's run on its inputs and output, made here and freed after. */
static bool run_case(bool (*run)(seg_malformed_case *c), const seg_malformed *mc,
                     int32_t num_segments, int32_t count, int32_t x_len, tb_type t, tb_rng *r) {
  seg_malformed_case c = {
      .mc = mc, .num_segments = num_segments, .count = count, .x_len = x_len, .t = t};
  const bool ok = malformed_upload(&c.d, mc, num_segments, count, x_len, t, r) &&
                  seg_guarded_make(&c.out, tb_type_size(t), num_segments) && run(&c);
  tb_buffer_free(&c.d.csr), tb_buffer_free(&c.d.sources), tb_buffer_free(&c.d.cols);
  tb_buffer_free(&c.d.in), tb_buffer_free(&c.d.x);
  tb_buffer_free(&c.out.b), tb_buffer_free(&c.scratch);
  return ok;
}

bool seg_case_after(const seg_malformed_case *c, tb_status st, const char *call) {
  const seg_guarded *out[] = {&c->out};
  return seg_after_call(st, out, 1, c->mc->label, call);
}

void seg_for_each_malformed(bool (*run)(seg_malformed_case *c)) {
  const int32_t B = tb_test.quick ? 20000 : 200000, N = 3 * B, X = 1000;
  int32_t *csr = seg_alloc_i32(B), *src = seg_alloc_i32(B), *good_src = seg_alloc_i32(B);
  int32_t *cols = seg_alloc_i32(N), *good_cols = seg_alloc_i32(N);
  tb_rng r = tb_test_rng(10);
  if (!csr || !src || !good_src || !cols || !good_cols) goto done;
  for (int32_t j = 0; j < B; ++j) good_src[j] = (int32_t)tb_rng_range(&r, 0, N - 1);
  for (int32_t m = 0; m < N; ++m) good_cols[m] = (int32_t)tb_rng_range(&r, 0, X - 1);
  for (int k = 0; k < 13; ++k) {
    const tb_type t = (tb_type)(k % TB_TYPE_COUNT);
    seg_malformed mc = {NULL, csr, good_src, good_cols, true, false};
    /* From case 10 rows average 48 items: the direct tiles then wait on
     * the limits the partition publishes (kernels/segreduce.cu), which it
     * must publish for any CSR, or they hang. */
    const int32_t segs = k >= 10 ? B / 16 : B;
    switch (k) {
      case 0:
      case 10: /* the same draw under long rows */
        mc.label = k == 0 ? "random offsets" : "random offsets, long rows";
        for (int32_t j = 0; j < segs; ++j) csr[j] = (int32_t)tb_rng_range(&r, -N, 2 * (int64_t)N);
        break;
      case 1:
        mc.label = "descending offsets (into negatives)";
        for (int32_t j = 0; j < B; ++j) csr[j] = N - 6 * j;
        break;
      case 2:
        mc.label = "offsets starting past 0";
        for (int32_t j = 0; j < B; ++j) csr[j] = 1000 + 2 * j;
        break;
      case 3:
        mc.label = "extreme offsets";
        for (int32_t j = 0; j < B; ++j) csr[j] = j % 2 ? INT32_MAX : INT32_MIN;
        break;
      case 4:
        mc.label = "one spike past count";
        for (int32_t j = 0; j < B; ++j) csr[j] = 3 * j;
        csr[B / 2] = 5 * N;
        break;
      case 5:
        mc.label = "huge ascending offsets";
        csr[0] = 0;
        for (int32_t j = 1; j < B; ++j) csr[j] = INT32_MAX - (B - j);
        break;
      case 6:
        mc.label = "last offsets past count";
        for (int32_t j = 0; j < B; ++j) csr[j] = 4 * j;
        break;
      case 7:
        mc.label = "empty segments without support_empty";
        for (int32_t j = 0; j < B; ++j) csr[j] = 6 * (j / 2);
        break;
      case 8:
        mc.label = "sources out of range";
        mc.csr_bad = false;
        for (int32_t j = 0; j < B; ++j) csr[j] = 3 * j;
        for (int32_t j = 0; j < B; ++j)
          src[j] = j % 7 == 0   ? INT32_MAX - j
                   : j % 7 == 1 ? INT32_MIN + j
                                : (int32_t)tb_rng_range(&r, -2 * (int64_t)N, 2 * (int64_t)N);
        mc.sources = src;
        break;
      case 9:
        mc.label = "columns out of range";
        mc.csr_bad = false, mc.cols_bad = true;
        for (int32_t j = 0; j < B; ++j) csr[j] = 3 * j;
        for (int32_t m = 0; m < N; ++m)
          cols[m] = m % 5 == 0   ? INT32_MAX
                    : m % 5 == 1 ? INT32_MIN
                                 : (int32_t)tb_rng_range(&r, -2 * (int64_t)X, 2 * (int64_t)X);
        mc.cols = cols;
        break;
      case 11:
        mc.label = "descending offsets, long rows";
        for (int32_t j = 0; j < segs; ++j) csr[j] = N - 48 * j;
        break;
      default:
        mc.label = "offsets past count, long rows";
        for (int32_t j = 0; j < segs; ++j) csr[j] = 64 * j;
        break;
    }
    if (!run_case(run, &mc, segs, N, X, t, &r)) break; /* a dead context fails all after */
  }
done:
  free(csr), free(src), free(good_src), free(cols), free(good_cols);
}

int seg_rows_step_lengths(int64_t *out, bool every) {
  int n = 0;
  for (int g = 1; g <= 32; g *= 2) {
    out[n++] = (int64_t)TB_SEG_ROWS_UNROLL * g;
    if (every) out[n++] = (int64_t)TB_SEG_ROWS_UNROLL * g + 1;
    out[n++] = tb_seg_rows_long(g) + 1;
  }
  return n;
}
