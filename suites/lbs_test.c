/* Load-balancing search (tb_lbs): the GPU against the CPU reference
 * (cpuref/interval.h) for every launch box x count geometry, with the ranks
 * from the CTA building block; the reference's demo as a golden vector; no
 * objects and all-zero counts; bad input; and malformed scans, which must
 * give unspecified output but never touch memory outside the arrays (run
 * under compute-sanitizer memcheck with --sanitizer; guard zones around the
 * outputs catch stray writes without it). The interval calls built on it,
 * and the scan validation they share, are interval_test's.
 *
 * Outputs are poisoned before each run so that an element the kernel fails
 * to write cannot pass; every comparison is bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "cpuref/interval.h"
#include "kernels/interval_dispatch.h" /* tb_lbs_wave_tiles */
#include "kernels/tilebench.h"
#include "suites/interval_testing.h"
#include "suites/testing.h"

/* LBS with ranks (the CTA block's preceding-scan entry) against the CPU. */
static bool check_lbs(const lb_problem *p, const tb_launch_box *box, tb_buffer *scratch) {
  char what[256];
  snprintf(what, sizeof what, "lbs box=%dx%d %s", box ? box->nt : 0, box ? box->vt : 0, p->name);
  const int32_t N = p->n_items;
  const size_t bytes = sizeof(int32_t) * (N > 0 ? N : 1);
  int32_t *want = malloc(bytes), *want_rank = malloc(bytes), *got = malloc(bytes);
  tb_buffer d_obj = {0}, d_rank = {0};
  bool ok =
      want && want_rank && got && TB_ASSERT_OK(tb_buffer_alloc(&d_obj, bytes), "alloc") &&
      TB_ASSERT_OK(tb_buffer_alloc(&d_rank, bytes), "alloc") &&
      cudaMemset(d_obj.ptr, 0xa5, bytes) == cudaSuccess &&
      cudaMemset(d_rank.ptr, 0xa5, bytes) == cudaSuccess &&
      TB_ASSERT_OK(tb_lbs(p->d_scan.ptr, p->num_objects, N, d_obj.ptr, d_rank.ptr, box, scratch, 0),
                   what);
  ok = ok && TB_ASSERT_OK(tb_cpu_lbs(p->scan, p->num_objects, N, want), "tb_cpu_lbs") &&
       TB_ASSERT_OK(tb_cpu_lbs_ranks(p->scan, want, N, want_rank), "tb_cpu_lbs_ranks");
  if (ok) {
    ok = TB_ASSERT_OK(tb_buffer_download(&d_obj, got, sizeof(int32_t) * N), what) &&
         lb_same_bits(TB_INT32, got, want, N, what);
    char rwhat[300];
    snprintf(rwhat, sizeof rwhat, "%s (ranks)", what);
    ok = ok && TB_ASSERT_OK(tb_buffer_download(&d_rank, got, sizeof(int32_t) * N), rwhat) &&
         lb_same_bits(TB_INT32, got, want_rank, N, rwhat);
  }
  free(want), free(want_rank), free(got);
  tb_buffer_free(&d_obj), tb_buffer_free(&d_rank);
  return ok;
}

static bool check_at_box(const lb_problem *p, const tb_launch_box *box, tb_buffer *scratch,
                         tb_rng *r, void *ctx) {
  (void)r, (void)ctx;
  return check_lbs(p, box, scratch);
}

TB_TEST(test_every_box_geometry, "every box x geometry") {
  CU_ASSERT(lb_each_box_geometry(check_at_box, NULL) == 0);
}

static void check_large(const lb_problem *p, tb_rng *r) {
  (void)r;
  check_lbs(p, NULL, NULL);
}

/* The tuned default on the largest test size: many tiles, heavy-tailed and
 * uniform counts. */
TB_TEST(test_default_box_large, "default box, large") { lb_each_large_problem(check_large); }

/* One wave of tiles searches its own bounds; one tile more takes the
 * partition pass. Both sides of the switch (the GPU's own capacity,
 * tb_lbs_wave_tiles) and one tile, each at the tile's edge and one merged
 * element either side, at the default box and the grid's first and last,
 * over counts of 16 and one object of nearly all the items. */
/* The item count whose objects make `merged` merged elements with them, or
 * the nearest (a step of the object count may pass over it). */
static int64_t items_for_merged(const tb_geometry_spec *spec, int64_t merged) {
  int64_t items = (int64_t)((double)merged * spec->avg / (spec->avg + 1.0));
  for (int i = 0; i < 256; ++i) {
    const int64_t m = items + tb_geometry_num_objects(spec, items);
    if (m == merged) break;
    items += m < merged ? 1 : -1;
  }
  return items;
}

TB_TEST(test_one_wave_switch, "one wave: both sides of the switch") {
  tb_rng r = tb_test_rng(5);
  tb_launch_box grid[64];
  const int n_grid = tb_lbs_grid(grid, 64);
  CU_ASSERT_FATAL(n_grid > 0 && n_grid <= 64);
  const tb_launch_box boxes[3] = {tb_lbs_default_box(0, 0), grid[0], grid[n_grid - 1]};
  tb_buffer scratch = {0};
  /* Quick (and under the sanitizers): the default box, at the edges. */
  const int n_boxes = tb_test.quick ? 1 : 3, d0 = tb_test.quick ? 0 : -1, d1 = -d0;
  for (int b = 0; b < n_boxes; ++b) {
    const int64_t tile = (int64_t)boxes[b].nt * boxes[b].vt;
    const int wave = tb_lbs_wave_tiles(boxes[b]);
    CU_ASSERT(wave > 0);
    const int64_t tiles[] = {1, wave, (int64_t)wave + 1};
    for (int k = 0; k < 3; ++k)
      for (int delta = d0; delta <= d1; ++delta) {
        const int64_t total = tiles[k] * tile + delta; /* items + objects, merged */
        const tb_geometry_spec specs[] = {tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0),
                                          tb_geometry_spec_default(TB_GEOM_ONE_GIANT, 64.0)};
        for (size_t g = 0; g < sizeof specs / sizeof specs[0]; ++g) {
          lb_problem p;
          if (lb_problem_make(&p, &specs[g], items_for_merged(&specs[g], total), &r))
            check_lbs(&p, &boxes[b], &scratch);
          lb_problem_free(&p);
        }
      }
  }
  tb_buffer_free(&scratch);
}

/* No objects and no items; objects whose counts are all zero: nothing to
 * write, and nothing written. */
TB_TEST(test_empty_and_all_zero, "empty and all-zero counts") {
  tb_rng r = tb_test_rng(2);
  lb_problem p;
  if (lb_problem_all_zero(&p, 5000, &r)) {
    CU_ASSERT_EQUAL(p.n_items, 0);
    int64_t poison[16], got[16];
    memset(poison, 0x5a, sizeof poison);
    tb_buffer out = {0};
    if (tb_test_upload(&out, poison, sizeof poison)) {
      int32_t *obj = out.ptr;
      TB_ASSERT_OK(tb_lbs(p.d_scan.ptr, p.num_objects, 0, obj, obj, NULL, NULL, 0), "lbs all zero");
      TB_ASSERT_OK(tb_buffer_download(&out, got, sizeof got), "download");
      CU_ASSERT(memcmp(got, poison, sizeof got) == 0);
    }
    tb_buffer_free(&out);
  }
  lb_problem_free(&p);
  /* Empty: every pointer may be NULL. */
  TB_ASSERT_OK(tb_lbs(NULL, 0, 0, NULL, NULL, NULL, NULL, 0), "lbs empty");
}

/* ---- golden vector: the reference's demo ----------------------------------- */

TB_TEST(test_golden_demo, "golden demo") {
  tb_rng r;
  tb_rng_seed(&r, 7);
  const tb_launch_box small = {64, 3}; /* several tiles even for these sizes */
  /* Load-balancing search with ranks: 40 objects, 79 items. */
  static const int32_t counts1[40] = {1, 2, 4, 0, 4, 4, 3, 3, 2, 4, 0, 0, 1, 2, 1, 1, 0, 2, 2, 1,
                                      1, 4, 2, 3, 2, 2, 1, 1, 3, 0, 2, 1, 1, 3, 4, 2, 2, 4, 0, 4};
  static const int32_t lbs1[79] = {0,  1,  1,  2,  2,  2,  2,  4,  4,  4,  4,  5,  5,  5,  5,  6,
                                   6,  6,  7,  7,  7,  8,  8,  9,  9,  9,  9,  12, 13, 13, 14, 15,
                                   17, 17, 18, 18, 19, 20, 21, 21, 21, 21, 22, 22, 23, 23, 23, 24,
                                   24, 25, 25, 26, 27, 28, 28, 28, 30, 30, 31, 32, 33, 33, 33, 34,
                                   34, 34, 34, 35, 35, 36, 36, 37, 37, 37, 37, 39, 39, 39, 39};
  static const int32_t rank1[79] = {0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0, 1,
                                    2, 0, 1, 0, 1, 2, 3, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1,
                                    2, 3, 0, 1, 0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 1, 2, 0, 1, 0, 0,
                                    0, 1, 2, 0, 1, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3};

  int32_t got[79];
  tb_buffer out = {0}, rank = {0};
  TB_ASSERT_OK(tb_buffer_alloc(&out, sizeof got), "alloc");
  TB_ASSERT_OK(tb_buffer_alloc(&rank, sizeof got), "alloc");

  lb_problem p = lb_problem_from_counts(counts1, 40, &r);
  CU_ASSERT_EQUAL(p.n_items, 79);
  for (int b = 0; b < 2; ++b) {
    const tb_launch_box *box = b ? &small : NULL;
    if (TB_ASSERT_OK(tb_lbs(p.d_scan.ptr, 40, 79, out.ptr, rank.ptr, box, NULL, 0), "lbs demo")) {
      TB_ASSERT_OK(tb_buffer_download(&out, got, 79 * sizeof(int32_t)), "download");
      lb_same_bits(TB_INT32, got, lbs1, 79, "lbs demo: objects");
      TB_ASSERT_OK(tb_buffer_download(&rank, got, 79 * sizeof(int32_t)), "download");
      lb_same_bits(TB_INT32, got, rank1, 79, "lbs demo: ranks");
    }
  }
  lb_problem_free(&p);
  tb_buffer_free(&out), tb_buffer_free(&rank);
}

/* ---- bad input --------------------------------------------------------------- */

TB_TEST(test_bad_input, "bad input") {
  lb_bad_input f;
  lb_bad_input_begin(&f);
  int32_t *s = f.a.ptr, *o = f.b.ptr;
  char *odd = (char *)f.b.ptr + 4;
  const tb_launch_box off_grid = {100, 3}, half = {128, 0}, too_big = {512, 15};
  const int64_t big = (int64_t)INT32_MAX + 1;
  const char *const L = "tb_lbs";
  TB_EXPECT_REJECTS(tb_lbs(NULL, 10, 10, o, NULL, NULL, NULL, 0), L, "d_scan is NULL",
                    "10 objects");
  TB_EXPECT_REJECTS(tb_lbs(s, 10, 10, NULL, NULL, NULL, NULL, 0), L, "d_obj is NULL",
                    "n_items = 10");
  TB_EXPECT_REJECTS(tb_lbs(s, -1, 10, o, NULL, NULL, NULL, 0), L, "num_objects = -1",
                    "outside [0, INT32_MAX]");
  TB_EXPECT_REJECTS(tb_lbs(s, 10, -5, o, NULL, NULL, NULL, 0), L, "n_items = -5",
                    "outside [0, INT32_MAX]");
  /* a total past int32, objects past int32, items without objects */
  TB_EXPECT_REJECTS(tb_lbs(s, 10, big, o, NULL, NULL, NULL, 0), L, "n_items = 2147483648",
                    "outside [0, INT32_MAX]");
  TB_EXPECT_REJECTS(tb_lbs(s, big, 10, o, NULL, NULL, NULL, 0), L, "num_objects = 2147483648",
                    "outside [0, INT32_MAX]");
  TB_EXPECT_REJECTS(tb_lbs(s, 0, 10, o, NULL, NULL, NULL, 0), L,
                    "10 items but no objects to own them");
  TB_EXPECT_REJECTS(tb_lbs(s, 10, 10, o, (int32_t *)(odd + 1), NULL, NULL, 0), L,
                    "d_rank is not aligned", "4-byte elements");
  TB_EXPECT_REJECTS(tb_lbs(s, 10, 10, o, NULL, &off_grid, NULL, 0), L, "launch box 100x3",
                    "is not in the lbs grid");
  TB_EXPECT_REJECTS(tb_lbs(s, 10, 10, o, NULL, &half, NULL, 0), L, "launch box 128x0",
                    "is not in the lbs grid");
  TB_EXPECT_REJECTS(tb_lbs(s, 10, 10, o, NULL, &too_big, NULL, 0), L, "launch box 512x15",
                    "does not fit in shared memory for lbs");
  lb_bad_input_end(&f);
}

/* ---- malformed scans ------------------------------------------------------------ */

/* tb_lbs on a malformed scan must succeed and write nothing outside its
 * outputs. The scan is allocated to its exact size, so that memcheck
 * (--sanitizer) sees any read past it; the outputs have guard zones on both
 * sides, checked here, for stray writes. */
static void run_malformed(const int32_t *scan, int32_t n_objects, int32_t n_items,
                          const char *what) {
  tb_buffer d_scan = {0}, d_obj = {0}, d_rank = {0};
  if (tb_test_upload(&d_scan, scan, sizeof(int32_t) * n_objects) &&
      lb_guarded_alloc(&d_obj, n_items) && lb_guarded_alloc(&d_rank, n_items)) {
    int32_t *obj32 = (int32_t *)((int64_t *)d_obj.ptr + kGuard);
    int32_t *rank32 = (int32_t *)((int64_t *)d_rank.ptr + kGuard);
    char w[160];
    snprintf(w, sizeof w, "%s: lbs", what);
    TB_ASSERT_OK(tb_lbs(d_scan.ptr, n_objects, n_items, obj32, rank32, NULL, NULL, 0), w);
    lb_guards_intact(&d_obj, n_items, what);
    lb_guards_intact(&d_rank, n_items, what);
  }
  tb_buffer_free(&d_scan), tb_buffer_free(&d_obj), tb_buffer_free(&d_rank);
}

TB_TEST(test_malformed_scans_memory_safe, "malformed scans stay memory safe") {
  lb_for_each_malformed_scan(run_malformed);
}

int main(int argc, char **argv) { return tb_test_main(argc, argv, "lbs_test"); }
