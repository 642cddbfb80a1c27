#include "core/rng.h"

#include <math.h>

void tb_rng_seed(tb_rng *r, uint64_t seed) { r->state = seed; }

/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast and identical everywhere. */
uint64_t tb_rng_next(tb_rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int64_t to_i64(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

int64_t tb_rng_range(tb_rng *r, int64_t lo, int64_t hi) {
  if (hi < lo) { int64_t s = lo; lo = hi; hi = s; }
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;  /* 0 means all 2^64 values */
  if (span == 0) return to_i64(tb_rng_next(r));
  /* Rejection below a multiple of span keeps every value equally likely. */
  uint64_t threshold = (0u - span) % span;
  uint64_t x;
  do x = tb_rng_next(r); while (x < threshold);
  return to_i64((uint64_t)lo + x % span);
}

double tb_rng_unit(tb_rng *r) { return (double)(tb_rng_next(r) >> 11) * 0x1.0p-53; }

/* Largest m with n*m <= 2^p, at least 1, at most 1000 (see rng.h). */
static int64_t exact_sum_bound(int p, int64_t n) {
  int64_t m = (int64_t)((1ull << p) / (uint64_t)n);
  if (m < 1) m = 1;
  if (m > 1000) m = 1000;
  return m;
}

void tb_fill_random(tb_rng *r, tb_type t, tb_op op, void *dst, int64_t n) {
  if (n <= 0 || dst == NULL || tb_check_type_op(t, op) != TB_OK) return;
  static const int64_t int_factors[4] = {1, -1, 2, 3};
  bool fl = tb_type_is_float(t);
  int64_t m = fl ? exact_sum_bound(t == TB_FLOAT ? 24 : 53, n) : 1000;
  int64_t wide = t == TB_INT32 ? (int64_t)1 << 30 : (int64_t)1 << 62;
  for (int64_t i = 0; i < n; ++i) {
    tb_value v;
    int64_t k = 0;
    double d = 0.0;
    switch (op) {
      case TB_OP_PLUS: k = tb_rng_range(r, -m, m); d = (double)k; break;
      case TB_OP_MULTIPLIES:
        k = fl ? (tb_rng_next(r) >> 63 ? -1 : 1) : int_factors[tb_rng_next(r) >> 62];
        d = (double)k;
        break;
      case TB_OP_MIN:
      case TB_OP_MAX:
        if (fl) {
          d = -1e6 + 2e6 * tb_rng_unit(r);
          /* Rounding (to double, then to float) may reach 1e6: keep [-1e6, 1e6). */
          if (t == TB_FLOAT && (float)d >= 1e6f) d = nextafterf(1e6f, 0.0f);
          if (d >= 1e6) d = nextafter(1e6, 0.0);
        } else {
          k = tb_rng_range(r, -wide, wide);
        }
        break;
      default: /* bitwise: all bits */
        k = t == TB_INT32 ? to_i64(tb_rng_next(r) >> 32) - ((int64_t)1 << 31)
                          : to_i64(tb_rng_next(r));
        break;
    }
    switch (t) {
      case TB_INT32: v.i32 = (int32_t)k; break;  /* k is in range by construction */
      case TB_INT64: v.i64 = k; break;
      case TB_FLOAT: v.f32 = (float)d; break;
      default: v.f64 = d; break;
    }
    tb_store(t, dst, i, v);
  }
}
