/* Count / segment-length generators: how many work items each object holds
 * (load-balancing search, interval expand/move) or how long each segment is
 * (segmented reduction). Seeded (core/rng.h), so the same spec and seed give
 * the same counts on every machine.
 *
 * The sum is exact: tb_geometry_counts draws from the geometry's distribution
 * with the mean total / num, then spreads the (small) difference between what
 * it drew and `total` evenly over the objects that may take it, without
 * leaving the geometry's bounds. LOGNORMAL and ZIPF, whose heavy tails leave
 * a larger difference, first scale every count's excess over 1 by the ratio
 * that closes it (a change of scale, not of shape), then spread the few units
 * left. Benchmarks therefore get exactly the number of work items they ask
 * for (2^26, say). */
#ifndef TB_CORE_GEOMETRY_H
#define TB_CORE_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/rng.h"
#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* m below is the mean total / num; with num = tb_geometry_num_objects(spec,
 * total) it is spec->avg up to rounding (num * avg - total < avg). */
typedef enum tb_geometry {
  /* Counts differ by at most one: floor(m) or ceil(m), spread evenly; all
   * equal avg when total = num * avg. No randomness. */
  TB_GEOM_FIXED,
  /* Uniform in [1, 2m - 1] (m >= 1), the distribution the published CUB and cuSPARSE figures use. For a
   * non-integer 2m - 1 the upper end is floor or ceil of it, chosen per draw
   * so that the expected value is m. Never zero. */
  TB_GEOM_UNIFORM,
  /* Heavy-tailed: Pareto type II (Lomax) with shape 2, scale m, rounded
   * stochastically to integers: P(count > x) ~ (m / (m + x))^2. Mostly small
   * counts and zeros, a few very large ones (capped at min(total, INT32_MAX)). */
  TB_GEOM_POWER_LAW,
  /* Exactly llround(empty_fraction * num) zero counts at random positions
   * (at most num - 1 when total > 0); the rest uniform as TB_GEOM_UNIFORM
   * with the mean that makes the total (>= 1 each). */
  TB_GEOM_EMPTY_FRACTION,
  /* One object (random position) holds almost everything: every other count
   * is 0 or 1 (fair coin), the giant the rest, about
   * total * (1 - 1 / (2 avg)). */
  TB_GEOM_ONE_GIANT,
  /* Every count is 1: total must equal num (tb_geometry_num_objects gives
   * total whatever avg says). */
  TB_GEOM_ALL_ONE,
  /* Every count is 0 but one (random position), which holds total. */
  TB_GEOM_ZEROS_BUT_ONE,
  /* Runs of zeros between runs of non-zero counts. Zero runs have lengths
   * uniform with mean run_length (so runs longer than a CTA's tile leave whole
   * tiles without work), non-zero runs the length that makes the zero
   * fraction about empty_fraction; non-zero counts as TB_GEOM_EMPTY_FRACTION. */
  TB_GEOM_ZERO_RUNS,
  /* 1 + Y, Y log-normal with sigma = spec->shape (of the underlying normal)
   * and mean m - 1 (mu = ln(m - 1) - sigma^2 / 2), rounded stochastically to
   * an integer of the same expected value: mean m, a long right tail, the
   * median 1 + (m - 1) exp(-sigma^2 / 2). Never zero, like UNIFORM (whose
   * counts are 1 + a uniform of mean m - 1), so m >= 1 and m = 1 gives all
   * ones. Each draw is capped at total - num + 1 (the others hold >= 1). */
  TB_GEOM_LOGNORMAL,
  /* Zipf with exponent s = spec->shape over a finite support: count k in
   * [1, K] with probability proportional to k^-s. The support sets the mean,
   * H_K(s - 1) / H_K(s) (H_K(a) = sum of k^-a, k = 1..K), which grows with K:
   * K is the smallest support whose mean reaches m, and a draw takes support
   * K - 1 instead with the probability that makes the expected value exactly
   * m. Never zero (m >= 1; m = 1: all ones). K is at most INT32_MAX, which
   * bounds the mean for s > 1 (about 35000 at s = 1.5, 13.4 at s = 2,
   * zeta(s - 1) / zeta(s) beyond): tb_geometry_max_avg says how far, and a
   * larger avg is an error. Each draw is capped as LOGNORMAL's. */
  TB_GEOM_ZIPF,
  TB_GEOM_COUNT
} tb_geometry;

/* Mean zero-run length of TB_GEOM_ZERO_RUNS when spec->run_length is 0: longer
 * than the largest tile the sweeps use (512 x 15 = 7680 items or objects)
 * half of the time. */
#define TB_GEOMETRY_DEFAULT_RUN 8192.0

typedef struct tb_geometry_spec {
  tb_geometry kind;
  double avg;            /* mean count (items per object); > 0, finite */
  double empty_fraction; /* EMPTY_FRACTION: [0, 1); ZERO_RUNS: (0, 1); else ignored */
  double run_length;     /* ZERO_RUNS: mean zero-run length (>= 1), 0 for the default */
  double shape;          /* LOGNORMAL: sigma in (0, 3]; ZIPF: exponent s in (0, 10] */
} tb_geometry_spec;

/* LOGNORMAL's sigma stops at 3: past it the mean rests on a handful of draws
 * at any size a sweep runs (the coefficient of variation is
 * sqrt(exp(sigma^2) - 1), 90 at 3), so the sum fix, not the model, would set
 * it. */
#define TB_GEOMETRY_MAX_SIGMA 3.0
#define TB_GEOMETRY_MAX_ZIPF_S 10.0

/* A ready spec for kind: empty_fraction 0.5 for EMPTY_FRACTION and ZERO_RUNS,
 * the default run length, sigma 1 for LOGNORMAL, s 1.5 for ZIPF, avg as
 * given. */
tb_geometry_spec tb_geometry_spec_default(tb_geometry kind, double avg);

/* Fills counts[0..num) with counts >= 0 whose sum is exactly total (see each
 * kind above). num may be 0 only when total is 0; num <= INT32_MAX (objects
 * are int32-indexed). Errors (TB_ERR_INVALID_ARGUMENT with a message; counts
 * then hold nothing meaningful): NULL spec, counts or r (counts may be NULL
 * when num is 0), an invalid kind or field, total < 0, num out of range, and a
 * total the kind cannot reach with num int32 counts (UNIFORM with total < num,
 * ALL_ONE with total != num, a giant over INT32_MAX, more non-empty objects
 * than items, LOGNORMAL or ZIPF with total < num, ZIPF past its largest mean,
 * ...). total 0 gives all-zero counts for every kind that allows zeros
 * (EMPTY_FRACTION and ZERO_RUNS included). */
tb_status tb_geometry_counts(const tb_geometry_spec *spec, int64_t total,
                             int32_t *counts, int64_t num, tb_rng *r);

/* The draws tb_geometry_counts starts from, before it makes the sum exact:
 * what a kind's distribution gives on its own, for tests of its mean and
 * shape (the counts sum to about total). Only for the kinds whose counts are
 * independent draws: UNIFORM, POWER_LAW, LOGNORMAL, ZIPF; arguments and
 * errors as tb_geometry_counts. */
tb_status tb_geometry_draw(const tb_geometry_spec *spec, int64_t total, int32_t *counts,
                           int64_t num, tb_rng *r);

/* The largest avg the kind can describe: ZIPF's mean at support INT32_MAX
 * (finite for s > 1), INFINITY for every other kind, NAN for an invalid
 * spec. */
double tb_geometry_max_avg(const tb_geometry_spec *spec);

/* How many objects the geometry wants for total items: ceil(total / avg)
 * (at least 1 for total >= 1, 0 for total 0: an empty problem); total itself
 * for ALL_ONE. -1 for an invalid spec, total < 0, or a count past 2^62. */
int64_t tb_geometry_num_objects(const tb_geometry_spec *spec, int64_t total);

/* "fixed", "uniform", "power_law", "empty_fraction", "one_giant", "all_one",
 * "zeros_but_one", "zero_runs", "lognormal", "zipf"; "invalid" otherwise. */
const char *tb_geometry_name(tb_geometry g);
/* The inverse of tb_geometry_name; false (and *out untouched) if unknown. */
bool tb_geometry_parse(const char *s, tb_geometry *out);

/* ---- Segment lengths as the sweeps take them. ----------------------------- */

/* "uniform", "lognormal:SIGMA" or "zipf:S" (the sweeps' --tb_lengths) into
 * spec->kind and spec->shape, leaving its other fields as they are.
 * TB_ERR_INVALID_ARGUMENT with a message naming the rule otherwise. */
tb_status tb_geometry_parse_lengths(const char *s, tb_geometry_spec *spec);

/* A segment file (the sweeps' --tb_segments): text, one non-negative decimal
 * integer per line, in one of two forms named by its first line that is not
 * blank:
 *   # offsets   CSR offsets: the first 0, none smaller than the one before,
 *               at least two (one segment); the last is the total;
 *   # lengths   segment lengths, at least one.
 * '#' starts a comment anywhere else (a line of its own or after a number),
 * blank lines and surrounding white space are ignored; a NUL byte is
 * refused (no text file has one). Empty segments are allowed; the total
 * must be in [1, INT32_MAX] (items are int32-indexed), hence every value
 * too. */
typedef struct tb_segments {
  int32_t *counts; /* num lengths */
  int64_t num, total;
  int64_t empty;   /* segments of length 0 */
  int32_t longest;
} tb_segments;

/* Reads `name`'s text from f into *out (freed with tb_segments_free, zeroed on
 * error). TB_ERR_INVALID_ARGUMENT with "name:line: what" for a malformed
 * file; TB_ERR_OUT_OF_MEMORY. */
tb_status tb_segments_parse(FILE *f, const char *name, tb_segments *out);
/* The same from the file at path; TB_ERR_IO when it cannot be read. */
tb_status tb_segments_read(const char *path, tb_segments *out);
void tb_segments_free(tb_segments *s);

#ifdef __cplusplus
}
#endif
#endif
