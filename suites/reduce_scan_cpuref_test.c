/* CPU references for reduce and scan, and the OpenMP-style clause built on
 * them: golden vectors from moderngpu, "Reduce and Scan" (kept in
 * suites/testdata/reduce_scan.txt), plus the edge cases the GPU suites lean
 * on (identities, wrap-around, in place, argument errors, the
 * higher-precision float reference). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "core/rng.h"
#include "core/status.h"
#include "core/types.h"
#include "cpuref/omp_reduce.h"
#include "cpuref/reduce_scan.h"
#include "suites/cpu_testing.h"

/* ---- Golden vectors (suites/testdata/reduce_scan.txt). ------------------- */

static const char kGolden[] = "suites/testdata/reduce_scan.txt";

static const int32_t *golden(const char *name, int n) { return tb_golden(kGolden, name, n); }

/* A scan the document prints: op over the n values of vector input gives
 * vector output and the total. */
typedef struct golden_scan {
  const char *input, *output;
  tb_op op;
  bool inclusive;
  int n;
  int32_t total;
} golden_scan;

static const golden_scan kDemo = {"demo.input", "demo.exclusive", TB_OP_PLUS, false, 100, 492};
static const golden_scan kMax = {"max.input", "max.inclusive", TB_OP_MAX, true, 100, 988};
static const golden_scan kSmall[] = {
    {"small.input", "small.exclusive", TB_OP_PLUS, false, 20, 87},
    {"small.input", "small.inclusive", TB_OP_PLUS, true, 20, 87},
};
/* The whole input, and the spine over the threads' partials. */
static const golden_scan kRaking[] = {
    {"raking.input", "raking.exclusive", TB_OP_PLUS, false, 100, 448},
    {"raking.partials", "raking.partials_exclusive", TB_OP_PLUS, false, 20, 448},
};

/* ---- Helpers. ------------------------------------------------------------ */

static const tb_type kAllTypes[] = {TB_INT32, TB_INT64, TB_FLOAT, TB_DOUBLE};
static const tb_op kAllOps[] = {TB_OP_PLUS,    TB_OP_MIN,     TB_OP_MAX,
                                TB_OP_MULTIPLIES, TB_OP_BIT_AND, TB_OP_BIT_OR,
                                TB_OP_BIT_XOR};

/* Bit-for-bit for integers; for floats equal, or both NaN. */
static bool value_eq(tb_type t, tb_value a, tb_value b) {
  switch (t) {
    case TB_INT32: return a.i32 == b.i32;
    case TB_INT64: return a.i64 == b.i64;
    case TB_FLOAT: return a.f32 == b.f32 || (isnan(a.f32) && isnan(b.f32));
    case TB_DOUBLE: return a.f64 == b.f64 || (isnan(a.f64) && isnan(b.f64));
    default: return false;
  }
}

/* First index where got (type t) differs from want; -1 if none. Reports the
 * mismatch so that a failure says where. */
static int first_mismatch(const char *what, tb_type t, const void *got,
                          const int32_t *want, int n) {
  for (int i = 0; i < n; ++i) {
    tb_value g = tb_load(t, got, i);
    if (!value_eq(t, g, tb_test_from_i64(t, want[i]))) {
      printf("\n  %s %s: index %d expected %d got %.17g\n", what,
             tb_type_name(t), i, want[i], tb_test_as_double(t, g));
      return i;
    }
  }
  return -1;
}

static int first_mismatch_f64(const char *what, const double *got,
                              const int32_t *want, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != (double)want[i]) {
      printf("\n  %s: index %d expected %d got %.17g\n", what, i, want[i],
             got[i]);
      return i;
    }
  }
  return -1;
}

/* Check a golden (input, scan, total) triple through every type that fits op:
 * tb_cpu_reduce, tb_cpu_scan (out of place and in place), and for floating
 * types tb_cpu_reduce_f64 / tb_cpu_scan_f64. The data are small integers, so
 * every type represents them and every result exactly. */
static void check_golden(tb_op op, bool inclusive, const int32_t *in,
                         const int32_t *want, int n, int32_t want_total) {
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    if (!tb_test_fits(t, op)) continue;
    tb_value want_v = tb_test_from_i64(t, want_total);
    void *src = tb_test_convert(t, in, n);
    void *out = malloc((size_t)n * tb_type_size(t));

    tb_value total;
    CU_ASSERT_EQUAL(tb_cpu_reduce(t, op, src, n, &total), TB_OK);
    CU_ASSERT(value_eq(t, total, want_v));

    memset(&total, 0, sizeof total);
    CU_ASSERT_EQUAL(tb_cpu_scan(t, op, inclusive, src, out, n, &total), TB_OK);
    CU_ASSERT(value_eq(t, total, want_v));
    CU_ASSERT_EQUAL(first_mismatch("scan", t, out, want, n), -1);

    CU_ASSERT_EQUAL(tb_cpu_scan(t, op, inclusive, src, src, n, NULL), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch("in-place scan", t, src, want, n), -1);

    if (tb_type_is_float(t)) {
      void *src2 = tb_test_convert(t, in, n);
      double *out_d = malloc((size_t)n * sizeof(double));
      double tot_d = -1.0;
      CU_ASSERT_EQUAL(tb_cpu_reduce_f64(t, op, src2, n, &tot_d, NULL), TB_OK);
      CU_ASSERT_EQUAL(tot_d, (double)want_total);
      tot_d = -1.0;
      CU_ASSERT_EQUAL(tb_cpu_scan_f64(t, op, inclusive, src2, out_d, n, &tot_d,
                                      NULL, NULL),
                      TB_OK);
      CU_ASSERT_EQUAL(tot_d, (double)want_total);
      CU_ASSERT_EQUAL(first_mismatch_f64("scan_f64", out_d, want, n), -1);
      free(out_d);
      free(src2);
    }
    free(out);
    free(src);
  }
}

/* check_golden on a scan of the document. */
static void check_golden_scan(const golden_scan *c) {
  check_golden(c->op, c->inclusive, golden(c->input, c->n), golden(c->output, c->n), c->n,
               c->total);
}

/* tb_cpu_reduce over c's input, as int32, gives c's total. */
static void check_reduce_i32(const golden_scan *c) {
  tb_value total;
  CU_ASSERT_EQUAL(tb_cpu_reduce(TB_INT32, c->op, golden(c->input, c->n), c->n, &total), TB_OK);
  CU_ASSERT_EQUAL(total.i32, c->total);
}

/* ---- Golden vectors. ----------------------------------------------------- */

TB_TEST(test_demo_reduce, "demo reduce (492)") { check_reduce_i32(&kDemo); }

TB_TEST(test_demo_exclusive_scan, "demo exclusive scan") { check_golden_scan(&kDemo); }

TB_TEST(test_max_demo, "max-reduce demo (988)") {
  /* The demo passes INT_MIN as the identity of maximum. */
  CU_ASSERT_EQUAL(tb_identity(TB_INT32, TB_OP_MAX).i32, INT32_MIN);
  check_reduce_i32(&kMax);
  check_golden_scan(&kMax);
}

TB_TEST(test_small_example, "20-value example (87)") {
  for (int k = 0; k < TB_COUNT(kSmall); ++k) check_golden_scan(&kSmall[k]);
}

TB_TEST(test_raking_example, "raking example (448)") {
  check_golden_scan(&kRaking[0]);
  /* The upsweep partials are reductions of each thread's 5 values, and the
   * spine is their exclusive scan. */
  const golden_scan *whole = &kRaking[0], *spine = &kRaking[1];
  const int32_t *in = golden(whole->input, whole->n), *partials = golden(spine->input, spine->n);
  for (int t = 0; t < spine->n; ++t) {
    tb_value part;
    CU_ASSERT_EQUAL(tb_cpu_reduce(TB_INT32, TB_OP_PLUS, in + 5 * t, 5, &part), TB_OK);
    CU_ASSERT_EQUAL(part.i32, partials[t]);
  }
  check_golden_scan(&kRaking[1]);
}

/* ---- Edge cases. --------------------------------------------------------- */

TB_TEST(test_identity_for_empty_input, "identity for n = 0") {
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    for (int oi = 0; oi < TB_COUNT(kAllOps); ++oi) {
      tb_type t = kAllTypes[ti];
      tb_op op = kAllOps[oi];
      if (!tb_test_fits(t, op)) continue;
      tb_value id = tb_identity(t, op), total;

      memset(&total, 0x5a, sizeof total);
      CU_ASSERT_EQUAL(tb_cpu_reduce(t, op, NULL, 0, &total), TB_OK);
      CU_ASSERT(value_eq(t, total, id));

      for (int inc = 0; inc < 2; ++inc) {
        memset(&total, 0x5a, sizeof total);
        CU_ASSERT_EQUAL(tb_cpu_scan(t, op, inc, NULL, NULL, 0, &total), TB_OK);
        CU_ASSERT(value_eq(t, total, id));
      }

      if (tb_type_is_float(t)) {
        double id_d = tb_test_as_double(t, id), tot = 42.0, abs_sum = 42.0;
        CU_ASSERT_EQUAL(tb_cpu_reduce_f64(t, op, NULL, 0, &tot, &abs_sum),
                        TB_OK);
        CU_ASSERT_EQUAL(tot, id_d);
        CU_ASSERT_EQUAL(abs_sum, 0.0);
        tot = abs_sum = 42.0;
        CU_ASSERT_EQUAL(tb_cpu_scan_f64(t, op, false, NULL, NULL, 0, &tot,
                                        NULL, &abs_sum),
                        TB_OK);
        CU_ASSERT_EQUAL(tot, id_d);
        CU_ASSERT_EQUAL(abs_sum, 0.0);
      }
    }
  }
}

TB_TEST(test_in_place, "in-place scan") {
  const golden_scan *cases[] = {&kDemo, &kMax};
  for (int k = 0; k < TB_COUNT(cases); ++k) {
    const golden_scan *c = cases[k];
    const size_t bytes = (size_t)c->n * sizeof(int32_t);
    int32_t *buf = malloc(bytes);
    tb_value total;
    memcpy(buf, golden(c->input, c->n), bytes);
    CU_ASSERT_EQUAL(tb_cpu_scan(TB_INT32, c->op, c->inclusive, buf, buf, c->n, &total), TB_OK);
    CU_ASSERT_EQUAL(total.i32, c->total);
    CU_ASSERT_EQUAL(memcmp(buf, golden(c->output, c->n), bytes), 0);
    free(buf);
  }

  /* tb_cpu_scan_f64 on double input may write over its input. */
  const golden_scan *c = &kSmall[0];
  const int32_t *in = golden(c->input, c->n);
  double *d = malloc((size_t)c->n * sizeof *d);
  for (int i = 0; i < c->n; ++i) d[i] = in[i];
  double tot = 0.0;
  CU_ASSERT_EQUAL(tb_cpu_scan_f64(TB_DOUBLE, c->op, c->inclusive, d, d, c->n, &tot, NULL, NULL),
                  TB_OK);
  CU_ASSERT_EQUAL(tot, (double)c->total);
  CU_ASSERT_EQUAL(first_mismatch_f64("in-place scan_f64", d, golden(c->output, c->n), c->n), -1);
  free(d);
}

/* v as an int64, for the integer types. */
static int64_t int_value(tb_type t, tb_value v) { return t == TB_INT32 ? v.i32 : v.i64; }

TB_TEST(test_integer_wrap, "integer wrap-around") {
  /* Integer ops wrap around (two's complement), in reductions of two values
   * and in the running values of scans of three. */
  const struct {
    tb_type t;
    tb_op op;
    int64_t in[2], want;
  } reduce[] = {
      {TB_INT32, TB_OP_PLUS, {INT32_MAX, 1}, INT32_MIN},
      {TB_INT32, TB_OP_PLUS, {INT32_MIN, -1}, INT32_MAX},
      {TB_INT32, TB_OP_MULTIPLIES, {INT32_MAX, 2}, -2},
      {TB_INT64, TB_OP_PLUS, {INT64_MAX, 1}, INT64_MIN},
      {TB_INT64, TB_OP_MULTIPLIES, {INT64_MAX, 2}, -2},
  };
  const struct {
    tb_type t;
    bool inclusive;
    int64_t in[3], want[3], total;
  } scan[] = {
      {TB_INT32, true, {INT32_MAX, 1, 1}, {INT32_MAX, INT32_MIN, INT32_MIN + 1}, INT32_MIN + 1},
      {TB_INT64, false, {INT64_MAX, 1, 1}, {0, INT64_MAX, INT64_MIN}, INT64_MIN + 1},
  };
  union {
    int32_t i32[3];
    int64_t i64[3];
  } in, out;
  tb_value total;
  for (int k = 0; k < TB_COUNT(reduce); ++k) {
    tb_type t = reduce[k].t;
    for (int i = 0; i < 2; ++i) tb_store(t, &in, i, tb_test_from_i64(t, reduce[k].in[i]));
    CU_ASSERT_EQUAL(tb_cpu_reduce(t, reduce[k].op, &in, 2, &total), TB_OK);
    CU_ASSERT_EQUAL(int_value(t, total), reduce[k].want);
  }
  for (int k = 0; k < TB_COUNT(scan); ++k) {
    tb_type t = scan[k].t;
    for (int i = 0; i < 3; ++i) tb_store(t, &in, i, tb_test_from_i64(t, scan[k].in[i]));
    CU_ASSERT_EQUAL(tb_cpu_scan(t, TB_OP_PLUS, scan[k].inclusive, &in, &out, 3, &total), TB_OK);
    for (int i = 0; i < 3; ++i) CU_ASSERT_EQUAL(int_value(t, tb_load(t, &out, i)), scan[k].want[i]);
    CU_ASSERT_EQUAL(int_value(t, total), scan[k].total);
  }
}

TB_TEST(test_argument_errors, "argument errors") {
  const int32_t in[4] = {1, 2, 3, 4};
  const float in_f[4] = {1, 2, 3, 4};
  int32_t out[4];
  double out_d[4], tot_d;
  tb_value total;
  tb_clear_error();

  tb_test_expect_invalid("reduce n<0", tb_cpu_reduce(TB_INT32, TB_OP_PLUS, in, -1, &total), NULL);
  tb_test_expect_invalid("reduce NULL in", tb_cpu_reduce(TB_INT32, TB_OP_PLUS, NULL, 4, &total),
                         NULL);
  tb_test_expect_invalid("reduce NULL total", tb_cpu_reduce(TB_INT32, TB_OP_PLUS, in, 4, NULL),
                         NULL);
  tb_test_expect_invalid("reduce bad type", tb_cpu_reduce(TB_TYPE_COUNT, TB_OP_PLUS, in, 4, &total),
                         NULL);
  tb_test_expect_invalid("reduce negative type",
                         tb_cpu_reduce((tb_type)-1, TB_OP_PLUS, in, 4, &total), NULL);
  tb_test_expect_invalid("reduce bad op", tb_cpu_reduce(TB_INT32, TB_OP_COUNT, in, 4, &total),
                         NULL);
  tb_test_expect_invalid("reduce bitwise float",
                         tb_cpu_reduce(TB_FLOAT, TB_OP_BIT_XOR, in_f, 4, &total), NULL);
  tb_test_expect_invalid("reduce bitwise double",
                         tb_cpu_reduce(TB_DOUBLE, TB_OP_BIT_AND, in_f, 2, &total), NULL);

  tb_test_expect_invalid("scan n<0", tb_cpu_scan(TB_INT32, TB_OP_PLUS, false, in, out, -1, NULL),
                         NULL);
  tb_test_expect_invalid("scan NULL in",
                         tb_cpu_scan(TB_INT32, TB_OP_PLUS, false, NULL, out, 4, NULL), NULL);
  tb_test_expect_invalid("scan NULL out",
                         tb_cpu_scan(TB_INT32, TB_OP_PLUS, true, in, NULL, 4, &total), NULL);
  tb_test_expect_invalid("scan bad type",
                         tb_cpu_scan(TB_TYPE_COUNT, TB_OP_PLUS, true, in, out, 4, NULL), NULL);
  tb_test_expect_invalid("scan bad op", tb_cpu_scan(TB_INT64, (tb_op)99, true, in, out, 2, NULL),
                         NULL);
  tb_test_expect_invalid("scan bitwise float",
                         tb_cpu_scan(TB_FLOAT, TB_OP_BIT_OR, true, in_f, out, 4, NULL), NULL);

  tb_test_expect_invalid("reduce_f64 int32",
                         tb_cpu_reduce_f64(TB_INT32, TB_OP_PLUS, in, 4, &tot_d, NULL), NULL);
  tb_test_expect_invalid("reduce_f64 n<0",
                         tb_cpu_reduce_f64(TB_FLOAT, TB_OP_PLUS, in_f, -3, &tot_d, NULL), NULL);
  tb_test_expect_invalid("reduce_f64 NULL in",
                         tb_cpu_reduce_f64(TB_FLOAT, TB_OP_PLUS, NULL, 4, &tot_d, NULL), NULL);
  tb_test_expect_invalid("reduce_f64 NULL total",
                         tb_cpu_reduce_f64(TB_FLOAT, TB_OP_PLUS, in_f, 4, NULL, NULL), NULL);
  tb_test_expect_invalid("reduce_f64 bitwise",
                         tb_cpu_reduce_f64(TB_FLOAT, TB_OP_BIT_AND, in_f, 4, &tot_d, NULL), NULL);
  tb_test_expect_invalid(
      "scan_f64 int64",
      tb_cpu_scan_f64(TB_INT64, TB_OP_PLUS, false, in, out_d, 2, NULL, NULL, NULL), NULL);
  tb_test_expect_invalid(
      "scan_f64 NULL out",
      tb_cpu_scan_f64(TB_FLOAT, TB_OP_PLUS, false, in_f, NULL, 4, NULL, NULL, NULL), NULL);
  tb_test_expect_invalid(
      "scan_f64 NULL in",
      tb_cpu_scan_f64(TB_FLOAT, TB_OP_PLUS, false, NULL, out_d, 4, NULL, NULL, NULL), NULL);
  tb_test_expect_invalid(
      "scan_f64 n<0",
      tb_cpu_scan_f64(TB_DOUBLE, TB_OP_PLUS, false, in_f, out_d, -1, NULL, NULL, NULL), NULL);
  tb_test_expect_invalid(
      "scan_f64 bad op",
      tb_cpu_scan_f64(TB_DOUBLE, TB_OP_COUNT, false, in_f, out_d, 2, NULL, NULL, NULL), NULL);

  /* Nothing to read: no input array needed. */
  CU_ASSERT_EQUAL(tb_cpu_reduce(TB_INT32, TB_OP_PLUS, NULL, 0, &total), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_scan(TB_INT32, TB_OP_PLUS, true, NULL, NULL, 0, NULL),
                  TB_OK);
}

/* Random data for every pair: inclusive[n-1] == total == reduce, and the
 * scans satisfy their defining recurrences. */
TB_TEST(test_scan_relations, "scan relations, random data") {
  enum { N = 1000 };
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    for (int oi = 0; oi < TB_COUNT(kAllOps); ++oi) {
      tb_type t = kAllTypes[ti];
      tb_op op = kAllOps[oi];
      if (!tb_test_fits(t, op)) continue;
      size_t bytes = (size_t)N * tb_type_size(t);
      void *in = malloc(bytes), *inc = malloc(bytes), *exc = malloc(bytes);
      tb_rng rng;
      tb_rng_seed(&rng, 1234u + 16u * (unsigned)ti + (unsigned)oi);
      tb_fill_random(&rng, t, op, in, N);

      tb_value red, tot_inc, tot_exc;
      CU_ASSERT_EQUAL(tb_cpu_reduce(t, op, in, N, &red), TB_OK);
      CU_ASSERT_EQUAL(tb_cpu_scan(t, op, true, in, inc, N, &tot_inc), TB_OK);
      CU_ASSERT_EQUAL(tb_cpu_scan(t, op, false, in, exc, N, &tot_exc), TB_OK);
      CU_ASSERT(value_eq(t, tb_load(t, inc, N - 1), tot_inc));
      CU_ASSERT(value_eq(t, tot_inc, red));
      CU_ASSERT(value_eq(t, tot_exc, red));
      CU_ASSERT(value_eq(t, tb_load(t, exc, 0), tb_identity(t, op)));
      int bad = -1;
      for (int i = 0; i < N && bad < 0; ++i) {
        tb_value step = tb_apply(t, op, tb_load(t, exc, i), tb_load(t, in, i));
        if (!value_eq(t, step, tb_load(t, inc, i))) bad = i;
        if (i + 1 < N && !value_eq(t, step, tb_load(t, exc, i + 1))) bad = i;
      }
      if (bad >= 0)
        printf("\n  %s %s: recurrence broken at %d\n", tb_type_name(t),
               tb_op_name(op), bad);
      CU_ASSERT_EQUAL(bad, -1);

      if (tb_type_is_float(t)) {
        double *out_d = malloc((size_t)N * sizeof(double));
        double red_d, tot_d;
        CU_ASSERT_EQUAL(tb_cpu_reduce_f64(t, op, in, N, &red_d, NULL), TB_OK);
        CU_ASSERT_EQUAL(tb_cpu_scan_f64(t, op, true, in, out_d, N, &tot_d,
                                        NULL, NULL),
                        TB_OK);
        CU_ASSERT_EQUAL(out_d[N - 1], tot_d);
        CU_ASSERT_EQUAL(tot_d, red_d);
        free(out_d);
      }
      free(in);
      free(inc);
      free(exc);
    }
  }
}

TB_TEST(test_bitwise, "bitwise ops") {
  const int32_t a[] = {0xFF, 0x0F, 0x3C};
  const int32_t and_inc[] = {0xFF, 0x0F, 0x0C};
  const int32_t and_exc[] = {-1, 0xFF, 0x0F};
  const int32_t o[] = {0x01, 0x04, 0x10};
  const int32_t or_exc[] = {0x00, 0x01, 0x05};
  const int32_t x[] = {0x0F, 0xFF, 0x33};
  const int32_t xor_inc[] = {0x0F, 0xF0, 0xC3};
  check_golden(TB_OP_BIT_AND, true, a, and_inc, 3, 0x0C);
  check_golden(TB_OP_BIT_AND, false, a, and_exc, 3, 0x0C);
  check_golden(TB_OP_BIT_OR, false, o, or_exc, 3, 0x15);
  check_golden(TB_OP_BIT_XOR, true, x, xor_inc, 3, 0xC3);

  /* int64: the high half takes part. */
  tb_value total;
  const int64_t x64[] = {INT64_MIN, 1, 1};
  CU_ASSERT_EQUAL(tb_cpu_reduce(TB_INT64, TB_OP_BIT_XOR, x64, 3, &total), TB_OK);
  CU_ASSERT_EQUAL(total.i64, INT64_MIN);
  const int64_t o64[] = {INT64_C(1) << 40, 8};
  CU_ASSERT_EQUAL(tb_cpu_reduce(TB_INT64, TB_OP_BIT_OR, o64, 2, &total), TB_OK);
  CU_ASSERT_EQUAL(total.i64, (INT64_C(1) << 40) | 8);
  const int64_t a64[] = {-1, INT64_C(0x123456789)};
  int64_t out64[2];
  CU_ASSERT_EQUAL(tb_cpu_scan(TB_INT64, TB_OP_BIT_AND, false, a64, out64, 2,
                              &total),
                  TB_OK);
  CU_ASSERT_EQUAL(out64[0], -1);
  CU_ASSERT_EQUAL(out64[1], -1);
  CU_ASSERT_EQUAL(total.i64, INT64_C(0x123456789));
}

/* On small integers the higher-precision reference is exact, including Σ|x|. */
TB_TEST(test_f64_reference_exact, "f64 reference exact on integers") {
  const float f[] = {1, -2, 3};
  double out[3], abs_out[3], tot, tot_abs;
  CU_ASSERT_EQUAL(tb_cpu_scan_f64(TB_FLOAT, TB_OP_PLUS, true, f, out, 3, &tot,
                                  abs_out, &tot_abs),
                  TB_OK);
  CU_ASSERT(out[0] == 1 && out[1] == -1 && out[2] == 2);
  CU_ASSERT(abs_out[0] == 1 && abs_out[1] == 3 && abs_out[2] == 6);
  CU_ASSERT(tot == 2 && tot_abs == 6);
  CU_ASSERT_EQUAL(tb_cpu_scan_f64(TB_FLOAT, TB_OP_PLUS, false, f, out, 3, &tot,
                                  abs_out, &tot_abs),
                  TB_OK);
  CU_ASSERT(out[0] == 0 && out[1] == 1 && out[2] == -1);
  CU_ASSERT(abs_out[0] == 0 && abs_out[1] == 1 && abs_out[2] == 3);
  CU_ASSERT(tot == 2 && tot_abs == 6);

  const double d[] = {2, 3, -1, 4};
  CU_ASSERT_EQUAL(tb_cpu_reduce_f64(TB_DOUBLE, TB_OP_MULTIPLIES, d, 4, &tot,
                                    &tot_abs),
                  TB_OK);
  CU_ASSERT(tot == -24 && tot_abs == 10);
  CU_ASSERT_EQUAL(tb_cpu_reduce_f64(TB_DOUBLE, TB_OP_MIN, d, 4, &tot, NULL),
                  TB_OK);
  CU_ASSERT_EQUAL(tot, -1);
  CU_ASSERT_EQUAL(tb_cpu_reduce_f64(TB_DOUBLE, TB_OP_MAX, d, 4, &tot, NULL),
                  TB_OK);
  CU_ASSERT_EQUAL(tot, 4);

  /* The demo through float input: every partial sum is exact. */
  float *demo_f = tb_test_convert(TB_FLOAT, golden(kDemo.input, kDemo.n), kDemo.n);
  CU_ASSERT_EQUAL(tb_cpu_reduce_f64(TB_FLOAT, TB_OP_PLUS, demo_f, kDemo.n, &tot, &tot_abs), TB_OK);
  CU_ASSERT(tot == kDemo.total && tot_abs == kDemo.total);
  free(demo_f);
}

/* tb_cpu_reduce over n values of floating type t gives want, and
 * tb_cpu_reduce_f64 gives want_f64. */
static void expect_float_reduce(tb_type t, tb_op op, const void *in, int n, double want,
                                double want_f64) {
  tb_value total;
  double tot;
  CU_ASSERT_EQUAL(tb_cpu_reduce(t, op, in, n, &total), TB_OK);
  CU_ASSERT_EQUAL(tb_test_as_double(t, total), want);
  CU_ASSERT_EQUAL(tb_cpu_reduce_f64(t, op, in, n, &tot, NULL), TB_OK);
  CU_ASSERT_EQUAL(tot, want_f64);
}

/* The reference carries more precision than the type: float sums in double,
 * double sums in long double. */
TB_TEST(test_f64_reference_precision, "f64 reference precision") {
  const float f[] = {16777216.0f, 1.0f, 1.0f}; /* 2^24: float drops each +1 */
  expect_float_reduce(TB_FLOAT, TB_OP_PLUS, f, 3, 16777216.0, 16777218.0);

  if (LDBL_MANT_DIG > DBL_MANT_DIG) {
    const double d[] = {9007199254740992.0, 1.0, 1.0}; /* 2^53 */
    double tot;
    CU_ASSERT_EQUAL(tb_cpu_reduce_f64(TB_DOUBLE, TB_OP_PLUS, d, 3, &tot, NULL),
                    TB_OK);
    CU_ASSERT_EQUAL(tot, 9007199254740994.0);
  }
}

/* min/max are minNum/maxNum: a NaN input is dropped wherever it stands. */
TB_TEST(test_min_max_nan, "min/max NaN rule") {
  const float f[] = {1.0f, NAN, 0.5f};
  expect_float_reduce(TB_FLOAT, TB_OP_MIN, f, 3, 0.5, 0.5);
  const double d[] = {NAN, -3.0, 2.0};
  expect_float_reduce(TB_DOUBLE, TB_OP_MAX, d, 3, 2.0, 2.0);
}

/* reduction(+:a) reduction(max:b) reduction(min:c) reduction(*:d), worked
 * by hand: each variable's value is folded with its own inputs. */
TB_TEST(test_omp_clause, "omp clause of four variables") {
  const int32_t a[] = {5, -2, 7, 1};
  const double b[] = {-1.5, 4.25, 4.0, -8.0};
  const float c[] = {3.0f, NAN, -0.5f, 2.0f};
  const int64_t d[] = {INT64_C(1) << 40, 1 << 30, -1, 3}; /* wraps: 2^70 * -3 */
  tb_cpu_omp_var vars[] = {
      {TB_INT32, TB_OP_PLUS, a, {.i32 = 100}},
      {TB_DOUBLE, TB_OP_MAX, b, {.f64 = 4.125}},
      {TB_FLOAT, TB_OP_MIN, c, {.f32 = -0.25f}},
      {TB_INT64, TB_OP_MULTIPLIES, d, {.i64 = 5}},
  };
  CU_ASSERT_EQUAL_FATAL(tb_cpu_omp_reduce(vars, 4, 4), TB_OK);
  CU_ASSERT_EQUAL(vars[0].value.i32, 111);
  CU_ASSERT_EQUAL(vars[1].value.f64, 4.25);
  CU_ASSERT_EQUAL(vars[2].value.f64, -0.5); /* floats come back as .f64 */
  /* 5 * 2^40 * 2^30 * -1 * 3 = -15 * 2^70, which is 0 modulo 2^64. */
  CU_ASSERT_EQUAL(vars[3].value.i64, 0);

  /* n = 0 leaves every value as it was (floats widened). */
  tb_cpu_omp_var keep[] = {{TB_INT64, TB_OP_MIN, NULL, {.i64 = -7}},
                           {TB_FLOAT, TB_OP_PLUS, NULL, {.f32 = 1.5f}}};
  CU_ASSERT_EQUAL(tb_cpu_omp_reduce(keep, 2, 0), TB_OK);
  CU_ASSERT_EQUAL(keep[0].value.i64, -7);
  CU_ASSERT_EQUAL(keep[1].value.f64, 1.5);

  /* Bad clauses write nothing. */
  tb_cpu_omp_var bad[] = {{TB_INT32, TB_OP_PLUS, a, {.i32 = 1}},
                          {TB_FLOAT, TB_OP_BIT_XOR, c, {.f32 = 0}}};
  CU_ASSERT_EQUAL(tb_cpu_omp_reduce(bad, 0, 4), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_cpu_omp_reduce(NULL, 1, 4), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_cpu_omp_reduce(bad, 1, -1), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_cpu_omp_reduce(bad, 2, 4), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(bad[0].value.i32, 1);
  bad[1].in = NULL;
  bad[1].op = TB_OP_PLUS;
  CU_ASSERT_EQUAL(tb_cpu_omp_reduce(bad, 2, 4), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(bad[0].value.i32, 1);
}

int main(void) { return tb_test_run("cpuref_reduce_scan", NULL); }
