/* Seeded, reproducible random inputs (splitmix64): the same seed gives the same
 * data on every machine. */
#ifndef TB_CORE_RNG_H
#define TB_CORE_RNG_H

#include <stdint.h>
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_rng { uint64_t state; } tb_rng;

void tb_rng_seed(tb_rng *r, uint64_t seed);
uint64_t tb_rng_next(tb_rng *r);
/* Uniform in [lo, hi] (inclusive). */
int64_t tb_rng_range(tb_rng *r, int64_t lo, int64_t hi);
/* Uniform in [0, 1). */
double tb_rng_unit(tb_rng *r);

/* Fill n elements of type t with values that suit op. Chosen so that every
 * reference comparison can be exact or tightly bounded:
 *   plus, float/double: integers in [-m, m], m = max(1, floor(2^p / n)) capped
 *     at 1000, p = 24 (float) / 53 (double): any partial sum over any subset is
 *     an integer of magnitude <= 2^p, so sums are EXACT in every order.
 *   plus, integers: [-1000, 1000] (wrap-around is tested separately).
 *   multiplies: integers from {1, -1, 2, 3} (products wrap, which is defined);
 *     floats from {1, -1} (products exact, never vanish or overflow).
 *   min/max: floats uniform in [-1e6, 1e6); integers uniform in [-2^30, 2^30]
 *     (int32) / [-2^62, 2^62] (int64).
 *   bit_and/or/xor: all bits random.
 * Pairs that tb_check_type_op rejects, and n <= 0, leave dst untouched. */
void tb_fill_random(tb_rng *r, tb_type t, tb_op op, void *dst, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
