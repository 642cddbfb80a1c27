/* Reduce-by-key: the GPU entry point against the CPU reference
 * (cpuref/segreduce.h) for every type x operator x launch box x run-length
 * geometry x key pattern (random, alternating, few and ascending keys), with
 * the keys and the run count out or not; the look-back over random sizes;
 * real-valued data against the rounding bound; preprocess + apply; bad
 * input; and malformed offsets as keys, which must never touch memory
 * outside the arrays (run under compute-sanitizer memcheck with
 * --sanitizer; guard zones around the outputs catch stray writes without
 * it). The run geometries, data and fixtures are segreduce_test's
 * (segreduce_testing.h).
 *
 * Exactness: tb_fill_random draws data on which every partial result is exact
 * in any order (core/rng.h), so integer results are compared bit for bit and
 * float results against the higher-precision reference with no tolerance.
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

static bool count_matches(int64_t got, int64_t want, const char *what, const char *which) {
  char text[512];
  snprintf(text, sizeof text, "%s (%s)", what, which);
  return TB_ASSERT_OK(got == want ? TB_OK
                                  : tb_fail(TB_ERR_MISMATCH, "%s: %lld runs, expected %lld", text,
                                            (long long)got, (long long)want),
                      text);
}

/* The one-pass reduce-by-key has operators other than plus at boxes of its
 * own. */
static bool by_key_op_at_box(tb_type t, int op, const tb_launch_box *box) {
  return in_op_grid(tb_reduce_by_key_grid, t, op, box);
}

/* ---- reduce-by-key ----------------------------------------------------------------- */

/* Keys whose runs have the lengths of a geometry's non-empty segments. */
typedef struct {
  char name[260];
  int32_t count;
  int32_t *keys;
  tb_buffer d_keys;
} keyset;

static void keyset_free(keyset *k) {
  free(k->keys);
  tb_buffer_free(&k->d_keys);
  memset(k, 0, sizeof *k);
}

/* mode 0: random int32 keys; 1: alternating 0 / 1 (every key comes back);
 * 2: keys from {0..3}; 3: ascending run numbers. Consecutive runs always get
 * different keys. */
static const char *const kKeyModes[] = {"random keys", "alternating 0/1 keys", "keys in 0..3",
                                        "ascending keys"};

static bool keyset_make(keyset *k, const geom *g, int mode, tb_rng *r) {
  memset(k, 0, sizeof *k);
  k->count = g->count;
  k->keys = alloc_i32(g->count);
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
  return seg_upload(&k->d_keys, k->keys, sizeof(int32_t) * (size_t)k->count);
}

/* The reference into o->want and o->want_keys; *runs the run count. */
static bool rbk_reference(const keyset *k, const values *v, outputs *o, int32_t *runs,
                          double *sum_abs) {
  if (!TB_ASSERT_OK(tb_cpu_reduce_by_key(v->t, v->op, k->keys, v->host, k->count, o->want,
                                         o->want_keys, runs),
                    "cpu reduce_by_key"))
    return false;
  if (!tb_type_is_float(v->t)) return true;
  int32_t *csr = alloc_i32(k->count), n = 0;
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
static bool check_rbk(const keyset *k, const values *v, int variant, const tb_launch_box *box,
                      tb_buffer *scratch, outputs *o) {
  const bool with_keys = variant & 1;
  const int where = (variant >> 1) & 3;
  const bool to_host = where == 0 || where == 2, to_dev = where == 1 || where == 2;
  static const char *const wheres[] = {"count to host", "count to device", "count to both",
                                       "count nowhere"};
  char form[64], what[480];
  snprintf(form, sizeof form, "%s, %s", with_keys ? "keys out" : "no keys out", wheres[where]);
  describe(what, sizeof what, "reduce_by_key", v->t, v->op, form, box, k->name);
  const size_t sz = tb_type_size(v->t);
  int64_t h_runs = -1;
  int32_t d_runs = -1, runs = 0;
  if (!outputs_reserve(o, k->count) || !poison(o->dev.ptr, (size_t)k->count * sz) ||
      !poison(o->dev_keys.ptr, sizeof(int32_t) * (size_t)k->count) ||
      !poison(o->dev_num.ptr, sizeof(int32_t)))
    return false;
  if (!TB_ASSERT_OK(
          tb_reduce_by_key(v->t, v->op, k->d_keys.ptr, v->dev.ptr, k->count,
                           with_keys ? o->dev_keys.ptr : NULL, o->dev.ptr, to_host ? &h_runs : NULL,
                           to_dev ? o->dev_num.ptr : NULL, box, scratch, 0),
          what) ||
      !rbk_reference(k, v, o, &runs, NULL))
    return false;
  bool ok = true;
  if (to_host) ok = count_matches(h_runs, runs, what, "host count") && ok;
  if (to_dev)
    ok = seg_fetch(&o->dev_num, &d_runs, sizeof d_runs, what) &&
         count_matches(d_runs, runs, what, "device count") && ok;
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

/* Every type x operator x box x run-length geometry x key pattern; the
 * output options rotate over the cases. */
static void test_reduce_by_key_every_case(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 2);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0, variant = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid && failures < kMaxFailures; ++b) {
      if (b >= 0 && !box_selected(b, n_grid)) continue;
      const tb_launch_box *box = b < 0 ? NULL : &grid[b];
      geo_case cases[16];
      int n_strict = 0;
      const int n_cases = geo_cases(tile_of((tb_type)t, box), &r, cases, &n_strict);
      for (int c = 0; c < n_cases && failures < kMaxFailures; ++c) {
        geom g;
        keyset k;
        memset(&k, 0, sizeof k);
        if (!geom_make(&g, &cases[c], false, &r) || !keyset_make(&k, &g, (c + b + 1) % 4, &r)) {
          ++failures;
        } else {
          for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
            if (!op_swept((tb_type)t, op) || !by_key_op_at_box((tb_type)t, op, box)) continue;
            values v;
            if (!values_make(&v, (tb_type)t, (tb_op)op, k.count, &r) ||
                !check_rbk(&k, &v, variant++ % 8, box, b % 2 ? NULL : &scratch, &o))
              ++failures;
            values_free(&v);
          }
        }
        keyset_free(&k);
        geom_free(&g);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* The look-back over 10^4 random sizes per type (500 under --quick, 40
 * under a sanitizer): log-uniform up to 2^20 items, one case in a hundred
 * up to 2^23 (thousands of tiles), mean run lengths 1 to 4096, on the tuned
 * default and on the box with the smallest tile, plus. */
static void test_reduce_by_key_random_sizes(void) {
  const int cases = tb_test.sanitizer ? 40 : tb_test.quick ? 500 : 10000;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 4);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    const tb_launch_box *smallest = &grid[0];
    for (int b = 1; b < n_grid; ++b)
      if (grid[b].nt * grid[b].vt < smallest->nt * smallest->vt) smallest = &grid[b];
    for (int i = 0; i < cases && failures < kMaxFailures; ++i) {
      const int max_log = tb_rng_range(&r, 0, 99) == 0 ? 23 : 20;
      const int64_t n =
          1 + (int64_t)(tb_rng_next(&r) % ((uint64_t)1 << tb_rng_range(&r, 0, max_log)));
      const int64_t len = (int64_t)1 << tb_rng_range(&r, 0, 12);
      const geo_case c = spec_case(TB_GEOM_UNIFORM, (double)(len < n ? len : n), true, n);
      geom g;
      keyset k;
      memset(&k, 0, sizeof k);
      if (!geom_make(&g, &c, false, &r) || !keyset_make(&k, &g, i % 4, &r)) {
        ++failures;
      } else {
        values v;
        if (!values_make(&v, (tb_type)t, TB_OP_PLUS, k.count, &r) ||
            !check_rbk(&k, &v, i % 8, i % 2 ? smallest : NULL, &scratch, &o))
          ++failures;
        values_free(&v);
      }
      keyset_free(&k);
      geom_free(&g);
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* count == 0 gives no runs (to the host and the device); the tuned default on
 * up to 2^22 items with plus. */
static void test_reduce_by_key_empty_and_large(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 3);
  outputs o = {0};
  if (outputs_reserve(&o, 16)) {
    for (int t = 0; t < TB_TYPE_COUNT; ++t) {
      int64_t h_runs = -1;
      int32_t d_runs = -1;
      char what[160];
      snprintf(what, sizeof what, "reduce_by_key %s count=0 (seed %llu)", tb_type_name((tb_type)t),
               (unsigned long long)tb_test.seed);
      if (poison(o.dev_num.ptr, 4) &&
          TB_ASSERT_OK(
              tb_reduce_by_key((tb_type)t, TB_OP_PLUS, o.dev_keys.ptr, o.dev.ptr, 0, o.dev_keys.ptr,
                               o.dev.ptr, &h_runs, o.dev_num.ptr, NULL, NULL, 0),
              what) &&
          seg_fetch(&o.dev_num, &d_runs, sizeof d_runs, what)) {
        count_matches(h_runs, 0, what, "host count");
        count_matches(d_runs, 0, what, "device count");
      }
    }
  }
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 16.0, true, n),
                            spec_case(TB_GEOM_ALL_ONE, 1.0, true, n),
                            spec_case(TB_GEOM_POWER_LAW, 64.0, false, n)};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    geom g;
    keyset k;
    memset(&k, 0, sizeof k);
    if (geom_make(&g, &cases[c], false, &r) && keyset_make(&k, &g, (int)c, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        values v;
        if (values_make(&v, (tb_type)t, TB_OP_PLUS, k.count, &r))
          check_rbk(&k, &v, 5, NULL, NULL, &o);
        values_free(&v);
      }
    keyset_free(&k);
    geom_free(&g);
  }
  outputs_free(&o);
}
/* ---- real-valued data: the rounding bound -------------------------------------------- */

/* Uniform [-1, 1) floats and doubles over a geometry's runs with plus
 * against the higher-precision reference and tb_sum_error_bound. */
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
      geom g;
      values v;
      memset(&v, 0, sizeof v);
      double *sum_abs = NULL;
      if (geom_make(&g, &cases[c], c == 1, &r) && values_make_real(&v, (tb_type)t, n, &r) &&
          outputs_reserve(&o, g.count > g.num_segments ? g.count : g.num_segments) &&
          (sum_abs = malloc(sizeof(double) * (size_t)o.cap)) != NULL) {
        CU_ASSERT_EQUAL(g.count, n); /* neither geometry adds items */
        for (int b = 0; b < 3 && g.count == n; ++b) {
          const int64_t depth = rounding_depth_for((tb_type)t, boxes[b], g.count);
          keyset k;
          if (keyset_make(&k, &g, 0, &r)) {
            char what[480];
            describe(what, sizeof what, "reduce_by_key", (tb_type)t, TB_OP_PLUS, "real data",
                     boxes[b], k.name);
            int64_t runs = -1;
            int32_t want_runs = 0;
            if (TB_ASSERT_OK(
                    tb_reduce_by_key((tb_type)t, TB_OP_PLUS, k.d_keys.ptr, v.dev.ptr, k.count, NULL,
                                     o.dev.ptr, &runs, NULL, boxes[b], NULL, 0),
                    what) &&
                rbk_reference(&k, &v, &o, &want_runs, sum_abs) &&
                count_matches(runs, want_runs, what, "host count") &&
                seg_fetch(&o.dev, o.got, (size_t)want_runs * tb_type_size((tb_type)t), what))
              check_real_bound((tb_type)t, sum_abs, depth, want_runs, o.got, o.want, what);
          }
          keyset_free(&k);
        }
      }
      free(sum_abs);
      values_free(&v);
      geom_free(&g);
    }
  }
  outputs_free(&o);
}

/* ---- preprocess + apply ------------------------------------------------------------- */

/* One plan per type x box (the default, the first and the last of the grid)
 * x geometry, over keys made from the geometry's segments: the run count
 * and keys the preprocess reports, then the plan applied to several value
 * arrays and every operator. */
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
      plan_cases(tile_of((tb_type)t, boxes[b]), cases);
      for (int c = 0; c < 4 && failures < kMaxFailures; ++c) {
        char form[64];
        geom g;
        keyset k;
        memset(&k, 0, sizeof k);
        if (!geom_make(&g, &cases[c], false, &r) || !keyset_make(&k, &g, c, &r) ||
            !outputs_reserve(&o, g.count > g.num_segments ? g.count : g.num_segments)) {
          ++failures;
          keyset_free(&k);
          geom_free(&g);
          continue;
        }
        tb_seg_plan *plan = NULL;
        char what[480];
        int64_t h_runs = -1;
        int32_t d_runs = -1, runs = 0;
        describe(what, sizeof what, "reduce_by_key_preprocess", (tb_type)t, TB_OP_PLUS, "",
                 boxes[b], k.name);
        if (poison(o.dev_keys.ptr, sizeof(int32_t) * (size_t)k.count) &&
            poison(o.dev_num.ptr, sizeof(int32_t)) &&
            TB_ASSERT_OK(
                tb_reduce_by_key_preprocess((tb_type)t, k.d_keys.ptr, k.count, o.dev_keys.ptr,
                                            &h_runs, o.dev_num.ptr, boxes[b], &plan, 0),
                what)) {
          /* What the preprocess reported: the run count and keys (the keys
           * serve as int32 values for the reference). */
          if (TB_ASSERT_OK(tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, k.keys, k.keys, k.count,
                                                o.want, o.want_keys, &runs),
                           "cpu reduce_by_key")) {
            count_matches(h_runs, runs, what, "host count from preprocess");
            if (seg_fetch(&o.dev_num, &d_runs, sizeof d_runs, what))
              count_matches(d_runs, runs, what, "device count from preprocess");
            char kwhat[520];
            snprintf(kwhat, sizeof kwhat, "%s (keys)", what);
            if (seg_fetch(&o.dev_keys, o.got_keys, sizeof(int32_t) * (size_t)runs, kwhat))
              seg_compare(TB_INT32, o.got_keys, o.want_keys, NULL, runs, kwhat);
          }
          for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op)
            for (int rep = 0; rep < reps && op_swept_at((tb_type)t, op, boxes[b]); ++rep) {
              values v;
              snprintf(form, sizeof form, "apply #%d", rep);
              describe(what, sizeof what, "reduce_by_key", (tb_type)t, (tb_op)op, form, boxes[b],
                       k.name);
              if (!values_make(&v, (tb_type)t, (tb_op)op, k.count, &r) ||
                  !rbk_reference(&k, &v, &o, &runs, NULL) ||
                  !poison(o.dev.ptr, (size_t)runs * tb_type_size((tb_type)t)) ||
                  !TB_ASSERT_OK(tb_reduce_by_key_apply(plan, (tb_op)op, v.dev.ptr, o.dev.ptr,
                                                       rep ? NULL : &scratch, 0),
                                what) ||
                  !seg_fetch(&o.dev, o.got, (size_t)runs * tb_type_size((tb_type)t), what) ||
                  !seg_compare((tb_type)t, o.got, o.want, NULL, runs, what))
                ++failures;
              values_free(&v);
            }
        } else {
          ++failures;
        }
        tb_seg_plan_free(plan);
        keyset_free(&k);
        geom_free(&g);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* A plan over no items: no runs, and every apply succeeds; the apply
 * refuses the other kinds' plans and an operator the type does not take. */
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
    char what[400];
    describe(what, sizeof what, "plans over no items", (tb_type)t, TB_OP_PLUS, "", NULL, g.name);
    int64_t h_runs = -1;
    if (plans_over_no_items((tb_type)t, &g, &seg, &sp, &rbk, &h_runs)) {
      count_matches(h_runs, 0, what, "host count");
      for (int op = 0; op < TB_OP_COUNT; ++op) {
        if (!op_fits((tb_type)t, op)) continue;
        describe(what, sizeof what, "apply over no items", (tb_type)t, (tb_op)op, "", NULL, g.name);
        TB_ASSERT_OK(tb_reduce_by_key_apply(rbk, (tb_op)op, g.d_sources.ptr, o.dev.ptr, NULL, 0),
                     what);
      }
      /* The wrong kind of plan, and an operator the type does not take. */
      void *out = o.dev.ptr;
      const void *in = g.d_sources.ptr;
      const char *const RA = "tb_reduce_by_key_apply";
      TB_EXPECT_REJECTS(tb_reduce_by_key_apply(seg, TB_OP_PLUS, in, out, NULL, 0), RA,
                        "the plan was made for segreduce, not reduce_by_key");
      TB_EXPECT_REJECTS(tb_reduce_by_key_apply(sp, TB_OP_PLUS, in, out, NULL, 0), RA,
                        "the plan was made for spmv, not reduce_by_key");
      if (tb_type_is_float((tb_type)t)) /* a float plan with bit_or */
        TB_EXPECT_REJECTS(tb_reduce_by_key_apply(rbk, TB_OP_BIT_OR, in, out, NULL, 0), RA,
                          "operator bit_or does not apply to ", tb_type_name((tb_type)t));
    }
    tb_seg_plan_free(seg), tb_seg_plan_free(sp), tb_seg_plan_free(rbk);
  }
  geom_free(&g);
  outputs_free(&o);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void test_bad_input(void) {
  enum { C = kBadCount };
  bad_input f;
  if (!bad_input_begin(&f)) goto done;
  const int32_t *zeros = f.zeros.ptr;
  const void *in = f.zeros.ptr;
  void *out = f.out.ptr;
  int64_t h_runs = 0;
  const int64_t big = (int64_t)INT32_MAX + 1;
  const tb_launch_box half = {128, 0}, zero_nt = {0, 7};
  tb_launch_box grid[kMaxBoxes], off_grid[16];
  const int n_grid = grid_of(TB_FLOAT, grid), n_off = boxes_off_grid(TB_FLOAT, off_grid, 16);
  tb_seg_plan *p = NULL;
  const char *const RK = "tb_reduce_by_key", *const RP = "tb_reduce_by_key_preprocess";
  const char *const RA = "tb_reduce_by_key_apply";
  const char *const RK_GRID = "is not in the reduce_by_key grid";

  for (int i = 0; i < n_off; ++i) {
    char box[64]; /* a box not in the grid */
    snprintf(box, sizeof box, "launch box %dx%d", off_grid[i].nt, off_grid[i].vt);
    TB_EXPECT_REJECTS(tb_reduce_by_key(TB_FLOAT, TB_OP_PLUS, zeros, in, C, NULL, out, &h_runs, NULL,
                                       &off_grid[i], NULL, 0),
                      RK, box, RK_GRID);
  }
  /* A box of the grid that min is not compiled at for the one-pass
   * reduce-by-key (plus has every box, the other operators its tuned ones). */
  for (int i = 0; i < n_grid; ++i) {
    if (by_key_op_at_box(TB_FLOAT, TB_OP_MIN, &grid[i])) continue;
    char box[64];
    snprintf(box, sizeof box, "launch box %dx%d", grid[i].nt, grid[i].vt);
    TB_EXPECT_REJECTS(tb_reduce_by_key(TB_FLOAT, TB_OP_MIN, zeros, in, C, NULL, out, &h_runs, NULL,
                                       &grid[i], NULL, 0),
                      RK, box, "is not compiled for reduce_by_key over float with operator min");
    break;
  }

  /* tb_reduce_by_key */
  TB_EXPECT_REJECTS(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, in, -1, NULL, out, &h_runs, NULL,
                                     NULL, NULL, 0),
                    RK, "count = -1", kRange0);
  TB_EXPECT_REJECTS(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, in, big, NULL, out, &h_runs, NULL,
                                     NULL, NULL, 0),
                    RK, "count = 2147483648", kRange0);
  TB_EXPECT_REJECTS(
      tb_reduce_by_key(TB_INT32, TB_OP_PLUS, NULL, in, C, NULL, out, &h_runs, NULL, NULL, NULL, 0),
      RK, "d_keys is NULL");
  TB_EXPECT_REJECTS(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, NULL, C, NULL, out, &h_runs, NULL,
                                     NULL, NULL, 0),
                    RK, "d_values is NULL");
  TB_EXPECT_REJECTS(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, in, C, NULL, NULL, &h_runs, NULL,
                                     NULL, NULL, 0),
                    RK, "d_values_out is NULL");
  TB_EXPECT_REJECTS(tb_reduce_by_key((tb_type)-1, TB_OP_PLUS, zeros, in, C, NULL, out, &h_runs,
                                     NULL, NULL, NULL, 0),
                    RK, "unknown type -1");
  TB_EXPECT_REJECTS(tb_reduce_by_key(TB_FLOAT, TB_OP_BIT_OR, zeros, in, C, NULL, out, &h_runs, NULL,
                                     NULL, NULL, 0),
                    RK, "operator bit_or does not apply to float");
  TB_EXPECT_REJECTS(tb_reduce_by_key(TB_FLOAT, TB_OP_PLUS, zeros, in, C, NULL, out, &h_runs, NULL,
                                     &half, NULL, 0),
                    RK, "launch box 128x0", RK_GRID);

  /* preprocess (its boxes are segreduce's grid) */
  TB_EXPECT_REJECTS(
      tb_reduce_by_key_preprocess(TB_INT32, zeros, C, NULL, NULL, NULL, NULL, NULL, 0), RP,
      "plan is NULL");
  EXPECT_NO_PLAN(p, tb_reduce_by_key_preprocess(TB_INT32, NULL, C, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "d_keys is NULL");
  EXPECT_NO_PLAN(p, tb_reduce_by_key_preprocess(TB_INT32, zeros, -1, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "count = -1", kRange0);
  EXPECT_NO_PLAN(p,
                 tb_reduce_by_key_preprocess(TB_INT32, zeros, big, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "count = 2147483648", kRange0);
  EXPECT_NO_PLAN(p,
                 tb_reduce_by_key_preprocess((tb_type)7, zeros, C, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "unknown type 7");
  EXPECT_NO_PLAN(p,
                 tb_reduce_by_key_preprocess(TB_INT32, zeros, C, NULL, NULL, NULL, &zero_nt, &p, 0),
                 RP, "launch box 0x7", kNotInGrid);

  /* apply (the plans are float) */
  TB_EXPECT_REJECTS(tb_reduce_by_key_apply(NULL, TB_OP_PLUS, in, out, NULL, 0), RA, "plan is NULL");
  TB_EXPECT_REJECTS(tb_reduce_by_key_apply(f.rbk, TB_OP_PLUS, NULL, out, NULL, 0), RA,
                    "d_values is NULL");
  TB_EXPECT_REJECTS(tb_reduce_by_key_apply(f.rbk, TB_OP_PLUS, in, NULL, NULL, 0), RA,
                    "d_values_out is NULL");

  bad_input_check_clean(&f);
done:
  bad_input_end(&f);
}

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

/* Reduce-by-key takes any keys: a malformed descriptor's offsets as keys
 * (num_segments of them, num_segments <= count values). Outputs carry guard
 * zones. */
static bool run_malformed(const malformed *mc, int32_t num_segments, int32_t count, int32_t x_len,
                          tb_type t, tb_rng *r) {
  malformed_inputs d;
  guarded keys_out = {0}, rbk_out = {0}, num = {0};
  bool ok = false;
  if (!malformed_upload(&d, mc, num_segments, count, x_len, t, r) ||
      !guarded_make(&keys_out, 4, num_segments) ||
      !guarded_make(&rbk_out, tb_type_size(t), num_segments) || !guarded_make(&num, 4, 1))
    goto done;
  const guarded *o3[] = {&keys_out, &rbk_out, &num};
  int64_t runs = 0;
  const tb_status st =
      tb_reduce_by_key(t, TB_OP_PLUS, d.csr.ptr, d.in.ptr, num_segments, guarded_mid(&keys_out),
                       guarded_mid(&rbk_out), &runs, guarded_mid(&num), NULL, NULL, 0);
  ok = after_call(st, o3, 3, mc->label, "reduce_by_key, offsets as keys");
done:
  malformed_inputs_free(&d);
  tb_buffer_free(&keys_out.b), tb_buffer_free(&rbk_out.b), tb_buffer_free(&num.b);
  return ok;
}

static void test_malformed_memory_safe(void) { for_each_malformed(run_malformed); }

int main(int argc, char **argv) {
  static const CU_TestInfo tests[] = {
      {"every type x op x box x runs", test_reduce_by_key_every_case},
      {"no items, default box large", test_reduce_by_key_empty_and_large},
      {"look-back over random sizes", test_reduce_by_key_random_sizes},
      {"real data: rounding bound", test_real_data_rounding_bound},
      {"preprocess + apply", test_preprocess_apply},
      {"plans: no items, wrong kind", test_plan_edges},
      {"bad input", test_bad_input},
      {"malformed descriptors stay memory safe", test_malformed_memory_safe},
      CU_TEST_INFO_NULL,
  };
  return tb_test_main(argc, argv, "reduce_by_key_test", tests);
}
