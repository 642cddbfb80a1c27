/* The segmented family's three forms (segreduce_testing.h): each form's
 * reference checks, and the tests the three suites share, run from one
 * table of the forms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "cpuref/segreduce.h"
#include "kernels/segreduce_dispatch.h"
#include "kernels/tilebench.h"
#include "suites/segreduce_testing.h"
#include "suites/testing.h"

/* One step of the every-case sweep (seg_every_case): an operator at a box
 * over a case, which a form's hook runs every variant of its call at. */
typedef struct {
  tb_type t;
  tb_op op;
  const tb_launch_box *box; /* NULL: the tuned default */
  int b;                    /* box's index in the grid, -1 for the default */
  bool strict;              /* the case has no empty segment */
  int64_t step;             /* the sweep's steps before this one */
  tb_buffer *scratch;       /* the sweep's, for the calls that take one */
  seg_outputs *o;
  tb_rng *r;
} sweep_step;

/* ---- segmented reduction ------------------------------------------------------------ */

/* The reference into o->want: exact in t for integers, in higher precision
 * for floats. */
static bool segreduce_reference(const seg_geom *g, const seg_values *v, bool indirect,
                                seg_outputs *o, double *sum_abs) {
  const tb_value id = tb_identity(v->t, v->op);
  const int32_t *src = indirect ? g->sources : NULL;
  const tb_status st = tb_type_is_float(v->t)
                           ? tb_cpu_segreduce_csr_f64(v->t, v->op, v->host, g->count, g->csr,
                                                      g->num_segments, src, id, o->want, sum_abs)
                           : tb_cpu_segreduce_csr(v->t, v->op, v->host, g->count, g->csr,
                                                  g->num_segments, src, id, o->want);
  return TB_ASSERT_OK(st, "cpu reference");
}

/* Poisons, runs tb_segreduce_csr and downloads; what gets the case. */
bool seg_run_segreduce(const seg_geom *g, const seg_values *v, bool indirect, bool support_empty,
                       const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o, char *what,
                       size_t what_cap) {
  char form[48];
  snprintf(form, sizeof form, "%s%s", indirect ? "indirect" : "direct",
           support_empty ? " support_empty" : "");
  seg_describe(what, what_cap, "segreduce", v->t, v->op, form, box, g->name);
  const size_t bytes = (size_t)g->num_segments * tb_type_size(v->t);
  return seg_outputs_reserve(o, g->num_segments) && seg_poison(o->dev.ptr, bytes) &&
         TB_ASSERT_OK(tb_segreduce_csr(v->t, v->op, v->dev.ptr, g->count, g->d_csr.ptr,
                                       g->num_segments, indirect ? g->d_sources.ptr : NULL,
                                       support_empty, o->dev.ptr, box, scratch, 0),
                      what) &&
         seg_fetch(&o->dev, o->got, bytes, what);
}

bool seg_check_segreduce(const seg_geom *g, const seg_values *v, bool indirect, bool support_empty,
                         const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o) {
  char what[400];
  return seg_run_segreduce(g, v, indirect, support_empty, box, scratch, o, what, sizeof what) &&
         segreduce_reference(g, v, indirect, o, NULL) &&
         seg_compare(v->t, o->got, o->want, NULL, g->num_segments, what);
}

/* Poisons, runs tb_segreduce_fixed over g (every segment segment_size
 * items) and compares with the reference. */
bool seg_check_fixed(const seg_geom *g, const seg_values *v, int64_t segment_size,
                     tb_buffer *scratch, seg_outputs *o) {
  char what[400], form[48];
  snprintf(form, sizeof form, "fixed %lld", (long long)segment_size);
  seg_describe(what, sizeof what, "segreduce", v->t, v->op, form, NULL, g->name);
  const size_t bytes = (size_t)g->num_segments * tb_type_size(v->t);
  return seg_outputs_reserve(o, g->num_segments) && seg_poison(o->dev.ptr, bytes) &&
         TB_ASSERT_OK(tb_segreduce_fixed(v->t, v->op, v->dev.ptr, g->num_segments, segment_size,
                                         o->dev.ptr, scratch, 0),
                      what) &&
         seg_fetch(&o->dev, o->got, bytes, what) && segreduce_reference(g, v, false, o, NULL) &&
         seg_compare(v->t, o->got, o->want, NULL, g->num_segments, what);
}

/* Poisons, runs tb_segreduce_apply of plan over v's items and compares with
 * the reference; what names the case. */
bool seg_check_apply(const tb_seg_plan *plan, const seg_geom *g, const seg_values *v,
                     tb_buffer *scratch, seg_outputs *o, const char *what) {
  const size_t bytes = (size_t)g->num_segments * tb_type_size(v->t);
  return seg_outputs_reserve(o, g->num_segments) && seg_poison(o->dev.ptr, bytes) &&
         TB_ASSERT_OK(tb_segreduce_apply(plan, v->op, v->dev.ptr, o->dev.ptr, scratch, 0), what) &&
         seg_fetch(&o->dev, o->got, bytes, what) && segreduce_reference(g, v, false, o, NULL) &&
         seg_compare(v->t, o->got, o->want, NULL, g->num_segments, what);
}

static void segreduce_free(void *p) {
  seg_geom_free(p);
  free(p);
}

static void *segreduce_make(const seg_case *c, int index, bool overlap, int32_t x_len, tb_rng *r) {
  (void)index, (void)x_len;
  seg_geom *g = calloc(1, sizeof *g);
  if (g && seg_geom_make(g, c, overlap, r)) return g;
  if (g) segreduce_free(g);
  return NULL;
}

static const seg_geom *segreduce_geom(const void *p) { return p; }

/* Real data direct and indirect, both support_empty modes where allowed. */
static void segreduce_real(const void *p, tb_type t, const tb_launch_box *box, bool support_empty,
                           int64_t depth, seg_outputs *o, double *sum_abs, tb_rng *r) {
  const seg_geom *g = p;
  seg_values v;
  memset(&v, 0, sizeof v);
  if (seg_values_make_real(&v, t, g->count, r))
    for (int indirect = 0; indirect < 2; ++indirect)
      for (int se = support_empty; se < 2; ++se) {
        char what[400];
        if (seg_run_segreduce(g, &v, indirect, se, box, NULL, o, what, sizeof what) &&
            segreduce_reference(g, &v, indirect, o, sum_abs))
          seg_check_real_bound(t, sum_abs, depth, g->num_segments, o->got, o->want, what);
      }
  seg_values_free(&v);
}

static bool segreduce_preprocess(const void *p, tb_type t, const tb_launch_box *box, bool se,
                                 tb_seg_plan **plan, seg_outputs *o) {
  (void)o;
  const seg_geom *g = p;
  char what[480];
  seg_describe(what, sizeof what, "segreduce_csr_preprocess", t, TB_OP_PLUS,
               se ? "support_empty" : "", box, g->name);
  return TB_ASSERT_OK(
      tb_segreduce_csr_preprocess(t, g->count, g->d_csr.ptr, g->num_segments, se, box, plan, 0),
      what);
}

static bool segreduce_apply(const void *p, const tb_seg_plan *plan, tb_type t, tb_op op, int rep,
                            bool se, const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o,
                            tb_rng *r) {
  const seg_geom *g = p;
  char form[64], what[480];
  snprintf(form, sizeof form, "apply #%d%s", rep, se ? " support_empty" : "");
  seg_describe(what, sizeof what, "segreduce", t, op, form, box, g->name);
  seg_values v;
  const bool ok = seg_values_make(&v, t, op, g->count, r) &&
                  seg_check_apply(plan, g, &v, rep ? scratch : NULL, o, what);
  seg_values_free(&v);
  return ok;
}

/* The sweep's problems: indirect sources overlap on odd cases. */
static void *segreduce_sweep_make(const seg_case *cases, int c, int b, tb_rng *r) {
  (void)b;
  return segreduce_make(&cases[c], c, c % 2 == 1, 0, r);
}

/* Direct and indirect, support_empty both ways where the case allows; odd
 * boxes (and the default) take a scratch allocated inside the call. */
static int segreduce_sweep(const void *p, const sweep_step *s) {
  const seg_geom *g = p;
  seg_values v;
  int failures = 0;
  if (!seg_values_make(&v, s->t, s->op, g->count, s->r))
    failures = 1;
  else
    for (int indirect = 0; indirect < 2; ++indirect)
      for (int se = 0; se < 2; ++se)
        if (seg_mode_swept(s->strict, se, indirect) &&
            !seg_check_segreduce(g, &v, indirect, se, s->box, s->b % 2 ? NULL : s->scratch, s->o))
          ++failures;
  seg_values_free(&v);
  return failures;
}

static tb_status segreduce_apply_bare(const tb_seg_plan *plan, tb_op op, const seg_geom *g,
                                      void *out, int variant) {
  (void)variant;
  return tb_segreduce_apply(plan, op, g->d_sources.ptr, out, NULL, 0);
}

/* A reference of type t, as tb_compare takes it: floats widened to double in
 * place (want holds 8 bytes per element). Walking down, float i is read
 * before double i overwrites floats 2i and 2i + 1, which lie at or above i
 * and were read already. */
static void widen(tb_type t, void *want, int64_t n) {
  if (t != TB_FLOAT) return;
  for (int64_t i = n - 1; i >= 0; --i) {
    const double d = ((const float *)want)[i];
    ((double *)want)[i] = d;
  }
}

/* ---- SpMV -------------------------------------------------------------------------- */

void seg_spmat_free(seg_spmat *m) {
  seg_geom_free(&m->g);
  free(m->cols);
  tb_buffer_free(&m->d_cols);
  memset(m, 0, sizeof *m);
}

static bool random_cols(tb_rng *r, int32_t *cols, int32_t nz, int32_t x_len) {
  for (int32_t i = 0; i < nz; ++i) cols[i] = (int32_t)tb_rng_range(r, 0, x_len - 1);
  return true;
}

bool seg_spmat_make(seg_spmat *m, const seg_case *c, bool overlap, int32_t x_len, tb_rng *r) {
  memset(m, 0, sizeof *m);
  if (!seg_geom_make(&m->g, c, overlap, r)) return false;
  m->x_len = x_len;
  m->cols = seg_alloc_i32(m->g.count);
  if (!m->cols) return false;
  random_cols(r, m->cols, m->g.count, x_len);
  snprintf(m->g.name + strlen(m->g.name), sizeof m->g.name - strlen(m->g.name), ", x_len=%d",
           (int)x_len);
  return tb_test_upload(&m->d_cols, m->cols, sizeof(int32_t) * (size_t)m->g.count);
}

void seg_spvals_free(seg_spvals *sv) {
  seg_values_free(&sv->matrix);
  seg_values_free(&sv->x);
}

bool seg_spvals_make(seg_spvals *sv, tb_type t, tb_op add_op, const seg_spmat *m, tb_rng *r) {
  memset(sv, 0, sizeof *sv);
  const int64_t nz = m->g.count;
  return seg_values_make(&sv->matrix, t, TB_OP_MULTIPLIES, nz, r) &&
         seg_values_make_as(&sv->x, t, add_op, m->x_len, nz, r);
}

/* The reference into o->want (type t, widened for floats). */
static bool spmv_reference(const seg_spmat *m, const seg_spvals *sv, tb_op add_op, bool binary,
                           bool indirect, seg_outputs *o) {
  const tb_type t = sv->x.t;
  const seg_geom *g = &m->g;
  const int32_t *src = indirect ? g->sources : NULL;
  const tb_value id = tb_identity(t, add_op);
  const tb_status st =
      binary ? tb_cpu_spmv_csr(t, TB_OP_MULTIPLIES, add_op, sv->matrix.host, m->cols, g->count,
                               g->csr, g->num_segments, src, sv->x.host, m->x_len, id, o->want)
             : tb_cpu_spmv_csr_unary(t, add_op, m->cols, g->count, g->csr, g->num_segments, src,
                                     sv->x.host, m->x_len, id, o->want);
  widen(t, o->want, g->num_segments);
  return TB_ASSERT_OK(st, "cpu spmv");
}

bool seg_check_spmv(const seg_spmat *m, const seg_spvals *sv, tb_op add_op, bool binary,
                    bool indirect, bool support_empty, const tb_launch_box *box, tb_buffer *scratch,
                    seg_outputs *o) {
  const tb_type t = sv->x.t;
  const seg_geom *g = &m->g;
  char form[64], what[480];
  snprintf(form, sizeof form, "%s %s%s", binary ? "binary" : "unary",
           indirect ? "indirect" : "direct", support_empty ? " support_empty" : "");
  seg_describe(what, sizeof what, "spmv", t, add_op, form, box, g->name);
  const size_t bytes = (size_t)g->num_segments * tb_type_size(t);
  if (!seg_outputs_reserve(o, g->num_segments) || !seg_poison(o->dev.ptr, bytes)) return false;
  const int32_t *src = indirect ? g->d_sources.ptr : NULL;
  const tb_status st =
      binary ? tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, add_op, sv->matrix.dev.ptr, m->d_cols.ptr,
                                  g->count, g->d_csr.ptr, g->num_segments, src, sv->x.dev.ptr,
                                  m->x_len, support_empty, o->dev.ptr, box, scratch, 0)
             : tb_spmv_csr_unary(t, add_op, m->d_cols.ptr, g->count, g->d_csr.ptr, g->num_segments,
                                 src, sv->x.dev.ptr, m->x_len, support_empty, o->dev.ptr, box,
                                 scratch, 0);
  return TB_ASSERT_OK(st, what) && seg_fetch(&o->dev, o->got, bytes, what) &&
         spmv_reference(m, sv, add_op, binary, indirect, o) &&
         seg_compare(t, o->got, o->want, NULL, g->num_segments, what);
}

static void spmv_free(void *p) {
  seg_spmat_free(p);
  free(p);
}

static void *spmv_make(const seg_case *c, int index, bool overlap, int32_t x_len, tb_rng *r) {
  (void)index;
  seg_spmat *m = malloc(sizeof *m);
  if (m && seg_spmat_make(m, c, overlap, x_len, r)) return m;
  if (m) spmv_free(m);
  return NULL;
}

static const seg_geom *spmv_geom(const void *p) { return &((const seg_spmat *)p)->g; }

/* Real data, binary, direct and indirect: the rounding bound one level
 * deeper for the products. */
static void spmv_real(const void *p, tb_type t, const tb_launch_box *box, bool support_empty,
                      int64_t depth, seg_outputs *o, double *sum_abs, tb_rng *r) {
  const seg_spmat *m = p;
  const seg_geom *g = &m->g;
  seg_values mat, x;
  memset(&mat, 0, sizeof mat), memset(&x, 0, sizeof x);
  if (seg_values_make_real(&mat, t, g->count, r) && seg_values_make_real(&x, t, m->x_len, r))
    for (int indirect = 0; indirect < 2; ++indirect) {
      char what[400];
      seg_describe(what, sizeof what, "spmv", t, TB_OP_PLUS,
                   indirect ? "binary indirect, real data" : "binary direct, real data", box,
                   g->name);
      const size_t bytes = (size_t)g->num_segments * tb_type_size(t);
      if (seg_poison(o->dev.ptr, bytes) &&
          TB_ASSERT_OK(tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, TB_OP_PLUS, mat.dev.ptr,
                                          m->d_cols.ptr, g->count, g->d_csr.ptr, g->num_segments,
                                          indirect ? g->d_sources.ptr : NULL, x.dev.ptr, m->x_len,
                                          support_empty, o->dev.ptr, box, NULL, 0),
                       what) &&
          seg_fetch(&o->dev, o->got, bytes, what) &&
          TB_ASSERT_OK(
              tb_cpu_spmv_csr_f64(t, mat.host, m->cols, g->count, g->csr, g->num_segments,
                                  indirect ? g->sources : NULL, x.host, m->x_len, o->want, sum_abs),
              "cpu spmv f64"))
        seg_check_real_bound(t, sum_abs, depth + 1, g->num_segments, o->got, o->want, what);
    }
  seg_values_free(&mat), seg_values_free(&x);
}

static bool spmv_preprocess(const void *p, tb_type t, const tb_launch_box *box, bool se,
                            tb_seg_plan **plan, seg_outputs *o) {
  (void)o;
  const seg_geom *g = spmv_geom(p);
  char what[480];
  seg_describe(what, sizeof what, "spmv_preprocess", t, TB_OP_PLUS, se ? "support_empty" : "", box,
               g->name);
  return TB_ASSERT_OK(
      tb_spmv_preprocess(t, g->count, g->d_csr.ptr, g->num_segments, se, box, plan, 0), what);
}

/* The columns are an apply argument: the second round takes new ones. */
static bool spmv_next_round(void *p, tb_rng *r) {
  seg_spmat *m = p;
  return random_cols(r, m->cols, m->g.count, m->x_len) &&
         TB_ASSERT_OK(tb_buffer_upload(&m->d_cols, m->cols, sizeof(int32_t) * (size_t)m->g.count),
                      "upload cols");
}

/* Unary and binary. */
static bool spmv_apply(const void *p, const tb_seg_plan *plan, tb_type t, tb_op op, int rep,
                       bool se, const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o,
                       tb_rng *r) {
  const seg_spmat *m = p;
  const seg_geom *g = &m->g;
  seg_spvals sv;
  bool ok = seg_spvals_make(&sv, t, op, m, r);
  for (int binary = 0; binary < 2 && ok; ++binary) {
    char form[64], what[480];
    snprintf(form, sizeof form, "apply #%d %s%s", rep, binary ? "binary" : "unary",
             se ? " support_empty" : "");
    seg_describe(what, sizeof what, "spmv", t, op, form, box, g->name);
    const size_t bytes = (size_t)g->num_segments * tb_type_size(t);
    ok = seg_poison(o->dev.ptr, bytes) &&
         TB_ASSERT_OK(tb_spmv_apply(plan, op, binary ? sv.matrix.dev.ptr : NULL, m->d_cols.ptr,
                                    sv.x.dev.ptr, m->x_len, o->dev.ptr, binary ? scratch : NULL, 0),
                      what) &&
         seg_fetch(&o->dev, o->got, bytes, what) && spmv_reference(m, &sv, op, binary, false, o) &&
         seg_compare(t, o->got, o->want, NULL, g->num_segments, what);
  }
  seg_spvals_free(&sv);
  return ok;
}

/* The sweep's rows at a box whose tile holds T nonzeros: 3 tiles + 17,
 * uniform and fixed (a row past a tile) strict, power-law and
 * all-but-one-empty with empty rows. */
static int spmv_sweep_cases(int64_t T, tb_rng *r, seg_case *out) {
  (void)r;
  const int64_t n = 3 * T + 17;
  out[0] = seg_spec_case(TB_GEOM_UNIFORM, 12.0, true, n);
  out[1] = seg_spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n);
  out[2] = seg_spec_case(TB_GEOM_POWER_LAW, 8.0, false, n);
  out[3] = seg_spec_case(TB_GEOM_ZEROS_BUT_ONE, 2.0, false, n);
  return 4;
}

/* Indirect rows overlap on even cases; x has one element under the
 * all-but-one-empty rows, a random length otherwise. */
static void *spmv_sweep_make(const seg_case *cases, int c, int b, tb_rng *r) {
  (void)b;
  const int32_t x_len = c == 3 ? 1 : (int32_t)tb_rng_range(r, 2, 5000);
  return spmv_make(&cases[c], c, c % 2 == 0, x_len, r);
}

/* Unary and binary, direct and indirect, support_empty both ways where the
 * case allows; a scratch allocated inside the call on odd boxes (and the
 * default) for unary, on even ones for binary. */
static int spmv_sweep(const void *p, const sweep_step *s) {
  const seg_spmat *m = p;
  seg_spvals sv;
  int failures = 0;
  if (!seg_spvals_make(&sv, s->t, s->op, m, s->r))
    failures = 1;
  else
    for (int binary = 0; binary < 2; ++binary)
      for (int indirect = 0; indirect < 2; ++indirect)
        for (int se = 0; se < 2; ++se)
          if (seg_mode_swept(s->strict, se, indirect ^ binary) &&
              !seg_check_spmv(m, &sv, s->op, binary, indirect, se, s->box,
                              (s->b + binary) % 2 ? NULL : s->scratch, s->o))
            ++failures;
  seg_spvals_free(&sv);
  return failures;
}

/* Unary (variant 0) and binary. */
static tb_status spmv_apply_bare(const tb_seg_plan *plan, tb_op op, const seg_geom *g, void *out,
                                 int variant) {
  return tb_spmv_apply(plan, op, variant ? g->d_sources.ptr : NULL, g->d_csr.ptr, g->d_sources.ptr,
                       1, out, NULL, 0);
}

/* ---- reduce-by-key ----------------------------------------------------------------- */

bool seg_count_matches(int64_t got, int64_t want, const char *what, const char *which) {
  char text[512];
  snprintf(text, sizeof text, "%s (%s)", what, which);
  return TB_ASSERT_OK(got == want ? TB_OK
                                  : tb_fail(TB_ERR_MISMATCH, "%s: %lld runs, expected %lld", text,
                                            (long long)got, (long long)want),
                      text);
}

void seg_keyset_free(seg_keyset *k) {
  free(k->keys);
  tb_buffer_free(&k->d_keys);
  memset(k, 0, sizeof *k);
}

/* mode 0: random int32 keys; 1: alternating 0 / 1 (every key comes back);
 * 2: keys from {0..3}; 3: ascending run numbers. Consecutive runs always get
 * different keys. */
static const char *const kKeyModes[] = {"random keys", "alternating 0/1 keys", "keys in 0..3",
                                        "ascending keys"};

bool seg_keyset_make(seg_keyset *k, const seg_geom *g, int mode, tb_rng *r) {
  memset(k, 0, sizeof *k);
  k->count = g->count;
  k->keys = seg_alloc_i32(g->count);
  if (!k->keys) return false;
  int32_t run = 0, prev = 0, at = 0;
  for (int32_t s = 0; s < g->num_segments; ++s) {
    if (g->lens[s] == 0) continue;
    int32_t key = run;
    if (mode == 0 || mode == 2) {
      do {
        key = mode == 0 ? (int32_t)(uint32_t)tb_rng_next(r) : (int32_t)tb_rng_range(r, 0, 3);
      } while (run > 0 && key == prev);
    } else if (mode == 1) {
      key = run % 2;
    }
    for (int32_t i = 0; i < g->lens[s]; ++i) k->keys[at++] = key;
    prev = key, ++run;
  }
  snprintf(k->name, sizeof k->name, "%s, %s", g->name, kKeyModes[mode & 3]);
  return tb_test_upload(&k->d_keys, k->keys, sizeof(int32_t) * (size_t)k->count);
}

/* The reference into o->want and o->want_keys; *runs the run count. */
static bool rbk_reference(const seg_keyset *k, const seg_values *v, seg_outputs *o, int32_t *runs,
                          double *sum_abs) {
  if (!TB_ASSERT_OK(tb_cpu_reduce_by_key(v->t, v->op, k->keys, v->host, k->count, o->want,
                                         o->want_keys, runs),
                    "cpu reduce_by_key"))
    return false;
  if (!tb_type_is_float(v->t)) return true;
  int32_t *csr = seg_alloc_i32(k->count), n = 0;
  const bool ok =
      csr && TB_ASSERT_OK(tb_cpu_keys_to_csr(k->keys, k->count, csr, &n), "cpu keys_to_csr") &&
      TB_ASSERT_OK(tb_cpu_segreduce_csr_f64(v->t, v->op, v->host, k->count, csr, n, NULL,
                                            tb_identity(v->t, v->op), o->want, sum_abs),
                   "cpu segreduce_f64");
  free(csr);
  return ok;
}

/* One tb_reduce_by_key. variant bit 0: keys out; bits 1-2: the run count to
 * the host (0), the device (1), both (2), neither (3). */
bool seg_check_rbk(const seg_keyset *k, const seg_values *v, int variant, const tb_launch_box *box,
                   tb_buffer *scratch, seg_outputs *o) {
  const bool with_keys = variant & 1;
  const int where = (variant >> 1) & 3;
  const bool to_host = where == 0 || where == 2, to_dev = where == 1 || where == 2;
  static const char *const wheres[] = {"count to host", "count to device", "count to both",
                                       "count nowhere"};
  char form[64], what[480];
  snprintf(form, sizeof form, "%s, %s", with_keys ? "keys out" : "no keys out", wheres[where]);
  seg_describe(what, sizeof what, "reduce_by_key", v->t, v->op, form, box, k->name);
  const size_t sz = tb_type_size(v->t);
  int64_t h_runs = -1;
  int32_t d_runs = -1, runs = 0;
  if (!seg_outputs_reserve(o, k->count) || !seg_poison(o->dev.ptr, (size_t)k->count * sz) ||
      !seg_poison(o->dev_keys.ptr, sizeof(int32_t) * (size_t)k->count) ||
      !seg_poison(o->dev_num.ptr, sizeof(int32_t)))
    return false;
  if (!TB_ASSERT_OK(
          tb_reduce_by_key(v->t, v->op, k->d_keys.ptr, v->dev.ptr, k->count,
                           with_keys ? o->dev_keys.ptr : NULL, o->dev.ptr, to_host ? &h_runs : NULL,
                           to_dev ? o->dev_num.ptr : NULL, box, scratch, 0),
          what) ||
      !rbk_reference(k, v, o, &runs, NULL))
    return false;
  bool ok = true;
  if (to_host) ok = seg_count_matches(h_runs, runs, what, "host count") && ok;
  if (to_dev)
    ok = seg_fetch(&o->dev_num, &d_runs, sizeof d_runs, what) &&
         seg_count_matches(d_runs, runs, what, "device count") && ok;
  ok = seg_fetch(&o->dev, o->got, (size_t)runs * sz, what) &&
       seg_compare(v->t, o->got, o->want, NULL, runs, what) && ok;
  if (with_keys) {
    char kwhat[520];
    snprintf(kwhat, sizeof kwhat, "%s (keys)", what);
    ok = seg_fetch(&o->dev_keys, o->got_keys, sizeof(int32_t) * (size_t)runs, kwhat) &&
         seg_compare(TB_INT32, o->got_keys, o->want_keys, NULL, runs, kwhat) && ok;
  }
  return ok;
}

/* A geometry and keys whose runs are its non-empty segments. */
typedef struct {
  seg_geom g;
  seg_keyset k;
} keyed;

static void rbk_free(void *p) {
  keyed *q = p;
  seg_keyset_free(&q->k);
  seg_geom_free(&q->g);
  free(q);
}

/* The case's index picks the keys (seg_keyset_make's mode). */
static void *rbk_make(const seg_case *c, int index, bool overlap, int32_t x_len, tb_rng *r) {
  (void)x_len;
  keyed *q = calloc(1, sizeof *q);
  if (q && seg_geom_make(&q->g, c, overlap, r) && seg_keyset_make(&q->k, &q->g, index, r)) return q;
  if (q) rbk_free(q);
  return NULL;
}

static const seg_geom *rbk_geom(const void *p) { return &((const keyed *)p)->g; }

static void rbk_real(const void *p, tb_type t, const tb_launch_box *box, bool support_empty,
                     int64_t depth, seg_outputs *o, double *sum_abs, tb_rng *r) {
  (void)support_empty;
  const seg_keyset *k = &((const keyed *)p)->k;
  seg_values v;
  memset(&v, 0, sizeof v);
  char what[480];
  seg_describe(what, sizeof what, "reduce_by_key", t, TB_OP_PLUS, "real data", box, k->name);
  int64_t runs = -1;
  int32_t want_runs = 0;
  if (seg_values_make_real(&v, t, k->count, r) &&
      TB_ASSERT_OK(tb_reduce_by_key(t, TB_OP_PLUS, k->d_keys.ptr, v.dev.ptr, k->count, NULL,
                                    o->dev.ptr, &runs, NULL, box, NULL, 0),
                   what) &&
      rbk_reference(k, &v, o, &want_runs, sum_abs) &&
      seg_count_matches(runs, want_runs, what, "host count") &&
      seg_fetch(&o->dev, o->got, (size_t)want_runs * tb_type_size(t), what))
    seg_check_real_bound(t, sum_abs, depth, want_runs, o->got, o->want, what);
  seg_values_free(&v);
}

/* The run count and keys the preprocess reports (the keys serve as int32
 * values for the reference). */
static bool rbk_preprocess(const void *p, tb_type t, const tb_launch_box *box, bool se,
                           tb_seg_plan **plan, seg_outputs *o) {
  (void)se;
  const seg_keyset *k = &((const keyed *)p)->k;
  char what[480];
  seg_describe(what, sizeof what, "reduce_by_key_preprocess", t, TB_OP_PLUS, "", box, k->name);
  int64_t h_runs = -1;
  int32_t d_runs = -1, runs = 0;
  if (!seg_poison(o->dev_keys.ptr, sizeof(int32_t) * (size_t)k->count) ||
      !seg_poison(o->dev_num.ptr, sizeof(int32_t)) ||
      !TB_ASSERT_OK(tb_reduce_by_key_preprocess(t, k->d_keys.ptr, k->count, o->dev_keys.ptr,
                                                &h_runs, o->dev_num.ptr, box, plan, 0),
                    what))
    return false;
  if (TB_ASSERT_OK(tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, k->keys, k->keys, k->count, o->want,
                                        o->want_keys, &runs),
                   "cpu reduce_by_key")) {
    seg_count_matches(h_runs, runs, what, "host count from preprocess");
    if (seg_fetch(&o->dev_num, &d_runs, sizeof d_runs, what))
      seg_count_matches(d_runs, runs, what, "device count from preprocess");
    char kwhat[520];
    snprintf(kwhat, sizeof kwhat, "%s (keys)", what);
    if (seg_fetch(&o->dev_keys, o->got_keys, sizeof(int32_t) * (size_t)runs, kwhat))
      seg_compare(TB_INT32, o->got_keys, o->want_keys, NULL, runs, kwhat);
  }
  return true;
}

static bool rbk_apply(const void *p, const tb_seg_plan *plan, tb_type t, tb_op op, int rep, bool se,
                      const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o, tb_rng *r) {
  (void)se;
  const seg_keyset *k = &((const keyed *)p)->k;
  char form[64], what[480];
  snprintf(form, sizeof form, "apply #%d", rep);
  seg_describe(what, sizeof what, "reduce_by_key", t, op, form, box, k->name);
  seg_values v;
  int32_t runs = 0;
  const bool ok =
      seg_values_make(&v, t, op, k->count, r) && rbk_reference(k, &v, o, &runs, NULL) &&
      seg_poison(o->dev.ptr, (size_t)runs * tb_type_size(t)) &&
      TB_ASSERT_OK(tb_reduce_by_key_apply(plan, op, v.dev.ptr, o->dev.ptr, rep ? NULL : scratch, 0),
                   what) &&
      seg_fetch(&o->dev, o->got, (size_t)runs * tb_type_size(t), what) &&
      seg_compare(t, o->got, o->want, NULL, runs, what);
  seg_values_free(&v);
  return ok;
}

/* The sweep's keys (seg_keyset_make's mode) rotate over the cases and the
 * boxes. */
static void *rbk_sweep_make(const seg_case *cases, int c, int b, tb_rng *r) {
  return rbk_make(&cases[c], (c + b + 1) % 4, false, 0, r);
}

/* One call, the output options (seg_check_rbk's variant) rotating over the
 * sweep's steps; odd boxes (and the default) take a scratch allocated inside
 * the call. */
static int rbk_sweep(const void *p, const sweep_step *s) {
  const seg_keyset *k = &((const keyed *)p)->k;
  seg_values v;
  const bool ok =
      seg_values_make(&v, s->t, s->op, k->count, s->r) &&
      seg_check_rbk(k, &v, (int)(s->step % 8), s->box, s->b % 2 ? NULL : s->scratch, s->o);
  seg_values_free(&v);
  return !ok;
}

static tb_status rbk_apply_bare(const tb_seg_plan *plan, tb_op op, const seg_geom *g, void *out,
                                int variant) {
  (void)variant;
  return tb_reduce_by_key_apply(plan, op, g->d_sources.ptr, out, NULL, 0);
}

/* ---- the table of forms and the tests they share ------------------------------------- */

/* One form of the family over a CSR geometry, as the shared tests drive it:
 * segmented reduction over values, SpMV over a matrix (columns and x),
 * reduce-by-key over keys whose runs are the geometry's non-empty segments.
 * Each row holds its own problem type (void * here); the checks assert
 * what they find and return false on a failure. */
typedef struct seg_form {
  const char *name;      /* "segreduce", "spmv", "reduce_by_key" */
  const char *apply_api; /* "tb_segreduce_apply", ... */
  tb_op float_refused;   /* an operator its float plans refuse */
  int bare_variants;     /* applies over no items per operator */
  bool bare_writes_rows; /* they write the identity to every row */
  /* Items per tile of the box a plan runs with (seg_tile_of, seg_spmv_tile_of). */
  int64_t (*tile_of)(tb_type t, const tb_launch_box *box);
  /* A problem over case c; the case's index picks reduce-by-key's keys, x_len
   * SpMV's x. NULL after a failed assertion. */
  void *(*make)(const seg_case *c, int index, bool overlap, int32_t x_len, tb_rng *r);
  void (*free)(void *problem);
  const seg_geom *(*geom)(const void *problem);
  /* Real-valued data of type t at box, every variant, against the rounding
   * bound of that depth. */
  void (*real)(const void *problem, tb_type t, const tb_launch_box *box, bool support_empty,
               int64_t depth, seg_outputs *o, double *sum_abs, tb_rng *r);
  /* A plan over the problem, what the preprocess reports checked. */
  bool (*preprocess)(const void *problem, tb_type t, const tb_launch_box *box, bool support_empty,
                     tb_seg_plan **plan, seg_outputs *o);
  /* NULL, or what changes between a plan's rounds of applications (rep > 0). */
  bool (*next_round)(void *problem, tb_rng *r);
  /* Round rep's application of plan with op over fresh exact data, checked. */
  bool (*apply)(const void *problem, const tb_seg_plan *plan, tb_type t, tb_op op, int rep,
                bool support_empty, const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o,
                tb_rng *r);
  /* The apply of a plan over no items (variant < bare_variants); in and out
   * are any device arrays. */
  tb_status (*apply_bare)(const tb_seg_plan *plan, tb_op op, const seg_geom *g, void *out,
                          int variant);
  /* The every-case sweep: the grid that has the operators other than plus
   * (seg_in_op_grid), the cases at a box whose tile holds T items, case c's
   * problem at box b, and a step's checks, returning how many failed. */
  int (*op_grid)(tb_type t, tb_op op, tb_launch_box *out, int cap);
  int (*sweep_cases)(int64_t T, tb_rng *r, seg_case *out);
  void *(*sweep_make)(const seg_case *cases, int c, int b, tb_rng *r);
  int (*sweep)(const void *problem, const sweep_step *s);
} seg_form;

static const seg_form kForms[SEG_FORM_COUNT] = {
    [SEG_SEGREDUCE] = {"segreduce", "tb_segreduce_apply", TB_OP_BIT_AND, 1, true, seg_tile_of,
                       segreduce_make, segreduce_free, segreduce_geom, segreduce_real,
                       segreduce_preprocess, NULL, segreduce_apply, segreduce_apply_bare,
                       tb_segreduce_grid, seg_cases, segreduce_sweep_make, segreduce_sweep},
    [SEG_SPMV] = {"spmv", "tb_spmv_apply", TB_OP_BIT_XOR, 2, true, seg_spmv_tile_of, spmv_make,
                  spmv_free, spmv_geom, spmv_real, spmv_preprocess, spmv_next_round, spmv_apply,
                  spmv_apply_bare, tb_segreduce_grid, spmv_sweep_cases, spmv_sweep_make,
                  spmv_sweep},
    /* no runs, so no rows to write; the one-pass call has grids of its own */
    [SEG_REDUCE_BY_KEY] = {"reduce_by_key", "tb_reduce_by_key_apply", TB_OP_BIT_OR, 1, false,
                           seg_tile_of, rbk_make, rbk_free, rbk_geom, rbk_real, rbk_preprocess,
                           NULL, rbk_apply, rbk_apply_bare, tb_reduce_by_key_grid, seg_cases,
                           rbk_sweep_make, rbk_sweep},
};

static seg_form_kind under_test; /* the suite's form (seg_suite_main) */

void seg_every_case(seg_form_kind kind, uint64_t stream) {
  const seg_form *f = &kForms[kind];
  tb_rng r = tb_test_rng(stream);
  tb_buffer scratch = {0};
  seg_outputs o = {0};
  int failures = 0;
  int64_t steps = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = seg_grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid && failures < kMaxFailures; ++b) {
      if (b >= 0 && !seg_box_selected(b, n_grid)) continue;
      const tb_launch_box *box = b < 0 ? NULL : &grid[b];
      seg_case cases[16];
      const int n_cases = f->sweep_cases(f->tile_of((tb_type)t, box), &r, cases);
      for (int c = 0; c < n_cases && failures < kMaxFailures; ++c) {
        void *p = f->sweep_make(cases, c, b, &r);
        if (!p) {
          ++failures;
          continue;
        }
        for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
          if (!seg_op_swept((tb_type)t, op) || !seg_in_op_grid(f->op_grid, (tb_type)t, op, box))
            continue;
          const sweep_step s = {.t = (tb_type)t,
                                .op = (tb_op)op,
                                .box = box,
                                .b = b,
                                .strict = cases[c].strict,
                                .step = steps++,
                                .scratch = &scratch,
                                .o = &o,
                                .r = &r};
          failures += f->sweep(p, &s);
        }
        f->free(p);
      }
    }
  }
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* Real-valued data, float and double, at the edge boxes, on a strict uniform
 * and a power-law geometry (indirect ones overlapping): within the rounding
 * bound of the box's tile and the partition. */
TB_TEST(test_real_bound, "real data: rounding bound") {
  const seg_form *f = &kForms[under_test];
  const int64_t n = tb_test.quick ? 1 << 15 : 1 << 21;
  tb_rng r = tb_test_rng(6);
  seg_outputs o = {0};
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const tb_launch_box *boxes[3];
    seg_edge_boxes((tb_type)t, grid, boxes);
    const seg_case cases[] = {seg_spec_case(TB_GEOM_UNIFORM, 700.0, true, n),
                              seg_spec_case(TB_GEOM_POWER_LAW, 300.0, false, n)};
    for (int c = 0; c < 2; ++c) {
      void *p = f->make(&cases[c], 0, c == 1, 4096, &r);
      const seg_geom *g = p ? f->geom(p) : NULL;
      double *sum_abs = NULL;
      if (g && seg_outputs_reserve(&o, g->count > g->num_segments ? g->count : g->num_segments) &&
          (sum_abs = malloc(sizeof(double) * (size_t)o.cap)) != NULL) {
        CU_ASSERT_EQUAL(g->count, n); /* neither geometry adds items */
        for (int b = 0; b < 3 && g->count == n; ++b)
          f->real(p, (tb_type)t, boxes[b], !cases[c].strict,
                  seg_rounding_depth((tb_type)t, boxes[b], n), &o, sum_abs, &r);
      }
      free(sum_abs);
      if (p) f->free(p);
    }
  }
  seg_outputs_free(&o);
}

/* One plan per type x edge box x plan case, applied in rounds to fresh
 * exact data with every swept operator. */
TB_TEST(test_preprocess_apply, "preprocess + apply") {
  const seg_form *f = &kForms[under_test];
  tb_rng r = tb_test_rng(7);
  tb_buffer scratch = {0};
  seg_outputs o = {0};
  int failures = 0;
  const int rounds = tb_test.quick ? 1 : 2; /* applications per plan and operator */
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const tb_launch_box *boxes[3];
    seg_edge_boxes((tb_type)t, grid, boxes);
    for (int b = 0; b < 3 && failures < kMaxFailures; ++b) {
      seg_case cases[4];
      seg_plan_cases(f->tile_of((tb_type)t, boxes[b]), cases);
      for (int c = 0; c < 4 && failures < kMaxFailures; ++c) {
        const bool se = !cases[c].strict || c == 1;
        void *p = f->make(&cases[c], c, false, (int32_t)tb_rng_range(&r, 1, 3000), &r);
        const seg_geom *g = p ? f->geom(p) : NULL;
        tb_seg_plan *plan = NULL;
        if (!g ||
            !seg_outputs_reserve(&o, g->count > g->num_segments ? g->count : g->num_segments) ||
            !f->preprocess(p, (tb_type)t, boxes[b], se, &plan, &o)) {
          ++failures;
        } else {
          for (int rep = 0; rep < rounds && failures < kMaxFailures; ++rep) {
            if (rep > 0 && f->next_round && !f->next_round(p, &r)) break;
            for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op)
              if (seg_op_swept_at((tb_type)t, op, boxes[b]) &&
                  !f->apply(p, plan, (tb_type)t, (tb_op)op, rep, se, boxes[b], &scratch, &o, &r))
                ++failures;
          }
        }
        tb_seg_plan_free(plan);
        if (p) f->free(p);
      }
    }
  }
  tb_seg_plan_free(NULL); /* documented as fine */
  CU_PASS("tb_seg_plan_free(NULL)");
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* A plan made with no box whose call takes the rows kernel applies with it
 * where its rows suit it (tb_seg_plan_rows_may, tb_seg_plan_rows; SpMV and
 * segmented reduction apart). Either side of each switch: rows of three,
 * TB_SEG_PLAN_ROWS_LEAST of them and one fewer; rows of four to
 * TB_SEG_PLAN_ROWS_MAX_COUNT and to TB_SEG_ROWS_MAX_COUNT items and a row
 * more; one row of a warp group's longest (and one more) among rows of
 * four; rows of 1,024 (four times the mean); rows of one to
 * TB_SEG_PLAN_ROWS_SHORT_COUNT items and one more; a CTA of
 * TB_SEG_ROWS_SPLIT items and one more; empty rows under
 * support_empty up to TB_SEG_ROWS_EMPTY_MAX_COUNT items and past it;
 * power-law rows. Every type and swept operator, two applications; each
 * case asserts the side it is on (the rows measured here as the plan's
 * preprocess measures them). */
TB_TEST(test_plan_rows, "plans over whole rows a CTA: either side of each switch") {
  const seg_form *f = &kForms[under_test];
  if (under_test == SEG_REDUCE_BY_KEY) return; /* its plans find runs of keys */
  const bool spmv = under_test == SEG_SPMV;
  tb_rng r = tb_test_rng(9);
  tb_buffer scratch = {0};
  seg_outputs o = {0};
  const int64_t least = TB_SEG_PLAN_ROWS_LEAST, most = TB_SEG_PLAN_ROWS_MAX_COUNT;
  const int64_t shorts = TB_SEG_PLAN_ROWS_SHORT_COUNT;
  const int32_t longest = tb_seg_rows_long(32), split = TB_SEG_ROWS_SPLIT;
  const seg_run at_longest[] = {{1, longest}, {2047, 4}},
                past_longest[] = {{1, longest + 1}, {2047, 4}};
  seg_case zero_runs = seg_spec_case(TB_GEOM_ZERO_RUNS, 3.0, false, 1 << 15);
  zero_runs.spec.empty_fraction = 0.6;
  seg_case more_runs = zero_runs; /* past TB_SEG_ROWS_EMPTY_MAX_COUNT */
  more_runs.total = 2 * TB_SEG_ROWS_EMPTY_MAX_COUNT;
  const struct {
    seg_case c;
    int spmv, seg; /* 1: takes the rows kernel, 0: the tiles, -1: either */
    bool big;      /* skipped when quick */
  } cases[] = {{seg_spec_case(TB_GEOM_FIXED, 3.0, true, 3 * least), 1, 1, false},
               {seg_spec_case(TB_GEOM_FIXED, 3.0, true, 3 * (least - 1)), 0, 1, false},
               {seg_spec_case(TB_GEOM_FIXED, 4.0, true, most), 1, 1, true},
               {seg_spec_case(TB_GEOM_FIXED, 4.0, true, most + 4), 0, 1, true},
               {seg_spec_case(TB_GEOM_FIXED, 4.0, true, TB_SEG_ROWS_MAX_COUNT), 0, 1, true},
               {seg_spec_case(TB_GEOM_FIXED, 4.0, true, TB_SEG_ROWS_MAX_COUNT + 4), 0, 0, true},
               {seg_runs_case(at_longest, 2), 1, 1, false},
               {seg_runs_case(past_longest, 2), 0, 1, false},
               {seg_spec_case(TB_GEOM_FIXED, 1024.0, true, 1024 * least), 1, 1, true},
               {seg_spec_case(TB_GEOM_FIXED, 1.0, true, shorts), 1, 1, false},
               {seg_spec_case(TB_GEOM_FIXED, 1.0, true, shorts + 1), 1, 0, false},
               {{SEG_SHAPE_LONG_MIDDLE, {0}, true, split + 3}, 0, 1, false},
               {{SEG_SHAPE_LONG_MIDDLE, {0}, true, split + 4}, 0, 0, false},
               {zero_runs, 1, 1, false},
               {more_runs, 0, 0, false},
               {seg_spec_case(TB_GEOM_POWER_LAW, 4.0, false, 1 << 16), -1, -1, false}};
  int failures = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0] && failures < kMaxFailures; ++c) {
    if (tb_test.quick && cases[c].big) continue;
    const bool se = !cases[c].c.strict;
    void *p = f->make(&cases[c].c, (int)c, false, (int32_t)tb_rng_range(&r, 1, 3000), &r);
    const seg_geom *g = p ? f->geom(p) : NULL;
    if (!g || !seg_outputs_reserve(&o, g->count > g->num_segments ? g->count : g->num_segments)) {
      ++failures;
      if (p) f->free(p);
      continue;
    }
    const int64_t n = g->num_segments;
    const int per_cta = tb_seg_rows_per_cta_of(g->count, n);
    tb_seg_rows_stats stats = {0, 0};
    for (int64_t s = 0; s < n; ++s) {
      const int32_t len = (s + 1 < n ? g->csr[s + 1] : g->count) - g->csr[s];
      if (len > stats.longest) stats.longest = len;
      if (s % per_cta == 0) {
        const int32_t items = (s + per_cta < n ? g->csr[s + per_cta] : g->count) - g->csr[s];
        if (items > stats.busiest) stats.busiest = items;
      }
    }
    const int rows =
        tb_seg_plan_rows_may(spmv, g->count, n, se) && tb_seg_plan_rows(spmv, g->count, n, stats);
    const int want = spmv ? cases[c].spmv : cases[c].seg;
    if (want >= 0 && rows != want) {
      printf("\n  %s: %s, %s\n", g->name, rows ? "whole rows" : "tiles", "the other side expected");
      CU_FAIL("a case on the wrong side of its switch");
    }
    for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
      tb_seg_plan *plan = NULL;
      if (!f->preprocess(p, (tb_type)t, NULL, se, &plan, &o)) {
        ++failures;
        continue;
      }
      for (int rep = 0; rep < 2 && failures < kMaxFailures; ++rep) {
        if (rep > 0 && f->next_round && !f->next_round(p, &r)) break;
        for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op)
          if (seg_op_swept((tb_type)t, op) &&
              !f->apply(p, plan, (tb_type)t, (tb_op)op, rep, se, NULL, &scratch, &o, &r))
            ++failures;
      }
      tb_seg_plan_free(plan);
    }
    f->free(p);
  }
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* Plans over no items: the applies succeed (and write the identity where
 * they write rows); the apply refuses the other kinds' plans, an invalid
 * operator and, for floats, a bitwise one. */
TB_TEST(test_plan_edges, "plans: no items, wrong kind") {
  const seg_form *f = &kForms[under_test];
  tb_rng r = tb_test_rng(8);
  seg_outputs o = {0};
  seg_geom g;
  memset(&g, 0, sizeof g);
  if (seg_outputs_reserve(&o, 64) && seg_no_items_geom(&g, 40, &r)) {
    for (int t = 0; t < TB_TYPE_COUNT; ++t) {
      tb_seg_plan *plans[SEG_FORM_COUNT] = {NULL};
      int64_t h_runs = -1;
      if (seg_plans_over_no_items((tb_type)t, &g, &plans[SEG_SEGREDUCE], &plans[SEG_SPMV],
                                  &plans[SEG_REDUCE_BY_KEY], &h_runs)) {
        const tb_seg_plan *plan = plans[under_test];
        char what[400];
        CU_ASSERT_EQUAL(h_runs, 0); /* reduce-by-key's preprocess found no runs */
        const size_t bytes = (size_t)g.num_segments * tb_type_size((tb_type)t);
        for (int op = 0; op < TB_OP_COUNT; ++op)
          for (int v = 0; v < f->bare_variants && seg_op_fits((tb_type)t, op); ++v) {
            seg_describe(what, sizeof what, "apply over no items", (tb_type)t, (tb_op)op, "", NULL,
                         g.name);
            if (seg_poison(o.dev.ptr, bytes) &&
                TB_ASSERT_OK(f->apply_bare(plan, (tb_op)op, &g, o.dev.ptr, v), what) &&
                f->bare_writes_rows && seg_fetch(&o.dev, o.got, bytes, what))
              seg_all_identity((tb_type)t, (tb_op)op, o.got, g.num_segments, what);
          }
        for (int k = 0; k < SEG_FORM_COUNT; ++k)
          if (k != (int)under_test)
            TB_EXPECT_REJECTS(f->apply_bare(plans[k], TB_OP_PLUS, &g, o.dev.ptr, 0), f->apply_api,
                              "the plan was made for ", kForms[k].name, ", not ", f->name);
        TB_EXPECT_REJECTS(f->apply_bare(plan, (tb_op)99, &g, o.dev.ptr, 0), f->apply_api,
                          "invalid operator 99");
        if (tb_type_is_float((tb_type)t))
          TB_EXPECT_REJECTS(f->apply_bare(plan, f->float_refused, &g, o.dev.ptr, 0), f->apply_api,
                            "operator ", tb_op_name(f->float_refused), " does not apply to ",
                            tb_type_name((tb_type)t));
      }
      for (int k = 0; k < SEG_FORM_COUNT; ++k) tb_seg_plan_free(plans[k]);
    }
  }
  seg_geom_free(&g);
  seg_outputs_free(&o);
}

int seg_suite_main(int argc, char **argv, const char *suite, seg_form_kind kind) {
  under_test = kind;
  return tb_test_main(argc, argv, suite);
}
