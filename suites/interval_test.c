/* The interval family (expand, move, gather, scatter): the GPU against the
 * CPU reference (cpuref/interval.h) for every type x launch box x count
 * geometry, the reference's demos as golden vectors, bad input, the opt-in
 * scan validation (tb_interval_validate, which checks the scan tb_lbs takes
 * too), and malformed scans, which must give unspecified output but never
 * touch memory outside the arrays (run under compute-sanitizer memcheck with
 * --sanitizer; guard zones around the outputs catch stray writes without
 * it). The load-balancing search they are built on is lbs_test's; what the
 * two share is in interval_testing.h.
 *
 * Data are copied, never combined, so every comparison is bit for bit: the
 * values are random bits (NaN payloads and -0.0 included), and outputs are
 * poisoned before each run so that an element the kernel fails to write
 * cannot pass. */
#include "cpuref/interval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "kernels/tilebench.h"
#include "suites/interval_testing.h"
#include "suites/testing.h"

static const char *op_name(tb_interval_op op) {
  static const char *names[] = {"expand", "move", "gather", "scatter"};
  return op >= 0 && op < TB_INTERVAL_OP_COUNT ? names[op] : "?";
}

/* ---- one call of each operation against the CPU -------------------------- */

typedef struct {
  tb_type t;
  int64_t cap;           /* elements */
  void *values, *in;     /* random bits: values for expand, in for move */
  void *want, *got;      /* host outputs */
  tb_buffer d_values, d_in, d_out;
} data;

/* Random bits, NaN payloads and -0.0 included: copies must keep them all. */
static void fill_bits(tb_rng *r, void *dst, size_t bytes) {
  unsigned char *p = dst;
  for (size_t i = 0; i < bytes; i += 8) {
    const uint64_t x = tb_rng_next(r);
    memcpy(p + i, &x, bytes - i < 8 ? bytes - i : 8);
  }
}

static bool data_make(data *d, tb_type t, int64_t cap, tb_rng *r) {
  memset(d, 0, sizeof *d);
  d->t = t, d->cap = cap > 0 ? cap : 1;
  const size_t bytes = (size_t)d->cap * tb_type_size(t);
  d->values = malloc(bytes), d->in = malloc(bytes), d->want = malloc(bytes), d->got = malloc(bytes);
  if (!d->values || !d->in || !d->want || !d->got) return false;
  fill_bits(r, d->values, bytes);
  fill_bits(r, d->in, bytes);
  return tb_test_upload(&d->d_values, d->values, bytes) && tb_test_upload(&d->d_in, d->in, bytes) &&
         TB_ASSERT_OK(tb_buffer_alloc(&d->d_out, bytes), "alloc out");
}

static void data_free(data *d) {
  free(d->values), free(d->in), free(d->want), free(d->got);
  tb_buffer_free(&d->d_values), tb_buffer_free(&d->d_in), tb_buffer_free(&d->d_out);
}

static tb_status run_op(tb_interval_op op, const lb_problem *p, data *d, const tb_launch_box *box,
                        tb_buffer *scratch) {
  const int32_t *scan = p->d_scan.ptr, *gather = p->d_gather.ptr, *scatter = p->d_scatter.ptr;
  const int64_t B = p->num_objects, N = p->n_items;
  switch (op) {
    case TB_INTERVAL_EXPAND:
      return tb_interval_expand(d->t, scan, B, N, d->d_values.ptr, d->d_out.ptr, box, scratch, 0);
    case TB_INTERVAL_MOVE:
      return tb_interval_move(d->t, gather, scatter, scan, B, N, d->d_in.ptr, N, d->d_out.ptr, N,
                              box, scratch, 0);
    case TB_INTERVAL_GATHER:
      return tb_interval_gather(d->t, gather, scan, B, N, d->d_in.ptr, N, d->d_out.ptr, box,
                                scratch, 0);
    default:
      return tb_interval_scatter(d->t, scatter, scan, B, N, d->d_in.ptr, d->d_out.ptr, N, box,
                                 scratch, 0);
  }
}

static tb_status reference(tb_interval_op op, const lb_problem *p, data *d) {
  const int32_t B = p->num_objects, N = p->n_items;
  switch (op) {
    case TB_INTERVAL_EXPAND:
      return tb_cpu_interval_expand(d->t, p->scan, B, N, d->values, d->want);
    case TB_INTERVAL_MOVE:
      return tb_cpu_interval_move(d->t, p->gather, p->scatter, p->scan, B, N, d->in, d->want);
    case TB_INTERVAL_GATHER:
      return tb_cpu_interval_gather(d->t, p->gather, p->scan, B, N, d->in, d->want);
    default:
      return tb_cpu_interval_scatter(d->t, p->scatter, p->scan, B, N, d->in, d->want);
  }
}

static bool check_op(tb_interval_op op, const lb_problem *p, data *d, const tb_launch_box *box,
                     tb_buffer *scratch) {
  char what[256];
  snprintf(what, sizeof what, "%s %s box=%dx%d %s", op_name(op), tb_type_name(d->t),
           box ? box->nt : 0, box ? box->vt : 0, p->name);
  const size_t bytes = (size_t)p->n_items * tb_type_size(d->t);
  if (!TB_ASSERT_OK(cudaMemset(d->d_out.ptr, 0xa5, bytes) == cudaSuccess ? TB_OK : TB_ERR_CUDA,
                    "poison"))
    return false;
  if (!TB_ASSERT_OK(run_op(op, p, d, box, scratch), what)) return false;
  if (!TB_ASSERT_OK(tb_buffer_download(&d->d_out, d->got, bytes), what)) return false;
  if (!TB_ASSERT_OK(reference(op, p, d), what)) return false;
  return lb_same_bits(d->t, d->got, d->want, p->n_items, what);
}

/* ---- every box ------------------------------------------------------------ */

static bool in_grid(const tb_launch_box *grid, int n, tb_launch_box b) {
  for (int i = 0; i < n; ++i)
    if (grid[i].nt == b.nt && grid[i].vt == b.vt) return true;
  return false;
}

/* The boxes of the family's grid (tb_lbs_grid lists them all), each on the
 * types whose interval grid has it. */
typedef struct {
  tb_launch_box grids[TB_TYPE_COUNT][64];
  int n_grid[TB_TYPE_COUNT];
} type_grids;

static bool check_types_at_box(const lb_problem *p, const tb_launch_box *box, tb_buffer *scratch,
                               tb_rng *r, void *ctx) {
  const type_grids *g = ctx;
  bool ok = true;
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    if (!in_grid(g->grids[t], g->n_grid[t], *box)) continue;
    data d;
    if (!data_make(&d, (tb_type)t, p->n_items, r))
      ok = false;
    else
      for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
        if (!check_op((tb_interval_op)op, p, &d, box, scratch)) ok = false;
    data_free(&d);
  }
  return ok;
}

TB_TEST(test_every_type_box_geometry, "every type x box x geometry") {
  static type_grids g;
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    g.n_grid[t] = tb_interval_grid((tb_type)t, g.grids[t], 64);
    CU_ASSERT_FATAL(g.n_grid[t] > 0 && g.n_grid[t] <= 64);
  }
  CU_ASSERT(lb_each_box_geometry(check_types_at_box, &g) == 0);
}

/* Every type and operation, the tuned default as NULL and as {0, 0}. */
static void check_large(const lb_problem *p, tb_rng *r) {
  const tb_launch_box zero = {0, 0};
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    data d;
    if (data_make(&d, (tb_type)t, p->n_items, r))
      for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
        check_op((tb_interval_op)op, p, &d, op % 2 ? NULL : &zero, NULL);
    data_free(&d);
  }
}

/* The tuned defaults (NULL and {0, 0}) on the largest test size: many tiles,
 * heavy-tailed and uniform counts. */
TB_TEST(test_default_box_large, "default box, large") { lb_each_large_problem(check_large); }

/* No objects and no items; objects whose counts are all zero: nothing to
 * write, and nothing written. */
TB_TEST(test_empty_and_all_zero, "empty and all-zero counts") {
  tb_rng r = tb_test_rng(2);
  lb_problem p;
  if (lb_problem_all_zero(&p, 5000, &r)) {
    CU_ASSERT_EQUAL(p.n_items, 0);
    data d;
    if (data_make(&d, TB_INT64, 16, &r)) {
      int64_t poison[16], got[16];
      memset(poison, 0x5a, sizeof poison);
      TB_ASSERT_OK(tb_buffer_upload(&d.d_out, poison, sizeof poison), "poison");
      for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
        TB_ASSERT_OK(run_op((tb_interval_op)op, &p, &d, NULL, NULL), "all zero");
      TB_ASSERT_OK(tb_interval_validate(p.d_scan.ptr, p.num_objects, 0, NULL, 0), "validate zeros");
      TB_ASSERT_OK(tb_buffer_download(&d.d_out, got, sizeof got), "download");
      CU_ASSERT(memcmp(got, poison, sizeof got) == 0);
    }
    data_free(&d);
  }
  lb_problem_free(&p);
  /* Empty: every pointer may be NULL. */
  TB_ASSERT_OK(tb_interval_expand(TB_FLOAT, NULL, 0, 0, NULL, NULL, NULL, NULL, 0), "expand empty");
  TB_ASSERT_OK(tb_interval_move(TB_DOUBLE, NULL, NULL, NULL, 0, 0, NULL, 0, NULL, 0, NULL, NULL, 0),
               "move empty");
  TB_ASSERT_OK(tb_interval_validate(NULL, 0, 0, NULL, 0), "validate empty");
}

/* ---- golden vectors: the reference's demos --------------------------------- */

TB_TEST(test_golden_demos, "golden demos") {
  tb_rng r;
  tb_rng_seed(&r, 7);
  const tb_launch_box small = {64, 3}; /* several tiles even for these sizes */
  /* Interval expand: 20 counts, the Fibonacci numbers as values. */
  static const int32_t counts2[20] = {2, 5, 7, 16, 0, 1, 0, 0, 14, 10,
                                      3, 14, 2, 1, 11, 2, 1, 0, 5, 6};
  static const int32_t fib[20] = {1,   1,   2,   3,   5,   8,   13,   21,   34,   55,
                                  89,  144, 233, 377, 610, 987, 1597, 2584, 4181, 6765};
  static const int32_t expanded[100] = {
      1,    1,    1,    1,    1,    1,    1,    2,    2,    2,    2,    2,    2,    2,    3,
      3,    3,    3,    3,    3,    3,    3,    3,    3,    3,    3,    3,    3,    3,    3,
      8,    34,   34,   34,   34,   34,   34,   34,   34,   34,   34,   34,   34,   34,   34,
      55,   55,   55,   55,   55,   55,   55,   55,   55,   55,   89,   89,   89,   144,  144,
      144,  144,  144,  144,  144,  144,  144,  144,  144,  144,  144,  144,  233,  233,  377,
      610,  610,  610,  610,  610,  610,  610,  610,  610,  610,  610,  987,  987,  1597, 4181,
      4181, 4181, 4181, 4181, 6765, 6765, 6765, 6765, 6765, 6765};
  /* Interval move: 20 intervals of 0..99 with given gather / scatter. */
  static const int32_t counts3[20] = {3, 9, 1, 9, 8, 5, 10, 2, 5, 2, 8, 6, 5, 2, 4, 0, 8, 2, 5, 6};
  static const int32_t gather3[20] = {75, 86, 17, 2,  67, 24, 37, 11, 95, 35,
                                      52, 18, 47, 0,  13, 75, 78, 60, 62, 29};
  static const int32_t scatter3[20] = {10, 80, 99, 27, 41, 71, 15, 0,  36, 13,
                                       89, 49, 66, 97, 76, 76, 2,  25, 61, 55};
  static const int32_t moved[100] = {
      11, 12, 78, 79, 80, 81, 82, 83, 84, 85, 75, 76, 77, 35, 36, 37, 38, 39, 40, 41,
      42, 43, 44, 45, 46, 60, 61, 2,  3,  4,  5,  6,  7,  8,  9,  10, 95, 96, 97, 98,
      99, 67, 68, 69, 70, 71, 72, 73, 74, 18, 19, 20, 21, 22, 23, 29, 30, 31, 32, 33,
      34, 62, 63, 64, 65, 66, 47, 48, 49, 50, 51, 24, 25, 26, 27, 28, 13, 14, 15, 16,
      86, 87, 88, 89, 90, 91, 92, 93, 94, 52, 53, 54, 55, 56, 57, 58, 59, 0,  1,  17};

  int32_t got[100];
  tb_buffer out = {0}, vals = {0}, in = {0};
  TB_ASSERT_OK(tb_buffer_alloc(&out, sizeof got), "alloc");

  lb_problem p = lb_problem_from_counts(counts2, 20, &r);
  CU_ASSERT_EQUAL(p.n_items, 100);
  tb_test_upload(&vals, fib, sizeof fib);
  for (int b = 0; b < 2; ++b) {
    const tb_launch_box *box = b ? &small : NULL;
    if (TB_ASSERT_OK(tb_interval_expand(TB_INT32, p.d_scan.ptr, 20, 100, vals.ptr, out.ptr, box,
                                        NULL, 0),
                     "expand demo")) {
      TB_ASSERT_OK(tb_buffer_download(&out, got, sizeof got), "download");
      lb_same_bits(TB_INT32, got, expanded, 100, "expand demo");
    }
  }
  lb_problem_free(&p);

  p = lb_problem_from_counts(counts3, 20, &r);
  CU_ASSERT_EQUAL(p.n_items, 100);
  int32_t iota[100];
  for (int i = 0; i < 100; ++i) iota[i] = i;
  tb_test_upload(&in, iota, sizeof iota);
  tb_buffer_upload(&p.d_gather, gather3, sizeof gather3);
  tb_buffer_upload(&p.d_scatter, scatter3, sizeof scatter3);
  for (int b = 0; b < 2; ++b) {
    const tb_launch_box *box = b ? &small : NULL;
    if (TB_ASSERT_OK(tb_interval_move(TB_INT32, p.d_gather.ptr, p.d_scatter.ptr, p.d_scan.ptr, 20,
                                      100, in.ptr, 100, out.ptr, 100, box, NULL, 0),
                     "move demo")) {
      TB_ASSERT_OK(tb_buffer_download(&out, got, sizeof got), "download");
      lb_same_bits(TB_INT32, got, moved, 100, "move demo");
    }
  }
  lb_problem_free(&p);
  tb_buffer_free(&out), tb_buffer_free(&vals), tb_buffer_free(&in);
}

/* ---- bad input --------------------------------------------------------------- */

TB_TEST(test_bad_input, "bad input") {
  lb_bad_input f;
  lb_bad_input_begin(&f);
  int32_t *s = f.a.ptr, *o = f.b.ptr;
  char *odd = (char *)f.b.ptr + 4;
  const tb_launch_box lbs_only = {512, 7};
  const int64_t big = (int64_t)INT32_MAX + 1;
  const char *const E = "tb_interval_expand", *const M = "tb_interval_move";
  const char *const G = "tb_interval_gather", *const S = "tb_interval_scatter";
  const char *const V = "tb_interval_validate";
  TB_EXPECT_REJECTS(tb_interval_expand(TB_INT32, s, 10, 10, NULL, o, NULL, NULL, 0), E,
                    "d_values is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_expand(TB_INT32, s, 10, 10, s, NULL, NULL, NULL, 0), E,
                    "d_out is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_expand((tb_type)9, s, 10, 10, s, o, NULL, NULL, 0), E,
                    "unknown type 9");
  TB_EXPECT_REJECTS(tb_interval_expand(TB_DOUBLE, s, 10, 10, s, odd, NULL, NULL, 0), E,
                    "d_out is not aligned", "8-byte elements");
  TB_EXPECT_REJECTS(tb_interval_expand(TB_INT32, s, 10, big, s, o, NULL, NULL, 0), E,
                    "n_items = 2147483648", "outside [0, INT32_MAX]");
  TB_EXPECT_REJECTS(tb_interval_expand(TB_INT32, s, 10, 10, s, o, &lbs_only, NULL, 0), E,
                    "launch box 512x7", "does not fit in shared memory for interval over int32");
  TB_EXPECT_REJECTS(tb_interval_move(TB_INT32, NULL, s, s, 10, 10, s, 10, o, 10, NULL, NULL, 0), M,
                    "d_gather is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_move(TB_INT32, s, NULL, s, 10, 10, s, 10, o, 10, NULL, NULL, 0), M,
                    "d_scatter is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_move(TB_INT32, s, s, s, 10, 10, s, -1, o, 10, NULL, NULL, 0), M,
                    "n_in = -1", "is negative");
  TB_EXPECT_REJECTS(tb_interval_move(TB_INT32, s, s, s, 10, 10, s, 10, o, -1, NULL, NULL, 0), M,
                    "n_out = -1", "is negative");
  TB_EXPECT_REJECTS(tb_interval_move(TB_INT64, s, s, s, 10, 10, odd, 10, o, 10, NULL, NULL, 0), M,
                    "d_in is not aligned", "8-byte elements");
  TB_EXPECT_REJECTS(tb_interval_gather(TB_FLOAT, NULL, s, 10, 10, s, 10, o, NULL, NULL, 0), G,
                    "d_gather is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_gather(TB_FLOAT, s, s, 10, -10, s, 10, o, NULL, NULL, 0), G,
                    "n_items = -10", "outside [0, INT32_MAX]");
  TB_EXPECT_REJECTS(tb_interval_scatter(TB_FLOAT, NULL, s, 10, 10, s, o, 10, NULL, NULL, 0), S,
                    "d_scatter is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_scatter(TB_FLOAT, s, s, 10, 10, NULL, o, 10, NULL, NULL, 0), S,
                    "d_in is NULL", "n_items = 10");
  TB_EXPECT_REJECTS(tb_interval_validate(NULL, 10, 10, NULL, 0), V, "d_scan is NULL", "10 objects");
  TB_EXPECT_REJECTS(tb_interval_validate(s, 10, big, NULL, 0), V, "n_items = 2147483648",
                    "outside [0, INT32_MAX]");
  TB_EXPECT_REJECTS(tb_interval_validate(s, 0, 3, NULL, 0), V,
                    "3 items but no objects to own them");
  lb_bad_input_end(&f);
}

/* ---- validation and malformed scans ------------------------------------------- */

/* The first index of scan that breaks a rule of tb_interval_validate
 * (validate_kernel's, not strict), and the words its message gives the rule. */
static const char *first_broken(const int32_t *scan, int32_t n, int64_t n_items, int32_t *index) {
  for (int32_t i = 0; i < n; ++i) {
    *index = i;
    if (i == 0 && scan[0] != 0) return "an exclusive scan starts at 0";
    if (i > 0 && scan[i - 1] > scan[i]) return "(the scan must not decrease)";
    if (i == n - 1 && scan[i] > n_items) return "the last entry, exceeds n_items";
  }
  return NULL;
}

/* tb_interval_validate's verdict on scan, and that its message names `index`
 * and the rule broken there. */
static void expect_invalid(const int32_t *scan, int32_t n, int64_t n_items, int32_t index,
                           const char *what) {
  tb_buffer d = {0};
  if (!tb_test_upload(&d, scan, sizeof(int32_t) * n)) return;
  int32_t first = -1;
  const char *rule = first_broken(scan, n, n_items, &first);
  CU_ASSERT(rule != NULL && first == index); /* the test's own data */
  char needle[32];
  snprintf(needle, sizeof needle, "scan[%d] = ", index);
  tb_clear_error();
  const tb_status st = tb_interval_validate(d.ptr, n, n_items, NULL, 0);
  if (!TB_ASSERT_REJECTS(st, "tb_interval_validate", needle, rule, NULL)) printf("  (%s)\n", what);
  tb_buffer_free(&d);
}

TB_TEST(test_validate, "validation entry point") {
  enum { N = 300000 };
  int32_t *scan = malloc(sizeof(int32_t) * N);
  if (!scan) return;
  for (int32_t i = 0; i < N; ++i) scan[i] = 3 * i;
  tb_buffer d = {0}, scratch = {0};
  if (tb_test_upload(&d, scan, sizeof(int32_t) * N)) {
    TB_ASSERT_OK(tb_interval_validate(d.ptr, N, 3 * (int64_t)N, &scratch, 0), "valid scan");
    TB_ASSERT_OK(tb_interval_validate(d.ptr, N, 3 * (int64_t)N - 3, NULL, 0), "last count 0");
  }
  tb_buffer_free(&d), tb_buffer_free(&scratch);
  expect_invalid(scan, N, 3 * (int64_t)N - 4, N - 1, "wrong total");
  scan[123456] = scan[123455] - 1; /* descending step */
  scan[200000] = 0;                /* a later one: the first must be named */
  expect_invalid(scan, N, 3 * (int64_t)N, 123456, "descending scan");
  scan[0] = 5;
  expect_invalid(scan, N, 3 * (int64_t)N, 0, "scan not starting at 0");
  free(scan);
}

/* Runs every interval call on a malformed scan: each must succeed and write
 * nothing outside its output; then the validation must refuse the scan.
 * Inputs are allocated to their exact size, so that memcheck (--sanitizer)
 * sees any read past them; the output has guard zones on both sides,
 * checked here, for stray writes. */
static void run_malformed(const int32_t *scan, int32_t n_objects, int32_t n_items,
                          const char *what) {
  tb_rng r;
  tb_rng_seed(&r, 99);
  int32_t *offsets = malloc(sizeof(int32_t) * n_objects);
  int64_t *host = malloc(sizeof(int64_t) * (n_objects > n_items ? n_objects : n_items));
  tb_buffer d_scan = {0}, d_off = {0}, d_vals = {0}, d_in = {0}, d_out = {0};
  if (offsets && host) {
    for (int32_t j = 0; j < n_objects; ++j) offsets[j] = (int32_t)tb_rng_range(&r, 0, n_items);
    memset(host, kCanary, sizeof(int64_t) * (n_objects > n_items ? n_objects : n_items));
  }
  if (offsets && host && tb_test_upload(&d_scan, scan, sizeof(int32_t) * n_objects) &&
      tb_test_upload(&d_off, offsets, sizeof(int32_t) * n_objects) &&
      tb_test_upload(&d_vals, host, sizeof(int64_t) * n_objects) &&
      tb_test_upload(&d_in, host, sizeof(int64_t) * n_items) && lb_guarded_alloc(&d_out, n_items)) {
    const int64_t *vals = d_vals.ptr, *in = d_in.ptr;
    int64_t *out = (int64_t *)d_out.ptr + kGuard;
    const int32_t *off = d_off.ptr, *s = d_scan.ptr;
    char w[TB_INTERVAL_OP_COUNT][160];
    for (int i = 0; i < TB_INTERVAL_OP_COUNT; ++i)
      snprintf(w[i], sizeof w[i], "%s: %s", what, op_name((tb_interval_op)i));
    TB_ASSERT_OK(tb_interval_expand(TB_INT64, s, n_objects, n_items, vals, out, NULL, NULL, 0),
                 w[TB_INTERVAL_EXPAND]);
    TB_ASSERT_OK(tb_interval_move(TB_INT64, off, off, s, n_objects, n_items, in, n_items, out,
                                  n_items, NULL, NULL, 0),
                 w[TB_INTERVAL_MOVE]);
    TB_ASSERT_OK(
        tb_interval_gather(TB_INT64, off, s, n_objects, n_items, in, n_items, out, NULL, NULL, 0),
        w[TB_INTERVAL_GATHER]);
    TB_ASSERT_OK(
        tb_interval_scatter(TB_INT64, off, s, n_objects, n_items, in, out, n_items, NULL, NULL, 0),
        w[TB_INTERVAL_SCATTER]);
    int32_t first = -1;
    const char *rule = first_broken(scan, n_objects, n_items, &first);
    char needle[32];
    snprintf(needle, sizeof needle, "scan[%d] = ", first);
    tb_clear_error();
    const tb_status st = tb_interval_validate(s, n_objects, n_items, NULL, 0);
    if (!TB_ASSERT_REJECTS(st, "tb_interval_validate", needle, rule, NULL))
      printf("  (%s)\n", what);
    lb_guards_intact(&d_out, n_items, what);
  }
  tb_buffer_free(&d_scan), tb_buffer_free(&d_off), tb_buffer_free(&d_vals);
  tb_buffer_free(&d_in), tb_buffer_free(&d_out);
  free(offsets), free(host);
}

TB_TEST(test_malformed_scans_memory_safe, "malformed scans stay memory safe") {
  lb_for_each_malformed_scan(run_malformed);
}

int main(int argc, char **argv) { return tb_test_main(argc, argv, "interval_test"); }
