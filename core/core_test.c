/* CPU tests of :base (status, types, rng, validate, slug, the LOGNORMAL and
 * ZIPF geometries and segment files; the other geometries are tested in
 * suites/interval_cpuref_test.c). */
#define _POSIX_C_SOURCE 200809L /* fmemopen, mkstemp */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cunit.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "core/slug.h"
#include "core/status.h"
#include "core/types.h"
#include "core/validate.h"

/* ---- status ------------------------------------------------------------ */

TB_TEST(test_status_messages, "status: messages") {
  tb_clear_error();
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "");
  CU_ASSERT_EQUAL(tb_fail(TB_ERR_INVALID_ARGUMENT, "n < 0 (%lld)", -5LL), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "n < 0 (-5)");
  CU_ASSERT_EQUAL(tb_fail(TB_ERR_IO, "%s:%d", "file", 3), TB_ERR_IO);
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "file:3");
  /* A caller may prefix the message it was left: the message is an
   * argument of its own replacement. */
  tb_fail(TB_ERR_INVALID_ARGUMENT, "operator bit_and does not apply to float");
  tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s", "tb_segreduce_csr", tb_last_error());
  CU_ASSERT_STRING_EQUAL(tb_last_error(),
                         "tb_segreduce_csr: operator bit_and does not apply to float");
  tb_fail(TB_ERR_IO, "%s / %s", tb_last_error(), tb_last_error());
  CU_ASSERT_STRING_EQUAL(tb_last_error(),
                         "tb_segreduce_csr: operator bit_and does not apply to float / "
                         "tb_segreduce_csr: operator bit_and does not apply to float");
  tb_clear_error();
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "");

  /* Long messages are truncated, never overflow. */
  char big[4000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  tb_fail(TB_ERR_IO, "%s", big);
  size_t len = strlen(tb_last_error());
  CU_ASSERT(len > 0 && len < sizeof big - 1);
}

TB_TEST(test_status_strings, "status: strings") {
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_OK), "TB_OK");
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_ERR_INVALID_ARGUMENT), "TB_ERR_INVALID_ARGUMENT");
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_ERR_OUT_OF_MEMORY), "TB_ERR_OUT_OF_MEMORY");
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_ERR_CUDA), "TB_ERR_CUDA");
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_ERR_NO_DEVICE), "TB_ERR_NO_DEVICE");
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_ERR_MISMATCH), "TB_ERR_MISMATCH");
  CU_ASSERT_STRING_EQUAL(tb_status_string(TB_ERR_IO), "TB_ERR_IO");
  CU_ASSERT_PTR_NOT_NULL(tb_status_string((tb_status)999));
}

static void *other_thread(void *arg) {
  (void)arg;
  int empty = tb_last_error()[0] == '\0';
  tb_fail(TB_ERR_IO, "from the other thread");
  return empty ? (void *)1 : NULL;
}

TB_TEST(test_status_per_thread, "status: per_thread") {
  tb_fail(TB_ERR_IO, "main thread");
  pthread_t th;
  void *res = NULL;
  CU_ASSERT_FATAL(pthread_create(&th, NULL, other_thread, NULL) == 0);
  pthread_join(th, &res);
  CU_ASSERT_PTR_EQUAL(res, (void *)1);  /* the new thread started with "" */
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "main thread");
}

/* ---- types ------------------------------------------------------------- */

TB_TEST(test_type_names, "types: names") {
  for (int t = 0; t < TB_TYPE_COUNT; ++t) CU_ASSERT(tb_type_valid((tb_type)t));
  for (int op = 0; op < TB_OP_COUNT; ++op) CU_ASSERT(tb_op_valid((tb_op)op));
  ASSERT_NAMES_ROUND_TRIP(tb_type, TB_TYPE_COUNT, tb_type_name, tb_type_parse);
  ASSERT_NAMES_ROUND_TRIP(tb_op, TB_OP_COUNT, tb_op_name, tb_op_parse);
  CU_ASSERT_STRING_EQUAL(tb_type_name(TB_INT32), "int32");
  CU_ASSERT_STRING_EQUAL(tb_type_name(TB_DOUBLE), "double");
  CU_ASSERT_STRING_EQUAL(tb_op_name(TB_OP_MULTIPLIES), "multiplies");
  CU_ASSERT_STRING_EQUAL(tb_op_name(TB_OP_BIT_XOR), "bit_xor");
  tb_type t;
  tb_op op;
  CU_ASSERT_FALSE(tb_type_parse("int16", &t));
  CU_ASSERT_FALSE(tb_type_parse("", &t));
  CU_ASSERT_FALSE(tb_type_parse(NULL, &t));
  CU_ASSERT_FALSE(tb_op_parse("sum", &op));
  CU_ASSERT_FALSE(tb_type_valid(TB_TYPE_COUNT));
  CU_ASSERT_FALSE(tb_type_valid((tb_type)-1));
  CU_ASSERT_FALSE(tb_op_valid(TB_OP_COUNT));
  CU_ASSERT_EQUAL(tb_type_size(TB_INT32), 4);
  CU_ASSERT_EQUAL(tb_type_size(TB_INT64), 8);
  CU_ASSERT_EQUAL(tb_type_size(TB_FLOAT), 4);
  CU_ASSERT_EQUAL(tb_type_size(TB_DOUBLE), 8);
  CU_ASSERT_TRUE(tb_type_is_float(TB_FLOAT));
  CU_ASSERT_FALSE(tb_type_is_float(TB_INT64));
}

static bool bitwise(tb_op op) { return op >= TB_OP_BIT_AND && op <= TB_OP_BIT_XOR; }

TB_TEST(test_check_type_op, "types: check_type_op") {
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int op = 0; op < TB_OP_COUNT; ++op) {
      tb_status want = tb_type_is_float((tb_type)t) && bitwise((tb_op)op) ? TB_ERR_INVALID_ARGUMENT : TB_OK;
      CU_ASSERT_EQUAL(tb_check_type_op((tb_type)t, (tb_op)op), want);
    }
  CU_ASSERT_EQUAL(tb_check_type_op(TB_FLOAT, TB_OP_BIT_AND), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "operator bit_and does not apply to float");
  CU_ASSERT_EQUAL(tb_check_type_op(TB_DOUBLE, TB_OP_BIT_XOR), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "operator bit_xor does not apply to double");
  CU_ASSERT_EQUAL(tb_check_type_op(TB_TYPE_COUNT, TB_OP_PLUS), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_check_type_op((tb_type)-1, TB_OP_PLUS), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_check_type_op(TB_INT32, TB_OP_COUNT), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_check_type_op(TB_INT32, (tb_op)42), TB_ERR_INVALID_ARGUMENT);
}

static tb_value vi32(int32_t x) { tb_value v; memset(&v, 0, sizeof v); v.i32 = x; return v; }
static tb_value vi64(int64_t x) { tb_value v; memset(&v, 0, sizeof v); v.i64 = x; return v; }
static tb_value vf32(float x) { tb_value v; memset(&v, 0, sizeof v); v.f32 = x; return v; }
static tb_value vf64(double x) { tb_value v; memset(&v, 0, sizeof v); v.f64 = x; return v; }

/* Same value of type t (NaN equals NaN). */
static bool same(tb_type t, tb_value a, tb_value b) {
  switch (t) {
    case TB_INT32: return a.i32 == b.i32;
    case TB_INT64: return a.i64 == b.i64;
    case TB_FLOAT: return (isnan(a.f32) && isnan(b.f32)) || a.f32 == b.f32;
    default: return (isnan(a.f64) && isnan(b.f64)) || a.f64 == b.f64;
  }
}

TB_TEST(test_identities, "types: identities") {
  const int64_t ints[] = {0, 1, -1, 42, -12345, 0x5a5a5a5a, INT32_MAX, INT32_MIN};
  const int64_t longs[] = {0, 1, -1, 0x123456789abcdefLL, -98765432109876LL, INT32_MIN, INT64_MAX, INT64_MIN};
  const double floats[] = {0.0, 1.0, -1.5, 3.25e30, -1e-30, 1e-45, INFINITY, -INFINITY, 7.0};
  int checked = 0;
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int op = 0; op < TB_OP_COUNT; ++op) {
      if (tb_check_type_op((tb_type)t, (tb_op)op) != TB_OK) continue;
      tb_value id = tb_identity((tb_type)t, (tb_op)op);
      size_t count = tb_type_is_float((tb_type)t) ? sizeof floats / sizeof floats[0]
                                                   : sizeof ints / sizeof ints[0];
      for (size_t k = 0; k < count; ++k) {
        tb_value x;
        switch (t) {
          case TB_INT32: x = vi32((int32_t)ints[k]); break;
          case TB_INT64: x = vi64(longs[k]); break;
          case TB_FLOAT: x = vf32((float)floats[k]); break;
          default: x = vf64(floats[k]); break;
        }
        bool ok = same((tb_type)t, tb_apply((tb_type)t, (tb_op)op, x, id), x) &&
                  same((tb_type)t, tb_apply((tb_type)t, (tb_op)op, id, x), x);
        if (!ok) fprintf(stderr, "\n  identity fails: %s %s, value #%zu\n",
                         tb_type_name((tb_type)t), tb_op_name((tb_op)op), k);
        CU_ASSERT(ok);
        ++checked;
      }
      if (tb_type_is_float((tb_type)t) && (op == TB_OP_PLUS || op == TB_OP_MULTIPLIES)) {
        /* plus and multiplies propagate NaN (min/max ignore it: see float_min_max_nan) */
        tb_value nan = t == TB_FLOAT ? vf32(NAN) : vf64(NAN);
        CU_ASSERT(same((tb_type)t, tb_apply((tb_type)t, (tb_op)op, nan, id), nan));
      }
    }
  CU_ASSERT(checked > 100);
  CU_ASSERT_EQUAL(tb_identity(TB_INT32, TB_OP_MIN).i32, INT32_MAX);
  CU_ASSERT_EQUAL(tb_identity(TB_INT64, TB_OP_MAX).i64, INT64_MIN);
  CU_ASSERT_EQUAL(tb_identity(TB_INT64, TB_OP_BIT_AND).i64, -1);
  CU_ASSERT_EQUAL(tb_identity(TB_INT32, TB_OP_MULTIPLIES).i32, 1);
  CU_ASSERT(isinf(tb_identity(TB_FLOAT, TB_OP_MIN).f32) && tb_identity(TB_FLOAT, TB_OP_MIN).f32 > 0);
  CU_ASSERT(isinf(tb_identity(TB_DOUBLE, TB_OP_MAX).f64) && tb_identity(TB_DOUBLE, TB_OP_MAX).f64 < 0);
  CU_ASSERT_EQUAL(tb_identity(TB_DOUBLE, TB_OP_PLUS).f64, 0.0);
  CU_ASSERT_EQUAL(tb_identity(TB_FLOAT, TB_OP_BIT_AND).f32, 0.0f);  /* rejected pair: zero */
}

TB_TEST(test_integer_wrap, "types: integer_wrap") {
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_PLUS, vi32(INT32_MAX), vi32(1)).i32, INT32_MIN);
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_PLUS, vi32(INT32_MIN), vi32(-1)).i32, INT32_MAX);
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_MULTIPLIES, vi32(65536), vi32(65536)).i32, 0);
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_MULTIPLIES, vi32(INT32_MAX), vi32(2)).i32, -2);
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_MULTIPLIES, vi32(INT32_MIN), vi32(-1)).i32, INT32_MIN);
  CU_ASSERT_EQUAL(tb_apply(TB_INT64, TB_OP_PLUS, vi64(INT64_MAX), vi64(1)).i64, INT64_MIN);
  CU_ASSERT_EQUAL(tb_apply(TB_INT64, TB_OP_MULTIPLIES, vi64(INT64_MIN), vi64(-1)).i64, INT64_MIN);
  CU_ASSERT_EQUAL(tb_apply(TB_INT64, TB_OP_MULTIPLIES, vi64(INT64_MAX), vi64(3)).i64, INT64_MAX - 2);
  /* 3^41 mod 2^64, folded one factor at a time. */
  tb_value p = vi64(1);
  uint64_t u = 1;
  for (int i = 0; i < 41; ++i) {
    p = tb_apply(TB_INT64, TB_OP_MULTIPLIES, p, vi64(3));
    u *= 3u;
  }
  CU_ASSERT_EQUAL((uint64_t)p.i64, u);
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_BIT_XOR, vi32(0x0ff0), vi32(0x00ff)).i32, 0x0f0f);
  CU_ASSERT_EQUAL(tb_apply(TB_INT64, TB_OP_BIT_AND, vi64(-2), vi64(7)).i64, 6);
  CU_ASSERT_EQUAL(tb_apply(TB_INT64, TB_OP_MIN, vi64(-5), vi64(3)).i64, -5);
  CU_ASSERT_EQUAL(tb_apply(TB_INT32, TB_OP_MAX, vi32(-5), vi32(3)).i32, 3);
}

TB_TEST(test_float_min_max_nan, "types: float_min_max_nan") {
  /* minNum/maxNum: a NaN operand is ignored, whichever side it is on. */
  CU_ASSERT_EQUAL(tb_apply(TB_FLOAT, TB_OP_MIN, vf32(NAN), vf32(1.0f)).f32, 1.0f);
  CU_ASSERT_EQUAL(tb_apply(TB_FLOAT, TB_OP_MIN, vf32(1.0f), vf32(NAN)).f32, 1.0f);
  CU_ASSERT_EQUAL(tb_apply(TB_FLOAT, TB_OP_MAX, vf32(NAN), vf32(1.0f)).f32, 1.0f);
  CU_ASSERT_EQUAL(tb_apply(TB_FLOAT, TB_OP_MAX, vf32(1.0f), vf32(NAN)).f32, 1.0f);
  CU_ASSERT_EQUAL(tb_apply(TB_DOUBLE, TB_OP_MIN, vf64(NAN), vf64(-1.0)).f64, -1.0);
  CU_ASSERT_EQUAL(tb_apply(TB_DOUBLE, TB_OP_MIN, vf64(-1.0), vf64(NAN)).f64, -1.0);
  CU_ASSERT_EQUAL(tb_apply(TB_DOUBLE, TB_OP_MAX, vf64(NAN), vf64(-1.0)).f64, -1.0);
  CU_ASSERT_EQUAL(tb_apply(TB_DOUBLE, TB_OP_MAX, vf64(-1.0), vf64(NAN)).f64, -1.0);
  CU_ASSERT(isnan(tb_apply(TB_FLOAT, TB_OP_MIN, vf32(NAN), vf32(NAN)).f32));
  CU_ASSERT(isnan(tb_apply(TB_DOUBLE, TB_OP_PLUS, vf64(NAN), vf64(1.0)).f64));
  CU_ASSERT_EQUAL(tb_apply(TB_FLOAT, TB_OP_MIN, vf32(2.0f), vf32(-3.0f)).f32, -3.0f);
  CU_ASSERT_EQUAL(tb_apply(TB_DOUBLE, TB_OP_MAX, vf64(2.0), vf64(-3.0)).f64, 2.0);
}

TB_TEST(test_load_store, "types: load_store") {
  int32_t a32[3] = {0};
  int64_t a64[3] = {0};
  float af[3] = {0};
  double ad[3] = {0};
  tb_store(TB_INT32, a32, 2, vi32(-7));
  tb_store(TB_INT64, a64, 1, vi64(INT64_MIN));
  tb_store(TB_FLOAT, af, 0, vf32(0.5f));
  tb_store(TB_DOUBLE, ad, 2, vf64(-0.25));
  CU_ASSERT_EQUAL(a32[2], -7);
  CU_ASSERT_EQUAL(a64[1], INT64_MIN);
  CU_ASSERT_EQUAL(af[0], 0.5f);
  CU_ASSERT_EQUAL(ad[2], -0.25);
  CU_ASSERT_EQUAL(tb_load(TB_INT32, a32, 2).i32, -7);
  CU_ASSERT_EQUAL(tb_load(TB_INT64, a64, 1).i64, INT64_MIN);
  CU_ASSERT_EQUAL(tb_load(TB_FLOAT, af, 0).f32, 0.5f);
  CU_ASSERT_EQUAL(tb_load(TB_DOUBLE, ad, 2).f64, -0.25);
  CU_ASSERT_EQUAL(a32[0], 0);
  CU_ASSERT_EQUAL(a32[1], 0);
}

/* ---- rng --------------------------------------------------------------- */

TB_TEST(test_rng_stream, "rng: stream") {
  tb_rng a, b, c;
  tb_rng_seed(&a, 0);
  /* splitmix64's published first output for seed 0: the same everywhere. */
  CU_ASSERT_EQUAL(tb_rng_next(&a), 0xe220a8397b1dcdafull);
  tb_rng_seed(&a, 12345);
  tb_rng_seed(&b, 12345);
  tb_rng_seed(&c, 12346);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    uint64_t x = tb_rng_next(&a);
    CU_ASSERT_EQUAL(x, tb_rng_next(&b));
    differ += x != tb_rng_next(&c);
  }
  CU_ASSERT(differ > 990);
}

TB_TEST(test_rng_range, "rng: range") {
  tb_rng r;
  tb_rng_seed(&r, 7);
  int seen[9] = {0};
  for (int i = 0; i < 10000; ++i) {
    int64_t x = tb_rng_range(&r, -3, 5);
    CU_ASSERT(x >= -3 && x <= 5);
    if (x >= -3 && x <= 5) seen[x + 3]++;
  }
  for (int k = 0; k < 9; ++k) CU_ASSERT(seen[k] > 800 && seen[k] < 1400);  /* ~1111 each */
  for (int i = 0; i < 100; ++i) {
    CU_ASSERT_EQUAL(tb_rng_range(&r, 42, 42), 42);
    int64_t x = tb_rng_range(&r, 10, -10);  /* swapped bounds */
    CU_ASSERT(x >= -10 && x <= 10);
    int64_t big = tb_rng_range(&r, INT64_MAX - 1, INT64_MAX);
    CU_ASSERT(big >= INT64_MAX - 1);
    int64_t neg = tb_rng_range(&r, INT64_MIN, INT64_MIN + 2);
    CU_ASSERT(neg <= INT64_MIN + 2);
    (void)tb_rng_range(&r, INT64_MIN, INT64_MAX);  /* full range: terminates */
    double u = tb_rng_unit(&r);
    CU_ASSERT(u >= 0.0 && u < 1.0);
  }
}

TB_TEST(test_fill_plus, "rng: fill_plus") {
  tb_rng r;
  tb_rng_seed(&r, 1);
  enum { N = 1 << 22 };
  float *f = malloc(N * sizeof *f);
  CU_ASSERT_FATAL(f != NULL);
  struct { int64_t n; int64_t m; } cases[] = {{1000, 1000}, {1 << 15, 512}, {N, 4}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    int64_t n = cases[c].n, m = cases[c].m;
    float largest = 0.0f;
    tb_fill_random(&r, TB_FLOAT, TB_OP_PLUS, f, n);
    int64_t exact = 0;
    for (int64_t i = 0; i < n; ++i) {
      CU_ASSERT(f[i] == floorf(f[i]) && fabsf(f[i]) <= (float)m);
      largest = fmaxf(largest, fabsf(f[i]));
      exact += (int64_t)f[i];
    }
    CU_ASSERT(largest > 0.5f * (float)m);  /* the whole range [-m, m] is used */
    /* Exact in any order: forward, backward and pairwise float sums agree. */
    float fwd = 0.0f, bwd = 0.0f;
    for (int64_t i = 0; i < n; ++i) fwd += f[i];
    for (int64_t i = n - 1; i >= 0; --i) bwd += f[i];
    for (int64_t w = 1; w < n; w *= 2)
      for (int64_t i = 0; i + w < n; i += 2 * w) f[i] += f[i + w];
    CU_ASSERT_EQUAL((int64_t)fwd, exact);
    CU_ASSERT_EQUAL((int64_t)bwd, exact);
    CU_ASSERT_EQUAL((int64_t)f[0], exact);
  }
  free(f);

  double d[4096];
  tb_fill_random(&r, TB_DOUBLE, TB_OP_PLUS, d, 4096);
  for (int i = 0; i < 4096; ++i) CU_ASSERT(d[i] == floor(d[i]) && fabs(d[i]) <= 1000.0);
  int32_t i32[4096];
  int64_t i64[4096];
  tb_fill_random(&r, TB_INT32, TB_OP_PLUS, i32, 4096);
  tb_fill_random(&r, TB_INT64, TB_OP_PLUS, i64, 4096);
  for (int i = 0; i < 4096; ++i) {
    CU_ASSERT(i32[i] >= -1000 && i32[i] <= 1000);
    CU_ASSERT(i64[i] >= -1000 && i64[i] <= 1000);
  }
}

TB_TEST(test_fill_multiplies, "rng: fill_multiplies") {
  tb_rng r;
  tb_rng_seed(&r, 2);
  int32_t i32[1000];
  int64_t i64[1000];
  float f[1000];
  double d[1000];
  tb_fill_random(&r, TB_INT32, TB_OP_MULTIPLIES, i32, 1000);
  tb_fill_random(&r, TB_INT64, TB_OP_MULTIPLIES, i64, 1000);
  tb_fill_random(&r, TB_FLOAT, TB_OP_MULTIPLIES, f, 1000);
  tb_fill_random(&r, TB_DOUBLE, TB_OP_MULTIPLIES, d, 1000);
  int seen[4] = {0};
  for (int i = 0; i < 1000; ++i) {
    CU_ASSERT(i32[i] == 1 || i32[i] == -1 || i32[i] == 2 || i32[i] == 3);
    CU_ASSERT(i64[i] == 1 || i64[i] == -1 || i64[i] == 2 || i64[i] == 3);
    CU_ASSERT(f[i] == 1.0f || f[i] == -1.0f);
    CU_ASSERT(d[i] == 1.0 || d[i] == -1.0);
    seen[i32[i] == -1 ? 0 : i32[i] & 3]++;
  }
  for (int k = 0; k < 4; ++k) CU_ASSERT(seen[k] > 150);
}

TB_TEST(test_fill_min_max_bitwise, "rng: fill_min_max_bitwise") {
  tb_rng r;
  tb_rng_seed(&r, 3);
  enum { N = 20000 };
  static int32_t i32[N];
  static int64_t i64[N];
  static float f[N];
  static double d[N];
  for (int op = TB_OP_MIN; op <= TB_OP_MAX; ++op) {
    tb_fill_random(&r, TB_INT32, (tb_op)op, i32, N);
    tb_fill_random(&r, TB_INT64, (tb_op)op, i64, N);
    tb_fill_random(&r, TB_FLOAT, (tb_op)op, f, N);
    tb_fill_random(&r, TB_DOUBLE, (tb_op)op, d, N);
    int wide32 = 0, wide64 = 0, widef = 0;
    for (int i = 0; i < N; ++i) {
      CU_ASSERT(i32[i] >= -(1 << 30) && i32[i] <= (1 << 30));
      CU_ASSERT(i64[i] >= -((int64_t)1 << 62) && i64[i] <= ((int64_t)1 << 62));
      CU_ASSERT(f[i] >= -1e6f && f[i] < 1e6f);
      CU_ASSERT(d[i] >= -1e6 && d[i] < 1e6);
      wide32 += abs(i32[i]) > (1 << 29);
      wide64 += i64[i] > ((int64_t)1 << 61) || i64[i] < -((int64_t)1 << 61);
      widef += fabsf(f[i]) > 5e5f;
    }
    CU_ASSERT(wide32 > N / 4 && wide64 > N / 4 && widef > N / 4);
  }
  for (int op = TB_OP_BIT_AND; op <= TB_OP_BIT_XOR; ++op) {
    tb_fill_random(&r, TB_INT32, (tb_op)op, i32, N);
    tb_fill_random(&r, TB_INT64, (tb_op)op, i64, N);
    int neg32 = 0, neg64 = 0, high64 = 0;
    for (int i = 0; i < N; ++i) {
      neg32 += i32[i] < 0;
      neg64 += i64[i] < 0;
      high64 += ((uint64_t)i64[i] >> 40 & 0xff) == 0xff;  /* bits well above 32 are random */
    }
    CU_ASSERT(neg32 > N / 3 && neg32 < 2 * N / 3);
    CU_ASSERT(neg64 > N / 3 && neg64 < 2 * N / 3);
    CU_ASSERT(high64 > 20);
  }
  /* Rejected pair and n <= 0 leave dst untouched. */
  f[0] = 123.0f;
  tb_fill_random(&r, TB_FLOAT, TB_OP_BIT_OR, f, 1);
  CU_ASSERT_EQUAL(f[0], 123.0f);
  i32[0] = 77;
  tb_fill_random(&r, TB_INT32, TB_OP_PLUS, i32, 0);
  CU_ASSERT_EQUAL(i32[0], 77);
}

/* ---- validate ---------------------------------------------------------- */

TB_TEST(test_error_bound, "validate: error_bound") {
  CU_ASSERT_EQUAL(tb_unit_roundoff(TB_FLOAT), ldexp(1.0, -24));
  CU_ASSERT_EQUAL(tb_unit_roundoff(TB_DOUBLE), ldexp(1.0, -53));
  CU_ASSERT_EQUAL(tb_unit_roundoff(TB_INT32), 0.0);
  CU_ASSERT_EQUAL(tb_sum_error_bound(TB_INT64, 1000, 1e9), 0.0);
  double u = ldexp(1.0, -24);
  double want = 10 * u / (1 - 10 * u) * 100.0;
  CU_ASSERT_DOUBLE_EQUAL(tb_sum_error_bound(TB_FLOAT, 10, 100.0), want, want * 1e-15);
  u = ldexp(1.0, -53);
  want = 1e6 * u / (1 - 1e6 * u) * 3.0;
  CU_ASSERT_DOUBLE_EQUAL(tb_sum_error_bound(TB_DOUBLE, 1000000, 3.0), want, want * 1e-15);
  CU_ASSERT_EQUAL(tb_sum_error_bound(TB_FLOAT, 0, 100.0), 0.0);
  CU_ASSERT(isinf(tb_sum_error_bound(TB_FLOAT, 1 << 24, 1.0)));
  CU_ASSERT(isinf(tb_sum_error_bound(TB_FLOAT, (int64_t)1 << 40, 1.0)));
  CU_ASSERT(isfinite(tb_sum_error_bound(TB_FLOAT, (1 << 24) - 1, 1.0)));
  /* Monotone in depth. */
  CU_ASSERT(tb_sum_error_bound(TB_DOUBLE, 20, 1.0) > tb_sum_error_bound(TB_DOUBLE, 10, 1.0));
}

TB_TEST(test_compare_int, "validate: compare_int") {
  int32_t want[10], got[10];
  for (int i = 0; i < 10; ++i) want[i] = got[i] = i * 1000 - 3;
  CU_ASSERT_EQUAL(tb_compare(TB_INT32, got, want, NULL, 10, "reduce int32 plus n=10"), TB_OK);
  got[7] = -42;
  got[9] = 0;
  CU_ASSERT_EQUAL(tb_compare(TB_INT32, got, want, NULL, 10, "reduce int32 plus n=10"), TB_ERR_MISMATCH);
  const char *msg = tb_last_error();
  ASSERT_CONTAINS(msg, "reduce int32 plus n=10: first mismatch at index 7: expected 6997, got -42");
  ASSERT_CONTAINS(msg, "(2 of 10 differ)");
  /* Only the first n are compared. */
  CU_ASSERT_EQUAL(tb_compare(TB_INT32, got, want, NULL, 7, "x"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare(TB_INT32, got, want, NULL, 0, "x"), TB_OK);

  int64_t w64[3] = {INT64_MIN, 5, INT64_MAX}, g64[3] = {INT64_MIN, 5, INT64_MAX};
  CU_ASSERT_EQUAL(tb_compare(TB_INT64, g64, w64, NULL, 3, "s"), TB_OK);
  g64[0] = INT64_MAX;
  CU_ASSERT_EQUAL(tb_compare(TB_INT64, g64, w64, NULL, 3, "s"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "index 0: expected -9223372036854775808, got 9223372036854775807");

  CU_ASSERT_EQUAL(tb_compare(TB_INT32, got, want, NULL, -1, "x"), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_compare(TB_TYPE_COUNT, got, want, NULL, 1, "x"), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_compare(TB_INT32, NULL, want, NULL, 1, "x"), TB_ERR_INVALID_ARGUMENT);
}

TB_TEST(test_compare_exact, "validate: compare_exact") {
  int32_t w32[4] = {1, -2, 3, INT32_MIN}, g32[4] = {1, -2, 3, INT32_MIN};
  CU_ASSERT_EQUAL(tb_compare_exact(TB_INT32, g32, w32, 4, "keys"), TB_OK);
  g32[3] = 0;
  CU_ASSERT_EQUAL(tb_compare_exact(TB_INT32, g32, w32, 4, "keys"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "keys: first mismatch at index 3: expected -2147483648, got 0");
  CU_ASSERT_EQUAL(tb_compare_exact(TB_INT32, g32, w32, 3, "keys"), TB_OK);
  /* Floats by value in their own type: -0 equals +0, any difference fails. */
  float gf[3] = {-0.0f, 1.5f, 1e-30f}, wf[3] = {0.0f, 1.5f, 1e-30f};
  CU_ASSERT_EQUAL(tb_compare_exact(TB_FLOAT, gf, wf, 3, "out"), TB_OK);
  gf[2] = 2e-30f;
  CU_ASSERT_EQUAL(tb_compare_exact(TB_FLOAT, gf, wf, 3, "out"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "out: first mismatch at index 2: expected 1e-30, got 2.00000001e-30");
  double gd[2] = {0.1, 0.2}, wd[2] = {0.1, 0.30000000000000004};
  CU_ASSERT_EQUAL(tb_compare_exact(TB_DOUBLE, gd, wd, 2, "y"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "index 1: expected 0.30000000000000004, got 0.20000000000000001");
  CU_ASSERT_EQUAL(tb_compare_exact(TB_INT32, g32, w32, -1, "x"), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_compare_exact(TB_TYPE_COUNT, g32, w32, 1, "x"), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_compare_exact(TB_INT64, NULL, w32, 1, "x"), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_compare_exact(TB_INT64, NULL, NULL, 0, "x"), TB_OK);
}

TB_TEST(test_compare_float, "validate: compare_float") {
  float got[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  double want[4] = {1.0, 2.0, 3.0, 4.0};
  double bound[4] = {0.0, 0.0, 0.0, 0.0};
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, NULL, 4, "f"), TB_OK);
  want[2] = 3.125;
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, NULL, 4, "f"), TB_ERR_MISMATCH);
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 4, "f"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "f: first mismatch at index 2: expected 3.125, got 3 (bound 0)");
  ASSERT_CONTAINS(tb_last_error(), "(1 of 4 differ)");
  bound[2] = 0.125;  /* within (<=) */
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 4, "f"), TB_OK);
  bound[2] = 0.0625;  /* outside */
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 4, "f"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "(bound 0.0625)");

  double dg[3] = {0.1, -2.5, 1e300}, dw[3] = {0.1, -2.5, 1e300};
  CU_ASSERT_EQUAL(tb_compare(TB_DOUBLE, dg, dw, NULL, 3, "d"), TB_OK);
  dg[0] = nextafter(0.1, 1.0);
  CU_ASSERT_EQUAL(tb_compare(TB_DOUBLE, dg, dw, NULL, 3, "d"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "expected 0.10000000000000001, got 0.10000000000000002");
}

TB_TEST(test_compare_special, "validate: compare_special") {
  float got[2];
  double want[2], bound[2] = {1e30, 1e30};
  got[0] = NAN; want[0] = NAN; got[1] = INFINITY; want[1] = INFINITY;
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, NULL, 2, "s"), TB_OK);
  got[1] = -INFINITY; want[1] = -INFINITY;
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, NULL, 2, "s"), TB_OK);
  want[1] = INFINITY;
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 2, "s"), TB_ERR_MISMATCH);
  got[1] = 3e38f;  /* finite vs inf never passes, whatever the bound */
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 2, "s"), TB_ERR_MISMATCH);
  got[1] = INFINITY;
  got[0] = 1.0f;  /* NaN expected, number got */
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 2, "s"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "index 0");
  got[0] = NAN; want[0] = 1.0;  /* number expected, NaN got */
  CU_ASSERT_EQUAL(tb_compare(TB_FLOAT, got, want, bound, 2, "s"), TB_ERR_MISMATCH);

  double dg = NAN, dw = NAN;
  CU_ASSERT_EQUAL(tb_compare(TB_DOUBLE, &dg, &dw, NULL, 1, "s"), TB_OK);
}

TB_TEST(test_compare_value, "validate: compare_value") {
  CU_ASSERT_EQUAL(tb_compare_value(TB_INT32, vi32(5), vi32(5), 0.0, "v"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare_value(TB_INT32, vi32(5), vi32(6), 100.0, "v"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "v: expected 6, got 5");
  CU_ASSERT_EQUAL(tb_compare_value(TB_INT64, vi64(-1), vi64(-1), 0.0, "v"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare_value(TB_FLOAT, vf32(1.5f), vf64(1.5), 0.0, "v"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare_value(TB_FLOAT, vf32(1.5f), vf64(1.75), 0.2, "v"), TB_ERR_MISMATCH);
  ASSERT_CONTAINS(tb_last_error(), "v: expected 1.75, got 1.5 (bound 0.2)");
  CU_ASSERT_EQUAL(tb_compare_value(TB_FLOAT, vf32(1.5f), vf64(1.75), 0.25, "v"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare_value(TB_DOUBLE, vf64(NAN), vf64(NAN), 0.0, "v"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare_value(TB_DOUBLE, vf64(-INFINITY), vf64(-INFINITY), 0.0, "v"), TB_OK);
  CU_ASSERT_EQUAL(tb_compare_value(TB_DOUBLE, vf64(INFINITY), vf64(-INFINITY), INFINITY, "v"),
                  TB_ERR_MISMATCH);
}

/* ---- slug -------------------------------------------------------------- */

static void check_slug(const char *name, size_t cap, const char *want) {
  char out[128];
  memset(out, '#', sizeof out);
  tb_gpu_slug(name, out, cap);
  if (strcmp(out, want) != 0) fprintf(stderr, "\n  slug(\"%s\") = \"%s\", want \"%s\"\n", name, out, want);
  CU_ASSERT_STRING_EQUAL(out, want);
}

TB_TEST(test_slug, "slug: slug") {
  check_slug("NVIDIA H100 80GB HBM3", 128, "h100-80gb-hbm3");
  check_slug("NVIDIA H200", 128, "h200");
  check_slug("NVIDIA A100-SXM4-80GB", 128, "a100-sxm4-80gb");
  check_slug("NVIDIA GeForce RTX 4090", 128, "geforce-rtx-4090");
  check_slug("  Tesla V100-SXM2-16GB  ", 128, "tesla-v100-sxm2-16gb");
  check_slug("nvidia-l4", 128, "l4");
  check_slug("NVIDIA", 128, "nvidia");
  check_slug("NVIDIAX 1", 128, "nvidiax-1");
  check_slug("", 128, "unknown");
  check_slug("***", 128, "unknown");
  check_slug(NULL, 128, "unknown");
  check_slug("NVIDIA H100 80GB HBM3", 6, "h100");  /* no dangling '-' after truncation */
  check_slug("NVIDIA H100 80GB HBM3", 7, "h100-8");
  check_slug("NVIDIA H100", 3, "h1");
}

/* ---- geometry: LOGNORMAL and ZIPF lengths, segment files ------------------ */

typedef struct length_stats {
  int64_t sum, min, max, ones, twos, fours, above; /* above: counts > a threshold */
} length_stats;

static length_stats length_stats_of(const int32_t *c, int64_t num, int64_t threshold) {
  length_stats s = {0, INT64_MAX, 0, 0, 0, 0, 0};
  for (int64_t i = 0; i < num; ++i) {
    s.sum += c[i];
    if (c[i] < s.min) s.min = c[i];
    if (c[i] > s.max) s.max = c[i];
    s.ones += c[i] == 1;
    s.twos += c[i] == 2;
    s.fours += c[i] == 4;
    s.above += c[i] > threshold;
  }
  return s;
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static tb_geometry_spec length_spec(tb_geometry kind, double avg, double shape) {
  tb_geometry_spec spec = tb_geometry_spec_default(kind, avg);
  spec.shape = shape;
  return spec;
}

TB_TEST(test_lengths_sum_exact, "geometry: lengths_sum_exact") {
  const double avgs[] = {1.0, 1.5, 3.0, 7.25, 64.0, 1000.0};
  const int64_t totals[] = {1, 2, 97, 1000, 65536, 1000003, 1 << 24};
  const struct { tb_geometry kind; double shape; } models[] = {
      {TB_GEOM_LOGNORMAL, 0.5}, {TB_GEOM_LOGNORMAL, 1.0}, {TB_GEOM_LOGNORMAL, 2.0},
      {TB_GEOM_LOGNORMAL, 3.0}, {TB_GEOM_ZIPF, 0.5},      {TB_GEOM_ZIPF, 1.0},
      {TB_GEOM_ZIPF, 1.5},      {TB_GEOM_ZIPF, 2.0}};
  int32_t *c = malloc(sizeof(int32_t) * (1 << 24));
  CU_ASSERT_FATAL(c != NULL);
  int checked = 0;
  for (size_t m = 0; m < sizeof models / sizeof *models; ++m)
    for (size_t a = 0; a < sizeof avgs / sizeof *avgs; ++a)
      for (size_t k = 0; k < sizeof totals / sizeof *totals; ++k) {
        const tb_geometry_spec spec = length_spec(models[m].kind, avgs[a], models[m].shape);
        if (avgs[a] > tb_geometry_max_avg(&spec)) continue; /* zipf:2 stops at 13.4 */
        const int64_t num = tb_geometry_num_objects(&spec, totals[k]);
        tb_rng r;
        tb_rng_seed(&r, 7 + k);
        const tb_status st = tb_geometry_counts(&spec, totals[k], c, num, &r);
        if (st != TB_OK) fprintf(stderr, "\n  %s\n", tb_last_error());
        CU_ASSERT_EQUAL_FATAL(st, TB_OK);
        const length_stats s = length_stats_of(c, num, 0);
        if (s.sum != totals[k])
          fprintf(stderr, "\n  %s:%g avg %g total %lld: sum %lld\n", tb_geometry_name(spec.kind),
                  spec.shape, avgs[a], (long long)totals[k], (long long)s.sum);
        CU_ASSERT_EQUAL(s.sum, totals[k]);
        CU_ASSERT(s.min >= 1); /* never empty */
        ++checked;
      }
  CU_ASSERT(checked > 250);
  /* Counts near INT32_MAX: four objects of 2^31 - 1 items less a few
   * (lognormal), of 7e8 (zipf, whose support then reaches INT32_MAX). The
   * draws are capped there and the fix stays under it. */
  for (int kind = TB_GEOM_LOGNORMAL; kind <= TB_GEOM_ZIPF; ++kind) {
    /* zipf:0.5 reaches a mean of 7.16e8 with its support at INT32_MAX. */
    const int64_t total = kind == TB_GEOM_ZIPF ? 4 * (int64_t)700000000 : 4 * (int64_t)INT32_MAX - 3;
    const tb_geometry_spec spec = length_spec((tb_geometry)kind, 1e9, kind == TB_GEOM_ZIPF ? 0.5 : 3.0);
    tb_rng r;
    tb_rng_seed(&r, 3);
    CU_ASSERT_EQUAL_FATAL(tb_geometry_counts(&spec, total, c, 4, &r), TB_OK);
    const length_stats s = length_stats_of(c, 4, 0);
    CU_ASSERT(s.sum == total && s.min >= 1 && s.max <= INT32_MAX);
  }
  free(c);
}

/* The draws on their own, before the sum is made exact: their mean is the
 * model's. Tolerances are about 8 standard errors of the mean at 2^22 objects
 * (CV of a count: sqrt(exp(sigma^2) - 1) for LOGNORMAL, 1.3 at sigma 1 and 7.3
 * at 2; about 6 for ZIPF at s = 1.5, L = 64), so a seed change cannot trip
 * them but a model off by a percent does. */
TB_TEST(test_lengths_mean, "geometry: lengths_mean") {
  const int64_t num = 1 << 22;
  int32_t *c = malloc(sizeof(int32_t) * num);
  CU_ASSERT_FATAL(c != NULL);
  const struct { tb_geometry kind; double shape, avg, tolerance; } cases[] = {
      {TB_GEOM_LOGNORMAL, 0.5, 64.0, 0.005}, {TB_GEOM_LOGNORMAL, 1.0, 64.0, 0.006},
      {TB_GEOM_LOGNORMAL, 2.0, 64.0, 0.03},  {TB_GEOM_LOGNORMAL, 1.0, 4.5, 0.005},
      {TB_GEOM_ZIPF, 0.5, 64.0, 0.005},      {TB_GEOM_ZIPF, 1.0, 64.0, 0.01},
      {TB_GEOM_ZIPF, 1.5, 64.0, 0.025},      {TB_GEOM_ZIPF, 1.5, 4.0, 0.01},
      {TB_GEOM_ZIPF, 2.0, 4.0, 0.02}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
    const tb_geometry_spec spec = length_spec(cases[k].kind, cases[k].avg, cases[k].shape);
    tb_rng r;
    tb_rng_seed(&r, 11 + k);
    const int64_t total = (int64_t)llround(cases[k].avg * (double)num);
    CU_ASSERT_EQUAL_FATAL(tb_geometry_draw(&spec, total, c, num, &r), TB_OK);
    const length_stats s = length_stats_of(c, num, 0);
    const double mean = (double)s.sum / (double)num, off = fabs(mean / cases[k].avg - 1.0);
    if (off > cases[k].tolerance)
      fprintf(stderr, "\n  %s:%g L %g: draws' mean %g\n", tb_geometry_name(spec.kind), spec.shape,
              cases[k].avg, mean);
    CU_ASSERT(off <= cases[k].tolerance);
    CU_ASSERT(s.min >= 1);
  }
  free(c);
}

/* What the sum fix cannot fake: LOGNORMAL's median and the share at most L,
 * ZIPF's ratios of adjacent small counts (k^-s, whatever the support). */
TB_TEST(test_lengths_shape, "geometry: lengths_shape") {
  const int64_t num = 1 << 20;
  int32_t *c = malloc(sizeof(int32_t) * num);
  CU_ASSERT_FATAL(c != NULL);
  tb_rng r;
  tb_rng_seed(&r, 5);
  tb_geometry_spec spec = length_spec(TB_GEOM_LOGNORMAL, 64.0, 1.0);
  CU_ASSERT_EQUAL_FATAL(tb_geometry_counts(&spec, 64 * num, c, num, &r), TB_OK);
  /* 1 + Y, Y of median 63 exp(-1/2) = 38.2; P(count <= 64) = P(Y < 64) ~
   * Phi(sigma / 2) = 0.6915 (the rounding moves it by < 0.01). */
  length_stats s = length_stats_of(c, num, 64);
  const double at_most = 1.0 - (double)s.above / (double)num;
  qsort(c, (size_t)num, sizeof *c, cmp_i32);
  const double median = c[num / 2];
  fprintf(stderr, "\n  lognormal:1 L 64: median %g, <= L %.4f, max %lld ", median, at_most,
          (long long)s.max);
  CU_ASSERT(fabs(median - 39.2) <= 1.0);
  CU_ASSERT(fabs(at_most - 0.6915) <= 0.01);

  spec = length_spec(TB_GEOM_ZIPF, 64.0, 1.5);
  CU_ASSERT_EQUAL_FATAL(tb_geometry_counts(&spec, 64 * num, c, num, &r), TB_OK);
  s = length_stats_of(c, num, 64);
  const double r21 = (double)s.twos / (double)s.ones, r42 = (double)s.fours / (double)s.twos;
  fprintf(stderr, "zipf:1.5 L 64: n2/n1 %.4f n4/n2 %.4f (2^-1.5 = 0.3536), ones %.4f ", r21, r42,
          (double)s.ones / (double)num);
  CU_ASSERT(fabs(r21 - 0.3536) <= 0.01);
  CU_ASSERT(fabs(r42 - 0.3536) <= 0.015);
  /* P(1) = 1 / H_K(1.5), K about 7000: 1 / (zeta(1.5) - 2 / sqrt(K)) = 0.386. */
  CU_ASSERT(fabs((double)s.ones / (double)num - 0.386) <= 0.005);
  free(c);
}

/* Uniform at L = 64 never passes 127; both models go far beyond, and put a
 * real share of their counts past 2L. */
TB_TEST(test_lengths_tail, "geometry: lengths_tail") {
  const int64_t num = 1 << 20;
  int32_t *c = malloc(sizeof(int32_t) * num);
  CU_ASSERT_FATAL(c != NULL);
  const tb_geometry_spec specs[] = {length_spec(TB_GEOM_UNIFORM, 64.0, 0.0),
                                    length_spec(TB_GEOM_LOGNORMAL, 64.0, 1.0),
                                    length_spec(TB_GEOM_ZIPF, 64.0, 1.5)};
  length_stats s[3];
  for (int k = 0; k < 3; ++k) {
    tb_rng r;
    tb_rng_seed(&r, 9);
    CU_ASSERT_EQUAL_FATAL(tb_geometry_counts(&specs[k], 64 * num, c, num, &r), TB_OK);
    s[k] = length_stats_of(c, num, 128);
  }
  fprintf(stderr, "\n  max: uniform %lld, lognormal:1 %lld, zipf:1.5 %lld; past 2L: %.4f %.4f ",
          (long long)s[0].max, (long long)s[1].max, (long long)s[2].max,
          (double)s[1].above / (double)num, (double)s[2].above / (double)num);
  CU_ASSERT(s[0].max <= 127 && s[0].above == 0);
  CU_ASSERT(s[1].max > 20 * 64 && s[2].max > 20 * 64);
  /* P(Y > 127) = 1 - Phi(ln(127 / 63) + 1/2) = 0.115 for lognormal:1;
   * zipf:1.5 about 0.06. */
  CU_ASSERT(s[1].above > num / 20 && s[2].above > num / 30);
  free(c);
}

TB_TEST(test_lengths_deterministic, "geometry: lengths_deterministic") {
  const int64_t num = 100000;
  int32_t *a = malloc(sizeof(int32_t) * num), *b = malloc(sizeof(int32_t) * num);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  for (int kind = TB_GEOM_LOGNORMAL; kind <= TB_GEOM_ZIPF; ++kind) {
    const tb_geometry_spec spec = tb_geometry_spec_default((tb_geometry)kind, 16.0);
    tb_rng r;
    tb_rng_seed(&r, 42);
    CU_ASSERT_EQUAL(tb_geometry_counts(&spec, 16 * num + 5, a, num, &r), TB_OK);
    tb_rng_seed(&r, 42);
    CU_ASSERT_EQUAL(tb_geometry_counts(&spec, 16 * num + 5, b, num, &r), TB_OK);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof(int32_t) * num), 0);
    tb_rng_seed(&r, 43);
    CU_ASSERT_EQUAL(tb_geometry_counts(&spec, 16 * num + 5, b, num, &r), TB_OK);
    CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(int32_t) * num), 0);
  }
  /* L = 1: all ones, as uniform. */
  for (int kind = TB_GEOM_LOGNORMAL; kind <= TB_GEOM_ZIPF; ++kind) {
    const tb_geometry_spec spec = tb_geometry_spec_default((tb_geometry)kind, 1.0);
    tb_rng r;
    tb_rng_seed(&r, 1);
    CU_ASSERT_EQUAL(tb_geometry_counts(&spec, num, a, num, &r), TB_OK);
    const length_stats s = length_stats_of(a, num, 0);
    CU_ASSERT(s.min == 1 && s.max == 1);
  }
  free(a);
  free(b);
}

static void expect_invalid(tb_status st, const char *needle) {
  CU_ASSERT_EQUAL(st, TB_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(tb_last_error(), needle);
}

TB_TEST(test_lengths_validation, "geometry: lengths_validation") {
  int32_t c[16];
  tb_rng r;
  tb_rng_seed(&r, 1);
  const double bad_sigmas[] = {0.0, -1.0, 3.5, NAN, INFINITY};
  for (size_t k = 0; k < sizeof bad_sigmas / sizeof *bad_sigmas; ++k) {
    const tb_geometry_spec spec = length_spec(TB_GEOM_LOGNORMAL, 2.0, bad_sigmas[k]);
    expect_invalid(tb_geometry_counts(&spec, 16, c, 8, &r), "lognormal: sigma must be in (0, 3]");
    CU_ASSERT_EQUAL(tb_geometry_num_objects(&spec, 16), -1);
    CU_ASSERT(isnan(tb_geometry_max_avg(&spec)));
  }
  const double bad_s[] = {0.0, -0.5, 10.5, NAN};
  for (size_t k = 0; k < sizeof bad_s / sizeof *bad_s; ++k) {
    const tb_geometry_spec spec = length_spec(TB_GEOM_ZIPF, 2.0, bad_s[k]);
    expect_invalid(tb_geometry_counts(&spec, 16, c, 8, &r), "zipf: s must be in (0, 10]");
  }
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_LOGNORMAL, 2.0);
  expect_invalid(tb_geometry_counts(&spec, 7, c, 8, &r), "lognormal counts are >= 1: total 7 < num 8");
  spec = tb_geometry_spec_default(TB_GEOM_ZIPF, 2.0);
  expect_invalid(tb_geometry_counts(&spec, 7, c, 8, &r), "zipf counts are >= 1: total 7 < num 8");
  /* zipf:2 reaches a mean of 13.41 at support INT32_MAX, zipf:3 1.368. */
  spec = length_spec(TB_GEOM_ZIPF, 16.0, 2.0);
  CU_ASSERT(fabs(tb_geometry_max_avg(&spec) - 13.41) < 0.01);
  expect_invalid(tb_geometry_counts(&spec, 16 * 16, c, 16, &r), "reaches a mean of at most 13.41");
  spec.shape = 3.0;
  CU_ASSERT(fabs(tb_geometry_max_avg(&spec) - 1.368) < 0.001);
  spec.shape = 1.5;
  CU_ASSERT(tb_geometry_max_avg(&spec) > 16384.0); /* the sweeps' largest L */
  spec = tb_geometry_spec_default(TB_GEOM_LOGNORMAL, 2.0);
  CU_ASSERT(isinf(tb_geometry_max_avg(&spec)));
  spec = tb_geometry_spec_default(TB_GEOM_FIXED, 2.0);
  expect_invalid(tb_geometry_draw(&spec, 16, c, 8, &r), "not a kind of independent draws");
  CU_ASSERT_STRING_EQUAL(tb_geometry_name(TB_GEOM_LOGNORMAL), "lognormal");
  CU_ASSERT_STRING_EQUAL(tb_geometry_name(TB_GEOM_ZIPF), "zipf");
}

TB_TEST(test_parse_lengths, "geometry: parse_lengths") {
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0);
  CU_ASSERT_EQUAL(tb_geometry_parse_lengths("lognormal:1.5", &spec), TB_OK);
  CU_ASSERT(spec.kind == TB_GEOM_LOGNORMAL && spec.shape == 1.5 && spec.avg == 16.0);
  CU_ASSERT_EQUAL(tb_geometry_parse_lengths("zipf:1", &spec), TB_OK);
  CU_ASSERT(spec.kind == TB_GEOM_ZIPF && spec.shape == 1.0);
  CU_ASSERT_EQUAL(tb_geometry_parse_lengths("lognormal:3", &spec), TB_OK);
  CU_ASSERT_EQUAL(tb_geometry_parse_lengths("zipf:1e1", &spec), TB_OK);
  CU_ASSERT_EQUAL(tb_geometry_parse_lengths("uniform", &spec), TB_OK);
  CU_ASSERT(spec.kind == TB_GEOM_UNIFORM);
  const char *bad[] = {"",           "lognormal",  "lognormal:",  "lognormal:0", "lognormal:3.01",
                       "lognormal:-1", "lognormal:1x", "zipf:abc",  "zipf:inf",    "zipf:nan",
                       "zipf:0x1",   "zipf:11",    "Uniform",     "uniform:1",   "gauss:1",
                       "zipf",       "power_law:2"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
    spec = tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0);
    expect_invalid(tb_geometry_parse_lengths(bad[k], &spec),
                   "lengths are uniform, lognormal:SIGMA (0 < SIGMA <= 3) or zipf:S (0 < S <= 10)");
    CU_ASSERT(spec.kind == TB_GEOM_UNIFORM); /* untouched */
  }
}

/* Parses text[0..size) as the segment file "segs.txt". */
static tb_status parse_bytes(const char *text, size_t size, tb_segments *out) {
  FILE *f = fmemopen((void *)text, size, "r");
  CU_ASSERT_FATAL(f != NULL);
  const tb_status st = tb_segments_parse(f, "segs.txt", out);
  fclose(f);
  return st;
}

static tb_status parse_text(const char *text, tb_segments *out) {
  return parse_bytes(text, strlen(text), out);
}

TB_TEST(test_segments_parse, "geometry: segments_parse") {
  tb_segments s;
  CU_ASSERT_EQUAL_FATAL(parse_text("\n# offsets\n0\n3\n3  # an empty row\n\n# a comment\n10\r\n  12\n", &s), TB_OK);
  CU_ASSERT(s.num == 4 && s.total == 12 && s.empty == 1 && s.longest == 7);
  if (s.num == 4) {
    CU_ASSERT(s.counts[0] == 3 && s.counts[1] == 0 && s.counts[2] == 7 && s.counts[3] == 2);
  }
  tb_segments_free(&s);
  CU_ASSERT(s.counts == NULL && s.num == 0);
  CU_ASSERT_EQUAL_FATAL(parse_text("#lengths\n5\n0\n2147483642\n", &s), TB_OK);
  CU_ASSERT(s.num == 3 && s.total == INT32_MAX && s.empty == 1 && s.longest == INT32_MAX - 5);
  tb_segments_free(&s);
  /* More than one growth of the array. */
  char *big = malloc(5000 * 3 + 16);
  CU_ASSERT_FATAL(big != NULL);
  char *p = big + sprintf(big, "# lengths\n");
  for (int i = 0; i < 5000; ++i) p += sprintf(p, "%d\n", i % 10);
  CU_ASSERT_EQUAL_FATAL(parse_text(big, &s), TB_OK);
  CU_ASSERT(s.num == 5000 && s.total == 500 * 45 && s.empty == 500 && s.longest == 9);
  tb_segments_free(&s);
  free(big);

  const struct { const char *text, *message; } bad[] = {
      {"0\n4\n", "segs.txt:1: the first line must be '# offsets' or '# lengths'"},
      {"\n# offset\n0\n4\n", "segs.txt:2: the first line must be '# offsets' or '# lengths'"},
      {"# offsets\n0\n4\nfour\n", "segs.txt:4: 'four' is not a non-negative integer"},
      {"# lengths\n3\n-3\n", "segs.txt:3: '-3' is not a non-negative integer"},
      {"# lengths\n3\n1.5\n", "segs.txt:3: '1.5' is not a non-negative integer"},
      {"# lengths\n3 4\n", "segs.txt:2: '3 4' is not a non-negative integer"},
      {"# offsets\n0\n5\n# x\n4\n", "segs.txt:5: offsets must not decrease (4 after 5)"},
      {"# offsets\n1\n5\n", "segs.txt:2: the first offset must be 0, not 1"},
      {"# offsets\n0\n2147483648\n", "segs.txt:3: '2147483648' is past INT32_MAX (2147483647)"},
      {"# lengths\n99999999999999999999999\n", "segs.txt:2: '99999999999999999999999' is past INT32_MAX"},
      {"# lengths\n2147483647\n1\n", "segs.txt:3: the lengths pass INT32_MAX (2147483647) items in all"},
      {"# offsets\n0\n", "segs.txt: no segments (offsets need two lines at least: 0 and the total)"},
      {"# lengths\n# nothing\n", "segs.txt: no segments (no lengths)"},
      {"", "segs.txt: empty: the first line must be '# offsets' or '# lengths'"},
      {"# lengths\n0\n0\n", "segs.txt: 2 segments and no items"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
    expect_invalid(parse_text(bad[k].text, &s), bad[k].message);
    CU_ASSERT(s.counts == NULL && s.num == 0 && s.total == 0);
  }
  /* A NUL byte ends a line's text: what follows it would go unread (the
   * fuzzer found "2\0 7" read as 2). */
  static const char nul[] = "# lengths\n4\n2\0 7\n";
  expect_invalid(parse_bytes(nul, sizeof nul - 1, &s), "segs.txt:3: a NUL byte: not a text file");
  CU_ASSERT(s.counts == NULL && s.num == 0);

  /* From a file; a missing one is an I/O error naming it. */
  char path[] = "/tmp/tb_segments_XXXXXX";
  const int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs("# offsets\n0\n16\n20\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(tb_segments_read(path, &s), TB_OK);
  CU_ASSERT(s.num == 2 && s.total == 20 && s.longest == 16);
  tb_segments_free(&s);
  remove(path);
  CU_ASSERT_EQUAL(tb_segments_read(path, &s), TB_ERR_IO);
  ASSERT_CONTAINS(tb_last_error(), path);
}

int main(void) { return tb_test_run("core", NULL); }
