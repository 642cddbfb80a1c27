#include "core/geometry.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const char *const geometry_names[TB_GEOM_COUNT] = {
    "fixed",   "uniform",       "power_law", "empty_fraction", "one_giant",
    "all_one", "zeros_but_one", "zero_runs"};

const char *tb_geometry_name(tb_geometry g) {
  return (int)g >= 0 && g < TB_GEOM_COUNT ? geometry_names[g] : "invalid";
}

bool tb_geometry_parse(const char *s, tb_geometry *out) {
  if (s == NULL) return false;
  for (int i = 0; i < TB_GEOM_COUNT; ++i)
    if (strcmp(s, geometry_names[i]) == 0) {
      if (out) *out = (tb_geometry)i;
      return true;
    }
  return false;
}

tb_geometry_spec tb_geometry_spec_default(tb_geometry kind, double avg) {
  tb_geometry_spec s = {kind, avg, 0.0, 0.0};
  if (kind == TB_GEOM_EMPTY_FRACTION || kind == TB_GEOM_ZERO_RUNS) s.empty_fraction = 0.5;
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

static tb_status gen_uniform(int32_t *c, int64_t num, int64_t total, tb_rng *r) {
  if (total < num)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_geometry_counts: uniform counts are >= 1: total %lld < num %lld",
                   (long long)total, (long long)num);
  uniform_mean u = uniform_mean_make(1, (double)total / (double)num);
  for (int64_t i = 0; i < num; ++i) c[i] = (int32_t)uniform_mean_draw(&u, r);
  int64_t hi = u.hi_floor + (u.p_up > 0.0);
  if (hi < (total + num - 1) / num) hi = (total + num - 1) / num; /* INT32_MAX cut */
  return spread(c, num, total - sum_counts(c, num), 1, hi, ELIGIBLE_ALL, r);
}

static tb_status gen_power_law(int32_t *c, int64_t num, int64_t total, tb_rng *r) {
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
  return spread(c, num, total - sum_counts(c, num), 0, cap, ELIGIBLE_ALL, r);
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

tb_status tb_geometry_counts(const tb_geometry_spec *spec, int64_t total, int32_t *counts,
                             int64_t num, tb_rng *r) {
  static const char fn[] = "tb_geometry_counts";
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

  switch (spec->kind) {
    case TB_GEOM_FIXED: return gen_fixed(counts, num, total);
    case TB_GEOM_UNIFORM: return gen_uniform(counts, num, total, r);
    case TB_GEOM_POWER_LAW: return gen_power_law(counts, num, total, r);
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
    default: break;
  }
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: invalid geometry %d", fn, (int)spec->kind);
}
