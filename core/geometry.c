#define _POSIX_C_SOURCE 200809L /* getline */
#include "core/geometry.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h> /* ssize_t */

static const char *const geometry_names[TB_GEOM_COUNT] = {
    "fixed",   "uniform",       "power_law", "empty_fraction", "one_giant",
    "all_one", "zeros_but_one", "zero_runs", "lognormal",      "zipf"};

const char *tb_geometry_name(tb_geometry g) {
  return tb_enum_name(geometry_names, TB_GEOM_COUNT, g);
}

bool tb_geometry_parse(const char *s, tb_geometry *out) {
  const int i = tb_enum_index(geometry_names, TB_GEOM_COUNT, s);
  if (i >= 0 && out) *out = (tb_geometry)i;
  return i >= 0;
}

tb_geometry_spec tb_geometry_spec_default(tb_geometry kind, double avg) {
  tb_geometry_spec s = {kind, avg, 0.0, 0.0, 0.0};
  if (kind == TB_GEOM_EMPTY_FRACTION || kind == TB_GEOM_ZERO_RUNS) s.empty_fraction = 0.5;
  if (kind == TB_GEOM_LOGNORMAL) s.shape = 1.0;
  if (kind == TB_GEOM_ZIPF) s.shape = 1.5;
  return s;
}

static tb_status check_spec(const char *fn, const tb_geometry_spec *spec) {
  if (spec == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: spec is NULL", fn);
  if ((int)spec->kind < 0 || spec->kind >= TB_GEOM_COUNT)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: invalid geometry %d", fn, (int)spec->kind);
  const char *name = geometry_names[spec->kind];
  /* !(x > 0) also catches NaN. */
  if (!(spec->avg > 0.0) || isinf(spec->avg))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: avg must be finite and > 0 (%g)", fn, name,
                   spec->avg);
  double f = spec->empty_fraction;
  if (spec->kind == TB_GEOM_EMPTY_FRACTION && !(f >= 0.0 && f < 1.0))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: empty_fraction must be in [0, 1) (%g)", fn,
                   name, f);
  if (spec->kind == TB_GEOM_ZERO_RUNS) {
    if (!(f > 0.0 && f < 1.0))
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: empty_fraction must be in (0, 1) (%g)", fn,
                     name, f);
    double z = spec->run_length;
    if (!(z == 0.0 || (z >= 1.0 && z <= 1e9)))
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: %s: run_length must be 0 (default) or in [1, 1e9] (%g)", fn, name, z);
  }
  const double k = spec->shape;
  if (spec->kind == TB_GEOM_LOGNORMAL && !(k > 0.0 && k <= TB_GEOMETRY_MAX_SIGMA))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: sigma must be in (0, %g] (%g)", fn, name,
                   TB_GEOMETRY_MAX_SIGMA, k);
  if (spec->kind == TB_GEOM_ZIPF && !(k > 0.0 && k <= TB_GEOMETRY_MAX_ZIPF_S))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: s must be in (0, %g] (%g)", fn, name,
                   TB_GEOMETRY_MAX_ZIPF_S, k);
  return TB_OK;
}

int64_t tb_geometry_num_objects(const tb_geometry_spec *spec, int64_t total) {
  if (check_spec("tb_geometry_num_objects", spec) != TB_OK || total < 0) return -1;
  /* No items, no objects: one empty object would be a problem UNIFORM and
   * ALL_ONE cannot describe. ceil() is >= 1 for any total >= 1. */
  if (total == 0) return 0;
  if (spec->kind == TB_GEOM_ALL_ONE) return total;
  double n = ceil((double)total / spec->avg);
  if (n > (double)INT64_MAX / 2) return -1;
  return n < 1.0 ? 1 : (int64_t)n;
}

/* ---- Drawing. -------------------------------------------------------------- */

/* An integer in [lo, hi] (hi = lo + 2 (mean - lo) rounded down or up, per
 * draw) whose expected value is exactly mean: a mix of two uniforms, the upper
 * one taken with the probability that makes up the fractional part. For an
 * integer 2 mean - lo it is plainly uniform in [lo, 2 mean - lo]. */
typedef struct uniform_mean {
  int64_t lo, hi_floor;
  double p_up;           /* probability of the upper range [lo, hi_floor + 1] */
  double scale_up, scale; /* v -> offset in the upper / lower range (no division per draw) */
} uniform_mean;

static uniform_mean uniform_mean_make(int64_t lo, double mean) {
  double top = 2.0 * mean - (double)lo;
  if (top > (double)INT32_MAX) top = (double)INT32_MAX; /* the sum fix makes up for it */
  uniform_mean u = {lo, (int64_t)floor(top), 0.0, 0.0, 0.0};
  if (u.hi_floor < lo) u.hi_floor = lo;
  u.p_up = top - (double)u.hi_floor;
  if (u.p_up < 0.0) u.p_up = 0.0;
  double span = (double)(u.hi_floor - lo) + 1.0;
  if (u.p_up > 0.0) u.scale_up = (span + 1.0) / u.p_up;
  u.scale = span / (1.0 - u.p_up);
  return u;
}

/* Uniform in [lo, hi] from v uniform in [0, 1): a multiply instead of
 * tb_rng_range's two 64-bit divisions, which matters at 2^26 objects. The bias
 * is below span / 2^53, far under anything a count distribution shows. */
static int64_t range_at(double v, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  int64_t k = (int64_t)(v * ((double)(hi - lo) + 1.0));
  return lo + (k > hi - lo ? hi - lo : k); /* the product may round up to span */
}

static int64_t draw_range(tb_rng *r, int64_t lo, int64_t hi) {
  return range_at(tb_rng_unit(r), lo, hi);
}

/* One uniform v picks the branch of the mix and, rescaled within that
 * branch, the value: one random number per count. */
static int64_t uniform_mean_at(const uniform_mean *u, double v) {
  int64_t top = u->hi_floor - u->lo, k;
  if (v < u->p_up) {
    k = (int64_t)(v * u->scale_up);
    ++top;
  } else {
    k = (int64_t)((v - u->p_up) * u->scale);
  }
  return u->lo + (k > top ? top : k); /* rounding may reach the span itself */
}

static int64_t uniform_mean_draw(const uniform_mean *u, tb_rng *r) {
  if (u->hi_floor == u->lo && u->p_up == 0.0) return u->lo; /* one value: no draw */
  return uniform_mean_at(u, tb_rng_unit(r));
}

/* Splits `amount` over k slots, slot i getting floor(amount (i+1) / k) -
 * floor(amount i / k): q or q + 1, the extra units evenly spaced. Walked with
 * a running remainder (Bresenham) rather than a division per slot. */
typedef struct even_split {
  int64_t q, rem, k, acc;
} even_split;

static even_split even_split_make(int64_t amount, int64_t k) {
  even_split e = {amount / k, amount % k, k, 0};
  return e;
}

static int64_t even_split_next(even_split *e) {
  e->acc += e->rem;
  if (e->acc >= e->k) {
    e->acc -= e->k;
    return e->q + 1;
  }
  return e->q;
}

/* ---- Making the sum exact. ------------------------------------------------- */

/* Adds d (either sign) to the sum of counts, changing only the objects that
 * `eligible` admits and keeping each in [lo, hi].
 *
 * What is left to place is usually small next to num (the draws already have
 * the right mean): then single units go to random objects, which costs
 * O(|d|) instead of passes over all of them. Otherwise each pass splits what
 * is left evenly (q or q + 1 each, the extra units evenly spaced) over the
 * objects that still have room in d's direction; an object that takes less
 * than its share has saturated, so every pass either finishes or shrinks the
 * set. Fails only when no admitted object has room left. */
typedef enum { ELIGIBLE_ALL, ELIGIBLE_NONZERO } eligible_rule;

static bool admitted(eligible_rule e, int32_t c) { return e == ELIGIBLE_ALL || c != 0; }

static tb_status spread(int32_t *c, int64_t num, int64_t d, int64_t lo, int64_t hi,
                        eligible_rule e, tb_rng *r) {
  bool up = d > 0;
  int64_t need = up ? d : -d;
  /* Random single units while they are few; too many misses (most objects
   * full) hand over to the passes, which also detect that none has room. */
  for (int64_t misses = 0; need > 0 && need <= num / 8 && misses <= num / 8;) {
    int64_t i = draw_range(r, 0, num - 1);
    if (admitted(e, c[i]) && (up ? c[i] < hi : c[i] > lo)) {
      c[i] += up ? 1 : -1;
      --need;
    } else {
      ++misses;
    }
  }
  while (need > 0) {
    int64_t with_room = 0;
    for (int64_t i = 0; i < num; ++i)
      if (admitted(e, c[i]) && (up ? c[i] < hi : c[i] > lo)) ++with_room;
    if (with_room == 0)
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "tb_geometry_counts: cannot %s %lld more items within [%lld, %lld] per "
                     "object",
                     up ? "place" : "remove", (long long)need, (long long)lo, (long long)hi);
    even_split split = even_split_make(need, with_room);
    int64_t moved = 0;
    for (int64_t i = 0; i < num; ++i) {
      if (!admitted(e, c[i]) || !(up ? c[i] < hi : c[i] > lo)) continue;
      int64_t share = even_split_next(&split);
      int64_t room = up ? hi - c[i] : c[i] - lo;
      if (share > room) share = room;
      c[i] = (int32_t)(up ? c[i] + share : c[i] - share);
      moved += share;
    }
    need -= moved;
  }
  return TB_OK;
}

static int64_t sum_counts(const int32_t *c, int64_t num) {
  int64_t s = 0;
  for (int64_t i = 0; i < num; ++i) s += c[i];
  return s;
}

/* EMPTY_FRACTION and ZERO_RUNS: can `nonzero` objects (>= 1 each) hold
 * total items? */
static tb_status check_nonzero(int64_t nonzero, int64_t total) {
  if (total > 0 && (nonzero == 0 || nonzero > total))
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_geometry_counts: %lld non-empty objects cannot share %lld items (each "
                   "holds at least 1): raise avg or lower empty_fraction",
                   (long long)nonzero, (long long)total);
  return TB_OK;
}

/* The distribution of a non-empty object's count: >= 1, with the mean that
 * makes total over `nonzero` objects. */
static uniform_mean nonzero_counts(int64_t nonzero, int64_t total) {
  return uniform_mean_make(1, nonzero > 0 ? (double)total / (double)nonzero : 1.0);
}

/* Makes the sum of the non-empty counts (>= 1 each) exact; total 0 empties
 * every object (nothing to place). */
static tb_status fix_nonzero(int32_t *c, int64_t num, int64_t total, tb_rng *r) {
  if (total == 0) {
    memset(c, 0, (size_t)num * sizeof *c);
    return TB_OK;
  }
  return spread(c, num, total - sum_counts(c, num), 1, INT32_MAX, ELIGIBLE_NONZERO, r);
}

static tb_status gen_fixed(int32_t *c, int64_t num, int64_t total) {
  even_split split = even_split_make(total, num);
  for (int64_t i = 0; i < num; ++i) c[i] = (int32_t)even_split_next(&split);
  return TB_OK;
}

/* UNIFORM, LOGNORMAL and ZIPF counts are >= 1. */
static tb_status check_at_least_one(const char *name, int64_t num, int64_t total) {
  if (total < num)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_geometry_counts: %s counts are >= 1: total %lld < num %lld", name,
                   (long long)total, (long long)num);
  return TB_OK;
}

/* exact false stops after the draws (tb_geometry_draw). */
static tb_status gen_uniform(int32_t *c, int64_t num, int64_t total, bool exact, tb_rng *r) {
  TB_TRY(check_at_least_one("uniform", num, total));
  uniform_mean u = uniform_mean_make(1, (double)total / (double)num);
  for (int64_t i = 0; i < num; ++i) c[i] = (int32_t)uniform_mean_draw(&u, r);
  if (!exact) return TB_OK;
  int64_t hi = u.hi_floor + (u.p_up > 0.0);
  if (hi < (total + num - 1) / num) hi = (total + num - 1) / num; /* INT32_MAX cut */
  return spread(c, num, total - sum_counts(c, num), 1, hi, ELIGIBLE_ALL, r);
}

static tb_status gen_power_law(int32_t *c, int64_t num, int64_t total, bool exact, tb_rng *r) {
  /* Lomax with shape 2 and scale m has mean m: X = m (U^(-1/2) - 1), U in
   * (0, 1]. Shape 2 keeps one sqrt per draw (fast at 2^26 objects) and the
   * tail heavy (infinite variance). floor(X + V), V uniform in [0, 1), rounds
   * with expected value X; one 64-bit draw gives U (53 bits) and V (11). */
  double m = (double)total / (double)num;
  int64_t cap = total < INT32_MAX ? total : INT32_MAX;
  for (int64_t i = 0; i < num; ++i) {
    uint64_t bits = tb_rng_next(r);
    double u = (double)((bits >> 11) + 1) * 0x1.0p-53;
    double v = (double)(bits & 0x7ff) * 0x1.0p-11;
    double x = m * (1.0 / sqrt(u) - 1.0) + v;
    c[i] = x >= (double)cap ? (int32_t)cap : (int32_t)x;
  }
  if (!exact) return TB_OK;
  return spread(c, num, total - sum_counts(c, num), 0, cap, ELIGIBLE_ALL, r);
}

/* ---- LOGNORMAL and ZIPF. --------------------------------------------------- */

/* The largest count one object may draw when all num hold >= 1. */
static int64_t draw_cap(int64_t num, int64_t total) {
  const int64_t cap = total - num + 1;
  return cap < INT32_MAX ? cap : INT32_MAX;
}

/* Makes the sum of counts >= 1 exact. A heavy tail leaves the draws' sum
 * off by far more than UNIFORM's (sqrt(num) times a standard deviation of
 * several means), and spread()'s even passes would then move every count,
 * the ones and twos that make the shape among them. So the excesses over 1
 * are first scaled by (total - num) / (drawn - num), a change of scale that
 * keeps LOGNORMAL log-normal (mu moves) and leaves ZIPF's ones as they are,
 * rounded by carrying the fractions from one object to the next; spread()
 * then places the few units that the rounding and the cap leave. The cap may
 * sit below the mean's ceiling only when the draws were cut at INT32_MAX. */
static tb_status fix_at_least_one(int32_t *c, int64_t num, int64_t total, int64_t cap,
                                  tb_rng *r) {
  const int64_t drawn = sum_counts(c, num);
  if (drawn != total && drawn > num) {
    const double f = (double)(total - num) / (double)(drawn - num);
    double carry = 0.0;
    for (int64_t i = 0; i < num; ++i) {
      const double x = (double)(c[i] - 1) * f + carry;
      const double k = floor(x);
      carry = x - k;
      c[i] = k >= (double)(cap - 1) ? (int32_t)cap : (int32_t)(1 + (int64_t)k);
    }
  }
  const int64_t ceil_mean = (total + num - 1) / num;
  return spread(c, num, total - sum_counts(c, num), 1, cap > ceil_mean ? cap : ceil_mean,
                ELIGIBLE_ALL, r);
}

static tb_status gen_lognormal(const tb_geometry_spec *spec, int32_t *c, int64_t num,
                               int64_t total, bool exact, tb_rng *r) {
  TB_TRY(check_at_least_one("lognormal", num, total));
  /* 1 + Y, E[Y] = m - 1: Y = (m - 1) exp(sigma z - sigma^2 / 2), z standard
   * normal. Box-Muller gives two z per pair of 64-bit draws: 53 bits of each
   * for the uniforms, the other 11 for the rounding offsets, as POWER_LAW. */
  const double excess = (double)total / (double)num - 1.0, sigma = spec->shape;
  const double scale = excess * exp(-0.5 * sigma * sigma);
  const int64_t cap = draw_cap(num, total);
  if (excess <= 0.0) { /* m = 1: every count 1, nothing to draw */
    for (int64_t i = 0; i < num; ++i) c[i] = 1;
    return TB_OK;
  }
  for (int64_t i = 0; i < num; i += 2) {
    const uint64_t b0 = tb_rng_next(r), b1 = tb_rng_next(r);
    const double u0 = (double)((b0 >> 11) + 1) * 0x1.0p-53; /* (0, 1]: log(u0) finite */
    const double u1 = (double)(b1 >> 11) * 0x1.0p-53;
    const double radius = sqrt(-2.0 * log(u0)), angle = 6.283185307179586 * u1;
    const double z[2] = {radius * cos(angle), radius * sin(angle)};
    const double v[2] = {(double)(b0 & 0x7ff) * 0x1.0p-11, (double)(b1 & 0x7ff) * 0x1.0p-11};
    for (int k = 0; k < 2 && i + k < num; ++k) {
      const double y = scale * exp(sigma * z[k]) + v[k]; /* floor(y) rounds with mean Y */
      c[i + k] = y >= (double)(cap - 1) ? (int32_t)cap : (int32_t)(1 + (int64_t)y);
    }
  }
  return exact ? fix_at_least_one(c, num, total, cap, r) : TB_OK;
}

/* (e^x - 1) / x and log(1 + x) / x, continued to x = 0: ZIPF's integrals for
 * every s, 1 included. */
static double expm1_over(double x) {
  return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + 0.5 * x * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}
static double log1p_over(double x) {
  return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* H_K(a) = sum of k^-a over k = 1..K: the first 64 terms summed, the rest by
 * Euler-Maclaurin to the third derivative (its next term is below 1e-13 of
 * the sum from 64 on, for every a ZIPF uses). O(1) for any K, so the support
 * can be searched up to INT32_MAX. */
static double harmonic(double a, double K) {
  const double n0 = 64.0;
  double sum = 0.0;
  for (double k = 1.0; k <= K && k <= n0; k += 1.0) sum += pow(k, -a);
  if (K <= n0) return sum;
  const double lk = log(K), l0 = log(n0);
  const double integral = lk * expm1_over((1.0 - a) * lk) - l0 * expm1_over((1.0 - a) * l0);
  const double f = exp(-a * lk) - exp(-a * l0);
  const double f1 = -a * (exp((-a - 1.0) * lk) - exp((-a - 1.0) * l0));
  const double f3 = -a * (a + 1.0) * (a + 2.0) * (exp((-a - 3.0) * lk) - exp((-a - 3.0) * l0));
  return sum + integral + 0.5 * f + f1 / 12.0 - f3 / 720.0;
}

static double zipf_mean(double s, double K) { return harmonic(s - 1.0, K) / harmonic(s, K); }

double tb_geometry_max_avg(const tb_geometry_spec *spec) {
  if (check_spec("tb_geometry_max_avg", spec) != TB_OK) return NAN;
  return spec->kind == TB_GEOM_ZIPF ? zipf_mean(spec->shape, (double)INT32_MAX) : INFINITY;
}

/* Zipf over [1, n] by rejection-inversion (Hormann and Derflinger, ACM TOMACS
 * 6(3), 1996, with the integral written so that s = 1 is no special case):
 * O(1) per draw for any n, about one uniform per draw. The hat's integral is
 * H(x) = (x^(1 - s) - 1) / (1 - s). */
typedef struct zipf_support {
  double s, n;
  double h_x1, h_n; /* H(1.5) - 1 and H(n + 0.5): the uniform's range */
  double cut;       /* k - x below it is accepted without evaluating H */
} zipf_support;

static double zipf_H(double s, double x) {
  const double l = log(x);
  return expm1_over((1.0 - s) * l) * l;
}
static double zipf_H_inverse(double s, double y) {
  double t = y * (1.0 - s);
  if (t < -1.0) t = -1.0; /* rounding may step past the domain */
  return exp(log1p_over(t) * y);
}
static double zipf_h(double s, double x) { return exp(-s * log(x)); }

static zipf_support zipf_support_make(double s, double n) {
  zipf_support z = {s, n, zipf_H(s, 1.5) - 1.0, zipf_H(s, n + 0.5), 0.0};
  z.cut = 2.0 - zipf_H_inverse(s, zipf_H(s, 2.5) - zipf_h(s, 2.0));
  return z;
}

static int64_t zipf_draw(const zipf_support *z, tb_rng *r) {
  for (;;) {
    const double u = z->h_n + tb_rng_unit(r) * (z->h_x1 - z->h_n);
    const double x = zipf_H_inverse(z->s, u);
    double k = floor(x + 0.5);
    k = k < 1.0 ? 1.0 : k > z->n ? z->n : k;
    if (k - x <= z->cut || u >= zipf_H(z->s, k + 0.5) - zipf_h(z->s, k)) return (int64_t)k;
  }
}

static tb_status gen_zipf(const tb_geometry_spec *spec, int32_t *c, int64_t num, int64_t total,
                          bool exact, tb_rng *r) {
  TB_TRY(check_at_least_one("zipf", num, total));
  const double m = (double)total / (double)num, s = spec->shape;
  const double most = zipf_mean(s, (double)INT32_MAX);
  if (m > most)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_geometry_counts: zipf: s = %g reaches a mean of at most %.6g (support up "
                   "to INT32_MAX): mean %g is out of reach; lower s",
                   s, most, m);
  /* The smallest support K whose mean reaches m (the mean grows with K). */
  int64_t lo = 1, hi = INT32_MAX;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (zipf_mean(s, (double)mid) >= m) hi = mid;
    else lo = mid + 1;
  }
  const int64_t cap = draw_cap(num, total);
  if (lo == 1) { /* m = 1: every count 1, nothing to draw */
    for (int64_t i = 0; i < num; ++i) c[i] = 1;
    return TB_OK;
  }
  /* Support K - 1 with probability p_low, K otherwise: expected value m. */
  const double mean_hi = zipf_mean(s, (double)lo), mean_lo = zipf_mean(s, (double)(lo - 1));
  double p_low = (mean_hi - m) / (mean_hi - mean_lo);
  p_low = p_low < 0.0 ? 0.0 : p_low > 1.0 ? 1.0 : p_low;
  const uint64_t low_below = p_low >= 1.0 ? UINT64_MAX : (uint64_t)ldexp(p_low, 64);
  const zipf_support z_lo = zipf_support_make(s, (double)(lo - 1));
  const zipf_support z_hi = zipf_support_make(s, (double)lo);
  for (int64_t i = 0; i < num; ++i) {
    const int64_t k = zipf_draw(tb_rng_next(r) < low_below ? &z_lo : &z_hi, r);
    c[i] = (int32_t)(k < cap ? k : cap);
  }
  return exact ? fix_at_least_one(c, num, total, cap, r) : TB_OK;
}

static tb_status gen_empty_fraction(const tb_geometry_spec *spec, int32_t *c, int64_t num,
                                    int64_t total, tb_rng *r) {
  int64_t zeros = llround(spec->empty_fraction * (double)num);
  if (zeros > num - (total > 0)) zeros = num - (total > 0); /* someone holds the items */
  tb_status st = check_nonzero(num - zeros, total);
  if (st != TB_OK) return st;
  uniform_mean u = nonzero_counts(num - zeros, total);
  /* Each object is empty with probability f (one comparison, no chain from
   * one object to the next), then random objects are flipped until exactly
   * `zeros` are empty. Every step treats positions alike, so each set of
   * `zeros` positions is equally likely, as with selection sampling, at a
   * fraction of its cost at 2^26 objects. Every object draws its count, used
   * or not: a branch on the coin would mispredict and cost more. */
  uint64_t threshold = (uint64_t)ldexp(spec->empty_fraction, 64);
  int64_t have = 0;
  for (int64_t i = 0; i < num; ++i) {
    bool empty = tb_rng_next(r) < threshold;
    int32_t count = (int32_t)uniform_mean_draw(&u, r);
    have += empty;
    c[i] = empty ? 0 : count;
  }
  while (have != zeros) {
    int64_t i = draw_range(r, 0, num - 1);
    if (have > zeros && c[i] == 0) {
      c[i] = (int32_t)uniform_mean_draw(&u, r);
      --have;
    } else if (have < zeros && c[i] != 0) {
      c[i] = 0;
      ++have;
    }
  }
  return fix_nonzero(c, num, total, r);
}

static tb_status gen_zero_runs(const tb_geometry_spec *spec, int32_t *c, int64_t num,
                               int64_t total, tb_rng *r) {
  double f = spec->empty_fraction;
  double zmean = spec->run_length > 0.0 ? spec->run_length : TB_GEOMETRY_DEFAULT_RUN;
  double bmean = zmean * (1.0 - f) / f; /* zero share of a (zero run, busy run) pair is f */
  uniform_mean zrun = uniform_mean_make(1, zmean);
  uniform_mean brun = uniform_mean_make(1, bmean > 1.0 ? bmean : 1.0);
  /* Start inside a run of either kind (zero with probability f), part of the
   * way through it, so that position 0 is not special. */
  bool zero = tb_rng_unit(r) < f;
  int64_t len = uniform_mean_draw(zero ? &zrun : &brun, r);
  len = draw_range(r, 1, len);
  for (int64_t i = 0; i < num;) {
    for (int64_t k = 0; k < len && i < num; ++k, ++i) c[i] = zero ? 0 : 1;
    zero = !zero;
    len = uniform_mean_draw(zero ? &zrun : &brun, r);
  }
  int64_t nonzero = sum_counts(c, num);
  /* A short array may fall inside one zero run: give the items one object. */
  if (total > 0 && nonzero == 0) {
    c[tb_rng_range(r, 0, num - 1)] = 1;
    nonzero = 1;
  }
  tb_status st = check_nonzero(nonzero, total);
  if (st != TB_OK) return st;
  uniform_mean u = nonzero_counts(nonzero, total);
  for (int64_t i = 0; i < num; ++i)
    if (c[i] != 0) c[i] = (int32_t)uniform_mean_draw(&u, r);
  return fix_nonzero(c, num, total, r);
}

static tb_status gen_one_giant(int32_t *c, int64_t num, int64_t total, tb_rng *r) {
  int64_t giant = tb_rng_range(r, 0, num - 1);
  for (int64_t i = 0; i < num; ++i) c[i] = (int32_t)(tb_rng_next(r) >> 63);
  c[giant] = 0;
  int64_t rest = sum_counts(c, num);
  if (rest > total) {
    /* Fewer items than coin flips: turn ones into zeros (the giant is 0 and
     * stays so). */
    tb_status st = spread(c, num, total - rest, 0, 1, ELIGIBLE_ALL, r);
    if (st != TB_OK) return st;
    rest = total;
  }
  if (total - rest > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_geometry_counts: one_giant: the giant (%lld items) does not fit int32",
                   (long long)(total - rest));
  c[giant] = (int32_t)(total - rest);
  return TB_OK;
}

/* What every call must satisfy, whatever its kind. */
static tb_status check_call(const char *fn, const tb_geometry_spec *spec, int64_t total,
                            const int32_t *counts, int64_t num, const tb_rng *r) {
  tb_status st = check_spec(fn, spec);
  if (st != TB_OK) return st;
  const char *name = geometry_names[spec->kind];
  if (total < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: total < 0 (%lld)", fn, name,
                   (long long)total);
  if (num < 0 || num > INT32_MAX || (num == 0 && total > 0))
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: %s: num %lld out of range (0..INT32_MAX, and >= 1 when total > 0)", fn,
                   name, (long long)num);
  if (num == 0) return TB_OK;
  if (counts == NULL || r == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: counts or rng is NULL", fn, name);
  if (total / num > INT32_MAX || (total / num == INT32_MAX && total % num != 0))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: %lld items do not fit %lld int32 counts",
                   fn, name, (long long)total, (long long)num);
  return TB_OK;
}

/* The kinds whose counts are independent draws, scaled to sum to total when exact; any other
 * kind is refused in fn's name. The caller checked the call. */
static tb_status draw_independent(const char *fn, const tb_geometry_spec *spec, int64_t total,
                                  int32_t *counts, int64_t num, bool exact, tb_rng *r) {
  switch (spec->kind) {
    case TB_GEOM_UNIFORM: return gen_uniform(counts, num, total, exact, r);
    case TB_GEOM_POWER_LAW: return gen_power_law(counts, num, total, exact, r);
    case TB_GEOM_LOGNORMAL: return gen_lognormal(spec, counts, num, total, exact, r);
    case TB_GEOM_ZIPF: return gen_zipf(spec, counts, num, total, exact, r);
    default: break;
  }
  return tb_fail(TB_ERR_INVALID_ARGUMENT,
                 "%s: %s: not a kind of independent draws (uniform, power_law, lognormal, zipf)",
                 fn, geometry_names[spec->kind]);
}

tb_status tb_geometry_draw(const tb_geometry_spec *spec, int64_t total, int32_t *counts,
                           int64_t num, tb_rng *r) {
  static const char fn[] = "tb_geometry_draw";
  TB_TRY(check_call(fn, spec, total, counts, num, r));
  return num == 0 ? TB_OK : draw_independent(fn, spec, total, counts, num, false, r);
}

tb_status tb_geometry_counts(const tb_geometry_spec *spec, int64_t total, int32_t *counts,
                             int64_t num, tb_rng *r) {
  static const char fn[] = "tb_geometry_counts";
  TB_TRY(check_call(fn, spec, total, counts, num, r));
  if (num == 0) return TB_OK;
  switch (spec->kind) {
    case TB_GEOM_FIXED: return gen_fixed(counts, num, total);
    case TB_GEOM_EMPTY_FRACTION: return gen_empty_fraction(spec, counts, num, total, r);
    case TB_GEOM_ONE_GIANT: return gen_one_giant(counts, num, total, r);
    case TB_GEOM_ALL_ONE:
      if (total != num)
        return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: all_one needs total == num (%lld != %lld)",
                       fn, (long long)total, (long long)num);
      for (int64_t i = 0; i < num; ++i) counts[i] = 1;
      return TB_OK;
    case TB_GEOM_ZEROS_BUT_ONE:
      if (total > INT32_MAX)
        return tb_fail(TB_ERR_INVALID_ARGUMENT,
                       "%s: zeros_but_one: total %lld does not fit one int32 count", fn,
                       (long long)total);
      memset(counts, 0, (size_t)num * sizeof *counts);
      counts[tb_rng_range(r, 0, num - 1)] = (int32_t)total;
      return TB_OK;
    case TB_GEOM_ZERO_RUNS: return gen_zero_runs(spec, counts, num, total, r);
    default: return draw_independent(fn, spec, total, counts, num, true, r);
  }
}

/* ---- Segment lengths as the sweeps take them. ----------------------------- */

tb_status tb_geometry_parse_lengths(const char *s, tb_geometry_spec *spec) {
  static const char rule[] =
      "lengths are uniform, lognormal:SIGMA (0 < SIGMA <= 3) or zipf:S (0 < S <= 10)";
  if (s == NULL || spec == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_geometry_parse_lengths: NULL argument");
  if (strcmp(s, "uniform") == 0) {
    spec->kind = TB_GEOM_UNIFORM;
    spec->shape = 0.0;
    return TB_OK;
  }
  const char *colon = strchr(s, ':');
  tb_geometry kind = TB_GEOM_COUNT;
  if (colon && colon - s == 9 && strncmp(s, "lognormal", 9) == 0) kind = TB_GEOM_LOGNORMAL;
  if (colon && colon - s == 4 && strncmp(s, "zipf", 4) == 0) kind = TB_GEOM_ZIPF;
  if (kind == TB_GEOM_COUNT)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s, not '%s'", rule, s);
  char *end = NULL;
  errno = 0;
  const double shape = strtod(colon + 1, &end);
  const double most = kind == TB_GEOM_ZIPF ? TB_GEOMETRY_MAX_ZIPF_S : TB_GEOMETRY_MAX_SIGMA;
  /* !(x > 0) also refuses NaN; strtod's "inf" and hex forms are not numbers here. */
  if (end == colon + 1 || *end != '\0' || errno != 0 || !(shape > 0.0 && shape <= most) ||
      strpbrk(colon + 1, "xXnN") != NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s, not '%s'", rule, s);
  spec->kind = kind;
  spec->shape = shape;
  return TB_OK;
}

void tb_segments_free(tb_segments *s) {
  if (s == NULL) return;
  free(s->counts);
  memset(s, 0, sizeof *s);
}

/* One line's value: its text up to a '#' without surrounding white space.
 * Returns 0 for a blank line, 1 for a number in *v, -1 for anything else
 * (*v = -2) or a number past INT32_MAX (*v = -1). */
static int line_value(char *line, int64_t *v) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  char *b = line;
  while (*b == ' ' || *b == '\t') ++b;
  char *e = b + strlen(b);
  while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) --e;
  *e = '\0';
  if (b == e) return 0;
  int64_t x = 0;
  for (const char *p = b; p < e; ++p) {
    if (*p < '0' || *p > '9') {
      *v = -2;
      return -1;
    }
    x = x * 10 + (*p - '0');
    if (x > INT32_MAX) {
      *v = -1;
      return -1;
    }
  }
  *v = x;
  return 1;
}

/* The header's word, for a line that is a comment of its own: "offsets",
 * "lengths" or NULL. */
static const char *header_word(const char *line) {
  while (*line == ' ' || *line == '\t') ++line;
  if (*line != '#') return NULL;
  ++line;
  while (*line == ' ' || *line == '\t') ++line;
  size_t n = strcspn(line, " \t\r\n");
  const char *tail = line + n;
  while (*tail == ' ' || *tail == '\t' || *tail == '\r' || *tail == '\n') ++tail;
  if (*tail != '\0') return NULL;
  if (n == 7 && strncmp(line, "offsets", 7) == 0) return "offsets";
  if (n == 7 && strncmp(line, "lengths", 7) == 0) return "lengths";
  return NULL;
}

tb_status tb_segments_parse(FILE *f, const char *name, tb_segments *out) {
  if (f == NULL || name == NULL || out == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_segments_parse: NULL argument");
  memset(out, 0, sizeof *out);
  char *line = NULL;
  size_t line_cap = 0;
  int64_t cap = 0, lineno = 0, prev = 0, values = 0;
  bool offsets = false, header = false;
  tb_status st = TB_OK;
  ssize_t got;
  while (st == TB_OK && (got = getline(&line, &line_cap, f)) != -1) {
    ++lineno;
    /* The line's text ends at a NUL: what follows one would go unread. */
    if (memchr(line, '\0', (size_t)got)) {
      st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: a NUL byte: not a text file", name,
                   (long long)lineno);
      break;
    }
    if (!header) {
      const char *word = header_word(line);
      char *b = line;
      while (*b == ' ' || *b == '\t' || *b == '\r' || *b == '\n') ++b;
      if (*b == '\0') continue; /* blank lines before the header */
      if (!word) {
        st = tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: the first line must be '# offsets' or '# lengths' (the file's form)",
                     name, (long long)lineno);
        break;
      }
      offsets = word[0] == 'o';
      header = true;
      continue;
    }
    int64_t v;
    const int kind = line_value(line, &v);
    if (kind == 0) continue;
    if (kind < 0) {
      st = tb_fail(TB_ERR_INVALID_ARGUMENT,
                   v == -1 ? "%s:%lld: '%s' is past INT32_MAX (2147483647)"
                           : "%s:%lld: '%s' is not a non-negative integer",
                   name, (long long)lineno, line);
      break;
    }
    ++values;
    int64_t len = v;
    if (offsets) {
      if (values == 1) {
        if (v != 0)
          st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: the first offset must be 0, not %lld",
                       name, (long long)lineno, (long long)v);
        prev = v;
        continue;
      }
      if (v < prev) {
        st = tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: offsets must not decrease (%lld after %lld)", name,
                     (long long)lineno, (long long)v, (long long)prev);
        break;
      }
      len = v - prev;
      prev = v;
    } else if (out->total + v > INT32_MAX) {
      st = tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:%lld: the lengths pass INT32_MAX (2147483647) items in all", name,
                   (long long)lineno);
      break;
    }
    if (out->num == INT32_MAX - 1) { /* the sweeps keep num + 1 int32 offsets */
      st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: more than %d segments", name,
                   (long long)lineno, INT32_MAX - 1);
      break;
    }
    if (out->num == cap) {
      cap = cap ? 2 * cap : 1024;
      if (cap > INT32_MAX - 1) cap = INT32_MAX - 1;
      int32_t *grown = realloc(out->counts, (size_t)cap * sizeof *grown);
      if (!grown) {
        st = tb_fail(TB_ERR_OUT_OF_MEMORY, "%s:%lld: %lld segments", name, (long long)lineno,
                     (long long)cap);
        break;
      }
      out->counts = grown;
    }
    out->counts[out->num++] = (int32_t)len;
    out->total += len;
    out->empty += len == 0;
    if (len > out->longest) out->longest = (int32_t)len;
  }
  free(line);
  if (st == TB_OK && ferror(f))
    st = tb_fail(TB_ERR_IO, "%s: reading failed after line %lld", name, (long long)lineno);
  if (st == TB_OK && !header)
    st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: empty: the first line must be '# offsets' or "
                 "'# lengths'", name);
  if (st == TB_OK && out->num == 0)
    st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: no segments (%s)", name,
                 offsets ? "offsets need two lines at least: 0 and the total" : "no lengths");
  if (st == TB_OK && out->total == 0)
    st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %lld segments and no items", name,
                 (long long)out->num);
  if (st != TB_OK) tb_segments_free(out);
  return st;
}

tb_status tb_segments_read(const char *path, tb_segments *out) {
  if (path == NULL || out == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_segments_read: NULL argument");
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) return tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno));
  const tb_status st = tb_segments_parse(f, path, out);
  fclose(f);
  return st;
}
