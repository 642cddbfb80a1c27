/* CSR SpMV, unary and binary: the GPU entry points against the CPU
 * references (cpuref/segreduce.h) for every type x add operator x launch box
 * x row geometry, direct and indirect, with and without empty rows; no
 * nonzeros and a large matrix; real-valued data against the rounding bound;
 * preprocess + apply; bad input; and malformed descriptors, which must give
 * unspecified output but never touch memory outside the arrays (run under
 * compute-sanitizer memcheck with --sanitizer; guard zones around the
 * outputs catch stray writes without it). The row geometries, data and
 * fixtures are segreduce_test's (segreduce_testing.h).
 *
 * Exactness: products keep tb_fill_random's property that every partial
 * result is exact in any order (core/rng.h) because the matrix holds only
 * {1, -1} (floats) or {1, -1, 2, 3} (integers, where products wrap as the
 * reference wraps) and x is drawn as for a sum of max(x_len, nz) terms: so
 * integer results are compared bit for bit and float results against the
 * higher-precision reference with no tolerance.
 *
 * Outputs are poisoned before every run, so an element the kernel fails to
 * write cannot pass. Every random choice comes from a tb_rng seeded from
 * tb_test.seed (--seed=N), which every failure message repeats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "cpuref/segreduce.h"
#include "kernels/tilebench.h"
#include "suites/segreduce_testing.h"
#include "suites/testing.h"

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

/* A CSR matrix: rows from a geometry (nz = g.count), random columns in
 * [0, x_len). */
typedef struct {
  geom g;
  int32_t x_len;
  int32_t *cols;
  tb_buffer d_cols;
} spmat;

static void spmat_free(spmat *m) {
  geom_free(&m->g);
  free(m->cols);
  tb_buffer_free(&m->d_cols);
  memset(m, 0, sizeof *m);
}

static bool random_cols(tb_rng *r, int32_t *cols, int32_t nz, int32_t x_len) {
  for (int32_t i = 0; i < nz; ++i) cols[i] = (int32_t)tb_rng_range(r, 0, x_len - 1);
  return true;
}

static bool spmat_make(spmat *m, const geo_case *c, bool overlap, int32_t x_len, tb_rng *r) {
  memset(m, 0, sizeof *m);
  if (!geom_make(&m->g, c, overlap, r)) return false;
  m->x_len = x_len;
  m->cols = alloc_i32(m->g.count);
  if (!m->cols) return false;
  random_cols(r, m->cols, m->g.count, x_len);
  snprintf(m->g.name + strlen(m->g.name), sizeof m->g.name - strlen(m->g.name), ", x_len=%d",
           (int)x_len);
  return seg_upload(&m->d_cols, m->cols, sizeof(int32_t) * (size_t)m->g.count);
}

/* SpMV data for (t, add_op): the matrix from {1, -1} (floats) or
 * {1, -1, 2, 3} (integers), x drawn for add_op as for a reduction of
 * max(x_len, nz) terms, so every row's partial results are exact. */
typedef struct {
  values matrix, x;
} spvals;

static void spvals_free(spvals *sv) {
  values_free(&sv->matrix);
  values_free(&sv->x);
}

static bool spvals_make(spvals *sv, tb_type t, tb_op add_op, const spmat *m, tb_rng *r) {
  memset(sv, 0, sizeof *sv);
  const int64_t nz = m->g.count;
  return values_make(&sv->matrix, t, TB_OP_MULTIPLIES, nz, r) &&
         values_make_as(&sv->x, t, add_op, m->x_len, nz, r);
}

/* The reference into o->want (type t, widened for floats). */
static bool spmv_reference(const spmat *m, const spvals *sv, tb_op add_op, bool binary,
                           bool indirect, outputs *o) {
  const tb_type t = sv->x.t;
  const geom *g = &m->g;
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

static bool check_spmv(const spmat *m, const spvals *sv, tb_op add_op, bool binary, bool indirect,
                       bool support_empty, const tb_launch_box *box, tb_buffer *scratch,
                       outputs *o) {
  const tb_type t = sv->x.t;
  const geom *g = &m->g;
  char form[64], what[480];
  snprintf(form, sizeof form, "%s %s%s", binary ? "binary" : "unary",
           indirect ? "indirect" : "direct", support_empty ? " support_empty" : "");
  describe(what, sizeof what, "spmv", t, add_op, form, box, g->name);
  const size_t bytes = (size_t)g->num_segments * tb_type_size(t);
  if (!outputs_reserve(o, g->num_segments) || !poison(o->dev.ptr, bytes)) return false;
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

/* Every type x add operator x box x a few row geometries, unary and binary,
 * direct and indirect, support_empty both ways where allowed. */
static void test_spmv_every_case(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 4);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid && failures < kMaxFailures; ++b) {
      if (b >= 0 && !box_selected(b, n_grid)) continue;
      const tb_launch_box *box = b < 0 ? NULL : &grid[b];
      const int64_t T = spmv_tile_of((tb_type)t, box), n = 3 * T + 17;
      const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 12.0, true, n),
                                spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n),
                                spec_case(TB_GEOM_POWER_LAW, 8.0, false, n),
                                spec_case(TB_GEOM_ZEROS_BUT_ONE, 2.0, false, n)};
      for (int c = 0; c < 4 && failures < kMaxFailures; ++c) {
        spmat m;
        const int32_t x_len = c == 3 ? 1 : (int32_t)tb_rng_range(&r, 2, 5000);
        if (!spmat_make(&m, &cases[c], c % 2 == 0, x_len, &r)) {
          ++failures;
          spmat_free(&m);
          continue;
        }
        for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
          if (!op_swept_at((tb_type)t, op, box)) continue;
          spvals sv;
          if (!spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r))
            ++failures;
          else
            for (int binary = 0; binary < 2; ++binary)
              for (int indirect = 0; indirect < 2; ++indirect)
                for (int se = 0; se < 2; ++se)
                  if (mode_swept(cases[c].strict, se, indirect ^ binary) &&
                      !check_spmv(&m, &sv, (tb_op)op, binary, indirect, se, box,
                                  (b + binary) % 2 ? NULL : &scratch, &o))
                    ++failures;
          spvals_free(&sv);
        }
        spmat_free(&m);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* nz == 0 over several rows: every row the identity; the tuned default on a
 * large matrix; a mul_op other than multiplies is refused. */
static void test_spmv_edges_and_large(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 5);
  outputs o = {0};
  {
    int32_t *lens = calloc(300, sizeof(int32_t));
    spmat m;
    memset(&m, 0, sizeof m);
    if (geom_from_lens(&m.g, lens, 300, false, &r, "no nonzeros")) {
      m.x_len = 10;
      m.cols = alloc_i32(1);
      if (seg_upload(&m.d_cols, m.cols, 0))
        for (int t = 0; t < TB_TYPE_COUNT; ++t)
          for (int op = TB_OP_PLUS; op <= TB_OP_MAX; ++op) {
            spvals sv;
            if (spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r))
              for (int binary = 0; binary < 2; ++binary)
                for (int indirect = 0; indirect < 2; ++indirect)
                  check_spmv(&m, &sv, (tb_op)op, binary, indirect, true, NULL, NULL, &o);
            spvals_free(&sv);
          }
    }
    spmat_free(&m);
  }
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 16.0, true, n / 2),
                            spec_case(TB_GEOM_POWER_LAW, 32.0, false, n / 2)};
  for (int c = 0; c < 2; ++c) {
    spmat m;
    if (spmat_make(&m, &cases[c], c == 1, 1 << 16, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        spvals sv;
        if (spvals_make(&sv, (tb_type)t, TB_OP_PLUS, &m, &r))
          for (int binary = 0; binary < 2; ++binary)
            for (int indirect = 0; indirect < 2; ++indirect)
              check_spmv(&m, &sv, TB_OP_PLUS, binary, indirect, !cases[c].strict || indirect, NULL,
                         NULL, &o);
        spvals_free(&sv);
      }
    spmat_free(&m);
  }
  /* mul_op must be multiplies. */
  {
    const geo_case c = spec_case(TB_GEOM_UNIFORM, 4.0, true, 1000);
    spmat m;
    spvals sv;
    if (spmat_make(&m, &c, false, 100, &r) && spvals_make(&sv, TB_INT32, TB_OP_PLUS, &m, &r) &&
        outputs_reserve(&o, m.g.num_segments)) {
      for (int mul = 0; mul < TB_OP_COUNT; ++mul) {
        if (mul == TB_OP_MULTIPLIES) continue;
        char needle[96]; /* spmv binary with mul_op `mul` */
        snprintf(needle, sizeof needle, "mul_op %s: ", tb_op_name((tb_op)mul));
        tb_clear_error();
        const tb_status st =
            tb_spmv_csr_binary(TB_INT32, (tb_op)mul, TB_OP_PLUS, sv.matrix.dev.ptr, m.d_cols.ptr,
                               m.g.count, m.g.d_csr.ptr, m.g.num_segments, NULL, sv.x.dev.ptr,
                               m.x_len, false, o.dev.ptr, NULL, NULL, 0);
        TB_ASSERT_REJECTS(st, "tb_spmv_csr_binary", needle, "the kernels implement multiplies",
                          NULL);
      }
    }
    spvals_free(&sv);
    spmat_free(&m);
  }
  outputs_free(&o);
}

/* ---- real-valued data: the rounding bound -------------------------------------------- */

/* Uniform [-1, 1) floats and doubles: binary SpMV with plus, direct and
 * indirect, against the higher-precision reference and tb_sum_error_bound
 * with one more rounding, the product. */
static void test_real_data_rounding_bound(void) {
  const int64_t n = tb_test.quick ? 1 << 15 : 1 << 21;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 6);
  outputs o = {0};
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const tb_launch_box *boxes[3];
    edge_boxes((tb_type)t, grid, boxes);
    const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 700.0, true, n),
                              spec_case(TB_GEOM_POWER_LAW, 300.0, false, n)};
    for (int c = 0; c < 2; ++c) {
      spmat m;
      values mat, x;
      memset(&mat, 0, sizeof mat), memset(&x, 0, sizeof x);
      double *sum_abs = NULL;
      if (spmat_make(&m, &cases[c], c == 1, 4096, &r) &&
          values_make_real(&mat, (tb_type)t, m.g.count, &r) &&
          values_make_real(&x, (tb_type)t, m.x_len, &r) &&
          outputs_reserve(&o, m.g.count > m.g.num_segments ? m.g.count : m.g.num_segments) &&
          (sum_abs = malloc(sizeof(double) * (size_t)o.cap)) != NULL) {
        const geom *g = &m.g;
        CU_ASSERT_EQUAL(g->count, n); /* neither geometry adds items */
        for (int b = 0; b < 3 && g->count == n; ++b) {
          const int64_t depth = rounding_depth_for((tb_type)t, boxes[b], g->count);
          for (int indirect = 0; indirect < 2; ++indirect) {
            char what[400];
            describe(what, sizeof what, "spmv", (tb_type)t, TB_OP_PLUS,
                     indirect ? "binary indirect, real data" : "binary direct, real data", boxes[b],
                     g->name);
            const size_t bytes = (size_t)g->num_segments * tb_type_size((tb_type)t);
            if (poison(o.dev.ptr, bytes) &&
                TB_ASSERT_OK(
                    tb_spmv_csr_binary((tb_type)t, TB_OP_MULTIPLIES, TB_OP_PLUS, mat.dev.ptr,
                                       m.d_cols.ptr, g->count, g->d_csr.ptr, g->num_segments,
                                       indirect ? g->d_sources.ptr : NULL, x.dev.ptr, m.x_len,
                                       !cases[c].strict, o.dev.ptr, boxes[b], NULL, 0),
                    what) &&
                seg_fetch(&o.dev, o.got, bytes, what) &&
                TB_ASSERT_OK(tb_cpu_spmv_csr_f64((tb_type)t, mat.host, m.cols, g->count, g->csr,
                                                 g->num_segments, indirect ? g->sources : NULL,
                                                 x.host, m.x_len, o.want, sum_abs),
                             "cpu spmv f64"))
              check_real_bound((tb_type)t, sum_abs, depth + 1, g->num_segments, o.got, o.want,
                               what);
          }
        }
      }
      free(sum_abs);
      values_free(&mat), values_free(&x);
      spmat_free(&m);
    }
  }
  outputs_free(&o);
}

/* ---- preprocess + apply ------------------------------------------------------------- */

/* One plan per type x box (the default, the first and the last of the grid)
 * x geometry, applied to several value arrays and, the columns being an
 * apply argument, two column arrays, unary and binary, every operator. */
static void test_preprocess_apply(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 7);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  const int reps = tb_test.quick ? 1 : 2; /* applications per plan and operator */
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const tb_launch_box *boxes[3];
    edge_boxes((tb_type)t, grid, boxes);
    for (int b = 0; b < 3 && failures < kMaxFailures; ++b) {
      geo_case cases[4];
      plan_cases(spmv_tile_of((tb_type)t, boxes[b]), cases);
      for (int c = 0; c < 4 && failures < kMaxFailures; ++c) {
        const bool se = !cases[c].strict || c == 1;
        char form[64];
        spmat m;
        if (!spmat_make(&m, &cases[c], false, (int32_t)tb_rng_range(&r, 1, 3000), &r) ||
            !outputs_reserve(&o, m.g.count > m.g.num_segments ? m.g.count : m.g.num_segments)) {
          ++failures;
          spmat_free(&m);
          continue;
        }
        const geom *g = &m.g;
        tb_seg_plan *plan = NULL;
        char what[480];
        describe(what, sizeof what, "spmv_preprocess", (tb_type)t, TB_OP_PLUS,
                 se ? "support_empty" : "", boxes[b], g->name);
        if (TB_ASSERT_OK(tb_spmv_preprocess((tb_type)t, g->count, g->d_csr.ptr, g->num_segments, se,
                                            boxes[b], &plan, 0),
                         what)) {
          for (int rep = 0; rep < reps; ++rep) {
            if (rep == 1 && (!random_cols(&r, m.cols, g->count, m.x_len) ||
                             !TB_ASSERT_OK(tb_buffer_upload(&m.d_cols, m.cols,
                                                            sizeof(int32_t) * (size_t)g->count),
                                           "upload cols")))
              break;
            for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
              if (!op_swept_at((tb_type)t, op, boxes[b])) continue;
              spvals sv;
              if (!spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r))
                ++failures;
              else
                for (int binary = 0; binary < 2; ++binary) {
                  snprintf(form, sizeof form, "apply #%d %s%s", rep, binary ? "binary" : "unary",
                           se ? " support_empty" : "");
                  describe(what, sizeof what, "spmv", (tb_type)t, (tb_op)op, form, boxes[b],
                           g->name);
                  const size_t bytes = (size_t)g->num_segments * tb_type_size((tb_type)t);
                  if (!poison(o.dev.ptr, bytes) ||
                      !TB_ASSERT_OK(
                          tb_spmv_apply(plan, (tb_op)op, binary ? sv.matrix.dev.ptr : NULL,
                                        m.d_cols.ptr, sv.x.dev.ptr, m.x_len, o.dev.ptr,
                                        binary ? &scratch : NULL, 0),
                          what) ||
                      !seg_fetch(&o.dev, o.got, bytes, what) ||
                      !spmv_reference(&m, &sv, (tb_op)op, binary, false, &o) ||
                      !seg_compare((tb_type)t, o.got, o.want, NULL, g->num_segments, what))
                    ++failures;
                }
              spvals_free(&sv);
            }
          }
        } else {
          ++failures;
        }
        tb_seg_plan_free(plan);
        spmat_free(&m);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* A plan over no rows' entries (support_empty): every row the identity,
 * unary and binary; the apply refuses the other kinds' plans and an
 * operator the type does not take. */
static void test_plan_edges(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 8);
  outputs o = {0};
  geom g;
  memset(&g, 0, sizeof g);
  if (!outputs_reserve(&o, 64) || !no_items_geom(&g, 40, &r)) {
    geom_free(&g);
    outputs_free(&o);
    return;
  }
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    tb_seg_plan *seg = NULL, *sp = NULL, *rbk = NULL;
    int64_t h_runs = -1;
    if (plans_over_no_items((tb_type)t, &g, &seg, &sp, &rbk, &h_runs)) {
      for (int op = 0; op < TB_OP_COUNT; ++op) {
        if (!op_fits((tb_type)t, op)) continue;
        char what[400];
        describe(what, sizeof what, "apply over no items", (tb_type)t, (tb_op)op, "", NULL, g.name);
        const size_t bytes = (size_t)g.num_segments * tb_type_size((tb_type)t);
        for (int binary = 0; binary < 2; ++binary)
          if (poison(o.dev.ptr, bytes) &&
              TB_ASSERT_OK(tb_spmv_apply(sp, (tb_op)op, binary ? g.d_sources.ptr : NULL,
                                         g.d_csr.ptr, g.d_sources.ptr, 1, o.dev.ptr, NULL, 0),
                           what) &&
              seg_fetch(&o.dev, o.got, bytes, what))
            all_identity((tb_type)t, (tb_op)op, o.got, g.num_segments, what);
      }
      /* The wrong kind of plan, and an operator the type does not take. */
      void *out = o.dev.ptr;
      const void *in = g.d_sources.ptr;
      const char *const PA = "tb_spmv_apply";
      TB_EXPECT_REJECTS(tb_spmv_apply(seg, TB_OP_PLUS, NULL, g.d_csr.ptr, in, 1, out, NULL, 0), PA,
                        "the plan was made for segreduce, not spmv");
      TB_EXPECT_REJECTS(tb_spmv_apply(rbk, TB_OP_PLUS, NULL, g.d_csr.ptr, in, 1, out, NULL, 0), PA,
                        "the plan was made for reduce_by_key, not spmv");
      if (tb_type_is_float((tb_type)t)) /* a float plan with bit_xor */
        TB_EXPECT_REJECTS(tb_spmv_apply(sp, TB_OP_BIT_XOR, NULL, g.d_csr.ptr, in, 1, out, NULL, 0),
                          PA, "operator bit_xor does not apply to ", tb_type_name((tb_type)t));
    }
    tb_seg_plan_free(seg), tb_seg_plan_free(sp), tb_seg_plan_free(rbk);
  }
  geom_free(&g);
  outputs_free(&o);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void test_bad_input(void) {
  enum { S = kBadSegments, C = kBadCount };
  bad_input f;
  if (!bad_input_begin(&f)) goto done;
  const int32_t *csr = f.csr.ptr, *zeros = f.zeros.ptr, *managed = f.managed;
  const void *in = f.zeros.ptr;
  void *out = f.out.ptr;
  const int64_t big = (int64_t)INT32_MAX + 1;
  const tb_launch_box zero_nt = {0, 7}, negative = {-128, 5};
  tb_launch_box off_grid[16];
  const int n_off = boxes_off_grid(TB_FLOAT, off_grid, 16);
  tb_seg_plan *p = NULL;
  const char *const SU = "tb_spmv_csr_unary", *const SB = "tb_spmv_csr_binary";
  const char *const PP = "tb_spmv_preprocess", *const PA = "tb_spmv_apply";

  for (int i = 0; i < n_off; ++i) {
    char box[64]; /* a box not in the grid */
    snprintf(box, sizeof box, "launch box %dx%d", off_grid[i].nt, off_grid[i].vt);
    TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_FLOAT, TB_OP_PLUS, zeros, C, csr, S, NULL, in, 4, false,
                                        out, &off_grid[i], NULL, 0),
                      SU, box, kNotInGrid);
  }

  /* tb_spmv_csr_unary / tb_spmv_csr_binary */
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, -1, csr, S, NULL, in, 4, true,
                                      out, NULL, NULL, 0),
                    SU, "nz = -1", kRange0);
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, big, csr, S, NULL, in, 4, true,
                                      out, NULL, NULL, 0),
                    SU, "nz = 2147483648", kRange0);
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, 0, NULL, in, 4, true,
                                      out, NULL, NULL, 0),
                    SU, "num_rows = 0", kRange1);
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, big, NULL, in, 4, true,
                                      out, NULL, NULL, 0),
                    SU, "num_rows = 2147483648", kRange1);
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, NULL, C, csr, S, NULL, in, 4, false,
                                      out, NULL, NULL, 0),
                    SU, "d_cols is NULL");
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, NULL, S, NULL, in, 4, false,
                                      out, NULL, NULL, 0),
                    SU, "d_csr is NULL");
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, S, NULL, NULL, 4, false,
                                      out, NULL, NULL, 0),
                    SU, "d_x is NULL");
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, S, NULL, in, 4, false,
                                      NULL, NULL, NULL, 0),
                    SU, "d_y is NULL");
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, S, NULL, in, -1, false,
                                      out, NULL, NULL, 0),
                    SU, "x_len = -1", kRange0);
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_FLOAT, TB_OP_BIT_AND, zeros, C, csr, S, NULL, in, 4, false,
                                      out, NULL, NULL, 0),
                    SU, "operator bit_and does not apply to float");
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_FLOAT, TB_OP_PLUS, zeros, C, managed, S, NULL, in, 4,
                                      false, out, NULL, NULL, 0),
                    SU, kCsr0);
  TB_EXPECT_REJECTS(tb_spmv_csr_unary(TB_FLOAT, TB_OP_PLUS, zeros, C, csr, S, NULL, in, 4, false,
                                      out, &zero_nt, NULL, 0),
                    SU, "launch box 0x7", kNotInGrid);
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_INT32, TB_OP_PLUS, TB_OP_PLUS, in, zeros, C, csr, S, NULL,
                                       in, 4, false, out, NULL, NULL, 0),
                    SB, "mul_op plus: the kernels implement multiplies");
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_DOUBLE, TB_OP_MAX, TB_OP_PLUS, in, zeros, C, csr, S, NULL,
                                       in, 4, false, out, NULL, NULL, 0),
                    SB, "mul_op max: the kernels implement multiplies");
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_INT64, (tb_op)42, TB_OP_PLUS, in, zeros, C, csr, S, NULL,
                                       in, 4, false, out, NULL, NULL, 0),
                    SB, "mul_op (invalid): the kernels implement multiplies");
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, NULL, zeros, C, csr,
                                       S, NULL, in, 4, false, out, NULL, NULL, 0),
                    SB, "d_matrix is NULL");
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_FLOAT, TB_OP_MULTIPLIES, TB_OP_BIT_OR, in, zeros, C, csr,
                                       S, NULL, in, 4, false, out, NULL, NULL, 0),
                    SB, "operator bit_or does not apply to float");
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, in, zeros, C,
                                       managed, S, zeros, in, 4, true, out, NULL, NULL, 0),
                    SB, kCsr0);
  TB_EXPECT_REJECTS(tb_spmv_csr_binary(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, in, zeros, C, csr, S,
                                       NULL, in, 4, true, out, &negative, NULL, 0),
                    SB, "launch box -128x5", kNotInGrid);

  /* preprocess */
  TB_EXPECT_REJECTS(tb_spmv_preprocess(TB_INT32, C, csr, S, false, NULL, NULL, 0), PP,
                    "plan is NULL");
  EXPECT_NO_PLAN(p, tb_spmv_preprocess(TB_INT32, -1, csr, S, false, NULL, &p, 0), PP, "nz = -1",
                 kRange0);
  EXPECT_NO_PLAN(p, tb_spmv_preprocess(TB_INT32, C, csr, 0, false, NULL, &p, 0), PP, "num_rows = 0",
                 kRange1);
  EXPECT_NO_PLAN(p, tb_spmv_preprocess(TB_INT32, C, NULL, S, false, NULL, &p, 0), PP,
                 "d_csr is NULL");
  EXPECT_NO_PLAN(p, tb_spmv_preprocess(TB_INT32, C, managed, S, true, NULL, &p, 0), PP, kCsr0);

  /* apply (the plans are float) */
  TB_EXPECT_REJECTS(tb_spmv_apply(NULL, TB_OP_PLUS, NULL, zeros, in, 4, out, NULL, 0), PA,
                    "plan is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f.sp, TB_OP_PLUS, NULL, NULL, in, 4, out, NULL, 0), PA,
                    "d_cols is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f.sp, TB_OP_PLUS, in, zeros, NULL, 4, out, NULL, 0), PA,
                    "d_x is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f.sp, TB_OP_PLUS, in, zeros, in, 4, NULL, NULL, 0), PA,
                    "d_y is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f.sp, TB_OP_PLUS, NULL, zeros, in, -1, out, NULL, 0), PA,
                    "x_len = -1", kRange0);
  TB_EXPECT_REJECTS(tb_spmv_apply(f.sp, TB_OP_BIT_OR, NULL, zeros, in, 4, out, NULL, 0), PA,
                    "operator bit_or does not apply to float");
  TB_EXPECT_REJECTS(tb_spmv_apply(f.seg, TB_OP_PLUS, NULL, zeros, in, 4, out, NULL, 0), PA,
                    "the plan was made for segreduce, not spmv");

  bad_input_check_clean(&f);
done:
  bad_input_end(&f);
}

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

/* Every SpMV entry point on one malformed descriptor with validation off.
 * The output carries guard zones. */
static bool run_malformed(const malformed *mc, int32_t num_segments, int32_t count, int32_t x_len,
                          tb_type t, tb_rng *r) {
  malformed_inputs d;
  tb_buffer scratch = {0};
  guarded out = {0};
  bool ok = false;
  if (!malformed_upload(&d, mc, num_segments, count, x_len, t, r) ||
      !guarded_make(&out, tb_type_size(t), num_segments))
    goto done;
  const int32_t *csr = d.csr.ptr, *src = d.sources.ptr, *cols = d.cols.ptr;
  const void *in = d.in.ptr, *x = d.x.ptr;
  void *y = guarded_mid(&out);
  const guarded *o1[] = {&out};
  const char *L = mc->label;
  tb_status st;
  ok = true;
  for (int se = 0; se < 2 && ok; ++se) {
    const char *mode = se ? "support_empty" : "strict";
    char call[128];
    tb_buffer *s = se ? &scratch : NULL;
    for (int indirect = 0; indirect < 2 && ok; ++indirect) {
      snprintf(call, sizeof call, "spmv unary %s %s", indirect ? "indirect" : "direct", mode);
      st = tb_spmv_csr_unary(t, TB_OP_PLUS, cols, count, csr, num_segments, indirect ? src : NULL,
                             x, x_len, se, y, NULL, s, 0);
      ok = ok && after_call(st, o1, 1, L, call);
      snprintf(call, sizeof call, "spmv binary %s %s", indirect ? "indirect" : "direct", mode);
      st = tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, TB_OP_MIN, in, cols, count, csr, num_segments,
                              indirect ? src : NULL, x, x_len, se, y, NULL, s, 0);
      ok = ok && after_call(st, o1, 1, L, call);
    }
    tb_seg_plan *plan = NULL;
    snprintf(call, sizeof call, "spmv preprocess + apply unary, binary %s", mode);
    st = tb_spmv_preprocess(t, count, csr, num_segments, se, NULL, &plan, 0);
    if (st == TB_OK) {
      st = tb_spmv_apply(plan, TB_OP_PLUS, NULL, cols, x, x_len, y, s, 0);
      ok = ok && after_call(st, o1, 1, L, call);
      st = tb_spmv_apply(plan, TB_OP_MAX, in, cols, x, x_len, y, s, 0);
    }
    tb_seg_plan_free(plan);
    ok = ok && after_call(st, o1, 1, L, call);
  }
done:
  malformed_inputs_free(&d);
  tb_buffer_free(&scratch), tb_buffer_free(&out.b);
  return ok;
}

static void test_malformed_memory_safe(void) { for_each_malformed(run_malformed); }

int main(int argc, char **argv) {
  static const CU_TestInfo tests[] = {
      {"every type x add op x box x rows", test_spmv_every_case},
      {"no nonzeros, large, mul_op", test_spmv_edges_and_large},
      {"real data: rounding bound", test_real_data_rounding_bound},
      {"preprocess + apply", test_preprocess_apply},
      {"plans: no items, wrong kind", test_plan_edges},
      {"bad input", test_bad_input},
      {"malformed descriptors stay memory safe", test_malformed_memory_safe},
      CU_TEST_INFO_NULL,
  };
  return tb_test_main(argc, argv, "spmv_test", tests);
}
