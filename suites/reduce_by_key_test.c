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

/* The one-pass reduce-by-key has operators other than plus at boxes of its
 * own. */
static bool by_key_op_at_box(tb_type t, int op, const tb_launch_box *box) {
  return seg_in_op_grid(tb_reduce_by_key_grid, t, op, box);
}

/* The box of t's grid with the smallest tile: the most tiles a size makes. */
static tb_launch_box smallest_box(tb_type t) {
  tb_launch_box grid[kMaxBoxes];
  const int n_grid = seg_grid_of(t, grid);
  tb_launch_box smallest = grid[0];
  for (int b = 1; b < n_grid; ++b)
    if (grid[b].nt * grid[b].vt < smallest.nt * smallest.vt) smallest = grid[b];
  return smallest;
}

/* One plus reduce-by-key of n items, uniform runs of mean len, key pattern
 * `keys` (seg_keyset_make), output variant `variant`, checked against the
 * CPU; with dirty >= 0 checked again after tb_test_dirty_scratch(dirty). */
static bool rbk_case(tb_type t, double len, int64_t n, int keys, int variant,
                     const tb_launch_box *box, int dirty, tb_rng *r, tb_buffer *scratch,
                     seg_outputs *o) {
  const seg_case c = seg_spec_case(TB_GEOM_UNIFORM, len, true, n);
  seg_geom g;
  seg_keyset k;
  seg_values v;
  memset(&k, 0, sizeof k);
  memset(&v, 0, sizeof v);
  const bool ok = seg_geom_make(&g, &c, false, r) && seg_keyset_make(&k, &g, keys, r) &&
                  seg_values_make(&v, t, TB_OP_PLUS, k.count, r) &&
                  seg_check_rbk(&k, &v, variant, box, scratch, o) &&
                  (dirty < 0 || (tb_test_dirty_scratch(scratch, dirty, r) &&
                                 seg_check_rbk(&k, &v, variant, box, scratch, o)));
  seg_values_free(&v);
  seg_keyset_free(&k);
  seg_geom_free(&g);
  return ok;
}

/* Every type x operator x box x run-length geometry x key pattern; the
 * output options rotate over the cases. */
TB_TEST(test_reduce_by_key_every_case, "every type x op x box x runs") {
  seg_every_case(SEG_REDUCE_BY_KEY, 2);
}

/* The look-back over 10^4 random sizes per type (500 under --quick, 40
 * under a sanitizer): log-uniform up to 2^20 items, one case in a hundred
 * up to 2^23 (thousands of tiles), mean run lengths 1 to 4096, on the tuned
 * default and on the box with the smallest tile, plus. */
TB_TEST(test_reduce_by_key_random_sizes, "look-back over random sizes") {
  const int cases = tb_test.sanitizer ? 40 : tb_test.quick ? 500 : 10000;
  tb_rng r = tb_test_rng(4);
  tb_buffer scratch = {0};
  seg_outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    const tb_launch_box smallest = smallest_box((tb_type)t);
    for (int i = 0; i < cases && failures < kMaxFailures; ++i) {
      const int max_log = tb_rng_range(&r, 0, 99) == 0 ? 23 : 20;
      const int64_t n =
          1 + (int64_t)(tb_rng_next(&r) % ((uint64_t)1 << tb_rng_range(&r, 0, max_log)));
      const int64_t len = (int64_t)1 << tb_rng_range(&r, 0, 12);
      if (!rbk_case((tb_type)t, (double)(len < n ? len : n), n, i % 4, i % 8,
                    i % 2 ? &smallest : NULL, -1, &r, &scratch, &o))
        ++failures;
    }
  }
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* Scratch that other work left dirty (tb_test_dirty_scratch): the
 * look-back's status words of values up to 4 bytes count only with the
 * call's tag; 8-byte values' are zeroed. Every type, the default box and the
 * smallest, 2^20 + 3 items (2^14 + 3 under a sanitizer), runs of 1 to 64. */
TB_TEST(test_reduce_by_key_dirty_scratch, "look-back over scratch left dirty") {
  const int64_t n = tb_test.sanitizer ? (1 << 14) + 3 : (1 << 20) + 3;
  tb_rng r = tb_test_rng(0xd1);
  tb_buffer scratch = {0};
  seg_outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    const tb_launch_box smallest = smallest_box((tb_type)t);
    for (int i = 0; i < 2 * TB_TEST_DIRTY_PATTERNS && failures < kMaxFailures; ++i) {
      if (!rbk_case((tb_type)t, (double)(1 << (i % 4 * 2)), n, i % 4, 0, i % 2 ? &smallest : NULL,
                    i / 2, &r, &scratch, &o))
        ++failures;
    }
  }
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* count == 0 gives no runs (to the host and the device); the tuned default on
 * up to 2^22 items with plus. */
TB_TEST(test_reduce_by_key_empty_and_large, "no items, default box large") {
  tb_rng r = tb_test_rng(3);
  seg_outputs o = {0};
  if (seg_outputs_reserve(&o, 16)) {
    for (int t = 0; t < TB_TYPE_COUNT; ++t) {
      int64_t h_runs = -1;
      int32_t d_runs = -1;
      char what[160];
      snprintf(what, sizeof what, "reduce_by_key %s count=0 (seed %llu)", tb_type_name((tb_type)t),
               (unsigned long long)tb_test.seed);
      if (seg_poison(o.dev_num.ptr, 4) &&
          TB_ASSERT_OK(
              tb_reduce_by_key((tb_type)t, TB_OP_PLUS, o.dev_keys.ptr, o.dev.ptr, 0, o.dev_keys.ptr,
                               o.dev.ptr, &h_runs, o.dev_num.ptr, NULL, NULL, 0),
              what) &&
          seg_fetch(&o.dev_num, &d_runs, sizeof d_runs, what)) {
        seg_count_matches(h_runs, 0, what, "host count");
        seg_count_matches(d_runs, 0, what, "device count");
      }
    }
  }
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const seg_case cases[] = {seg_spec_case(TB_GEOM_UNIFORM, 16.0, true, n),
                            seg_spec_case(TB_GEOM_ALL_ONE, 1.0, true, n),
                            seg_spec_case(TB_GEOM_POWER_LAW, 64.0, false, n)};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    seg_geom g;
    seg_keyset k;
    memset(&k, 0, sizeof k);
    if (seg_geom_make(&g, &cases[c], false, &r) && seg_keyset_make(&k, &g, (int)c, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        seg_values v;
        if (seg_values_make(&v, (tb_type)t, TB_OP_PLUS, k.count, &r))
          seg_check_rbk(&k, &v, 5, NULL, NULL, &o);
        seg_values_free(&v);
      }
    seg_keyset_free(&k);
    seg_geom_free(&g);
  }
  seg_outputs_free(&o);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void bad_input(seg_bad_input *f) {
  enum { C = kBadCount };
  const int32_t *zeros = f->zeros.ptr;
  const void *in = f->zeros.ptr;
  void *out = f->out.ptr;
  int64_t h_runs = 0;
  const int64_t big = (int64_t)INT32_MAX + 1;
  const tb_launch_box half = {128, 0}, zero_nt = {0, 7};
  tb_launch_box grid[kMaxBoxes], off_grid[16];
  const int n_grid = seg_grid_of(TB_FLOAT, grid),
            n_off = seg_boxes_off_grid(TB_FLOAT, off_grid, 16);
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
  TB_EXPECT_REJECTS(tb_reduce_by_key_apply(f->rbk, TB_OP_PLUS, NULL, out, NULL, 0), RA,
                    "d_values is NULL");
  TB_EXPECT_REJECTS(tb_reduce_by_key_apply(f->rbk, TB_OP_PLUS, in, NULL, NULL, 0), RA,
                    "d_values_out is NULL");
}

TB_TEST(test_bad_input, "bad input") { seg_with_bad_input(bad_input); }

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

/* Reduce-by-key takes any keys: a malformed descriptor's offsets as keys
 * (num_segments of them, num_segments <= count values). Outputs carry guard
 * zones. */
static bool run_malformed(seg_malformed_case *c) {
  seg_guarded keys_out = {0}, num = {0};
  bool ok = false;
  if (seg_guarded_make(&keys_out, 4, c->num_segments) && seg_guarded_make(&num, 4, 1)) {
    const seg_guarded *o3[] = {&keys_out, &c->out, &num};
    int64_t runs = 0;
    const tb_status st = tb_reduce_by_key(
        c->t, TB_OP_PLUS, c->d.csr.ptr, c->d.in.ptr, c->num_segments, seg_guarded_mid(&keys_out),
        seg_guarded_mid(&c->out), &runs, seg_guarded_mid(&num), NULL, NULL, 0);
    ok = seg_after_call(st, o3, 3, c->mc->label, "reduce_by_key, offsets as keys");
  }
  tb_buffer_free(&keys_out.b), tb_buffer_free(&num.b);
  return ok;
}

TB_TEST(test_malformed_memory_safe, "malformed descriptors stay memory safe") {
  seg_for_each_malformed(run_malformed);
}

int main(int argc, char **argv) {
  return seg_suite_main(argc, argv, "reduce_by_key_test", SEG_REDUCE_BY_KEY);
}
