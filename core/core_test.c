/* CPU tests of :base (status, types, rng, validate, slug). */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/slug.h"
#include "core/status.h"
#include "core/types.h"
#include "core/validate.h"

#define ASSERT_CONTAINS(hay, needle)                                        \
  do {                                                                      \
    const char *h_ = (hay);                                                 \
    if (strstr(h_, (needle)) == NULL)                                       \
      fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", h_, (needle));   \
    CU_ASSERT_PTR_NOT_NULL(strstr(h_, (needle)));                           \
  } while (0)

/* ---- status ------------------------------------------------------------ */

static void test_status_messages(void) {
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

static void test_status_strings(void) {
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

static void test_status_per_thread(void) {
  tb_fail(TB_ERR_IO, "main thread");
  pthread_t th;
  void *res = NULL;
  CU_ASSERT_FATAL(pthread_create(&th, NULL, other_thread, NULL) == 0);
  pthread_join(th, &res);
  CU_ASSERT_PTR_EQUAL(res, (void *)1);  /* the new thread started with "" */
  CU_ASSERT_STRING_EQUAL(tb_last_error(), "main thread");
}

/* ---- types ------------------------------------------------------------- */

static void test_type_names(void) {
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    tb_type back = TB_TYPE_COUNT;
    CU_ASSERT(tb_type_valid((tb_type)t));
    CU_ASSERT(tb_type_parse(tb_type_name((tb_type)t), &back));
    CU_ASSERT_EQUAL(back, t);
  }
  for (int op = 0; op < TB_OP_COUNT; ++op) {
    tb_op back = TB_OP_COUNT;
    CU_ASSERT(tb_op_valid((tb_op)op));
    CU_ASSERT(tb_op_parse(tb_op_name((tb_op)op), &back));
    CU_ASSERT_EQUAL(back, op);
  }
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

static void test_check_type_op(void) {
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

static void test_identities(void) {
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

static void test_integer_wrap(void) {
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

static void test_float_min_max_nan(void) {
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

static void test_load_store(void) {
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

static void test_rng_stream(void) {
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

static void test_rng_range(void) {
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

static void test_fill_plus(void) {
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

static void test_fill_multiplies(void) {
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

static void test_fill_min_max_bitwise(void) {
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

static void test_error_bound(void) {
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

static void test_compare_int(void) {
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

static void test_compare_exact(void) {
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

static void test_compare_float(void) {
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

static void test_compare_special(void) {
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

static void test_compare_value(void) {
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

static void test_slug(void) {
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

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  struct { const char *suite; const char *name; CU_TestFunc fn; } tests[] = {
      {"status", "messages", test_status_messages},
      {"status", "strings", test_status_strings},
      {"status", "per_thread", test_status_per_thread},
      {"types", "names", test_type_names},
      {"types", "check_type_op", test_check_type_op},
      {"types", "identities", test_identities},
      {"types", "integer_wrap", test_integer_wrap},
      {"types", "float_min_max_nan", test_float_min_max_nan},
      {"types", "load_store", test_load_store},
      {"rng", "stream", test_rng_stream},
      {"rng", "range", test_rng_range},
      {"rng", "fill_plus", test_fill_plus},
      {"rng", "fill_multiplies", test_fill_multiplies},
      {"rng", "fill_min_max_bitwise", test_fill_min_max_bitwise},
      {"validate", "error_bound", test_error_bound},
      {"validate", "compare_int", test_compare_int},
      {"validate", "compare_float", test_compare_float},
      {"validate", "compare_exact", test_compare_exact},
      {"validate", "compare_special", test_compare_special},
      {"validate", "compare_value", test_compare_value},
      {"slug", "slug", test_slug},
  };
  CU_pSuite suite = NULL;
  const char *current = "";
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; ++i) {
    if (strcmp(current, tests[i].suite) != 0) {
      current = tests[i].suite;
      suite = CU_add_suite(current, NULL, NULL);
    }
    if (suite == NULL || CU_add_test(suite, tests[i].name, tests[i].fn) == NULL) {
      fprintf(stderr, "CUnit registration failed: %s\n", CU_get_error_msg());
      CU_cleanup_registry();
      return 2;
    }
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  return failures == 0 ? 0 : 1;
}
