/* CPU references for load-balancing search and interval expand / move /
 * gather / scatter (cpuref/interval.h), and the count geometries
 * (core/geometry.h).
 *
 * Golden vectors are typed in from the published documentation, into
 * suites/testdata/interval.txt:
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

/* ---- Golden problems. ----------------------------------------------------- */

static const char kGolden[] = "suites/testdata/interval.txt";

/* A problem of the documents: num objects whose counts add up to total work
 * items. Its vectors in kGolden are name.counts, name.scan and so on. */
typedef struct golden_problem {
  const char *name;
  int32_t num, total;
} golden_problem;

static const golden_problem kLbs50 = {"lbs50", 50, 125};
static const golden_problem kLbs40 = {"lbs40", 40, 79};
static const golden_problem kLbs5 = {"lbs5", 5, 11};
static const golden_problem kExpand = {"expand", 20, 100};
static const golden_problem kExpand9 = {"expand9", 9, 15};
static const golden_problem kMove = {"move", 20, 100};

/* The name of p's vector what in kGolden ("lbs50" and "scan": "lbs50.scan"). */
typedef struct golden_name {
  char s[48];
} golden_name;

static golden_name name_of(const golden_problem *p, const char *what) {
  golden_name name;
  snprintf(name.s, sizeof name.s, "%s.%s", p->name, what);
  return name;
}

/* p's vector what, of n values. */
static const int32_t *golden(const golden_problem *p, const char *what, int32_t n) {
  return tb_golden(kGolden, name_of(p, what).s, n);
}

/* got (n values) must equal p's vector what. */
static void expect_golden(const golden_problem *p, const char *what, const int32_t *got,
                          int32_t n) {
  tb_golden_expect(kGolden, name_of(p, what).s, got, n);
}

/* ---- Helpers. ------------------------------------------------------------- */

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

TB_TEST(test_counts_scan_golden, "counts scan: the documents' scans") {
  const golden_problem *all[] = {&kLbs50, &kLbs40, &kLbs5, &kExpand, &kExpand9, &kMove};
  for (int k = 0; k < TB_COUNT(all); ++k) {
    const golden_problem *p = all[k];
    int32_t *scan = malloc((size_t)p->num * sizeof *scan);
    CU_ASSERT_EQUAL(tb_cpu_counts_scan(golden(p, "counts", p->num), p->num, scan), p->total);
    expect_golden(p, "scan", scan, p->num);
    free(scan);
  }

  /* The 40-object figure's inclusive scan is the exclusive scan plus the
   * counts. */
  const golden_problem *p = &kLbs40;
  const int32_t *counts = golden(p, "counts", p->num);
  int32_t *inc = malloc((size_t)p->num * sizeof *inc);
  tb_cpu_counts_scan(counts, p->num, inc);
  for (int j = 0; j < p->num; ++j) inc[j] += counts[j];
  expect_golden(p, "inc_scan", inc, p->num);
  CU_ASSERT_EQUAL(golden(p, "inc_scan", p->num)[p->num - 1], p->total);
  free(inc);
}

/* The search over p's scan must give p's lbs. */
static void check_lbs(const golden_problem *p) {
  int32_t *obj = malloc((size_t)p->total * sizeof *obj);
  CU_ASSERT_EQUAL(tb_cpu_lbs(golden(p, "scan", p->num), p->num, p->total, obj), TB_OK);
  expect_golden(p, "lbs", obj, p->total);
  free(obj);
}

TB_TEST(test_lbs_demo50, "lbs: 50-object demo (125 items)") { check_lbs(&kLbs50); }

TB_TEST(test_lbs_figure40, "lbs: 40-object figure and ranks (79 items)") {
  const golden_problem *p = &kLbs40;
  check_lbs(p);
  /* Ranks from the page's own search, so that a search failure does not
   * hide behind the rank check. */
  const int32_t *obj = golden(p, "lbs", p->total);
  int32_t *rank = malloc((size_t)p->total * sizeof *rank);
  CU_ASSERT_EQUAL(tb_cpu_lbs_ranks(golden(p, "scan", p->num), obj, p->total, rank), TB_OK);
  expect_golden(p, "rank", rank, p->total);
  /* The page's worked example: item 10 is object 4's, rank 10 - 7 = 3. */
  CU_ASSERT_EQUAL(obj[10], 4);
  CU_ASSERT_EQUAL(rank[10], 3);
  free(rank);
}

TB_TEST(test_lbs_small_examples, "lbs: header and expand-page examples") {
  check_lbs(&kLbs5);
  check_lbs(&kExpand);
}

/* ---- Golden: expand and move, in every type. ------------------------------ */

/* Expanding p's values over its scan must give p's out. */
static void check_expand(const golden_problem *p) {
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *values = tb_test_convert(t, golden(p, "values", p->num), p->num);
    void *want = tb_test_convert(t, golden(p, "out", p->total), p->total);
    void *out = calloc((size_t)p->total, tb_type_size(t));
    CU_ASSERT_EQUAL(
        tb_cpu_interval_expand(t, golden(p, "scan", p->num), p->num, p->total, values, out), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes(name_of(p, "out").s, t, out, want, p->total), -1);
    free(out);
    free(want);
    free(values);
  }
}

TB_TEST(test_expand_demo, "interval expand: Fibonacci demo and comment example") {
  check_expand(&kExpand);
  check_expand(&kExpand9);
}

TB_TEST(test_move_demo, "interval move: 20-move demo, via gather+scatter too") {
  const golden_problem *p = &kMove;
  const int32_t *gather = golden(p, "gather", p->num), *scatter = golden(p, "scatter", p->num),
                *scan = golden(p, "scan", p->num);
  int32_t *iota = malloc((size_t)p->total * sizeof *iota);
  for (int k = 0; k < p->total; ++k) iota[k] = k;
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *in = tb_test_convert(t, iota, p->total);
    void *want = tb_test_convert(t, golden(p, "out", p->total), p->total);
    void *out = calloc((size_t)p->total, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_interval_move(t, gather, scatter, scan, p->num, p->total, in, out),
                    TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes("move demo", t, out, want, p->total), -1);

    /* Gather then scatter through the packed order is the same move. */
    void *packed = calloc((size_t)p->total, tb_type_size(t));
    void *out2 = calloc((size_t)p->total, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_interval_gather(t, gather, scan, p->num, p->total, in, packed), TB_OK);
    CU_ASSERT_EQUAL(tb_cpu_interval_scatter(t, scatter, scan, p->num, p->total, packed, out2),
                    TB_OK);
    CU_ASSERT_EQUAL(first_mismatch_bytes("move demo via gather+scatter", t, out2, want, p->total),
                    -1);
    free(out2);
    free(packed);
    free(out);
    free(want);
    free(in);
  }
  free(iota);
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

TB_TEST(test_lbs_properties, "lbs properties, random geometries") {
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

TB_TEST(test_move_gather_scatter_agree, "move / gather / scatter / expand agree, random") {
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
TB_TEST(test_bit_exact_copies, "copies are bit-exact") {
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
TB_TEST(test_bad_arguments, "bad arguments") {
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

TB_TEST(test_edges, "edge cases") {
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

TB_TEST(test_geometry_sum_exact_everywhere, "geometry: sum exact, deterministic") {
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

TB_TEST(test_geometry_seeds_differ, "geometry: seeds differ") {
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

TB_TEST(test_geometry_fixed, "geometry: fixed") {
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

TB_TEST(test_geometry_uniform_is_flat, "geometry: uniform is flat") {
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

TB_TEST(test_geometry_power_law_tail, "geometry: power law tail") {
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

TB_TEST(test_geometry_empty_fraction, "geometry: empty fraction exact") {
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

TB_TEST(test_geometry_giants, "geometry: one giant, zeros but one, all one") {
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

TB_TEST(test_geometry_zero_runs, "geometry: zero runs") {
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

TB_TEST(test_geometry_large, "geometry: 2^26 items") {
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

TB_TEST(test_geometry_errors, "geometry: argument errors") {
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

TB_TEST(test_geometry_names, "geometry: names") {
  ASSERT_NAMES_ROUND_TRIP(tb_geometry, TB_GEOM_COUNT, tb_geometry_name, tb_geometry_parse);
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

int main(void) { return tb_test_run("cpuref_interval", NULL); }
