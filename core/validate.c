#include "core/validate.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

double tb_unit_roundoff(tb_type t) {
  switch (t) {
    case TB_FLOAT: return 0x1.0p-24;
    case TB_DOUBLE: return 0x1.0p-53;
    default: return 0.0;
  }
}

double tb_sum_error_bound(tb_type t, int64_t depth, double sum_abs) {
  double u = tb_unit_roundoff(t);
  if (u == 0.0 || depth <= 0) return 0.0;
  double ku = (double)depth * u;
  if (ku >= 1.0) return INFINITY;  /* gamma_k is undefined: no useful bound */
  return ku / (1.0 - ku) * sum_abs;
}

/* NaN matches NaN and an infinity only itself; finite values are bounded. */
static bool float_ok(double got, double want, double bound) {
  if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
  if (isinf(got) || isinf(want)) return got == want;
  return fabs(got - want) <= bound;
}

/* Widening float to double is exact, so comparisons happen in double. */
static double float_at(tb_type t, const void *p, int64_t i) {
  return t == TB_FLOAT ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* Enough digits to round-trip the GPU's value in its own type. */
static void format_float(tb_type t, double v, char *text, size_t cap) {
  snprintf(text, cap, t == TB_FLOAT ? "%.9g" : "%.17g", v);
}

static int64_t int_at(tb_type t, const void *p, int64_t i) {
  return t == TB_INT32 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

/* The arguments of an array comparison. */
static tb_status check_arrays(tb_type t, const void *got, const void *want, int64_t n,
                              const char *what) {
  if (!tb_type_valid(t)) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: invalid element type %d", what, (int)t);
  if (n < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: n < 0 (%" PRId64 ")", what, n);
  if (n > 0 && (got == NULL || want == NULL))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: NULL array", what);
  return TB_OK;
}

tb_status tb_compare(tb_type t, const void *got, const void *want, const double *bound,
                     int64_t n, const char *what) {
  if (what == NULL) what = "compare";
  const tb_status st = check_arrays(t, got, want, n, what);
  if (st != TB_OK) return st;

  bool fl = tb_type_is_float(t);
  const double *wantf = want;
  int64_t first = -1, bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    if (fl) {
      ok = float_ok(float_at(t, got, i), wantf[i], bound ? bound[i] : 0.0);
    } else {
      ok = int_at(t, got, i) == int_at(t, want, i);
    }
    if (!ok) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (first < 0) return TB_OK;

  char exp_s[48], got_s[48];
  double b = 0.0;
  if (fl) {
    format_float(t, float_at(t, got, first), got_s, sizeof got_s);
    snprintf(exp_s, sizeof exp_s, "%.17g", wantf[first]);
    b = bound ? bound[first] : 0.0;
  } else {
    snprintf(got_s, sizeof got_s, "%lld", (long long)int_at(t, got, first));
    snprintf(exp_s, sizeof exp_s, "%lld", (long long)int_at(t, want, first));
  }
  return tb_fail(TB_ERR_MISMATCH,
                 "%s: first mismatch at index %lld: expected %s, got %s (bound %g) (%lld of %lld differ)",
                 what, (long long)first, exp_s, got_s, b, (long long)bad, (long long)n);
}

tb_status tb_compare_exact(tb_type t, const void *got, const void *want, int64_t n,
                           const char *what) {
  if (what == NULL) what = "compare";
  const tb_status st = check_arrays(t, got, want, n, what);
  if (st != TB_OK) return st;
  const bool fl = tb_type_is_float(t);
  for (int64_t i = 0; i < n; ++i) {
    if (fl ? float_at(t, got, i) == float_at(t, want, i) : int_at(t, got, i) == int_at(t, want, i))
      continue;
    char exp_s[48], got_s[48];
    if (fl) {
      format_float(t, float_at(t, got, i), got_s, sizeof got_s);
      format_float(t, float_at(t, want, i), exp_s, sizeof exp_s);
    } else {
      snprintf(got_s, sizeof got_s, "%lld", (long long)int_at(t, got, i));
      snprintf(exp_s, sizeof exp_s, "%lld", (long long)int_at(t, want, i));
    }
    return tb_fail(TB_ERR_MISMATCH, "%s: first mismatch at index %lld: expected %s, got %s", what,
                   (long long)i, exp_s, got_s);
  }
  return TB_OK;
}

tb_status tb_compare_value(tb_type t, tb_value got, tb_value want, double bound, const char *what) {
  if (what == NULL) what = "compare";
  if (!tb_type_valid(t)) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: invalid element type %d", what, (int)t);
  char exp_s[48], got_s[48];
  if (tb_type_is_float(t)) {
    double g = t == TB_FLOAT ? (double)got.f32 : got.f64;
    if (float_ok(g, want.f64, bound)) return TB_OK;
    format_float(t, g, got_s, sizeof got_s);
    snprintf(exp_s, sizeof exp_s, "%.17g", want.f64);
  } else {
    long long g = t == TB_INT32 ? got.i32 : got.i64;
    long long w = t == TB_INT32 ? want.i32 : want.i64;
    if (g == w) return TB_OK;
    snprintf(got_s, sizeof got_s, "%lld", g);
    snprintf(exp_s, sizeof exp_s, "%lld", w);
    bound = 0.0;
  }
  return tb_fail(TB_ERR_MISMATCH, "%s: expected %s, got %s (bound %g)", what, exp_s, got_s, bound);
}
