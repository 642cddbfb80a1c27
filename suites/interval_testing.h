/* What the load-balancing search and interval suites share (lbs_test,
 * interval_test): problems (counts, their scan, interval placements) on the
 * host and the device, the count geometries where load balancing goes
 * wrong, bit-exact comparison, and the malformed scans with the guard zones
 * that catch stray writes. */
#ifndef TB_SUITES_INTERVAL_TESTING_H
#define TB_SUITES_INTERVAL_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "kernels/tilebench.h"
#include "suites/testing.h"

/* Bit-exact comparison with the first mismatch in the failure text. */
bool lb_same_bits(tb_type t, const void *got, const void *want, int64_t n, const char *what);

/* ---- a problem: counts, scan, interval placements ------------------------ */

typedef struct {
  char name[96];
  int32_t num_objects, n_items;
  int32_t *counts, *scan, *gather, *scatter; /* host */
  tb_buffer d_scan, d_gather, d_scatter;
} lb_problem;

void lb_problem_free(lb_problem *p);

/* From counts already in p->counts (num_objects of them): the scan, and
 * gather and scatter offsets that lay the intervals out back to back in a
 * random order (every item of [0, n_items) covered once, so move, gather
 * and scatter write every output and never overlap). */
bool lb_problem_finish(lb_problem *p, tb_rng *r);

/* num_objects objects, every count zero (no items). */
bool lb_problem_all_zero(lb_problem *p, int32_t num_objects, tb_rng *r);

bool lb_problem_make(lb_problem *p, const tb_geometry_spec *spec, int64_t total, tb_rng *r);
lb_problem lb_problem_from_counts(const int32_t *counts, int32_t n, tb_rng *r);

/* ---- geometries ------------------------------------------------------------ */

/* The count distributions where load balancing goes wrong, for a box whose
 * tile holds `tile` merged elements; out holds up to 16. */
int lb_geometries(int tile, tb_geometry_spec *out);

/* A few boxes under the sanitizer (every launch is many times slower there):
 * the smallest tile, a mid one and the largest of the interval grid. */
bool lb_box_selected(tb_launch_box b);

/* Calls check on a problem of every count geometry at every selected box of
 * the LBS grid (tb_lbs_grid: the interval grids' boxes too), each several
 * tiles with a partial last one; odd boxes pass scratch NULL (allocated
 * inside the call). r is the draws' generator, seeded from tb_test.seed.
 * Stops after 10 failures; returns how many. */
typedef bool (*lb_box_check)(const lb_problem *p, const tb_launch_box *box, tb_buffer *scratch,
                             tb_rng *r, void *ctx);
int lb_each_box_geometry(lb_box_check check, void *ctx);

/* Calls check on the tuned default's large problems: uniform, heavy-tailed
 * and all-one counts over tb_test.max_random_n items (many tiles); r is the
 * draws' generator. */
void lb_each_large_problem(void (*check)(const lb_problem *p, tb_rng *r));

/* ---- bad input -------------------------------------------------------------- */

/* What the bad-input tests call with: two 4096-byte device arrays, a (the
 * scan) and b (the outputs), and the free device memory after them. */
typedef struct {
  tb_buffer a, b;
  size_t free_before;
} lb_bad_input;

void lb_bad_input_begin(lb_bad_input *f);
/* Asserts that the calls since lb_bad_input_begin leaked nothing; frees. */
void lb_bad_input_end(lb_bad_input *f);

/* ---- malformed scans ------------------------------------------------------- */

enum { kGuard = 4096, kCanary = 0x3c };

/* Room for n_items int64 outputs with kGuard canary elements on each side;
 * (int64_t *)b->ptr + kGuard is what the call gets. */
bool lb_guarded_alloc(tb_buffer *b, int32_t n_items);

/* The guard zones of a lb_guarded_alloc buffer are intact (asserted). */
bool lb_guards_intact(const tb_buffer *b, int32_t n_items, const char *what);

/* Runs `run` on malformed scans of n_objects entries over n_items items:
 * random entries, descending, starting past 0, extremes, sorted but for one
 * spike past the total, and a wrong total. */
void lb_for_each_malformed_scan(void (*run)(const int32_t *scan, int32_t n_objects, int32_t n_items,
                                            const char *what));

#endif
