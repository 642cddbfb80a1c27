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
#include "kernels/segreduce_dispatch.h" /* the rows path's policy */
#include "kernels/tilebench.h"
#include "suites/segreduce_testing.h"
#include "suites/testing.h"

/* Every type x add operator x box x a few row geometries, unary and binary,
 * direct and indirect, support_empty both ways where allowed. */
TB_TEST(test_spmv_every_case, "every type x add op x box x rows") { seg_every_case(SEG_SPMV, 4); }

/* nz == 0 over several rows: every row the identity; the tuned default on a
 * large matrix; a mul_op other than multiplies is refused. */
TB_TEST(test_spmv_edges_and_large, "no nonzeros, large, mul_op") {
  tb_rng r = tb_test_rng(5);
  seg_outputs o = {0};
  {
    int32_t *lens = calloc(300, sizeof(int32_t));
    seg_spmat m;
    memset(&m, 0, sizeof m);
    if (seg_geom_from_lens(&m.g, lens, 300, false, &r, "no nonzeros")) {
      m.x_len = 10;
      m.cols = seg_alloc_i32(1);
      if (tb_test_upload(&m.d_cols, m.cols, 0))
        for (int t = 0; t < TB_TYPE_COUNT; ++t)
          for (int op = TB_OP_PLUS; op <= TB_OP_MAX; ++op) {
            seg_spvals sv;
            if (seg_spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r))
              for (int binary = 0; binary < 2; ++binary)
                for (int indirect = 0; indirect < 2; ++indirect)
                  seg_check_spmv(&m, &sv, (tb_op)op, binary, indirect, true, NULL, NULL, &o);
            seg_spvals_free(&sv);
          }
    }
    seg_spmat_free(&m);
  }
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const seg_case cases[] = {seg_spec_case(TB_GEOM_UNIFORM, 16.0, true, n / 2),
                            seg_spec_case(TB_GEOM_POWER_LAW, 32.0, false, n / 2)};
  for (int c = 0; c < 2; ++c) {
    seg_spmat m;
    if (seg_spmat_make(&m, &cases[c], c == 1, 1 << 16, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        seg_spvals sv;
        if (seg_spvals_make(&sv, (tb_type)t, TB_OP_PLUS, &m, &r))
          for (int binary = 0; binary < 2; ++binary)
            for (int indirect = 0; indirect < 2; ++indirect)
              seg_check_spmv(&m, &sv, TB_OP_PLUS, binary, indirect, !cases[c].strict || indirect,
                             NULL, NULL, &o);
        seg_spvals_free(&sv);
      }
    seg_spmat_free(&m);
  }
  /* mul_op must be multiplies. */
  {
    const seg_case c = seg_spec_case(TB_GEOM_UNIFORM, 4.0, true, 1000);
    seg_spmat m;
    seg_spvals sv;
    if (seg_spmat_make(&m, &c, false, 100, &r) &&
        seg_spvals_make(&sv, TB_INT32, TB_OP_PLUS, &m, &r) &&
        seg_outputs_reserve(&o, m.g.num_segments)) {
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
    seg_spvals_free(&sv);
    seg_spmat_free(&m);
  }
  seg_outputs_free(&o);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void bad_input(seg_bad_input *f) {
  enum { S = kBadSegments, C = kBadCount };
  const int32_t *csr = f->csr.ptr, *zeros = f->zeros.ptr, *managed = f->managed;
  const void *in = f->zeros.ptr;
  void *out = f->out.ptr;
  const int64_t big = (int64_t)INT32_MAX + 1;
  const tb_launch_box zero_nt = {0, 7}, negative = {-128, 5};
  tb_launch_box off_grid[16];
  const int n_off = seg_boxes_off_grid(TB_FLOAT, off_grid, 16);
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
  static const char *const kNull[] = {"d_cols is NULL", "d_csr is NULL", "d_x is NULL",
                                      "d_y is NULL"};
  for (int k = 0; k < 4; ++k) /* each array NULL in turn */
    TB_EXPECT_REJECTS(
        tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, k == 0 ? NULL : zeros, C, k == 1 ? NULL : csr, S,
                          NULL, k == 2 ? NULL : in, 4, false, k == 3 ? NULL : out, NULL, NULL, 0),
        SU, kNull[k]);
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
  TB_EXPECT_REJECTS(tb_spmv_apply(f->sp, TB_OP_PLUS, NULL, NULL, in, 4, out, NULL, 0), PA,
                    "d_cols is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f->sp, TB_OP_PLUS, in, zeros, NULL, 4, out, NULL, 0), PA,
                    "d_x is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f->sp, TB_OP_PLUS, in, zeros, in, 4, NULL, NULL, 0), PA,
                    "d_y is NULL");
  TB_EXPECT_REJECTS(tb_spmv_apply(f->sp, TB_OP_PLUS, NULL, zeros, in, -1, out, NULL, 0), PA,
                    "x_len = -1", kRange0);
  TB_EXPECT_REJECTS(tb_spmv_apply(f->sp, TB_OP_BIT_OR, NULL, zeros, in, 4, out, NULL, 0), PA,
                    "operator bit_or does not apply to float");
  TB_EXPECT_REJECTS(tb_spmv_apply(f->seg, TB_OP_PLUS, NULL, zeros, in, 4, out, NULL, 0), PA,
                    "the plan was made for segreduce, not spmv");
}

TB_TEST(test_bad_input, "bad input") { seg_with_bad_input(bad_input); }

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

/* Every SpMV entry point on one malformed descriptor with validation off.
 * The output carries guard zones. */
static bool run_malformed(seg_malformed_case *c) {
  const int32_t num_segments = c->num_segments, count = c->count, x_len = c->x_len;
  const tb_type t = c->t;
  const int32_t *csr = c->d.csr.ptr, *src = c->d.sources.ptr, *cols = c->d.cols.ptr;
  const void *in = c->d.in.ptr, *x = c->d.x.ptr;
  void *y = seg_guarded_mid(&c->out);
  tb_status st;
  bool ok = true;
  for (int se = 0; se < 2 && ok; ++se) {
    const char *mode = se ? "support_empty" : "strict";
    char call[128];
    tb_buffer *s = se ? &c->scratch : NULL;
    for (int indirect = 0; indirect < 2 && ok; ++indirect) {
      snprintf(call, sizeof call, "spmv unary %s %s", indirect ? "indirect" : "direct", mode);
      st = tb_spmv_csr_unary(t, TB_OP_PLUS, cols, count, csr, num_segments, indirect ? src : NULL,
                             x, x_len, se, y, NULL, s, 0);
      ok = ok && seg_case_after(c, st, call);
      snprintf(call, sizeof call, "spmv binary %s %s", indirect ? "indirect" : "direct", mode);
      st = tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, TB_OP_MIN, in, cols, count, csr, num_segments,
                              indirect ? src : NULL, x, x_len, se, y, NULL, s, 0);
      ok = ok && seg_case_after(c, st, call);
    }
    tb_seg_plan *plan = NULL;
    snprintf(call, sizeof call, "spmv preprocess + apply unary, binary %s", mode);
    st = tb_spmv_preprocess(t, count, csr, num_segments, se, NULL, &plan, 0);
    if (st == TB_OK) {
      st = tb_spmv_apply(plan, TB_OP_PLUS, NULL, cols, x, x_len, y, s, 0);
      ok = ok && seg_case_after(c, st, call);
      st = tb_spmv_apply(plan, TB_OP_MAX, in, cols, x, x_len, y, s, 0);
    }
    tb_seg_plan_free(plan);
    ok = ok && seg_case_after(c, st, call);
  }
  return ok;
}

TB_TEST(test_malformed_memory_safe, "malformed descriptors stay memory safe") {
  seg_for_each_malformed(run_malformed);
}

/* Direct SpMV with no box up to TB_SEG_ROWS_MAX_COUNT nonzeros reduces
 * whole rows a CTA (tb_seg_rows_fit): rows of each group
 * width's mean (tb_seg_rows_lanes), of more than a group's longest and of
 * more than the CTA's round of loads, over CTAs of several rows and a
 * partial last one (tb_seg_rows_per_cta) where the size allows; a CTA of
 * a row a group and of more; split
 * rows; empty rows (support_empty, both sides of its switch); and both
 * sides of the size switch.
 * Every type, unary and binary, plus and max. */
TB_TEST(test_spmv_rows_path, "whole rows a CTA: rows of each step, both sides of the switch") {
  tb_rng r = tb_test_rng(6);
  seg_outputs o = {0};
  seg_case cases[28];
  int n_cases = 0;
  int64_t lens[18];
  const int n_lens = seg_rows_step_lengths(lens, false);
  for (int k = 0; k < n_lens; ++k) /* a CTA of several rows and a partial one, where they fit */
    cases[n_cases++] = seg_spec_case(TB_GEOM_FIXED, (double)lens[k], true,
                                     (lens[k] > 256 ? 3 : 2 * TB_SEG_ROWS_MIN_CTAS + 1) * lens[k]);
  /* Groups of 32 lanes, rows a CTA its groups (a row a group: the CTA's
   * unroll) and one more (four rows a group in flight). */
  for (int more = 0; more < 2; ++more) {
    const int64_t rows = (int64_t)(TB_SEG_ROWS_THREADS / 32 + more) * TB_SEG_ROWS_MIN_CTAS + 100;
    cases[n_cases++] = seg_spec_case(TB_GEOM_FIXED, 300.0, true, rows * 300);
  }
  const int64_t round = (int64_t)TB_SEG_ROWS_THREADS * TB_SEG_ROWS_CTA_UNROLL;
  cases[n_cases++] = seg_spec_case(TB_GEOM_FIXED, (double)(round + 1), true, 3 * (round + 1));
  /* Split rows (RowsSplit): three of one item more than the split length,
   * and one of all but three items, just split and of several units. */
  const int64_t split = TB_SEG_ROWS_SPLIT;
  cases[n_cases++] = seg_spec_case(TB_GEOM_FIXED, (double)(split + 1), true, 3 * (split + 1));
  cases[n_cases++] = (seg_case){SEG_SHAPE_LONG_MIDDLE, {0}, true, split + 4};
  cases[n_cases++] = (seg_case){SEG_SHAPE_LONG_MIDDLE, {0}, true, 9 * TB_SEG_ROWS_UNIT + 4};
  /* Empty rows (support_empty; empty ends added): power-law rows, and runs
   * of empty rows longer than a CTA's rows. */
  cases[n_cases++] = seg_spec_case(TB_GEOM_POWER_LAW, 4.0, false, TB_SEG_ROWS_EMPTY_MAX_COUNT);
  cases[n_cases++] = seg_spec_case(TB_GEOM_ZERO_RUNS, 12.0, false, TB_SEG_ROWS_EMPTY_MAX_COUNT);
  cases[n_cases++] = seg_spec_case(TB_GEOM_POWER_LAW, 4.0, false, TB_SEG_ROWS_EMPTY_MAX_COUNT + 1);
  if (!tb_test.quick) {
    cases[n_cases++] = seg_spec_case(TB_GEOM_UNIFORM, 8.0, true, TB_SEG_ROWS_MAX_COUNT);
    cases[n_cases++] = seg_spec_case(TB_GEOM_UNIFORM, 8.0, true, TB_SEG_ROWS_MAX_COUNT + 1);
  }
  int failures = 0;
  for (int c = 0; c < n_cases && failures < kMaxFailures; ++c) {
    seg_spmat m;
    if (!seg_spmat_make(&m, &cases[c], false, 1 << 12, &r)) {
      ++failures;
      continue;
    }
    static const tb_op ops[] = {TB_OP_PLUS, TB_OP_MAX};
    for (int t = 0; t < TB_TYPE_COUNT; ++t)
      for (int k = 0; k < 2; ++k) {
        seg_spvals sv;
        if (seg_spvals_make(&sv, (tb_type)t, ops[k], &m, &r))
          for (int binary = 0; binary < 2; ++binary)
            if (!seg_check_spmv(&m, &sv, ops[k], binary, false, !cases[c].strict, NULL, NULL, &o))
              ++failures;
        seg_spvals_free(&sv);
      }
    seg_spmat_free(&m);
  }
  seg_outputs_free(&o);
}

int main(int argc, char **argv) { return seg_suite_main(argc, argv, "spmv_test", SEG_SPMV); }
