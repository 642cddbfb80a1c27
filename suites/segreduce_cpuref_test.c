/* CPU references for the segmented-reduction family (cpuref/segreduce.h):
 * segmented reduction over CSR descriptors, reduce-by-key, CSR SpMV, and the
 * carry-in step of the tiled algorithm.
 *
 * Golden vectors are typed in from moderngpu, "Segmented Reduction", into
 * suites/testdata/segreduce.txt. Everything else checks properties against
 * independent formulations (reduce-by-key on keys made from the CSR,
 * tb_cpu_reduce on one segment, a permuted layout read through sources, a
 * dense matrix loop), never against outputs of the code under test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "core/rng.h"
#include "core/status.h"
#include "core/types.h"
#include "cpuref/reduce_scan.h"
#include "cpuref/segreduce.h"
#include "suites/cpu_testing.h"


static const tb_type kAllTypes[] = {TB_INT32, TB_INT64, TB_FLOAT, TB_DOUBLE};
static const tb_op kAllOps[] = {TB_OP_PLUS,    TB_OP_MIN,    TB_OP_MAX,   TB_OP_MULTIPLIES,
                                TB_OP_BIT_AND, TB_OP_BIT_OR, TB_OP_BIT_XOR};

/* ---- Golden vectors (suites/testdata/segreduce.txt). --------------------- */

static const char kGolden[] = "suites/testdata/segreduce.txt";

static const int32_t *golden(const char *name, int n) { return tb_golden(kGolden, name, n); }

/* The figures' sizes. "SEGMENTED REDUCE-CSR DEMONSTRATION": */
#define DEMO_COUNT 100
#define DEMO_SEGS 7
/* "REDUCE BY KEY DEMONSTRATION": */
#define RBK_COUNT 100
#define RBK_SEGS 9
/* "Intra-tile algorithm": 163 values in 20 segments, 21 threads of VT = 8. */
#define TABLE_SEGS 20
#define TABLE_COUNT 163
#define TABLE_VT 8
#define TABLE_THREADS 21
/* "Carry-out and carry-in": 24 threads, and the tile's carry-out. */
#define CS_N 24
#define CS_TILE_CARRY_OUT 22

/* ---- Helpers. ------------------------------------------------------------- */

/* First index where got (type t) differs byte-wise from want (type t); -1 if
 * none, reported with the geometry's name. */
static int first_mismatch(const char *what, tb_type t, const void *got, const void *want,
                          int n) {
  size_t size = tb_type_size(t);
  for (int i = 0; i < n; ++i)
    if (memcmp((const char *)got + i * size, (const char *)want + i * size, size) != 0) {
      printf("\n  %s %s: index %d expected %.17g got %.17g\n", what, tb_type_name(t), i,
             tb_test_as_double(t, tb_load(t, want, i)), tb_test_as_double(t, tb_load(t, got, i)));
      return i;
    }
  return -1;
}

/* Exclusive scan of lengths (the CSR array), typed-in lengths only. */
static int32_t lengths_to_csr(const int32_t *len, int n, int32_t *csr) {
  int32_t sum = 0;
  for (int i = 0; i < n; ++i) {
    csr[i] = sum;
    sum += len[i];
  }
  return sum;
}

/* Golden vector name (n flags, 0 or 1) as the uint8_t flags the carry-in
 * step takes. */
static void golden_flags(const char *name, int n, uint8_t *flags) {
  const int32_t *v = golden(name, n);
  for (int i = 0; i < n; ++i) flags[i] = (uint8_t)v[i];
}

/* ---- Golden tests. -------------------------------------------------------- */

/* The plus-reduction of count values (>= 0) over csr's num segments is want,
 * in every type: direct, indirect with sources == csr, and for floats the f64
 * reference (whose sum of magnitudes is then the sum). */
static void check_segreduce_plus(const char *what, const int32_t *values, int32_t count,
                                 const int32_t *csr, int32_t num, const int32_t *want_i32) {
  char indirect[64];
  snprintf(indirect, sizeof indirect, "%s, indirect", what);
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *vals = tb_test_convert(t, values, count);
    void *want = tb_test_convert(t, want_i32, num);
    void *out = calloc((size_t)num, tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(t, TB_OP_PLUS, vals, count, csr, num, NULL,
                                         tb_test_from_i64(t, 0), out),
                    TB_OK);
    CU_ASSERT_EQUAL(first_mismatch(what, t, out, want, num), -1);
    /* Indirect with sources == csr is the direct form. */
    memset(out, 0, (size_t)num * tb_type_size(t));
    CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(t, TB_OP_PLUS, vals, count, csr, num, csr,
                                         tb_test_from_i64(t, 0), out),
                    TB_OK);
    CU_ASSERT_EQUAL(first_mismatch(indirect, t, out, want, num), -1);
    if (tb_type_is_float(t)) {
      double *got = malloc((size_t)num * sizeof *got), *abs_sum = malloc((size_t)num * sizeof *got);
      CU_ASSERT_EQUAL(tb_cpu_segreduce_csr_f64(t, TB_OP_PLUS, vals, count, csr, num, NULL,
                                               tb_test_from_i64(t, 0), got, abs_sum),
                      TB_OK);
      for (int s = 0; s < num; ++s) {
        CU_ASSERT_EQUAL(got[s], (double)want_i32[s]);
        CU_ASSERT_EQUAL(abs_sum[s], (double)want_i32[s]);
      }
      free(abs_sum);
      free(got);
    }
    free(out);
    free(want);
    free(vals);
  }
}

TB_TEST(test_demo_segreduce, "seg-reduce CSR demo (7 segments)") {
  check_segreduce_plus("seg-reduce demo", golden("demo.values", DEMO_COUNT), DEMO_COUNT,
                       golden("demo.csr", DEMO_SEGS), DEMO_SEGS, golden("demo.reduced", DEMO_SEGS));
}

TB_TEST(test_demo_reduce_by_key, "reduce-by-key demo (9 keys)") {
  const int32_t *keys = golden("rbk.keys", RBK_COUNT), *values = golden("rbk.values", RBK_COUNT);
  const int32_t *reduced_keys = golden("rbk.reduced_keys", RBK_SEGS);
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *vals = tb_test_convert(t, values, RBK_COUNT);
    void *want = tb_test_convert(t, golden("rbk.reduced", RBK_SEGS), RBK_SEGS);
    void *out = calloc(RBK_COUNT, 8);
    int32_t keys_out[RBK_COUNT], n = -1;
    CU_ASSERT_EQUAL(tb_cpu_reduce_by_key(t, TB_OP_PLUS, keys, vals, RBK_COUNT, out, keys_out, &n),
                    TB_OK);
    CU_ASSERT_EQUAL(n, RBK_SEGS);
    if (n == RBK_SEGS) {
      CU_ASSERT_EQUAL(first_mismatch("reduce-by-key demo", t, out, want, RBK_SEGS), -1);
      tb_golden_expect(kGolden, "rbk.reduced_keys", keys_out, RBK_SEGS);
    }
    /* Optional outputs left out. */
    memset(out, 0, RBK_COUNT * 8);
    CU_ASSERT_EQUAL(tb_cpu_reduce_by_key(t, TB_OP_PLUS, keys, vals, RBK_COUNT, out, NULL, NULL),
                    TB_OK);
    CU_ASSERT_EQUAL(first_mismatch("reduce-by-key demo, no keys", t, out, want, RBK_SEGS), -1);
    free(out);
    free(want);
    free(vals);
  }
  /* The segmentation as CSR. */
  int32_t csr[RBK_COUNT], n = -1;
  CU_ASSERT_EQUAL(tb_cpu_keys_to_csr(keys, RBK_COUNT, csr, &n), TB_OK);
  CU_ASSERT_EQUAL_FATAL(n, RBK_SEGS);
  for (int k = 0; k < RBK_SEGS; ++k) CU_ASSERT_EQUAL(keys[csr[k]], reduced_keys[k]);
  int32_t sums[RBK_SEGS];
  CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(TB_INT32, TB_OP_PLUS, values, RBK_COUNT, csr, RBK_SEGS, NULL,
                                       tb_test_from_i64(TB_INT32, 0), sums),
                  TB_OK);
  tb_golden_expect(kGolden, "rbk.reduced", sums, RBK_SEGS);
}

TB_TEST(test_table20, "20-segment table and fixed reductions") {
  int32_t csr[TABLE_SEGS];
  CU_ASSERT_EQUAL_FATAL(lengths_to_csr(golden("table.lengths", TABLE_SEGS), TABLE_SEGS, csr),
                        TABLE_COUNT);
  /* The figure's reductions and its "Fixed reductions" line are the same. */
  tb_golden_expect(kGolden, "table.fixed", golden("table.reduced", TABLE_SEGS), TABLE_SEGS);
  check_segreduce_plus("20-segment table", golden("table.values", TABLE_COUNT), TABLE_COUNT, csr,
                       TABLE_SEGS, golden("table.fixed", TABLE_SEGS));
}

TB_TEST(test_carry_in_thread_figure, "carry-in: 21-thread figure") {
  /* The 21-thread figure: the carry-ins come from the carry-outs and stars. */
  int32_t carry_in[TABLE_THREADS];
  tb_value tile;
  uint8_t ends[TABLE_THREADS];
  golden_flags("thr.ends", TABLE_THREADS, ends);
  CU_ASSERT_EQUAL(
      tb_cpu_segreduce_carry_in(TB_INT32, TB_OP_PLUS, golden("thr.carry_out", TABLE_THREADS), ends,
                                TABLE_THREADS, tb_test_from_i64(TB_INT32, 0), carry_in, &tile),
      TB_OK);
  tb_golden_expect(kGolden, "thr.carry_in", carry_in, TABLE_THREADS);
  /* The last thread ends the last segment: nothing carries out. */
  CU_ASSERT_EQUAL(tile.i32, 0);

  /* Each thread with an end fixes its first stored partial with its
   * carry-in, giving the reduction of the first segment ending in the thread
   * (thread 4: 17 + 30 = 47). */
  const int32_t *first_partial = golden("thr.first_partial", TABLE_THREADS);
  const int32_t *fixed = golden("table.fixed", TABLE_SEGS);
  int32_t csr[TABLE_SEGS];
  lengths_to_csr(golden("table.lengths", TABLE_SEGS), TABLE_SEGS, csr);
  int checked = 0;
  for (int i = 0; i < TABLE_THREADS; ++i) {
    if (!ends[i]) continue;
    int s = 0; /* the first segment whose last element lies in thread i */
    while (s < TABLE_SEGS &&
           (s + 1 < TABLE_SEGS ? csr[s + 1] : TABLE_COUNT) - 1 < TABLE_VT * i)
      ++s;
    CU_ASSERT_EQUAL(first_partial[i] + carry_in[i], fixed[s]);
    ++checked;
  }
  CU_ASSERT_EQUAL(checked, 14);
}

TB_TEST(test_carry_in_scan_figure, "carry-in: 24-thread segmented scan") {
  const int32_t *values = golden("cs.values", CS_N), *inclusive = golden("cs.inclusive", CS_N),
                *carry_in_row = golden("cs.carry_in", CS_N),
                *tid_delta = golden("cs.tid_delta", CS_N);
  uint8_t ends[CS_N];
  golden_flags("cs.ends", CS_N, ends);
  int32_t carry_in[CS_N];
  tb_value tile;
  CU_ASSERT_EQUAL(tb_cpu_segreduce_carry_in(TB_INT32, TB_OP_PLUS, values, ends, CS_N,
                                            tb_test_from_i64(TB_INT32, 0), carry_in, &tile),
                  TB_OK);
  tb_golden_expect(kGolden, "cs.carry_in", carry_in, CS_N);
  CU_ASSERT_EQUAL(tile.i32, CS_TILE_CARRY_OUT);
  /* The figure's rows agree with each other: the carry-in is the inclusive
   * scan moved right by one, and the flags are where tid delta is 0. */
  for (int i = 1; i < CS_N; ++i) CU_ASSERT_EQUAL(carry_in_row[i], inclusive[i - 1]);
  for (int i = 1; i < CS_N; ++i) CU_ASSERT_EQUAL(ends[i], tid_delta[i] == 0);
  /* In another type and with max. */
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    void *co = tb_test_convert(t, values, CS_N);
    void *ci = calloc(CS_N, 8);
    CU_ASSERT_EQUAL(tb_cpu_segreduce_carry_in(t, TB_OP_MAX, co, ends, CS_N,
                                              tb_identity(t, TB_OP_MAX), ci, &tile),
                    TB_OK);
    /* thread 10: max of threads 3..9 = 5; thread 16: max of 11..15 = 5;
     * thread 11: just thread 10 = 3; tile: max of 16..23 = 5. */
    CU_ASSERT_EQUAL(tb_test_as_double(t, tb_load(t, ci, 10)), 5.0);
    CU_ASSERT_EQUAL(tb_test_as_double(t, tb_load(t, ci, 11)), 3.0);
    CU_ASSERT_EQUAL(tb_test_as_double(t, tb_load(t, ci, 16)), 5.0);
    CU_ASSERT_EQUAL(tb_test_as_double(t, tile), 5.0);
    tb_value id = tb_identity(t, TB_OP_MAX);
    tb_value c0 = tb_load(t, ci, 0);
    CU_ASSERT_EQUAL(memcmp(&c0, &id, tb_type_size(t)), 0);
    free(ci);
    free(co);
  }
}

/* ---- Properties. ---------------------------------------------------------- */

/* Random values of type t: small integers (so that every op stays exact in
 * float and multiplies does not run off in a long segment: values are mostly
 * 1), or for floats arbitrary fractions when exact is false. */
static void fill_random(tb_type t, void *a, int n, tb_rng *r, bool exact) {
  for (int i = 0; i < n; ++i) {
    uint64_t u = tb_rng_next(r);
    int64_t x = (u % 8 == 0) ? (int64_t)((u >> 8) % 7) - 3 : 1 + (int64_t)((u >> 8) % 2);
    if (!exact && tb_type_is_float(t)) {
      double f = ((double)(u >> 11) / 9007199254740992.0) * 2.0 - 1.0;
      tb_value v;
      if (t == TB_FLOAT) v.f32 = (float)f;
      else v.f64 = f;
      tb_store(t, a, i, v);
    } else {
      tb_store(t, a, i, tb_test_from_i64(t, x));
    }
  }
}

/* Random CSR with empty segments (about one in four) over count elements. */
static int32_t random_csr(tb_rng *r, int32_t count, int32_t max_segs, int32_t *csr) {
  int32_t n = 0, at = 0;
  while (n < max_segs) {
    csr[n++] = at;
    if (at >= count) break;
    uint64_t u = tb_rng_next(r);
    if (u % 4 != 0) at += 1 + (int32_t)((u >> 8) % 12);
    if (at > count) at = count;
  }
  return n;
}

TB_TEST(test_segreduce_vs_reduce_by_key, "seg-reduce == reduce-by-key, random") {
  tb_rng r;
  tb_rng_seed(&r, 31);
  enum { N = 2000 };
  int32_t csr[N + 1], keys[N], csr_nonempty[N + 1];
  for (int rep = 0; rep < 6; ++rep) {
    int32_t num = random_csr(&r, N, N, csr);
    /* Keys: the segment index of each element (empty segments own none). */
    int32_t kept = 0;
    for (int32_t s = 0; s < num; ++s) {
      int32_t end = s + 1 < num ? csr[s + 1] : N;
      for (int32_t i = csr[s]; i < end; ++i) keys[i] = s;
      if (end > csr[s]) csr_nonempty[kept++] = s;
    }
    for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti)
      for (int oi = 0; oi < TB_COUNT(kAllOps); ++oi) {
        tb_type t = kAllTypes[ti];
        tb_op op = kAllOps[oi];
        if (!tb_test_fits(t, op)) continue;
        void *vals = malloc(N * 8), *seg = malloc((N + 1) * 8), *rbk = malloc(N * 8);
        fill_random(t, vals, N, &r, op != TB_OP_PLUS && op != TB_OP_MULTIPLIES);
        int32_t out_keys[N], nseg = -1;
        CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(t, op, vals, N, csr, num, NULL, tb_identity(t, op),
                                             seg), TB_OK);
        CU_ASSERT_EQUAL(tb_cpu_reduce_by_key(t, op, keys, vals, N, rbk, out_keys, &nseg), TB_OK);
        CU_ASSERT_EQUAL_FATAL(nseg, kept);
        int bad = -1;
        for (int32_t k = 0; k < kept && bad < 0; ++k) {
          tb_value a = tb_load(t, seg, csr_nonempty[k]), b = tb_load(t, rbk, k);
          if (memcmp(&a, &b, tb_type_size(t)) != 0 || out_keys[k] != csr_nonempty[k]) bad = k;
        }
        if (bad >= 0)
          printf("\n  seg-reduce vs reduce-by-key %s %s: segment %d (rep %d)\n", tb_type_name(t),
                 tb_op_name(op), (int)csr_nonempty[bad], rep);
        CU_ASSERT_EQUAL(bad, -1);
        /* Empty segments hold the identity. */
        for (int32_t s = 0; s < num; ++s) {
          int32_t end = s + 1 < num ? csr[s + 1] : N;
          if (end == csr[s]) {
            tb_value a = tb_load(t, seg, s), id = tb_identity(t, op);
            CU_ASSERT_EQUAL(memcmp(&a, &id, tb_type_size(t)), 0);
          }
        }
        free(rbk);
        free(seg);
        free(vals);
      }
  }
}

TB_TEST(test_one_segment_is_reduce, "one segment == tb_cpu_reduce") {
  tb_rng r;
  tb_rng_seed(&r, 7);
  const int32_t zero = 0;
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti)
    for (int oi = 0; oi < TB_COUNT(kAllOps); ++oi) {
      tb_type t = kAllTypes[ti];
      tb_op op = kAllOps[oi];
      if (!tb_test_fits(t, op)) continue;
      int n = 777;
      void *vals = malloc((size_t)n * 8);
      fill_random(t, vals, n, &r, false);
      tb_value want, got;
      memset(&got, 0, sizeof got);
      CU_ASSERT_EQUAL(tb_cpu_reduce(t, op, vals, n, &want), TB_OK);
      CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(t, op, vals, n, &zero, 1, NULL, tb_identity(t, op),
                                           &got), TB_OK);
      CU_ASSERT_EQUAL(memcmp(&got, &want, tb_type_size(t)), 0);
      if (tb_type_is_float(t)) {
        double w, ws, g, gs;
        CU_ASSERT_EQUAL(tb_cpu_reduce_f64(t, op, vals, n, &w, &ws), TB_OK);
        CU_ASSERT_EQUAL(tb_cpu_segreduce_csr_f64(t, op, vals, n, &zero, 1, NULL,
                                                 tb_identity(t, op), &g, &gs), TB_OK);
        CU_ASSERT(g == w || (isnan(g) && isnan(w)));
        CU_ASSERT_EQUAL(gs, ws);
      }
      free(vals);
    }
}

/* Indirect: lay the segments out in reverse order in a second array and read
 * them through sources; must equal the direct reduction of the original. */
TB_TEST(test_indirect_permuted, "indirect through a permuted layout") {
  tb_rng r;
  tb_rng_seed(&r, 99);
  enum { N = 1500 };
  int32_t csr[N + 1], sources[N + 1];
  int32_t num = random_csr(&r, N, N, csr);
  for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
    tb_type t = kAllTypes[ti];
    size_t sz = tb_type_size(t);
    char *vals = malloc(N * 8), *moved = malloc(N * 8);
    fill_random(t, vals, N, &r, false);
    int32_t at = 0;
    for (int32_t s = num - 1; s >= 0; --s) {
      int32_t len = (s + 1 < num ? csr[s + 1] : N) - csr[s];
      memcpy(moved + (size_t)at * sz, vals + (size_t)csr[s] * sz, (size_t)len * sz);
      sources[s] = at;
      at += len;
    }
    CU_ASSERT_EQUAL_FATAL(at, N);
    void *direct = malloc((N + 1) * 8), *indirect = malloc((N + 1) * 8);
    tb_value zero = tb_test_from_i64(t, 0);
    CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(t, TB_OP_PLUS, vals, N, csr, num, NULL, zero, direct),
                    TB_OK);
    CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(t, TB_OP_PLUS, moved, N, csr, num, sources, zero,
                                         indirect), TB_OK);
    CU_ASSERT_EQUAL(first_mismatch("indirect, permuted", t, indirect, direct, num), -1);
    if (tb_type_is_float(t)) {
      double *d = malloc((N + 1) * sizeof *d), *i = malloc((N + 1) * sizeof *i);
      CU_ASSERT_EQUAL(tb_cpu_segreduce_csr_f64(t, TB_OP_PLUS, vals, N, csr, num, NULL, zero, d,
                                               NULL), TB_OK);
      CU_ASSERT_EQUAL(tb_cpu_segreduce_csr_f64(t, TB_OP_PLUS, moved, N, csr, num, sources, zero,
                                               i, NULL), TB_OK);
      CU_ASSERT_EQUAL(memcmp(d, i, (size_t)num * sizeof *d), 0);
      free(i);
      free(d);
    }
    free(indirect);
    free(direct);
    free(moved);
    free(vals);
  }
}

TB_TEST(test_empty_at_both_ends, "empty segments at both ends") {
  /* Segments 0 and 1 empty, 2 = {1, 2, 3}, 3 = {4, 5}, 4 and 5 empty. */
  const int32_t csr[6] = {0, 0, 0, 3, 5, 5};
  const int32_t vals[5] = {1, 2, 3, 4, 5};
  const int32_t want[6] = {-7, -7, 6, 9, -7, -7};
  int32_t out[6];
  CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(TB_INT32, TB_OP_PLUS, vals, 5, csr, 6, NULL,
                                       tb_test_from_i64(TB_INT32, -7), out), TB_OK);
  CU_ASSERT_EQUAL(tb_test_mismatch_i32("empty ends", out, want, 6), -1);
  /* All empty: count 0. */
  const int32_t zeros[3] = {0, 0, 0};
  CU_ASSERT_EQUAL(tb_cpu_segreduce_csr(TB_INT32, TB_OP_PLUS, NULL, 0, zeros, 3, NULL,
                                       tb_test_from_i64(TB_INT32, 42), out), TB_OK);
  CU_ASSERT(out[0] == 42 && out[1] == 42 && out[2] == 42);
  /* f64: the identity and a zero sum_abs for empty segments. */
  float fv[5] = {1, 2, 3, 4, 5};
  double d[6], a[6];
  tb_value inf = tb_identity(TB_FLOAT, TB_OP_MIN);
  CU_ASSERT_EQUAL(tb_cpu_segreduce_csr_f64(TB_FLOAT, TB_OP_MIN, fv, 5, csr, 6, NULL, inf, d, a),
                  TB_OK);
  CU_ASSERT(isinf(d[0]) && d[0] > 0 && isinf(d[5]) && a[0] == 0.0 && a[5] == 0.0);
  CU_ASSERT(d[2] == 1.0 && d[3] == 4.0 && a[2] == 6.0 && a[3] == 9.0);
  /* SpMV: empty first and last rows. 3 x 3, row 1 = [2 0 3]. */
  const int32_t rows[3] = {0, 0, 2}, cols[2] = {0, 2};
  const int32_t m[2] = {2, 3}, x[3] = {10, 20, 30};
  int32_t y[3];
  CU_ASSERT_EQUAL(tb_cpu_spmv_csr(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, m, cols, 2, rows, 3,
                                  NULL, x, 3, tb_test_from_i64(TB_INT32, 0), y), TB_OK);
  CU_ASSERT(y[0] == 0 && y[1] == 110 && y[2] == 0);
  /* The empty-row value reaches empty rows only (documented: a non-empty row
   * reduces its own terms), as in the unary form. */
  CU_ASSERT_EQUAL(tb_cpu_spmv_csr(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, m, cols, 2, rows, 3,
                                  NULL, x, 3, tb_test_from_i64(TB_INT32, -1), y), TB_OK);
  CU_ASSERT(y[0] == -1 && y[1] == 110 && y[2] == -1);
  CU_ASSERT_EQUAL(tb_cpu_spmv_csr_unary(TB_INT32, TB_OP_PLUS, cols, 2, rows, 3, NULL, x, 3,
                                        tb_test_from_i64(TB_INT32, -1), y), TB_OK);
  CU_ASSERT(y[0] == -1 && y[1] == 40 && y[2] == -1);
  /* Reduce-by-key of nothing. */
  int32_t n = -1;
  CU_ASSERT_EQUAL(tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, NULL, NULL, 0, NULL, NULL, &n),
                  TB_OK);
  CU_ASSERT_EQUAL(n, 0);
  /* A key that comes back later opens a new segment. */
  const int32_t k[5] = {3, 3, 1, 3, 3};
  int32_t ov[5], ok[5];
  CU_ASSERT_EQUAL(tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, k, vals, 5, ov, ok, &n), TB_OK);
  CU_ASSERT(n == 3 && ov[0] == 3 && ov[1] == 3 && ov[2] == 9 && ok[0] == 3 && ok[1] == 1 &&
            ok[2] == 3);
}

/* A random CSR matrix (rows x cols_n) against a dense loop. */
TB_TEST(test_spmv_random, "spmv vs dense loop, random") {
  tb_rng r;
  tb_rng_seed(&r, 2024);
  enum { ROWS = 60, COLS = 45 };
  int32_t dense[ROWS][COLS];
  int32_t csr[ROWS], cols[ROWS * COLS], sources[ROWS];
  for (int rep = 0; rep < 4; ++rep) {
    int32_t nz = 0;
    for (int i = 0; i < ROWS; ++i) {
      csr[i] = nz;
      bool empty_row = tb_rng_next(&r) % 5 == 0;
      for (int j = 0; j < COLS; ++j) {
        uint64_t u = tb_rng_next(&r);
        dense[i][j] = (!empty_row && u % 4 == 0) ? (int32_t)((u >> 8) % 19) - 9 : 0;
        if (dense[i][j] != 0) cols[nz++] = j;
      }
    }
    int32_t x[COLS];
    for (int j = 0; j < COLS; ++j) x[j] = (int32_t)(tb_rng_next(&r) % 21) - 10;
    for (int ti = 0; ti < TB_COUNT(kAllTypes); ++ti) {
      tb_type t = kAllTypes[ti];
      int32_t mvals[ROWS * COLS];
      for (int i = 0; i < ROWS; ++i) {
        int32_t end = i + 1 < ROWS ? csr[i + 1] : nz;
        for (int32_t m = csr[i]; m < end; ++m) mvals[m] = dense[i][cols[m]];
      }
      void *mat = tb_test_convert(t, mvals, nz), *xv = tb_test_convert(t, x, COLS);
      void *y = calloc(ROWS, 8), *yi = calloc(ROWS, 8);
      /* Binary, the ordinary product. */
      int32_t want[ROWS], want_u[ROWS], want_max[ROWS];
      for (int i = 0; i < ROWS; ++i) {
        want[i] = 0;
        want_u[i] = 0;
        want_max[i] = INT32_MIN;
        for (int j = 0; j < COLS; ++j)
          if (dense[i][j] != 0) {
            want[i] += dense[i][j] * x[j];
            want_u[i] += x[j];
            if (dense[i][j] + x[j] > want_max[i]) want_max[i] = dense[i][j] + x[j];
          }
      }
      void *w = tb_test_convert(t, want, ROWS);
      CU_ASSERT_EQUAL(tb_cpu_spmv_csr(t, TB_OP_MULTIPLIES, TB_OP_PLUS, mat, cols, nz, csr, ROWS,
                                      NULL, xv, COLS, tb_test_from_i64(t, 0), y), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch("spmv", t, y, w, ROWS), -1);
      /* Indirect with sources == csr. */
      CU_ASSERT_EQUAL(tb_cpu_spmv_csr(t, TB_OP_MULTIPLIES, TB_OP_PLUS, mat, cols, nz, csr, ROWS,
                                      csr, xv, COLS, tb_test_from_i64(t, 0), yi), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch("spmv indirect", t, yi, w, ROWS), -1);
      free(w);
      /* Unary: the sum of the vector entries each row names. */
      w = tb_test_convert(t, want_u, ROWS);
      CU_ASSERT_EQUAL(tb_cpu_spmv_csr_unary(t, TB_OP_PLUS, cols, nz, csr, ROWS, NULL, xv, COLS,
                                            tb_test_from_i64(t, 0), y), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch("spmv unary", t, y, w, ROWS), -1);
      free(w);
      /* Custom ops: max over the row of (a + x); empty rows the identity. */
      tb_value id = tb_identity(t, TB_OP_MAX);
      for (int i = 0; i < ROWS; ++i)
        if (want_max[i] == INT32_MIN) want_max[i] = 0; /* patched below */
      w = tb_test_convert(t, want_max, ROWS);
      for (int i = 0; i < ROWS; ++i)
        if ((i + 1 < ROWS ? csr[i + 1] : nz) == csr[i]) tb_store(t, w, i, id);
      CU_ASSERT_EQUAL(tb_cpu_spmv_csr(t, TB_OP_PLUS, TB_OP_MAX, mat, cols, nz, csr, ROWS, NULL,
                                      xv, COLS, id, y), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch("spmv max-plus", t, y, w, ROWS), -1);
      free(w);
      /* f64 for floats: the products are small integers, so exact. */
      if (tb_type_is_float(t)) {
        double yd[ROWS], sa[ROWS];
        CU_ASSERT_EQUAL(tb_cpu_spmv_csr_f64(t, mat, cols, nz, csr, ROWS, NULL, xv, COLS, yd, sa),
                        TB_OK);
        for (int i = 0; i < ROWS; ++i) {
          double abs_want = 0;
          for (int j = 0; j < COLS; ++j) abs_want += fabs((double)dense[i][j] * x[j]);
          CU_ASSERT_EQUAL(yd[i], (double)want[i]);
          CU_ASSERT_EQUAL(sa[i], abs_want);
        }
      }
      /* Indirect with the rows stored in reverse order. */
      int32_t rcols[ROWS * COLS], rvals[ROWS * COLS], at = 0;
      for (int i = ROWS - 1; i >= 0; --i) {
        int32_t end = i + 1 < ROWS ? csr[i + 1] : nz;
        sources[i] = at;
        for (int32_t m = csr[i]; m < end; ++m, ++at) {
          rcols[at] = cols[m];
          rvals[at] = mvals[m];
        }
      }
      void *rmat = tb_test_convert(t, rvals, nz);
      w = tb_test_convert(t, want, ROWS);
      CU_ASSERT_EQUAL(tb_cpu_spmv_csr(t, TB_OP_MULTIPLIES, TB_OP_PLUS, rmat, rcols, nz, csr, ROWS,
                                      sources, xv, COLS, tb_test_from_i64(t, 0), yi), TB_OK);
      CU_ASSERT_EQUAL(first_mismatch("spmv indirect, reversed rows", t, yi, w, ROWS), -1);
      free(w);
      free(rmat);
      free(yi);
      free(y);
      free(xv);
      free(mat);
    }
  }
}

TB_TEST(test_bad_arguments, "argument errors write nothing") {
  const int32_t vals[4] = {1, 2, 3, 4}, csr[2] = {0, 2};
  int32_t out[4] = {-1, -1, -1, -1};
  tb_value z = tb_test_from_i64(TB_INT32, 0);
  const int32_t bad0[2] = {1, 2}, down[3] = {0, 3, 2}, past[2] = {0, 5};
  const int32_t src_neg[2] = {-1, 0}, src_far[2] = {0, 3};
  /* Each bad argument of tb_cpu_segreduce_csr alone, with the message text it
   * must give. */
  const struct {
    const char *label, *text;
    tb_type t;
    tb_op op;
    bool no_values, no_out;
    int32_t count, num;
    const int32_t *csr, *sources;
  } bad[] = {
      {"bitwise float", "does not apply to", TB_FLOAT, TB_OP_BIT_AND, false, false, 4, 2, csr,
       NULL},
      {"bad type", "invalid element type", TB_TYPE_COUNT, TB_OP_PLUS, false, false, 4, 2, csr,
       NULL},
      {"count < 0", "n < 0 (-1)", TB_INT32, TB_OP_PLUS, false, false, -1, 2, csr, NULL},
      {"num < 0", "num_segments < 0 (-1)", TB_INT32, TB_OP_PLUS, false, false, 4, -1, csr, NULL},
      {"no segments", "no segments for count = 4", TB_INT32, TB_OP_PLUS, false, false, 4, 0, csr,
       NULL},
      {"values NULL", "in is NULL", TB_INT32, TB_OP_PLUS, true, false, 4, 2, csr, NULL},
      {"csr NULL", "csr is NULL", TB_INT32, TB_OP_PLUS, false, false, 4, 2, NULL, NULL},
      {"out NULL", "out is NULL", TB_INT32, TB_OP_PLUS, false, true, 4, 2, csr, NULL},
      {"csr[0] != 0", "csr[0] is 1, not 0", TB_INT32, TB_OP_PLUS, false, false, 4, 2, bad0, NULL},
      {"csr decreases", "csr decreases at 2", TB_INT32, TB_OP_PLUS, false, false, 4, 3, down, NULL},
      {"csr past count", "csr[1] = 5 is past count = 4", TB_INT32, TB_OP_PLUS, false, false, 4, 2,
       past, NULL},
      {"source < 0", "segment 0 reads [-1, 1)", TB_INT32, TB_OP_PLUS, false, false, 4, 2, csr,
       src_neg},
      {"source past count", "segment 1 reads [3, 5)", TB_INT32, TB_OP_PLUS, false, false, 4, 2, csr,
       src_far},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    tb_test_expect_invalid(
        bad[i].label,
        tb_cpu_segreduce_csr(bad[i].t, bad[i].op, bad[i].no_values ? NULL : vals, bad[i].count,
                             bad[i].csr, bad[i].num, bad[i].sources, z, bad[i].no_out ? NULL : out),
        bad[i].text);
  double d[2] = {-1, -1};
  tb_test_expect_invalid(
      "f64 of int",
      tb_cpu_segreduce_csr_f64(TB_INT32, TB_OP_PLUS, vals, 4, csr, 2, NULL, z, d, NULL), NULL);
  tb_test_expect_invalid(
      "f64 csr", tb_cpu_segreduce_csr_f64(TB_FLOAT, TB_OP_PLUS, vals, 4, down, 3, NULL, z, d, NULL),
      NULL);
  int32_t keys[4] = {0, 0, 1, 1}, ok[4] = {-1, -1, -1, -1}, n = -1;
  tb_test_expect_invalid("rbk keys NULL",
                         tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, NULL, vals, 4, out, ok, &n),
                         NULL);
  tb_test_expect_invalid("rbk out NULL",
                         tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, keys, vals, 4, NULL, ok, &n),
                         NULL);
  tb_test_expect_invalid("rbk count < 0",
                         tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, keys, vals, -2, out, ok, &n),
                         NULL);
  tb_test_expect_invalid("keys_to_csr count NULL", tb_cpu_keys_to_csr(keys, 4, ok, NULL), NULL);
  int32_t x[3] = {1, 2, 3}, cols_bad[4] = {0, 1, 3, 2}, cols[4] = {0, 1, 2, 2};
  tb_test_expect_invalid("spmv col past x",
                         tb_cpu_spmv_csr(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, vals, cols_bad, 4,
                                         csr, 2, NULL, x, 3, z, out),
                         NULL);
  tb_test_expect_invalid("spmv matrix NULL",
                         tb_cpu_spmv_csr(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, NULL, cols, 4, csr,
                                         2, NULL, x, 3, z, out),
                         NULL);
  tb_test_expect_invalid(
      "spmv x NULL",
      tb_cpu_spmv_csr_unary(TB_INT32, TB_OP_PLUS, cols, 4, csr, 2, NULL, NULL, 3, z, out), NULL);
  tb_test_expect_invalid("spmv bad mul op",
                         tb_cpu_spmv_csr(TB_FLOAT, TB_OP_BIT_OR, TB_OP_PLUS, vals, cols, 4, csr, 2,
                                         NULL, x, 3, z, out),
                         NULL);
  tb_test_expect_invalid(
      "spmv source",
      tb_cpu_spmv_csr_unary(TB_INT32, TB_OP_PLUS, cols, 4, csr, 2, src_far, x, 3, z, out), NULL);
  tb_test_expect_invalid("spmv f64 int",
                         tb_cpu_spmv_csr_f64(TB_INT32, vals, cols, 4, csr, 2, NULL, x, 3, d, NULL),
                         NULL);
  uint8_t ends[2] = {0, 1};
  tb_test_expect_invalid(
      "carry ends NULL",
      tb_cpu_segreduce_carry_in(TB_INT32, TB_OP_PLUS, vals, NULL, 2, z, out, NULL), NULL);
  tb_test_expect_invalid(
      "carry n < 0", tb_cpu_segreduce_carry_in(TB_INT32, TB_OP_PLUS, vals, ends, -1, z, out, NULL),
      NULL);
  /* Nothing was written. */
  for (int i = 0; i < 4; ++i) CU_ASSERT(out[i] == -1 && ok[i] == -1);
  CU_ASSERT(n == -1 && d[0] == -1 && d[1] == -1);
}

int main(void) { return tb_test_run("cpuref_segreduce", NULL); }
