/* Load-balancing search and the interval family (expand, move, gather,
 * scatter): the GPU against the CPU reference for every type x launch box x
 * count geometry, the reference's demos as golden vectors, ranks from the
 * CTA building block, bad input, the opt-in scan validation, and malformed
 * scans, which must give unspecified output but never touch memory outside
 * the arrays (run under compute-sanitizer memcheck with --sanitizer; guard
 * zones around the outputs catch stray writes without it).
 *
 * Data are copied, never combined, so every comparison is bit for bit: the
 * values are random bits (NaN payloads and -0.0 included), and outputs are
 * poisoned before each run so that an element the kernel fails to write
 * cannot pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "cpuref/interval.h"
#include "kernels/tilebench.h"
#include "suites/testing.h"

static const char *op_name(tb_interval_op op) {
  static const char *names[] = {"expand", "move", "gather", "scatter"};
  return op >= 0 && op < TB_INTERVAL_OP_COUNT ? names[op] : "?";
}

/* Bit-exact comparison with the first mismatch in the failure text. */
static bool same_bits(tb_type t, const void *got, const void *want, int64_t n, const char *what) {
  const size_t sz = tb_type_size(t);
  if (n <= 0 || memcmp(got, want, (size_t)n * sz) == 0) {
    CU_PASS(what);
    return true;
  }
  int64_t i = 0;
  while (memcmp((const char *)got + i * sz, (const char *)want + i * sz, sz) == 0) ++i;
  uint64_t g = 0, w = 0;
  memcpy(&g, (const char *)got + i * sz, sz);
  memcpy(&w, (const char *)want + i * sz, sz);
  char text[1024];
  snprintf(text, sizeof text, "%s: first mismatch at %lld of %lld: expected bits 0x%llx, got 0x%llx",
           what, (long long)i, (long long)n, (unsigned long long)w, (unsigned long long)g);
  return TB_ASSERT_OK(tb_fail(TB_ERR_MISMATCH, "%s", text), what);
}

static bool upload(tb_buffer *b, const void *host, size_t bytes) {
  return TB_ASSERT_OK(tb_buffer_alloc(b, bytes), "alloc") &&
         TB_ASSERT_OK(tb_buffer_upload(b, host, bytes), "upload");
}

/* ---- a problem: counts, scan, interval placements ------------------------ */

typedef struct {
  char name[96];
  int32_t num_objects, n_items;
  int32_t *counts, *scan, *gather, *scatter; /* host */
  tb_buffer d_scan, d_gather, d_scatter;
} problem;

/* Offsets that lay the intervals out back to back in a random order: every
 * item of [0, n_items) is covered once, so move, gather and scatter write
 * every output and never overlap. */
static void shuffled_layout(tb_rng *r, const int32_t *counts, int32_t n, int32_t *offsets) {
  int32_t *order = malloc(sizeof(int32_t) * (n > 0 ? n : 1));
  for (int32_t j = 0; j < n; ++j) order[j] = j;
  for (int32_t j = n - 1; j > 0; --j) {
    const int32_t k = (int32_t)tb_rng_range(r, 0, j), x = order[j];
    order[j] = order[k], order[k] = x;
  }
  int32_t acc = 0;
  for (int32_t j = 0; j < n; ++j) offsets[order[j]] = acc, acc += counts[order[j]];
  free(order);
}

static void problem_free(problem *p) {
  free(p->counts), free(p->scan), free(p->gather), free(p->scatter);
  tb_buffer_free(&p->d_scan), tb_buffer_free(&p->d_gather), tb_buffer_free(&p->d_scatter);
  memset(p, 0, sizeof *p);
}

/* From counts already in p->counts (num_objects of them). */
static bool problem_finish(problem *p, tb_rng *r) {
  const int32_t n = p->num_objects > 0 ? p->num_objects : 1;
  p->scan = malloc(sizeof(int32_t) * n);
  p->gather = malloc(sizeof(int32_t) * n);
  p->scatter = malloc(sizeof(int32_t) * n);
  if (!p->scan || !p->gather || !p->scatter) return false;
  p->n_items = (int32_t)tb_cpu_counts_scan(p->counts, p->num_objects, p->scan);
  shuffled_layout(r, p->counts, p->num_objects, p->gather);
  shuffled_layout(r, p->counts, p->num_objects, p->scatter);
  const size_t bytes = sizeof(int32_t) * n;
  return upload(&p->d_scan, p->scan, bytes) && upload(&p->d_gather, p->gather, bytes) &&
         upload(&p->d_scatter, p->scatter, bytes);
}

static bool problem_make(problem *p, const tb_geometry_spec *spec, int64_t total, tb_rng *r) {
  memset(p, 0, sizeof *p);
  const int64_t num = tb_geometry_num_objects(spec, total);
  snprintf(p->name, sizeof p->name, "%s avg=%g items=%lld objects=%lld",
           tb_geometry_name(spec->kind), spec->avg, (long long)total, (long long)num);
  p->num_objects = (int32_t)num;
  p->counts = malloc(sizeof(int32_t) * (num > 0 ? num : 1));
  if (!p->counts || num < 0) return false;
  if (!TB_ASSERT_OK(tb_geometry_counts(spec, total, p->counts, num, r), p->name)) return false;
  return problem_finish(p, r);
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
  return upload(&d->d_values, d->values, bytes) && upload(&d->d_in, d->in, bytes) &&
         TB_ASSERT_OK(tb_buffer_alloc(&d->d_out, bytes), "alloc out");
}

static void data_free(data *d) {
  free(d->values), free(d->in), free(d->want), free(d->got);
  tb_buffer_free(&d->d_values), tb_buffer_free(&d->d_in), tb_buffer_free(&d->d_out);
}

static tb_status run_op(tb_interval_op op, const problem *p, data *d, const tb_launch_box *box,
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

static tb_status reference(tb_interval_op op, const problem *p, data *d) {
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

static bool check_op(tb_interval_op op, const problem *p, data *d, const tb_launch_box *box,
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
  return same_bits(d->t, d->got, d->want, p->n_items, what);
}

/* LBS with ranks (the CTA block's preceding-scan entry) against the CPU. */
static bool check_lbs(const problem *p, const tb_launch_box *box, tb_buffer *scratch) {
  char what[256];
  snprintf(what, sizeof what, "lbs box=%dx%d %s", box ? box->nt : 0, box ? box->vt : 0, p->name);
  const int32_t N = p->n_items;
  const size_t bytes = sizeof(int32_t) * (N > 0 ? N : 1);
  int32_t *want = malloc(bytes), *want_rank = malloc(bytes), *got = malloc(bytes);
  tb_buffer d_obj = {0}, d_rank = {0};
  bool ok = want && want_rank && got &&
            TB_ASSERT_OK(tb_buffer_alloc(&d_obj, bytes), "alloc") &&
            TB_ASSERT_OK(tb_buffer_alloc(&d_rank, bytes), "alloc") &&
            cudaMemset(d_obj.ptr, 0xa5, bytes) == cudaSuccess &&
            cudaMemset(d_rank.ptr, 0xa5, bytes) == cudaSuccess &&
            TB_ASSERT_OK(tb_lbs(p->d_scan.ptr, p->num_objects, N, d_obj.ptr, d_rank.ptr, box,
                                scratch, 0),
                         what);
  ok = ok && TB_ASSERT_OK(tb_cpu_lbs(p->scan, p->num_objects, N, want), "tb_cpu_lbs") &&
       TB_ASSERT_OK(tb_cpu_lbs_ranks(p->scan, want, N, want_rank), "tb_cpu_lbs_ranks");
  if (ok) {
    ok = TB_ASSERT_OK(tb_buffer_download(&d_obj, got, sizeof(int32_t) * N), what) &&
         same_bits(TB_INT32, got, want, N, what);
    char rwhat[300];
    snprintf(rwhat, sizeof rwhat, "%s (ranks)", what);
    ok = ok && TB_ASSERT_OK(tb_buffer_download(&d_rank, got, sizeof(int32_t) * N), rwhat) &&
         same_bits(TB_INT32, got, want_rank, N, rwhat);
  }
  free(want), free(want_rank), free(got);
  tb_buffer_free(&d_obj), tb_buffer_free(&d_rank);
  return ok;
}

/* ---- geometries ------------------------------------------------------------ */

/* The count distributions where load balancing goes wrong, for a box whose
 * tile holds `tile` merged elements. */
static int geometries(int tile, tb_geometry_spec *out) {
  int n = 0;
  out[n++] = tb_geometry_spec_default(TB_GEOM_ZEROS_BUT_ONE, 1.0);   /* all zero but one */
  out[n++] = tb_geometry_spec_default(TB_GEOM_ZERO_RUNS, 2.0);       /* runs of zeros > a tile */
  out[n++] = tb_geometry_spec_default(TB_GEOM_ONE_GIANT, 4.0);       /* one huge count */
  out[n++] = tb_geometry_spec_default(TB_GEOM_FIXED, tile + 1.0);    /* a run across every boundary */
  out[n++] = tb_geometry_spec_default(TB_GEOM_FIXED, tile - 1.0);
  out[n++] = tb_geometry_spec_default(TB_GEOM_POWER_LAW, 8.0);       /* random heavy-tailed */
  out[n++] = tb_geometry_spec_default(TB_GEOM_EMPTY_FRACTION, 3.0);
  out[n++] = tb_geometry_spec_default(TB_GEOM_ALL_ONE, 1.0);
  out[n++] = tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0);
  return n;
}

static bool in_grid(const tb_launch_box *grid, int n, tb_launch_box b) {
  for (int i = 0; i < n; ++i)
    if (grid[i].nt == b.nt && grid[i].vt == b.vt) return true;
  return false;
}

/* A few boxes under the sanitizer (every launch is many times slower there):
 * the smallest tile, a mid one and the largest of the interval grid. */
static bool box_selected(tb_launch_box b) {
  if (!tb_test.quick) return true;
  return (b.nt == 64 && b.vt == 3) || (b.nt == 128 && b.vt == 11) || (b.nt == 512 && b.vt == 5) ||
         (b.nt == 512 && b.vt == 11);
}

static void test_every_type_box_geometry(void) {
  tb_launch_box lbs_boxes[64], grids[TB_TYPE_COUNT][64];
  const int n_lbs = tb_lbs_grid(lbs_boxes, 64);
  int n_grid[TB_TYPE_COUNT];
  CU_ASSERT_FATAL(n_lbs > 0 && n_lbs <= 64);
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    n_grid[t] = tb_interval_grid((tb_type)t, grids[t], 64);
    CU_ASSERT_FATAL(n_grid[t] > 0 && n_grid[t] <= 64);
  }
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed);
  tb_buffer scratch = {0};
  int failures = 0;
  for (int b = 0; b < n_lbs && failures < 10; ++b) {
    const tb_launch_box box = lbs_boxes[b];
    if (!box_selected(box)) continue;
    const int tile = box.nt * box.vt;
    tb_geometry_spec specs[16];
    const int n_specs = geometries(tile, specs);
    for (int g = 0; g < n_specs && failures < 10; ++g) {
      /* Several tiles and a partial last one. */
      const int64_t total = (int64_t)tile * (tb_test.quick ? 3 : 7) + 13 + b;
      problem p;
      if (!problem_make(&p, &specs[g], total, &r)) {
        ++failures;
        problem_free(&p);
        continue;
      }
      /* Odd boxes use a scratch allocated inside the call. */
      tb_buffer *s = b % 2 ? NULL : &scratch;
      if (!check_lbs(&p, &box, s)) ++failures;
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        if (!in_grid(grids[t], n_grid[t], box)) continue;
        data d;
        if (!data_make(&d, (tb_type)t, p.n_items, &r)) ++failures;
        else
          for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
            if (!check_op((tb_interval_op)op, &p, &d, &box, s)) ++failures;
        data_free(&d);
      }
      problem_free(&p);
    }
  }
  tb_buffer_free(&scratch);
}

/* The tuned defaults (NULL and {0, 0}) on the largest test size: many tiles,
 * heavy-tailed and uniform counts. */
static void test_default_box_large(void) {
  const tb_launch_box zero = {0, 0};
  const tb_geometry_spec specs[] = {tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0),
                                    tb_geometry_spec_default(TB_GEOM_POWER_LAW, 64.0),
                                    tb_geometry_spec_default(TB_GEOM_ALL_ONE, 1.0)};
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 1);
  for (size_t g = 0; g < sizeof specs / sizeof specs[0]; ++g) {
    problem p;
    if (problem_make(&p, &specs[g], tb_test.max_random_n, &r)) {
      check_lbs(&p, NULL, NULL);
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        data d;
        if (data_make(&d, (tb_type)t, p.n_items, &r))
          for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
            check_op((tb_interval_op)op, &p, &d, op % 2 ? NULL : &zero, NULL);
        data_free(&d);
      }
    }
    problem_free(&p);
  }
}

/* No objects and no items; objects whose counts are all zero: nothing to
 * write, and nothing written. */
static void test_empty_and_all_zero(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 2);
  problem p;
  memset(&p, 0, sizeof p);
  p.num_objects = 5000;
  p.counts = calloc(p.num_objects, sizeof(int32_t));
  if (p.counts && problem_finish(&p, &r)) {
    CU_ASSERT_EQUAL(p.n_items, 0);
    data d;
    if (data_make(&d, TB_INT64, 16, &r)) {
      int64_t poison[16], got[16];
      memset(poison, 0x5a, sizeof poison);
      TB_ASSERT_OK(tb_buffer_upload(&d.d_out, poison, sizeof poison), "poison");
      int32_t *obj = d.d_out.ptr;
      TB_ASSERT_OK(tb_lbs(p.d_scan.ptr, p.num_objects, 0, obj, obj, NULL, NULL, 0), "lbs all zero");
      for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
        TB_ASSERT_OK(run_op((tb_interval_op)op, &p, &d, NULL, NULL), "all zero");
      TB_ASSERT_OK(tb_interval_validate(p.d_scan.ptr, p.num_objects, 0, NULL, 0), "validate zeros");
      TB_ASSERT_OK(tb_buffer_download(&d.d_out, got, sizeof got), "download");
      CU_ASSERT(memcmp(got, poison, sizeof got) == 0);
    }
    data_free(&d);
  }
  problem_free(&p);
  /* Empty: every pointer may be NULL. */
  TB_ASSERT_OK(tb_lbs(NULL, 0, 0, NULL, NULL, NULL, NULL, 0), "lbs empty");
  TB_ASSERT_OK(tb_interval_expand(TB_FLOAT, NULL, 0, 0, NULL, NULL, NULL, NULL, 0), "expand empty");
  TB_ASSERT_OK(tb_interval_move(TB_DOUBLE, NULL, NULL, NULL, 0, 0, NULL, 0, NULL, 0, NULL, NULL, 0),
               "move empty");
  TB_ASSERT_OK(tb_interval_validate(NULL, 0, 0, NULL, 0), "validate empty");
}

/* ---- golden vectors: the reference's demos --------------------------------- */

static problem problem_from_counts(const int32_t *counts, int32_t n, tb_rng *r) {
  problem p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "demo (%d objects)", n);
  p.num_objects = n;
  p.counts = malloc(sizeof(int32_t) * n);
  if (p.counts) {
    memcpy(p.counts, counts, sizeof(int32_t) * n);
    problem_finish(&p, r);
  }
  return p;
}

static void test_golden_demos(void) {
  tb_rng r;
  tb_rng_seed(&r, 7);
  const tb_launch_box small = {64, 3}; /* several tiles even for these sizes */
  /* Load-balancing search with ranks: 40 objects, 79 items. */
  static const int32_t counts1[40] = {1, 2, 4, 0, 4, 4, 3, 3, 2, 4, 0, 0, 1, 2, 1, 1, 0, 2, 2, 1,
                                      1, 4, 2, 3, 2, 2, 1, 1, 3, 0, 2, 1, 1, 3, 4, 2, 2, 4, 0, 4};
  static const int32_t lbs1[79] = {
      0,  1,  1,  2,  2,  2,  2,  4,  4,  4,  4,  5,  5,  5,  5,  6,  6,  6,  7,  7,
      7,  8,  8,  9,  9,  9,  9,  12, 13, 13, 14, 15, 17, 17, 18, 18, 19, 20, 21, 21,
      21, 21, 22, 22, 23, 23, 23, 24, 24, 25, 25, 26, 27, 28, 28, 28, 30, 30, 31, 32,
      33, 33, 33, 34, 34, 34, 34, 35, 35, 36, 36, 37, 37, 37, 37, 39, 39, 39, 39};
  static const int32_t rank1[79] = {0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0, 1,
                                    2, 0, 1, 0, 1, 2, 3, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1,
                                    2, 3, 0, 1, 0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 1, 2, 0, 1, 0, 0,
                                    0, 1, 2, 0, 1, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3};
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
  tb_buffer out = {0}, rank = {0}, vals = {0}, in = {0};
  TB_ASSERT_OK(tb_buffer_alloc(&out, sizeof got), "alloc");
  TB_ASSERT_OK(tb_buffer_alloc(&rank, sizeof got), "alloc");

  problem p = problem_from_counts(counts1, 40, &r);
  CU_ASSERT_EQUAL(p.n_items, 79);
  for (int b = 0; b < 2; ++b) {
    const tb_launch_box *box = b ? &small : NULL;
    if (TB_ASSERT_OK(tb_lbs(p.d_scan.ptr, 40, 79, out.ptr, rank.ptr, box, NULL, 0), "lbs demo")) {
      TB_ASSERT_OK(tb_buffer_download(&out, got, 79 * sizeof(int32_t)), "download");
      same_bits(TB_INT32, got, lbs1, 79, "lbs demo: objects");
      TB_ASSERT_OK(tb_buffer_download(&rank, got, 79 * sizeof(int32_t)), "download");
      same_bits(TB_INT32, got, rank1, 79, "lbs demo: ranks");
    }
  }
  problem_free(&p);

  p = problem_from_counts(counts2, 20, &r);
  CU_ASSERT_EQUAL(p.n_items, 100);
  upload(&vals, fib, sizeof fib);
  for (int b = 0; b < 2; ++b) {
    const tb_launch_box *box = b ? &small : NULL;
    if (TB_ASSERT_OK(tb_interval_expand(TB_INT32, p.d_scan.ptr, 20, 100, vals.ptr, out.ptr, box,
                                        NULL, 0),
                     "expand demo")) {
      TB_ASSERT_OK(tb_buffer_download(&out, got, sizeof got), "download");
      same_bits(TB_INT32, got, expanded, 100, "expand demo");
    }
  }
  problem_free(&p);

  p = problem_from_counts(counts3, 20, &r);
  CU_ASSERT_EQUAL(p.n_items, 100);
  int32_t iota[100];
  for (int i = 0; i < 100; ++i) iota[i] = i;
  upload(&in, iota, sizeof iota);
  tb_buffer_upload(&p.d_gather, gather3, sizeof gather3);
  tb_buffer_upload(&p.d_scatter, scatter3, sizeof scatter3);
  for (int b = 0; b < 2; ++b) {
    const tb_launch_box *box = b ? &small : NULL;
    if (TB_ASSERT_OK(tb_interval_move(TB_INT32, p.d_gather.ptr, p.d_scatter.ptr, p.d_scan.ptr, 20,
                                      100, in.ptr, 100, out.ptr, 100, box, NULL, 0),
                     "move demo")) {
      TB_ASSERT_OK(tb_buffer_download(&out, got, sizeof got), "download");
      same_bits(TB_INT32, got, moved, 100, "move demo");
    }
  }
  problem_free(&p);
  tb_buffer_free(&out), tb_buffer_free(&rank), tb_buffer_free(&vals), tb_buffer_free(&in);
}

/* ---- bad input --------------------------------------------------------------- */

static void test_bad_input(void) {
  tb_buffer a = {0}, b = {0};
  TB_ASSERT_OK(tb_buffer_alloc(&a, 4096), "alloc");
  TB_ASSERT_OK(tb_buffer_alloc(&b, 4096), "alloc");
  const size_t free_before = tb_test_free_device_bytes();
  int32_t *s = a.ptr, *o = b.ptr;
  char *odd = (char *)b.ptr + 4;
  const tb_launch_box off_grid = {100, 3}, half = {128, 0}, too_big = {512, 15}, lbs_only = {512, 7};
  const int64_t big = (int64_t)INT32_MAX + 1;
  /* The call runs first, then the message it left is read. */
#define EXPECT(call, api, ...) TB_ASSERT_REJECTS((tb_clear_error(), (call)), api, __VA_ARGS__, NULL)
  const char *const L = "tb_lbs", *const E = "tb_interval_expand", *const M = "tb_interval_move";
  const char *const G = "tb_interval_gather", *const S = "tb_interval_scatter";
  const char *const V = "tb_interval_validate";
  EXPECT(tb_lbs(NULL, 10, 10, o, NULL, NULL, NULL, 0), L, "d_scan is NULL", "10 objects");
  EXPECT(tb_lbs(s, 10, 10, NULL, NULL, NULL, NULL, 0), L, "d_obj is NULL", "n_items = 10");
  EXPECT(tb_lbs(s, -1, 10, o, NULL, NULL, NULL, 0), L,
         "num_objects = -1", "outside [0, INT32_MAX]");
  EXPECT(tb_lbs(s, 10, -5, o, NULL, NULL, NULL, 0), L, "n_items = -5", "outside [0, INT32_MAX]");
  /* a total past int32, objects past int32, items without objects */
  EXPECT(tb_lbs(s, 10, big, o, NULL, NULL, NULL, 0), L,
         "n_items = 2147483648", "outside [0, INT32_MAX]");
  EXPECT(tb_lbs(s, big, 10, o, NULL, NULL, NULL, 0), L,
         "num_objects = 2147483648", "outside [0, INT32_MAX]");
  EXPECT(tb_lbs(s, 0, 10, o, NULL, NULL, NULL, 0), L, "10 items but no objects to own them");
  EXPECT(tb_lbs(s, 10, 10, o, (int32_t *)(odd + 1), NULL, NULL, 0), L,
         "d_rank is not aligned", "4-byte elements");
  EXPECT(tb_lbs(s, 10, 10, o, NULL, &off_grid, NULL, 0), L,
         "launch box 100x3", "is not in the lbs grid");
  EXPECT(tb_lbs(s, 10, 10, o, NULL, &half, NULL, 0), L, "launch box 128x0", "is not in the lbs grid");
  EXPECT(tb_lbs(s, 10, 10, o, NULL, &too_big, NULL, 0), L,
         "launch box 512x15", "does not fit in shared memory for lbs");
  EXPECT(tb_interval_expand(TB_INT32, s, 10, 10, NULL, o, NULL, NULL, 0), E,
         "d_values is NULL", "n_items = 10");
  EXPECT(tb_interval_expand(TB_INT32, s, 10, 10, s, NULL, NULL, NULL, 0), E,
         "d_out is NULL", "n_items = 10");
  EXPECT(tb_interval_expand((tb_type)9, s, 10, 10, s, o, NULL, NULL, 0), E, "unknown type 9");
  EXPECT(tb_interval_expand(TB_DOUBLE, s, 10, 10, s, odd, NULL, NULL, 0), E,
         "d_out is not aligned", "8-byte elements");
  EXPECT(tb_interval_expand(TB_INT32, s, 10, big, s, o, NULL, NULL, 0), E,
         "n_items = 2147483648", "outside [0, INT32_MAX]");
  EXPECT(tb_interval_expand(TB_INT32, s, 10, 10, s, o, &lbs_only, NULL, 0), E,
         "launch box 512x7", "does not fit in shared memory for interval over int32");
  EXPECT(tb_interval_move(TB_INT32, NULL, s, s, 10, 10, s, 10, o, 10, NULL, NULL, 0), M,
         "d_gather is NULL", "n_items = 10");
  EXPECT(tb_interval_move(TB_INT32, s, NULL, s, 10, 10, s, 10, o, 10, NULL, NULL, 0), M,
         "d_scatter is NULL", "n_items = 10");
  EXPECT(tb_interval_move(TB_INT32, s, s, s, 10, 10, s, -1, o, 10, NULL, NULL, 0), M,
         "n_in = -1", "is negative");
  EXPECT(tb_interval_move(TB_INT32, s, s, s, 10, 10, s, 10, o, -1, NULL, NULL, 0), M,
         "n_out = -1", "is negative");
  EXPECT(tb_interval_move(TB_INT64, s, s, s, 10, 10, odd, 10, o, 10, NULL, NULL, 0), M,
         "d_in is not aligned", "8-byte elements");
  EXPECT(tb_interval_gather(TB_FLOAT, NULL, s, 10, 10, s, 10, o, NULL, NULL, 0), G,
         "d_gather is NULL", "n_items = 10");
  EXPECT(tb_interval_gather(TB_FLOAT, s, s, 10, -10, s, 10, o, NULL, NULL, 0), G,
         "n_items = -10", "outside [0, INT32_MAX]");
  EXPECT(tb_interval_scatter(TB_FLOAT, NULL, s, 10, 10, s, o, 10, NULL, NULL, 0), S,
         "d_scatter is NULL", "n_items = 10");
  EXPECT(tb_interval_scatter(TB_FLOAT, s, s, 10, 10, NULL, o, 10, NULL, NULL, 0), S,
         "d_in is NULL", "n_items = 10");
  EXPECT(tb_interval_validate(NULL, 10, 10, NULL, 0), V, "d_scan is NULL", "10 objects");
  EXPECT(tb_interval_validate(s, 10, big, NULL, 0), V,
         "n_items = 2147483648", "outside [0, INT32_MAX]");
  EXPECT(tb_interval_validate(s, 0, 3, NULL, 0), V, "3 items but no objects to own them");
#undef EXPECT
  CU_ASSERT_EQUAL(tb_test_free_device_bytes(), free_before);
  tb_buffer_free(&a), tb_buffer_free(&b);
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
  if (!upload(&d, scan, sizeof(int32_t) * n)) return;
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

static void test_validate(void) {
  enum { N = 300000 };
  int32_t *scan = malloc(sizeof(int32_t) * N);
  if (!scan) return;
  for (int32_t i = 0; i < N; ++i) scan[i] = 3 * i;
  tb_buffer d = {0}, scratch = {0};
  if (upload(&d, scan, sizeof(int32_t) * N)) {
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

/* Runs every call on a malformed scan: each must succeed and write nothing
 * outside its output. Inputs are allocated to their exact size, so that
 * memcheck (--sanitizer) sees any read past them; outputs have guard zones on
 * both sides, checked here, for stray writes. */
static void run_malformed(const int32_t *scan, int32_t n_objects, int32_t n_items,
                          const char *what) {
  enum { kGuard = 4096 };
  tb_rng r;
  tb_rng_seed(&r, 99);
  int32_t *offsets = malloc(sizeof(int32_t) * n_objects);
  const size_t out_bytes = sizeof(int64_t) * (n_items + 2 * kGuard);
  int64_t *host = malloc(out_bytes), *got = malloc(out_bytes);
  tb_buffer d_scan = {0}, d_off = {0}, d_vals = {0}, d_in = {0}, d_out = {0}, d_rank = {0};
  if (offsets && host && got) {
    for (int32_t j = 0; j < n_objects; ++j) offsets[j] = (int32_t)tb_rng_range(&r, 0, n_items);
    memset(host, 0x3c, out_bytes);
  }
  if (offsets && host && got && upload(&d_scan, scan, sizeof(int32_t) * n_objects) &&
      upload(&d_off, offsets, sizeof(int32_t) * n_objects) &&
      upload(&d_vals, host, sizeof(int64_t) * n_objects) &&
      upload(&d_in, host, sizeof(int64_t) * n_items) && upload(&d_out, host, out_bytes) &&
      upload(&d_rank, host, out_bytes)) {
    const int64_t *vals = d_vals.ptr, *in = d_in.ptr;
    int64_t *out = (int64_t *)d_out.ptr + kGuard;
    int32_t *obj32 = (int32_t *)out, *rank32 = (int32_t *)((int64_t *)d_rank.ptr + kGuard);
    const int32_t *off = d_off.ptr, *s = d_scan.ptr;
    char w[5][160];
    for (int i = 0; i < 5; ++i) snprintf(w[i], sizeof w[i], "%s: call %d", what, i);
    TB_ASSERT_OK(tb_lbs(s, n_objects, n_items, obj32, rank32, NULL, NULL, 0), w[0]);
    TB_ASSERT_OK(tb_interval_expand(TB_INT64, s, n_objects, n_items, vals, out, NULL, NULL, 0),
                 w[1]);
    TB_ASSERT_OK(tb_interval_move(TB_INT64, off, off, s, n_objects, n_items, in, n_items, out,
                                  n_items, NULL, NULL, 0),
                 w[2]);
    TB_ASSERT_OK(tb_interval_gather(TB_INT64, off, s, n_objects, n_items, in, n_items, out, NULL,
                                    NULL, 0),
                 w[3]);
    TB_ASSERT_OK(tb_interval_scatter(TB_INT64, off, s, n_objects, n_items, in, out, n_items, NULL,
                                     NULL, 0),
                 w[4]);
    int32_t first = -1;
    const char *rule = first_broken(scan, n_objects, n_items, &first);
    char needle[32];
    snprintf(needle, sizeof needle, "scan[%d] = ", first);
    tb_clear_error();
    const tb_status st = tb_interval_validate(s, n_objects, n_items, NULL, 0);
    if (!TB_ASSERT_REJECTS(st, "tb_interval_validate", needle, rule, NULL))
      printf("  (%s)\n", what);
    for (int k = 0; k < 2; ++k) {
      if (!TB_ASSERT_OK(tb_buffer_download(k ? &d_rank : &d_out, got, out_bytes), "download"))
        break;
      const bool intact = memcmp(got, host, sizeof(int64_t) * kGuard) == 0 &&
                          memcmp(got + kGuard + n_items, host, sizeof(int64_t) * kGuard) == 0;
      if (!intact) printf("\n  %s: a guard zone was written\n", what);
      CU_ASSERT(intact);
    }
  }
  tb_buffer_free(&d_scan), tb_buffer_free(&d_off), tb_buffer_free(&d_vals);
  tb_buffer_free(&d_in), tb_buffer_free(&d_out), tb_buffer_free(&d_rank);
  free(offsets), free(host), free(got);
}

static void test_malformed_scans_memory_safe(void) {
  const int32_t B = tb_test.quick ? 20000 : 200000, N = B * 3;
  int32_t *scan = malloc(sizeof(int32_t) * B);
  if (!scan) return;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 3);
  for (int32_t j = 0; j < B; ++j) scan[j] = (int32_t)tb_rng_range(&r, -N, 2 * (int64_t)N);
  run_malformed(scan, B, N, "random entries");
  for (int32_t j = 0; j < B; ++j) scan[j] = N - 3 * j;
  run_malformed(scan, B, N, "descending");
  for (int32_t j = 0; j < B; ++j) scan[j] = 1000 + 2 * j;
  run_malformed(scan, B, N, "starting past 0");
  for (int32_t j = 0; j < B; ++j) scan[j] = j % 2 ? INT32_MAX : INT32_MIN;
  run_malformed(scan, B, N, "extremes");
  for (int32_t j = 0; j < B; ++j) scan[j] = 3 * j;
  scan[B / 2] = 5 * N; /* sorted but for one spike past the total */
  run_malformed(scan, B, N, "one spike");
  for (int32_t j = 0; j < B; ++j) scan[j] = 4 * j; /* last entry past n_items */
  run_malformed(scan, B, N, "wrong total");
  free(scan);
}

int main(int argc, char **argv) {
  const CU_TestInfo tests[] = {
      {"golden demos", test_golden_demos},
      {"every type x box x geometry", test_every_type_box_geometry},
      {"default box, large", test_default_box_large},
      {"empty and all-zero counts", test_empty_and_all_zero},
      {"bad input", test_bad_input},
      {"validation entry point", test_validate},
      {"malformed scans stay memory safe", test_malformed_scans_memory_safe},
      CU_TEST_INFO_NULL,
  };
  return tb_test_main(argc, argv, "interval_test", tests);
}
