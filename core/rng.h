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

/* Fill n elements of type t with values that suit op: small integers for
 * plus (so that sums stay readable), values near 1 for multiplies (so that
 * products neither vanish nor overflow to inf for floats; integers keep to
 * {1, -1, 2} and wrap), wide ranges for min/max and the bitwise ops. */
void tb_fill_random(tb_rng *r, tb_type t, tb_op op, void *dst, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
