/* CPU references for load-balancing search and interval expand / move /
 * gather / scatter (cpuref/interval.h), and the count geometries
 * (core/geometry.h).
 *
 * Golden vectors are typed in from the published documentation:
 *   moderngpu, "Load-Balancing Search"           load-balancing search
 *   moderngpu, "IntervalExpand and IntervalMove"  IntervalExpand / IntervalMove
 * Everything else checks properties against independent formulations (a
 * binary-search upper bound, per-item copies through the search's object and
 * rank), never against outputs of the code under test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "core/geometry.h"
#include "core/rng.h"
#include "core/status.h"
#include "core/types.h"
#include "cpuref/interval.h"
#include "suites/cpu_testing.h"


static const tb_type kAllTypes[] = {TB_INT32, TB_INT64, TB_FLOAT, TB_DOUBLE};

/* ---- Golden vectors from 003 (load-balancing search). -------------------- */

/* "LOAD-BALANCING SEARCH DEMONSTRATION": 50 random counts in [0, 5]. */
#define LBS50_N 50
#define LBS50_TOTAL 125
static const int32_t lbs50_counts[LBS50_N] = {
    0, 3, 5, 2, 1, 3, 1, 5, 4, 5,
    2, 5, 4, 0, 2, 3, 1, 4, 0, 5,
    4, 3, 2, 4, 2, 4, 3, 3, 0, 3,
    1, 4, 4, 4, 4, 2, 0, 3, 0, 5,
    0, 0, 0, 0, 2, 2, 3, 0, 4, 4,
};
static const int32_t lbs50_scan[LBS50_N] = {
      0,   0,   3,   8,  10,  11,  14,  15,  20,  24,
     29,  31,  36,  40,  40,  42,  45,  46,  50,  50,
     55,  59,  62,  64,  68,  70,  74,  77,  80,  80,
     83,  84,  88,  92,  96, 100, 102, 102, 105, 105,
    110, 110, 110, 110, 110, 112, 114, 117, 117, 121,
};
static const int32_t lbs50_refs[LBS50_TOTAL] = {
     1,  1,  1,  2,  2,  2,  2,  2,  3,  3,
     4,  5,  5,  5,  6,  7,  7,  7,  7,  7,
     8,  8,  8,  8,  9,  9,  9,  9,  9, 10,
    10, 11, 11, 11, 11, 11, 12, 12, 12, 12,
    14, 14, 15, 15, 15, 16, 17, 17, 17, 17,
    19, 19, 19, 19, 19, 20, 20, 20, 20, 21,
    21, 21, 22, 22, 23, 23, 23, 23, 24, 24,
    25, 25, 25, 25, 26, 26, 26, 27, 27, 27,
    29, 29, 29, 30, 31, 31, 31, 31, 32, 32,
    32, 32, 33, 33, 33, 33, 34, 34, 34, 34,
    35, 35, 37, 37, 37, 39, 39, 39, 39, 39,
    44, 44, 45, 45, 46, 46, 46, 48, 48, 48,
    48, 49, 49, 49, 49,
};

/* The 40-object figure ("Work-item counts", "Exc-scan of counts",
 * "Inc-scan of counts", "Load-balancing search", "Work-item rank"). */
#define LBS40_N 40
#define LBS40_TOTAL 79
static const int32_t lbs40_counts[LBS40_N] = {
    1, 2, 4, 0, 4, 4, 3, 3, 2, 4,
    0, 0, 1, 2, 1, 1, 0, 2, 2, 1,
    1, 4, 2, 3, 2, 2, 1, 1, 3, 0,
    2, 1, 1, 3, 4, 2, 2, 4, 0, 4,
};
static const int32_t lbs40_exc_scan[LBS40_N] = {
     0,  1,  3,  7,  7, 11, 15, 18, 21, 23,
    27, 27, 27, 28, 30, 31, 32, 32, 34, 36,
    37, 38, 42, 44, 47, 49, 51, 52, 53, 56,
    56, 58, 59, 60, 63, 67, 69, 71, 75, 75,
};
static const int32_t lbs40_inc_scan[LBS40_N] = {
     1,  3,  7,  7, 11, 15, 18, 21, 23, 27,
    27, 27, 28, 30, 31, 32, 32, 34, 36, 37,
    38, 42, 44, 47, 49, 51, 52, 53, 56, 56,
    58, 59, 60, 63, 67, 69, 71, 75, 75, 79,
};
static const int32_t lbs40_lbs[LBS40_TOTAL] = {
     0,  1,  1,  2,  2,  2,  2,  4,  4,  4,
     4,  5,  5,  5,  5,  6,  6,  6,  7,  7,
     7,  8,  8,  9,  9,  9,  9, 12, 13, 13,
    14, 15, 17, 17, 18, 18, 19, 20, 21, 21,
    21, 21, 22, 22, 23, 23, 23, 24, 24, 25,
    25, 26, 27, 28, 28, 28, 30, 30, 31, 32,
    33, 33, 33, 34, 34, 34, 34, 35, 35, 36,
    36, 37, 37, 37, 37, 39, 39, 39, 39,
};
static const int32_t lbs40_rank[LBS40_TOTAL] = {
    0, 0, 1, 0, 1, 2, 3, 0, 1, 2,
    3, 0, 1, 2, 3, 0, 1, 2, 0, 1,
    2, 0, 1, 0, 1, 2, 3, 0, 0, 1,
    0, 0, 0, 1, 0, 1, 0, 0, 0, 1,
    2, 3, 0, 1, 0, 1, 2, 0, 1, 0,
    1, 0, 0, 0, 1, 2, 0, 1, 0, 0,
    0, 1, 2, 0, 1, 2, 3, 0, 1, 0,
    1, 0, 1, 2, 3, 0, 1, 2, 3,
};

/* The kernels/loadbalance.cuh comment: counts 2, 5, 3, 0, 1. */
static const int32_t lbs5_counts[5] = {2, 5, 3, 0, 1};
static const int32_t lbs5_scan[5] = {0, 2, 7, 10, 10};
static const int32_t lbs5_lbs[11] = {0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4};

/* ---- Golden vectors from 002 (IntervalExpand / IntervalMove). ------------ */

/* "INTERVAL-EXPAND DEMONSTRATION": the first 20 Fibonacci numbers expanded
 * by 20 counts that add up to 100. The scan and the search are the page's
 * "Scan of expand counts" and "Load-balancing search" figures. */
#define EXPAND_N 20
#define EXPAND_TOTAL 100
static const int32_t expand_counts[EXPAND_N] = {
    2, 5, 7, 16, 0, 1, 0, 0, 14, 10,
    3, 14, 2, 1, 11, 2, 1, 0, 5, 6,
};
static const int32_t expand_values[EXPAND_N] = {
     1,   1,   2,   3,   5,   8,   13,   21,   34,   55,
    89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765,
};
static const int32_t expand_scan[EXPAND_N] = {
     0,  2,  7, 14, 30, 30, 31, 31, 31, 45,
    55, 58, 72, 74, 75, 86, 88, 89, 89, 94,
};
static const int32_t expand_lbs[EXPAND_TOTAL] = {
     0,  0,  1,  1,  1,  1,  1,  2,  2,  2,
     2,  2,  2,  2,  3,  3,  3,  3,  3,  3,
     3,  3,  3,  3,  3,  3,  3,  3,  3,  3,
     5,  8,  8,  8,  8,  8,  8,  8,  8,  8,
     8,  8,  8,  8,  8,  9,  9,  9,  9,  9,
     9,  9,  9,  9,  9, 10, 10, 10, 11, 11,
    11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
    11, 11, 12, 12, 13, 14, 14, 14, 14, 14,
    14, 14, 14, 14, 14, 14, 15, 15, 16, 18,
    18, 18, 18, 18, 19, 19, 19, 19, 19, 19,
};
static const int32_t expand_out[EXPAND_TOTAL] = {
       1,    1,    1,    1,    1,    1,    1,    2,    2,    2,
       2,    2,    2,    2,    3,    3,    3,    3,    3,    3,
       3,    3,    3,    3,    3,    3,    3,    3,    3,    3,
       8,   34,   34,   34,   34,   34,   34,   34,   34,   34,
      34,   34,   34,   34,   34,   55,   55,   55,   55,   55,
      55,   55,   55,   55,   55,   89,   89,   89,  144,  144,
     144,  144,  144,  144,  144,  144,  144,  144,  144,  144,
     144,  144,  233,  233,  377,  610,  610,  610,  610,  610,
     610,  610,  610,  610,  610,  610,  987,  987, 1597, 4181,
    4181, 4181, 4181, 4181, 6765, 6765, 6765, 6765, 6765, 6765,
};

/* The IntervalExpand comment in kernels/intervalmove.cuh. */
static const int32_t expand9_values[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
static const int32_t expand9_counts[9] = {1, 2, 1, 0, 4, 2, 3, 0, 2};
static const int32_t expand9_scan[9] = {0, 1, 3, 4, 4, 8, 10, 13, 13};
static const int32_t expand9_out[15] = {0, 1, 1, 2, 4, 4, 4, 4, 5, 5, 6, 6, 6, 8, 8};

/* "INTERVAL-MOVE DEMONSTRATION": 20 moves of 100 items; the input is
 * counting_iterator<int>(0), so in[k] = k. The scan is the IntervalMove
 * comment's "Scan of interval counts". (That comment's list of moves has two
 * slips in its destination column, "move 7: (11, 13)->(0, 3)" and
 * "move 10: (52, 60)->(10, 18)"; counts, gather and scatter give (0, 2) and
 * (89, 97), which is what the printed "Moved data" shows. The printed data is
 * what is checked here.) */
#define MOVE_N 20
#define MOVE_TOTAL 100
static const int32_t move_counts[MOVE_N] = {
    3, 9, 1, 9, 8, 5, 10, 2, 5, 2,
    8, 6, 5, 2, 4, 0, 8, 2, 5, 6,
};
static const int32_t move_gather[MOVE_N] = {
    75, 86, 17,  2, 67, 24, 37, 11, 95, 35,
    52, 18, 47,  0, 13, 75, 78, 60, 62, 29,
};
static const int32_t move_scatter[MOVE_N] = {
    10, 80, 99, 27, 41, 71, 15,  0, 36, 13,
    89, 49, 66, 97, 76, 76,  2, 25, 61, 55,
};
static const int32_t move_scan[MOVE_N] = {
     0,  3, 12, 13, 22, 30, 35, 45, 47, 52,
    54, 62, 68, 73, 75, 79, 79, 87, 89, 94,
};
static const int32_t move_out[MOVE_TOTAL] = {
    11, 12, 78, 79, 80, 81, 82, 83, 84, 85,
    75, 76, 77, 35, 36, 37, 38, 39, 40, 41,
    42, 43, 44, 45, 46, 60, 61,  2,  3,  4,
     5,  6,  7,  8,  9, 10, 95, 96, 97, 98,
    99, 67, 68, 69, 70, 71, 72, 73, 74, 18,
    19, 20, 21, 22, 23, 29, 30, 31, 32, 33,
    34, 62, 63, 64, 65, 66, 47, 48, 49, 50,
    51, 24, 25, 26, 27, 28, 13, 14, 15, 16,
    86, 87, 88, 89, 90, 91, 92, 93, 94, 52,
    53, 54, 55, 56, 57, 58, 59,  0,  1, 17,
};

/* ---- Helpers. ------------------------------------------------------------- */

/* First index where got differs from want (-1 if none), reported. */
static int first_mismatch_i32(const char *what, const int32_t *got, const int32_t *want, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      printf("\n  %s: index %d expected %d got %d\n", what, i, want[i], got[i]);
      return i;
    }
  return -1;
}

/* Byte-compares n elements of type t; reports the first differing element. */
static int first_mismatch_bytes(const char *what, tb_type t, const void *got, const void *want,
                                int64_t n) {
  size_t size = tb_type_size(t);
  for (int64_t i = 0; i < n; ++i)
    if (memcmp((const char *)got + i * size, (const char *)want + i * size, size) != 0) {
      printf("\n  %s %s: element %lld differs\n", what, tb_type_name(t), (long long)i);
      return (int)(i < INT32_MAX ? i : INT32_MAX);
    }
  return -1;
}

/* upper_bound(scan, i) - 1 by binary search: the definition, written apart
 * from the merge walk under test. */
static int32_t lbs_by_bisection(const int32_t *scan, int32_t num, int32_t i) {
  int32_t lo = 0, hi = num; /* first index with scan[k] > i lies in [lo, hi] */
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (scan[mid] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/* ---- Golden: scans and the search. ---------------------------------------- */

static void test_counts_scan_golden(void) {
  int32_t scan[LBS50_N];
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(lbs50_counts, LBS50_N, scan), LBS50_TOTAL);
  CU_ASSERT_EQUAL(first_mismatch_i32("scan 50", scan, lbs50_scan, LBS50_N), -1);

  CU_ASSERT_EQUAL(tb_cpu_counts_scan(lbs40_counts, LBS40_N, scan), LBS40_TOTAL);
  CU_ASSERT_EQUAL(first_mismatch_i32("exc-scan 40", scan, lbs40_exc_scan, LBS40_N), -1);
  /* The page's inclusive scan is the exclusive scan plus the counts. */
  int32_t inc[LBS40_N];
  for (int j = 0; j < LBS40_N; ++j) inc[j] = scan[j] + lbs40_counts[j];
  CU_ASSERT_EQUAL(first_mismatch_i32("inc-scan 40", inc, lbs40_inc_scan, LBS40_N), -1);
  CU_ASSERT_EQUAL(lbs40_inc_scan[LBS40_N - 1], LBS40_TOTAL);

  CU_ASSERT_EQUAL(tb_cpu_counts_scan(lbs5_counts, 5, scan), 11);
  CU_ASSERT_EQUAL(first_mismatch_i32("scan 5", scan, lbs5_scan, 5), -1);
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(expand_counts, EXPAND_N, scan), EXPAND_TOTAL);
  CU_ASSERT_EQUAL(first_mismatch_i32("expand scan", scan, expand_scan, EXPAND_N), -1);
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(expand9_counts, 9, scan), 15);
  CU_ASSERT_EQUAL(first_mismatch_i32("expand9 scan", scan, expand9_scan, 9), -1);
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(move_counts, MOVE_N, scan), MOVE_TOTAL);
  CU_ASSERT_EQUAL(first_mismatch_i32("move scan", scan, move_scan, MOVE_N), -1);
}

static void test_lbs_demo50(void) {
  int32_t obj[LBS50_TOTAL];
  CU_ASSERT_EQUAL(tb_cpu_lbs(lbs50_scan, LBS50_N, LBS50_TOTAL, obj), TB_OK);
  CU_ASSERT_EQUAL(first_mismatch_i32("lbs 50", obj, lbs50_refs, LBS50_TOTAL), -1);
}

static void test_lbs_figure40(void) {
  int32_t obj[LBS40_TOTAL], rank[LBS40_TOTAL];
  CU_ASSERT_EQUAL(tb_cpu_lbs(lbs40_exc_scan, LBS40_N, LBS40_TOTAL, obj), TB_OK);
  CU_ASSERT_EQUAL(first_mismatch_i32("lbs 40", obj, lbs40_lbs, LBS40_TOTAL), -1);
  /* Ranks from the page's own search, so that a search failure does not
   * hide behind the rank check. */
  CU_ASSERT_EQUAL(tb_cpu_lbs_ranks(lbs40_exc_scan, lbs40_lbs, LBS40_TOTAL, rank), TB_OK);
  CU_ASSERT_EQUAL(first_mismatch_i32("rank 40", rank, lbs40_rank, LBS40_TOTAL), -1);
  /* The page's worked example: item 10 is object 4's, rank 10 - 7 = 3. */
  CU_ASSERT_EQUAL(obj[10], 4);
  CU_ASSERT_EQUAL(rank[10], 3);
}

static void test_lbs_small_examples(void) {
  int32_t obj[EXPAND_TOTAL];
  CU_ASSERT_EQUAL(tb_cpu_lbs(lbs5_scan, 5, 11, obj), TB_OK);
  CU_ASSERT_EQUAL(first_mismatch_i32("lbs 5", obj, lbs5_lbs, 11), -1);
  CU_ASSERT_EQUAL(tb_cpu_lbs(expand_scan, EXPAND_N, EXPAND_TOTAL, obj), TB_OK);
  CU_ASSERT_EQUAL(first_mismatch_i32("lbs expand", obj, expand_lbs, EXPAND_TOTAL), -1);
}

/* ---- Golden: expand and move, in every type. ------------------------------ */

static void test_expand_demo(void) {
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *values = tb_test_convert(t, expand_values, EXPAND_N);
    void *want = tb_test_convert(t, expand_out, EXPAND_TOTAL);
    void *out = calloc(EXPAND_TOTAL, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_interval_expand(t, expand_scan, EXPAND_N, EXPAND_TOTAL, values,
                    out), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes("expand demo", t, out, want, EXPAND_TOTAL), -1);
    free(out);
    free(want);
    free(values);

    values = tb_test_convert(t, expand9_values, 9);
    want = tb_test_convert(t, expand9_out, 15);
    out = calloc(15, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_interval_expand(t, expand9_scan, 9, 15, values, out), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes("expand comment example", t, out, want, 15), -1);
    free(out);
    free(want);
    free(values);
  }
}

static void test_move_demo(void) {
  int32_t iota[MOVE_TOTAL];
  for (int k = 0; k < MOVE_TOTAL; ++k) iota[k] = k;
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *in = tb_test_convert(t, iota, MOVE_TOTAL);
    void *want = tb_test_convert(t, move_out, MOVE_TOTAL);
    void *out = calloc(MOVE_TOTAL, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_interval_move(t, move_gather, move_scatter, move_scan, MOVE_N,
                    MOVE_TOTAL, in, out), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes("move demo", t, out, want, MOVE_TOTAL), -1);

    /* Gather then scatter through the packed order is the same move. */
    void *packed = calloc(MOVE_TOTAL, tb_type_size(t));
    void *out2 = calloc(MOVE_TOTAL, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_interval_gather(t, move_gather, move_scan, MOVE_N, MOVE_TOTAL, in,
                    packed), TB_OK);
    CU_ASSERT_EQUAL(tb_cpu_interval_scatter(t, move_scatter, move_scan, MOVE_N, MOVE_TOTAL, packed,
                    out2), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes("move demo via gather+scatter", t, out2, want,
                                         MOVE_TOTAL), -1);
    free(out2);
    free(packed);
    free(out);
    free(want);
    free(in);
  }
}

/* ---- Properties on random inputs. ----------------------------------------- */

/* Random counts (geometry g, mean avg) and their scan. Returns n_items. */
static int32_t random_problem(tb_geometry g, double avg, int32_t num, uint64_t seed,
                              int32_t *counts, int32_t *scan) {
  tb_geometry_spec spec = tb_geometry_spec_default(g, avg);
  spec.run_length = 16;
  tb_rng r;
  tb_rng_seed(&r, seed);
  int64_t total = (int64_t)llround(avg * num);
  CU_ASSERT_EQUAL_FATAL(tb_geometry_counts(&spec, total, counts, num, &r), TB_OK);
  int64_t n = tb_cpu_counts_scan(counts, num, scan);
  CU_ASSERT_EQUAL(n, total);
  return (int32_t)n;
}

static const tb_geometry kProblemGeometries[] = {
    TB_GEOM_UNIFORM, TB_GEOM_POWER_LAW, TB_GEOM_EMPTY_FRACTION, TB_GEOM_ZERO_RUNS,
    TB_GEOM_ONE_GIANT, TB_GEOM_ZEROS_BUT_ONE};

static void test_lbs_properties(void) {
  const int32_t num = 3000;
  int32_t *counts = malloc(num * sizeof *counts), *scan = malloc(num * sizeof *scan);
  for (int gi = 0; gi < TB_COUNT(kProblemGeometries); ++gi) {
    for (int ai = 0; ai < 3; ++ai) {
      double avg = ai == 0 ? 1.0 : ai == 1 ? 3.5 : 20.0;
      int32_t n = random_problem(kProblemGeometries[gi], avg, num, 1000u + gi * 7 + ai, counts,
                                 scan);
      int32_t *obj = malloc((size_t)n * sizeof *obj), *rank = malloc((size_t)n * sizeof *rank);
      CU_ASSERT_EQUAL(tb_cpu_lbs(scan, num, n, obj), TB_OK);
      CU_ASSERT_EQUAL(tb_cpu_lbs_ranks(scan, obj, n, rank), TB_OK);
      int bad = -1;
      for (int32_t i = 0; i < n && bad < 0; ++i) {
        int32_t j = obj[i];
        if (j != lbs_by_bisection(scan, num, i) || j < 0 || j >= num || counts[j] == 0 ||
            rank[i] != i - scan[j] || rank[i] < 0 || rank[i] >= counts[j])
          bad = i;
      }
      if (bad >= 0)
        printf("\n  lbs %s avg %g: item %d obj %d rank %d\n",
               tb_geometry_name(kProblemGeometries[gi]), avg, bad, obj[bad], rank[bad]);
      CU_ASSERT_EQUAL(bad, -1);
      free(rank);
      free(obj);
    }
  }
  free(scan);
  free(counts);
}

/* Random offsets for a move of the intervals in (counts, scan): gather
 * anywhere inside an input of n_in elements (overlaps allowed: reads may
 * share), scatter a random arrangement of the intervals, one after another
 * with gaps, inside an output of *n_out (written, not chosen, here). */
static void random_offsets(tb_rng *r, const int32_t *counts, int32_t num, int32_t n_in,
                           int32_t *gather, int32_t *scatter, int32_t *n_out) {
  int32_t *order = malloc((size_t)num * sizeof *order);
  for (int32_t j = 0; j < num; ++j) order[j] = j;
  for (int32_t j = num - 1; j > 0; --j) { /* Fisher-Yates */
    int32_t k = (int32_t)tb_rng_range(r, 0, j), s = order[j];
    order[j] = order[k];
    order[k] = s;
  }
  int32_t at = 0;
  for (int32_t k = 0; k < num; ++k) {
    int32_t j = order[k];
    gather[j] = (int32_t)tb_rng_range(r, 0, n_in - counts[j]);
    at += (int32_t)tb_rng_range(r, 0, 2);
    scatter[j] = at;
    at += counts[j];
  }
  *n_out = at + 1;
  free(order);
}

static void test_move_gather_scatter_agree(void) {
  const int32_t num = 2000;
  int32_t *counts = malloc(num * sizeof *counts), *scan = malloc(num * sizeof *scan);
  int32_t *gather = malloc(num * sizeof *gather), *scatter = malloc(num * sizeof *scatter);
  tb_rng r;
  tb_rng_seed(&r, 77);
  for (int gi = 0; gi < TB_COUNT(kProblemGeometries); ++gi) {
    int32_t n = random_problem(kProblemGeometries[gi], 6.0, num, 500u + gi, counts, scan);
    int32_t max_count = 0;
    for (int32_t j = 0; j < num; ++j) max_count = counts[j] > max_count ? counts[j] : max_count;
    int32_t n_in = n + max_count + 17, n_out;
    random_offsets(&r, counts, num, n_in, gather, scatter, &n_out);
    int32_t *obj = malloc((size_t)(n > 0 ? n : 1) * sizeof *obj);
    int32_t *rank = malloc((size_t)(n > 0 ? n : 1) * sizeof *rank);
    CU_ASSERT_EQUAL(tb_cpu_lbs(scan, num, n, obj), TB_OK);
    CU_ASSERT_EQUAL(tb_cpu_lbs_ranks(scan, obj, n, rank), TB_OK);

    for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
      tb_type t = kAllTypes[ti];
      size_t size = tb_type_size(t);
      size_t cap = (size_t)(n_in > n_out ? n_in : n_out) * size;
      char *in = malloc(cap);
      for (size_t b = 0; b < cap; ++b) in[b] = (char)tb_rng_next(&r);
      /* Outputs start from the same random background, so untouched slots
       * must stay as they were in all of them. */
      char *bg = malloc(cap), *mv = malloc(cap), *want = malloc(cap), *packed = malloc(cap),
           *gs = malloc(cap), *ident = malloc(cap);
      for (size_t b = 0; b < cap; ++b) bg[b] = (char)tb_rng_next(&r);
      memcpy(mv, bg, cap);
      memcpy(want, bg, cap);
      memcpy(packed, bg, cap);
      memcpy(gs, bg, cap);
      memcpy(ident, bg, cap);

      /* The definition, item by item through the search's object and rank. */
      for (int32_t i = 0; i < n; ++i) {
        int32_t j = obj[i];
        memcpy(want + (size_t)(scatter[j] + rank[i]) * size,
               in + (size_t)(gather[j] + rank[i]) * size, size);
      }
      CU_ASSERT_EQUAL(tb_cpu_interval_move(t, gather, scatter, scan, num, n, in, mv), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch_bytes("move vs per-item", t, mv, want, n_out), -1);

      CU_ASSERT_EQUAL(tb_cpu_interval_gather(t, gather, scan, num, n, in, packed), TB_OK);
      for (int32_t i = 0; i < n; ++i) { /* packed[i] is in[gather[obj] + rank] */
        int32_t j = obj[i];
        if (memcmp(packed + (size_t)i * size, in + (size_t)(gather[j] + rank[i]) * size, size)) {
          printf("\n  gather %s: item %d\n", tb_type_name(t), i);
          CU_FAIL("gather item");
          break;
        }
      }
      CU_ASSERT_EQUAL(tb_cpu_interval_scatter(t, scatter, scan, num, n, packed, gs), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch_bytes("scatter(gather) vs move", t, gs, mv, n_out), -1);

      /* Moving with scan on both sides copies the first n items in place. */
      CU_ASSERT_EQUAL(tb_cpu_interval_move(t, scan, scan, scan, num, n, in, ident), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch_bytes("identity move", t, ident, in, n), -1);
      CU_ASSERT_EQUAL(first_mismatch_bytes("identity move tail", t, ident + (size_t)n * size,
                                           bg + (size_t)n * size, n_out - n), -1);

      /* Expand: every item takes its object's value. */
      char *ex = malloc((size_t)(n > 0 ? n : 1) * size);
      CU_ASSERT_EQUAL(tb_cpu_interval_expand(t, scan, num, n, in, ex), TB_OK);
      int bad = -1;
      for (int32_t i = 0; i < n && bad < 0; ++i)
        if (memcmp(ex + (size_t)i * size, in + (size_t)obj[i] * size, size)) bad = i;
      if (bad >= 0) printf("\n  expand %s: item %d\n", tb_type_name(t), bad);
      CU_ASSERT_EQUAL(bad, -1);
      free(ex);
      free(ident);
      free(gs);
      free(packed);
      free(want);
      free(mv);
      free(bg);
      free(in);
    }
    free(rank);
    free(obj);
  }
  free(scatter);
  free(gather);
  free(scan);
  free(counts);
}

/* Copies are bit for bit: NaN payloads and -0.0 come through. */
static void test_bit_exact_copies(void) {
  const uint32_t fbits[3] = {0x7fc00123u, 0x80000000u, 0xff800001u};
  const uint64_t dbits[3] = {0x7ff8000000000abcull, 0x8000000000000000ull,
                             0xfff0000000000001ull};
  float fv[3], fo[6];
  double dv[3], dout[6];
  memcpy(fv, fbits, sizeof fv);
  memcpy(dv, dbits, sizeof dv);
  const int32_t scan[3] = {0, 2, 4}; /* two items each */
  CU_ASSERT_EQUAL(tb_cpu_interval_expand(TB_FLOAT, scan, 3, 6, fv, fo), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_interval_expand(TB_DOUBLE, scan, 3, 6, dv, dout), TB_OK);
  for (int i = 0; i < 6; ++i) {
    CU_ASSERT_EQUAL(memcmp(&fo[i], &fv[i / 2], sizeof(float)), 0);
    CU_ASSERT_EQUAL(memcmp(&dout[i], &dv[i / 2], sizeof(double)), 0);
  }
  const int32_t g[3] = {2, 1, 0}, s[3] = {0, 1, 2}, one[3] = {0, 1, 2};
  float fm[3];
  CU_ASSERT_EQUAL(tb_cpu_interval_move(TB_FLOAT, g, s, one, 3, 3, fv, fm), TB_OK);
  for (int i = 0; i < 3; ++i) CU_ASSERT_EQUAL(memcmp(&fm[i], &fv[2 - i], sizeof(float)), 0);
}

/* Bad arguments: TB_ERR_INVALID_ARGUMENT naming the function and what is
 * wrong, nothing written. A malformed scan is not one: the references
 * compute what the definitions give for it (an item before scan[0] belongs
 * to object -1, rank its index), as the GPU kernels do. */
static void test_bad_arguments(void) {
  const int32_t scan[3] = {0, 2, 4}, values[3] = {1, 2, 3};
  int32_t out[6] = {-7, -7, -7, -7, -7, -7};
  tb_test_expect_invalid("lbs", tb_cpu_lbs(scan, -1, 6, out), "tb_cpu_lbs: num_objects < 0 (-1)");
  tb_test_expect_invalid("lbs", tb_cpu_lbs(scan, 3, -6, out), "tb_cpu_lbs: n_items < 0 (-6)");
  tb_test_expect_invalid("lbs", tb_cpu_lbs(NULL, 3, 6, out),
                         "tb_cpu_lbs: scan is NULL with num_objects = 3");
  tb_test_expect_invalid("lbs", tb_cpu_lbs(scan, 3, 6, NULL),
                         "tb_cpu_lbs: out_obj is NULL with 6 elements");
  tb_test_expect_invalid("ranks", tb_cpu_lbs_ranks(scan, NULL, 6, out),
                         "tb_cpu_lbs_ranks: obj is NULL");
  tb_test_expect_invalid("expand", tb_cpu_interval_expand(TB_TYPE_COUNT, scan, 3, 6, values, out),
                         "tb_cpu_interval_expand: invalid element type");
  tb_test_expect_invalid("expand", tb_cpu_interval_expand(TB_INT32, scan, 3, 6, NULL, out),
                         "tb_cpu_interval_expand: values is NULL with 3 elements");
  tb_test_expect_invalid("move",
                         tb_cpu_interval_move(TB_INT32, scan, NULL, scan, 3, 6, values, out),
                         "tb_cpu_interval_move: scatter is NULL");
  tb_test_expect_invalid("gather", tb_cpu_interval_gather(TB_INT32, NULL, scan, 3, 6, values, out),
                         "tb_cpu_interval_gather: gather is NULL");
  tb_test_expect_invalid("scatter",
                         tb_cpu_interval_scatter(TB_INT32, scan, scan, 3, 6, values, NULL),
                         "tb_cpu_interval_scatter: out is NULL");
  for (int i = 0; i < 6; ++i) CU_ASSERT_EQUAL(out[i], -7);

  /* A scan that starts past 0: items before it have object -1, rank i. */
  const int32_t late[2] = {2, 3};
  int32_t obj[4], rank[4];
  CU_ASSERT_EQUAL(tb_cpu_lbs(late, 2, 4, obj), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_lbs_ranks(late, obj, 4, rank), TB_OK);
  CU_ASSERT(obj[0] == -1 && obj[1] == -1 && obj[2] == 0 && obj[3] == 1);
  CU_ASSERT(rank[0] == 0 && rank[1] == 1 && rank[2] == 0 && rank[3] == 0);
}

static void test_edges(void) {
  /* No items: nothing written. All objects empty, or none at all. */
  const int32_t zeros[4] = {0, 0, 0, 0};
  int32_t scan[4] = {-1, -1, -1, -1}, out[4] = {-7, -7, -7, -7};
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(zeros, 4, scan), 0);
  for (int j = 0; j < 4; ++j) CU_ASSERT_EQUAL(scan[j], 0);
  CU_ASSERT_EQUAL(tb_cpu_lbs(scan, 4, 0, out), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_interval_expand(TB_INT32, scan, 4, 0, zeros, out), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_interval_move(TB_INT32, scan, scan, scan, 4, 0, zeros, out), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_interval_gather(TB_INT32, scan, scan, 4, 0, zeros, out), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_interval_scatter(TB_INT32, scan, scan, 4, 0, zeros, out), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(NULL, 0, NULL), 0);
  for (int j = 0; j < 4; ++j) CU_ASSERT_EQUAL(out[j], -7);

  /* Leading, inner and trailing empty objects are never named. */
  const int32_t c[7] = {0, 0, 2, 0, 0, 1, 0};
  int32_t sc[7], obj[3], rank[3];
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(c, 7, sc), 3);
  CU_ASSERT_EQUAL(tb_cpu_lbs(sc, 7, 3, obj), TB_OK);
  CU_ASSERT_EQUAL(tb_cpu_lbs_ranks(sc, obj, 3, rank), TB_OK);
  CU_ASSERT(obj[0] == 2 && obj[1] == 2 && obj[2] == 5);
  CU_ASSERT(rank[0] == 0 && rank[1] == 1 && rank[2] == 0);

  /* One object holds everything. */
  const int32_t one[1] = {0};
  int32_t o5[5];
  CU_ASSERT_EQUAL(tb_cpu_lbs(one, 1, 5, o5), TB_OK);
  for (int i = 0; i < 5; ++i) CU_ASSERT_EQUAL(o5[i], 0);

  /* A total past INT32_MAX is reported in full. */
  const int32_t big[3] = {INT32_MAX, INT32_MAX, 5};
  int32_t bs[3];
  CU_ASSERT_EQUAL(tb_cpu_counts_scan(big, 3, bs), 2 * (int64_t)INT32_MAX + 5);
  CU_ASSERT_EQUAL(bs[0], 0);
  CU_ASSERT_EQUAL(bs[1], INT32_MAX);
}

/* ---- Geometries. ---------------------------------------------------------- */

typedef struct stats {
  int64_t sum, zeros, ones, max, min, max_zero_run, zero_runs;
} stats;

static stats stats_of(const int32_t *c, int64_t n) {
  stats s = {0, 0, 0, INT64_MIN, INT64_MAX, 0, 0};
  int64_t run = 0;
  for (int64_t i = 0; i < n; ++i) {
    s.sum += c[i];
    s.zeros += c[i] == 0;
    s.ones += c[i] == 1;
    if (c[i] > s.max) s.max = c[i];
    if (c[i] < s.min) s.min = c[i];
    if (c[i] == 0) {
      if (run == 0) ++s.zero_runs;
      if (++run > s.max_zero_run) s.max_zero_run = run;
    } else {
      run = 0;
    }
  }
  return s;
}

/* Generates with tb_geometry_num_objects objects; checks the universal
 * contract (sum exact, counts >= 0, same seed same counts). */
static int32_t *gen(const tb_geometry_spec *spec, int64_t total, uint64_t seed, int64_t *num) {
  *num = tb_geometry_num_objects(spec, total);
  CU_ASSERT_FATAL(*num >= 0);
  int32_t *c = malloc((size_t)(*num > 0 ? *num : 1) * sizeof *c);
  int32_t *again = malloc((size_t)(*num > 0 ? *num : 1) * sizeof *again);
  tb_rng r;
  tb_rng_seed(&r, seed);
  tb_status st = tb_geometry_counts(spec, total, c, *num, &r);
  if (st != TB_OK) printf("\n  %s: %s\n", tb_geometry_name(spec->kind), tb_last_error());
  CU_ASSERT_EQUAL_FATAL(st, TB_OK);
  stats s = stats_of(c, *num);
  if (s.sum != total || (*num > 0 && s.min < 0))
    printf("\n  %s avg %g total %lld: sum %lld min %lld\n", tb_geometry_name(spec->kind),
           spec->avg, (long long)total, (long long)s.sum, (long long)s.min);
  CU_ASSERT_EQUAL(s.sum, total);
  CU_ASSERT(*num == 0 || s.min >= 0);
  tb_rng_seed(&r, seed);
  CU_ASSERT_EQUAL(tb_geometry_counts(spec, total, again, *num, &r), TB_OK);
  CU_ASSERT_EQUAL(memcmp(c, again, (size_t)*num * sizeof *c), 0);
  free(again);
  return c;
}

static void test_geometry_sum_exact_everywhere(void) {
  const double avgs[] = {0.5, 1.0, 1.5, 3.0, 7.25, 64.0, 1000.0};
  const int64_t totals[] = {0, 1, 2, 97, 1000, 65536, 1000003};
  for (int g = 0; g < TB_GEOM_COUNT; ++g)
    for (int a = 0; a < TB_COUNT(avgs); ++a)
      for (int k = 0; k < TB_COUNT(totals); ++k) {
        tb_geometry_spec spec = tb_geometry_spec_default((tb_geometry)g, avgs[a]);
        spec.run_length = 32;
        /* Uniform, lognormal and zipf counts are >= 1: avg below 1 has no
         * such geometry. */
        if ((g == TB_GEOM_UNIFORM || g == TB_GEOM_LOGNORMAL || g == TB_GEOM_ZIPF) && avgs[a] < 1.0)
          continue;
        /* Non-empty objects hold >= 1: avg must reach 1 - empty_fraction
         * (exactly for EMPTY_FRACTION; ZERO_RUNS' fraction varies, so 1). */
        if (g == TB_GEOM_EMPTY_FRACTION && avgs[a] < 0.5) continue;
        if (g == TB_GEOM_ZERO_RUNS && avgs[a] < 1.0) continue;
        int64_t num;
        int32_t *c = gen(&spec, totals[k], 42u + (uint64_t)k, &num);
        free(c);
      }
}

static void test_geometry_seeds_differ(void) {
  for (int g = 0; g < TB_GEOM_COUNT; ++g) {
    if (g == TB_GEOM_FIXED || g == TB_GEOM_ALL_ONE) continue; /* not random */
    tb_geometry_spec spec = tb_geometry_spec_default((tb_geometry)g, 8.0);
    spec.run_length = 16;
    int64_t n1, n2;
    int32_t *a = gen(&spec, 100000, 1, &n1), *b = gen(&spec, 100000, 2, &n2);
    CU_ASSERT_EQUAL(n1, n2);
    CU_ASSERT(memcmp(a, b, (size_t)n1 * sizeof *a) != 0);
    free(b);
    free(a);
  }
}

static void test_geometry_fixed(void) {
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_FIXED, 4.0);
  int64_t num;
  int32_t *c = gen(&spec, 4000, 1, &num);
  CU_ASSERT_EQUAL(num, 1000);
  stats s = stats_of(c, num);
  CU_ASSERT(s.min == 4 && s.max == 4);
  free(c);
  /* 2^26 at avg 3 does not divide: counts 2 or 3, total still exact. */
  spec.avg = 3.0;
  c = gen(&spec, (int64_t)1 << 26, 1, &num);
  CU_ASSERT_EQUAL(num, 22369622);
  s = stats_of(c, num);
  CU_ASSERT(s.min == 2 && s.max == 3);
  free(c);
}

static void test_geometry_uniform_is_flat(void) {
  /* avg 4: counts uniform in [1, 7], each value about 1/7 of the objects. */
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_UNIFORM, 4.0);
  int64_t num;
  int32_t *c = gen(&spec, 4 * 700000, 3, &num);
  int64_t hist[9] = {0};
  bool in_range = true;
  for (int64_t i = 0; i < num; ++i) {
    if (c[i] < 1 || c[i] > 7) in_range = false;
    else ++hist[c[i]];
  }
  CU_ASSERT(in_range);
  for (int v = 1; v <= 7; ++v) {
    double share = (double)hist[v] / (double)num;
    if (fabs(share - 1.0 / 7) > 0.01) printf("\n  uniform: value %d share %g\n", v, share);
    CU_ASSERT(fabs(share - 1.0 / 7) <= 0.01);
  }
  free(c);
  /* avg 1: all ones. Non-integer avg 2.5: counts in [1, 4], mean 2.5. */
  spec.avg = 1.0;
  c = gen(&spec, 5000, 4, &num);
  stats s = stats_of(c, num);
  CU_ASSERT(s.min == 1 && s.max == 1 && num == 5000);
  free(c);
  spec.avg = 2.5;
  c = gen(&spec, 250000, 5, &num);
  s = stats_of(c, num);
  CU_ASSERT(s.min == 1 && s.max == 4 && num == 100000);
  free(c);
}

static void test_geometry_power_law_tail(void) {
  /* Lomax(2, m): P(X > x) = (m / (m + x))^2. Items past 10 m: 1/121 of the
   * objects; at most m: 3/4; the largest of 10^6 far beyond 100 m. */
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_POWER_LAW, 16.0);
  int64_t num;
  int32_t *c = gen(&spec, 16 * 1000000, 6, &num);
  int64_t big = 0, small = 0;
  for (int64_t i = 0; i < num; ++i) {
    big += c[i] > 160;
    small += c[i] <= 16;
  }
  stats s = stats_of(c, num);
  double big_share = (double)big / (double)num, small_share = (double)small / (double)num;
  printf("\n  power_law: > 10 avg %.5f, <= avg %.4f, max %lld, zeros %lld ", big_share,
         small_share, (long long)s.max, (long long)s.zeros);
  CU_ASSERT(big_share > 0.006 && big_share < 0.011);
  CU_ASSERT(small_share > 0.72 && small_share < 0.78);
  CU_ASSERT(s.max > 100 * 16);
  free(c);
}

static void test_geometry_empty_fraction(void) {
  const double fractions[] = {0.0, 0.1, 0.5, 0.9};
  for (int k = 0; k < TB_COUNT(fractions); ++k) {
    tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_EMPTY_FRACTION, 5.0);
    spec.empty_fraction = fractions[k];
    int64_t num;
    int32_t *c = gen(&spec, 5 * 100003, 7, &num);
    stats s = stats_of(c, num);
    CU_ASSERT_EQUAL(s.zeros, llround(fractions[k] * (double)num));
    free(c);
  }
}

static void test_geometry_giants(void) {
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_ONE_GIANT, 64.0);
  int64_t num;
  const int64_t total = 64 * 10000;
  int32_t *c = gen(&spec, total, 8, &num);
  stats s = stats_of(c, num);
  CU_ASSERT_EQUAL(s.zeros + s.ones, num - 1); /* all others are 0 or 1 */
  CU_ASSERT(s.max >= total - num && (double)s.max >= 0.99 * (double)total);
  free(c);

  spec = tb_geometry_spec_default(TB_GEOM_ZEROS_BUT_ONE, 16.0);
  c = gen(&spec, 16000, 9, &num);
  s = stats_of(c, num);
  CU_ASSERT(num == 1000 && s.zeros == num - 1 && s.max == 16000);
  free(c);

  spec = tb_geometry_spec_default(TB_GEOM_ALL_ONE, 7.0); /* avg does not matter */
  c = gen(&spec, 1234, 10, &num);
  s = stats_of(c, num);
  CU_ASSERT(num == 1234 && s.ones == num);
  free(c);
}

static void test_geometry_zero_runs(void) {
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_ZERO_RUNS, 4.0);
  spec.empty_fraction = 0.75;
  spec.run_length = 100;
  int64_t num;
  int32_t *c = gen(&spec, 4 * 2000000, 11, &num);
  stats s = stats_of(c, num);
  double zero_share = (double)s.zeros / (double)num;
  double mean_run = (double)s.zeros / (double)s.zero_runs;
  printf("\n  zero_runs: zero share %.4f, mean run %.1f, longest %lld ", zero_share, mean_run,
         (long long)s.max_zero_run);
  CU_ASSERT(fabs(zero_share - 0.75) < 0.02);
  CU_ASSERT(fabs(mean_run - 100.0) < 5.0);
  CU_ASSERT(s.max_zero_run > 150);
  free(c);

  /* The default run length leaves whole tiles (7680 objects) without work. */
  spec = tb_geometry_spec_default(TB_GEOM_ZERO_RUNS, 16.0);
  c = gen(&spec, (int64_t)1 << 24, 12, &num);
  s = stats_of(c, num);
  CU_ASSERT(s.max_zero_run > 7680);
  free(c);
}

static void test_geometry_large(void) {
  /* The benchmark sizes: 2^26 items over 2^26 objects (avg 1) and 2^22. */
  const int64_t total = (int64_t)1 << 26;
  const tb_geometry kinds[] = {TB_GEOM_UNIFORM, TB_GEOM_POWER_LAW, TB_GEOM_EMPTY_FRACTION};
  for (int k = 0; k < TB_COUNT(kinds); ++k) {
    tb_geometry_spec spec = tb_geometry_spec_default(kinds[k], k == 0 ? 1.0 : 16.0);
    int64_t num;
    int32_t *c = gen(&spec, total, 13, &num);
    free(c);
  }
}

static void test_geometry_errors(void) {
  int32_t c[16];
  tb_rng r;
  tb_rng_seed(&r, 1);
  tb_clear_error();
  tb_geometry_spec ok = tb_geometry_spec_default(TB_GEOM_UNIFORM, 2.0), bad;

  tb_test_expect_invalid("NULL spec", tb_geometry_counts(NULL, 16, c, 8, &r), NULL);
  bad = ok;
  bad.kind = TB_GEOM_COUNT;
  tb_test_expect_invalid("bad kind", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);
  bad.kind = (tb_geometry)-1;
  tb_test_expect_invalid("negative kind", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);
  const double bad_avgs[] = {0.0, -1.0, NAN, INFINITY};
  for (int k = 0; k < TB_COUNT(bad_avgs); ++k) {
    bad = ok;
    bad.avg = bad_avgs[k];
    tb_test_expect_invalid("bad avg", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);
    CU_ASSERT_EQUAL(tb_geometry_num_objects(&bad, 16), -1);
  }
  bad = tb_geometry_spec_default(TB_GEOM_EMPTY_FRACTION, 2.0);
  bad.empty_fraction = 1.0;
  tb_test_expect_invalid("empty_fraction 1", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);
  bad.empty_fraction = -0.1;
  tb_test_expect_invalid("empty_fraction < 0", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);
  bad = tb_geometry_spec_default(TB_GEOM_ZERO_RUNS, 2.0);
  bad.empty_fraction = 0.0;
  tb_test_expect_invalid("zero_runs fraction 0", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);
  bad.empty_fraction = 0.5;
  bad.run_length = 0.5;
  tb_test_expect_invalid("zero_runs run 0.5", tb_geometry_counts(&bad, 16, c, 8, &r), NULL);

  tb_test_expect_invalid("total < 0", tb_geometry_counts(&ok, -1, c, 8, &r), NULL);
  CU_ASSERT_EQUAL(tb_geometry_num_objects(&ok, -1), -1);
  CU_ASSERT_EQUAL(tb_geometry_num_objects(NULL, 16), -1);
  tb_test_expect_invalid("num < 0", tb_geometry_counts(&ok, 16, c, -1, &r), NULL);
  tb_test_expect_invalid("num 0, total 16", tb_geometry_counts(&ok, 16, c, 0, &r), NULL);
  tb_test_expect_invalid("num > INT32_MAX",
                         tb_geometry_counts(&ok, 16, c, (int64_t)INT32_MAX + 1, &r), NULL);
  tb_test_expect_invalid("NULL counts", tb_geometry_counts(&ok, 16, NULL, 8, &r), NULL);
  tb_test_expect_invalid("NULL rng", tb_geometry_counts(&ok, 16, c, 8, NULL), NULL);
  tb_test_expect_invalid("uniform total < num", tb_geometry_counts(&ok, 7, c, 8, &r), NULL);
  tb_test_expect_invalid("past int32 per count",
                         tb_geometry_counts(&ok, 3 * (int64_t)INT32_MAX, c, 2, &r), NULL);
  bad = tb_geometry_spec_default(TB_GEOM_ALL_ONE, 1.0);
  tb_test_expect_invalid("all_one total != num", tb_geometry_counts(&bad, 9, c, 8, &r), NULL);
  bad = tb_geometry_spec_default(TB_GEOM_ZEROS_BUT_ONE, 1.0);
  tb_test_expect_invalid("zeros_but_one past int32",
                         tb_geometry_counts(&bad, (int64_t)INT32_MAX + 1, c, 16, &r), NULL);
  bad = tb_geometry_spec_default(TB_GEOM_EMPTY_FRACTION, 1.0);
  bad.empty_fraction = 0.25;
  tb_test_expect_invalid("more non-empty objects than items",
                         tb_geometry_counts(&bad, 8, c, 16, &r), NULL);
  /* 0.99 of 16 rounds to 16 empty objects; one is kept to hold the items. */
  bad.empty_fraction = 0.99;
  CU_ASSERT_EQUAL(tb_geometry_counts(&bad, 8, c, 16, &r), TB_OK);
  stats s = stats_of(c, 16);
  CU_ASSERT(s.zeros == 15 && s.max == 8);

  /* num 0 with total 0 is an empty problem, not an error. */
  CU_ASSERT_EQUAL(tb_geometry_counts(&ok, 0, NULL, 0, &r), TB_OK);
}

static void test_geometry_names(void) {
  for (int g = 0; g < TB_GEOM_COUNT; ++g) {
    tb_geometry back = TB_GEOM_COUNT;
    CU_ASSERT(tb_geometry_parse(tb_geometry_name((tb_geometry)g), &back));
    CU_ASSERT_EQUAL((int)back, g);
  }
  CU_ASSERT_STRING_EQUAL(tb_geometry_name(TB_GEOM_POWER_LAW), "power_law");
  CU_ASSERT_STRING_EQUAL(tb_geometry_name(TB_GEOM_COUNT), "invalid");
  tb_geometry keep = TB_GEOM_FIXED;
  CU_ASSERT(!tb_geometry_parse("Uniform", &keep));
  CU_ASSERT(!tb_geometry_parse(NULL, &keep));
  CU_ASSERT_EQUAL(keep, TB_GEOM_FIXED);
  tb_geometry_spec spec = tb_geometry_spec_default(TB_GEOM_UNIFORM, 3.0);
  CU_ASSERT_EQUAL(tb_geometry_num_objects(&spec, 10), 4);
  CU_ASSERT_EQUAL(tb_geometry_num_objects(&spec, 0), 0);
  CU_ASSERT_EQUAL(tb_geometry_num_objects(&spec, 1), 1);
  spec.avg = 1e9;
  CU_ASSERT_EQUAL(tb_geometry_num_objects(&spec, 5), 1);
  spec.kind = TB_GEOM_ALL_ONE;
  CU_ASSERT_EQUAL(tb_geometry_num_objects(&spec, 5), 5);
}

int main(void) {
  static const CU_TestInfo tests[] = {
      {"counts scan: the documents' scans", test_counts_scan_golden},
      {"lbs: 50-object demo (125 items)", test_lbs_demo50},
      {"lbs: 40-object figure and ranks (79 items)", test_lbs_figure40},
      {"lbs: header and expand-page examples", test_lbs_small_examples},
      {"interval expand: Fibonacci demo and comment example", test_expand_demo},
      {"interval move: 20-move demo, via gather+scatter too", test_move_demo},
      {"lbs properties, random geometries", test_lbs_properties},
      {"move / gather / scatter / expand agree, random", test_move_gather_scatter_agree},
      {"copies are bit-exact", test_bit_exact_copies},
      {"edge cases", test_edges},
      {"bad arguments", test_bad_arguments},
      {"geometry: sum exact, deterministic", test_geometry_sum_exact_everywhere},
      {"geometry: seeds differ", test_geometry_seeds_differ},
      {"geometry: fixed", test_geometry_fixed},
      {"geometry: uniform is flat", test_geometry_uniform_is_flat},
      {"geometry: power law tail", test_geometry_power_law_tail},
      {"geometry: empty fraction exact", test_geometry_empty_fraction},
      {"geometry: one giant, zeros but one, all one", test_geometry_giants},
      {"geometry: zero runs", test_geometry_zero_runs},
      {"geometry: 2^26 items", test_geometry_large},
      {"geometry: argument errors", test_geometry_errors},
      {"geometry: names", test_geometry_names},
      CU_TEST_INFO_NULL,
  };
  return tb_test_run("cpuref_interval", tests, NULL);
}
