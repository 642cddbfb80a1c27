/* scan: both GPU algorithms (decoupled look-back and reduce-then-scan),
 * exclusive and inclusive, against the CPU reference for every type x
 * operator x launch box, on the sizes where tiling goes wrong, in place and
 * out of place. Outputs are poisoned before each run so that an element the
 * kernel fails to write cannot pass.
 *
 * Floating-point comparisons are exact on tb_fill_random's data (every
 * partial result is exact in any order, core/rng.h); one test on
 * real-valued data uses the derived rounding bound instead. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "core/validate.h"
#include "cpuref/reduce_scan.h"
#include "kernels/tilebench.h"
#include "suites/testing.h"

static const tb_scan_algo kAlgos[] = {TB_SCAN_LOOKBACK, TB_SCAN_REDUCE_THEN_SCAN};
static const char *algo_name(tb_scan_algo a) {
  return a == TB_SCAN_LOOKBACK ? "lookback" : a == TB_SCAN_REDUCE_THEN_SCAN ? "rts" : "default";
}

/* Host input, its device copy, a device output and the host buffers the
 * comparisons need, for one (type, op) and sizes up to cap. */
typedef struct {
  tb_type t;
  tb_op op;
  int64_t cap;
  void *host, *got;
  double *want, *want_abs; /* float references */
  void *want_int;          /* integer reference */
  tb_buffer in, out;
} fixture;

static bool fixture_make(fixture *f, tb_type t, tb_op op, int64_t cap, uint64_t salt) {
  memset(f, 0, sizeof *f);
  f->t = t, f->op = op, f->cap = cap;
  const size_t bytes = (size_t)cap * tb_type_size(t);
  f->host = malloc(bytes);
  f->got = malloc(bytes);
  f->want = malloc(cap * sizeof(double));
  f->want_abs = malloc(cap * sizeof(double));
  f->want_int = malloc(bytes);
  if (!f->host || !f->got || !f->want || !f->want_abs || !f->want_int) return false;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ salt);
  tb_fill_random(&r, t, op, f->host, cap);
  return TB_ASSERT_OK(tb_buffer_alloc(&f->in, bytes), "alloc in") &&
         TB_ASSERT_OK(tb_buffer_alloc(&f->out, bytes), "alloc out") &&
         TB_ASSERT_OK(tb_buffer_upload(&f->in, f->host, bytes), "upload");
}

static void fixture_free(fixture *f) {
  free(f->host), free(f->got), free(f->want), free(f->want_abs), free(f->want_int);
  tb_buffer_free(&f->in);
  tb_buffer_free(&f->out);
}

static void *at(void *base, tb_type t, int64_t i) {
  return (char *)base + i * (int64_t)tb_type_size(t);
}

/* One GPU scan of in[offset, offset + n) into out[offset, ...) (or in place)
 * against the CPU; bound_depth > 0 compares floats within the rounding bound
 * of that depth, 0 exactly. */
static bool check(fixture *f, tb_scan_algo algo, tb_scan_kind kind, const tb_launch_box *box,
                  int64_t offset, int64_t n, bool in_place, int64_t bound_depth,
                  tb_buffer *scratch) {
  const tb_type t = f->t;
  const bool inclusive = kind == TB_SCAN_INCLUSIVE;
  const size_t sz = tb_type_size(t);
  char what[256];
  snprintf(what, sizeof what, "scan %s %s %s %s n=%lld offset=%lld box=%dx%d%s", algo_name(algo),
           inclusive ? "inclusive" : "exclusive", tb_type_name(t), tb_op_name(f->op),
           (long long)n, (long long)offset, box ? box->nt : 0, box ? box->vt : 0,
           in_place ? " in place" : "");
  void *src = at(f->in.ptr, t, offset);
  void *dst = at(f->out.ptr, t, offset);
  if (in_place) {
    cudaMemcpy(dst, src, n * sz, cudaMemcpyDeviceToDevice);
    src = dst;
  } else {
    cudaMemset(f->out.ptr, 0xff, f->cap * sz); /* poison */
  }
  tb_value total;
  memset(&total, 0xab, sizeof total);
  if (!TB_ASSERT_OK(tb_scan(t, f->op, kind, algo, src, dst, n, NULL, &total, box, scratch, 0),
                    what))
    return false;
  if (n > 0 && !TB_ASSERT_OK(cudaMemcpy(f->got, dst, n * sz, cudaMemcpyDeviceToHost) == cudaSuccess
                                 ? TB_OK
                                 : tb_fail(TB_ERR_CUDA, "download"),
                             what))
    return false;

  const void *host = at(f->host, t, offset);
  tb_status st;
  tb_value want_total;
  if (tb_type_is_float(t)) {
    double total_abs = 0;
    tb_cpu_scan_f64(t, f->op, inclusive, host, f->want, n, &want_total.f64, f->want_abs,
                    &total_abs);
    double *bound = NULL;
    if (bound_depth > 0) {
      for (int64_t i = 0; i < n; ++i)
        f->want_abs[i] = tb_sum_error_bound(t, bound_depth, f->want_abs[i]);
      bound = f->want_abs;
    }
    st = tb_compare(t, f->got, f->want, bound, n, what);
    if (st == TB_OK)
      st = tb_compare_value(t, total, want_total,
                            bound_depth > 0 ? tb_sum_error_bound(t, bound_depth, total_abs) : 0,
                            what);
  } else {
    tb_cpu_scan(t, f->op, inclusive, host, f->want_int, n, &want_total);
    st = tb_compare(t, f->got, f->want_int, NULL, n, what);
    if (st == TB_OK) st = tb_compare_value(t, total, want_total, 0, what);
  }
  return TB_ASSERT_OK(st, what);
}

TB_TEST(test_every_type_op_box, "every type x op x box x algorithm") {
  tb_buffer scratch = {0};
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed);
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    for (int op = 0; op < TB_OP_COUNT; ++op) {
      if (tb_check_type_op((tb_type)t, (tb_op)op) != TB_OK) continue;
      /* Every box for plus; the tuned ones for the other operators. */
      tb_launch_box boxes[64];
      const int nboxes = tb_scan_grid((tb_type)t, (tb_op)op, boxes, 64);
      CU_ASSERT(nboxes > 0 && nboxes <= 64);
      /* Under a sanitizer every box still runs, with two operators (the
       * kernels' code is the same for each) and fewer sizes. */
      if (tb_test.sanitizer && op != TB_OP_PLUS && op != TB_OP_MAX) continue;
      fixture f;
      if (fixture_make(&f, (tb_type)t, (tb_op)op, tb_test.max_random_n + 4, t * 16 + op)) {
        for (int b = 0; b < nboxes && failures < 10; ++b) {
          const int64_t tile = (int64_t)boxes[b].nt * boxes[b].vt;
          const int64_t sizes[] = {0, 1, tile - 1, tile, tile + 1, 3 * tile + 5,
                                   tb_test_random_size(&r, 4096), tb_test_random_size(&r, tb_test.max_random_n)};
          for (int a = 0; a < 2; ++a)
            for (int s = 0; s < 8; ++s) {
              if (tb_test.sanitizer && s != 1 && s != 4 && s != 5) continue; /* 1, tile + 1, 3 tiles + 5 in place */
              const tb_scan_kind kind = (s + a) % 2 ? TB_SCAN_INCLUSIVE : TB_SCAN_EXCLUSIVE;
              if (!check(&f, kAlgos[a], kind, &boxes[b], s % 4, sizes[s], s == 5, 0, &scratch))
                ++failures;
            }
        }
      }
      fixture_free(&f);
    }
  }
  tb_buffer_free(&scratch);
}

/* The look-back under many grids: 10^4 random sizes per type (500 with
 * --quick, 40 under a sanitizer), log-uniform up to 2^23 so that the
 * smallest box makes thousands of tiles, on the default box and the smallest.
 * Each call scans a prefix of one input, so one CPU scan checks them all. */
TB_TEST(test_lookback_random_sizes, "look-back over random sizes and thousands of tiles") {
  const int64_t cap = tb_test.sanitizer ? 1 << 16 : 1 << 23;
  const int rounds = tb_test.sanitizer ? 40 : tb_test.max_random_n < (1 << 24) ? 500 : 10000;
  tb_buffer scratch = {0};
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ 0x5ca9);
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    fixture f;
    tb_launch_box smallest;
    CU_ASSERT_FATAL(tb_scan_grid((tb_type)t, TB_OP_PLUS, &smallest, 1) > 0);
    if (!fixture_make(&f, (tb_type)t, TB_OP_PLUS, cap + 1, 0x5ca9 + t)) {
      fixture_free(&f);
      continue;
    }
    tb_value unused;
    if (tb_type_is_float(f.t))
      tb_cpu_scan_f64(f.t, f.op, false, f.host, f.want, cap + 1, &unused.f64, f.want_abs,
                      &unused.f64);
    else
      tb_cpu_scan(f.t, f.op, false, f.host, f.want_int, cap + 1, &unused);
    const size_t sz = tb_type_size(f.t);
    int failures = 0;
    for (int i = 0; i < rounds && failures < 5; ++i) {
      const int64_t n = tb_test_random_size(&r, cap);
      const tb_launch_box *box = i % 2 ? &smallest : NULL;
      char what[160];
      snprintf(what, sizeof what, "look-back %s n=%lld box=%s (round %d)", tb_type_name(f.t),
               (long long)n, box ? "smallest" : "default", i);
      tb_value total;
      tb_status st = tb_scan(f.t, f.op, TB_SCAN_EXCLUSIVE, TB_SCAN_LOOKBACK, f.in.ptr, f.out.ptr,
                             n, NULL, &total, box, &scratch, 0);
      if (st == TB_OK && cudaMemcpy(f.got, f.out.ptr, n * sz, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = tb_fail(TB_ERR_CUDA, "download");
      /* want[n] is the exclusive scan's next value: the total of the n items. */
      if (tb_type_is_float(f.t)) {
        if (st == TB_OK) st = tb_compare(f.t, f.got, f.want, NULL, n, what);
        if (st == TB_OK)
          st = tb_compare_value(f.t, total, (tb_value){.f64 = f.want[n]}, 0, what);
      } else {
        if (st == TB_OK) st = tb_compare(f.t, f.got, f.want_int, NULL, n, what);
        tb_value want_total;
        memcpy(&want_total, at(f.want_int, f.t, n), sz);
        if (st == TB_OK) st = tb_compare_value(f.t, total, want_total, 0, what);
      }
      if (!TB_ASSERT_OK(st, what)) ++failures;
    }
    fixture_free(&f);
  }
  tb_buffer_free(&scratch);
}

/* Defaults (algorithm and box), both kinds, in place and not, the
 * device-total path and a NULL scratch, at the largest test size. */
TB_TEST(test_defaults_and_outputs, "defaults, in place, device and host totals") {
  const int64_t n = tb_test.max_random_n;
  TB_FOR_EACH_TYPE_OP(t, op) {
    fixture f;
    if (fixture_make(&f, (tb_type)t, (tb_op)op, n + 1, 77 + t * 16 + op)) {
      for (int k = 0; k < 2; ++k) {
        check(&f, TB_SCAN_DEFAULT, (tb_scan_kind)k, NULL, 0, n, false, 0, NULL);
        check(&f, TB_SCAN_DEFAULT, (tb_scan_kind)k, NULL, 1, n, true, 0, NULL);
        for (int a = 0; a < 2; ++a)
          check(&f, kAlgos[a], (tb_scan_kind)k, NULL, 0, n, false, 0, NULL);
      }
      /* The total in device memory equals the host one. */
      tb_buffer d_total = {0};
      tb_value got, host_total;
      memset(&got, 0, sizeof got);
      TB_ASSERT_OK(tb_buffer_alloc(&d_total, sizeof(tb_value)), "alloc");
      TB_ASSERT_OK(tb_scan(f.t, f.op, TB_SCAN_EXCLUSIVE, TB_SCAN_DEFAULT, f.in.ptr, f.out.ptr, n,
                           d_total.ptr, &host_total, NULL, NULL, 0),
                   "scan with device total");
      TB_ASSERT_OK(tb_buffer_download(&d_total, &got, tb_type_size(f.t)), "download");
      CU_ASSERT(memcmp(&got, &host_total, tb_type_size(f.t)) == 0);
      tb_buffer_free(&d_total);
    }
    fixture_free(&f);
  }
}

/* Real-valued data. Depth of the longest rounding chain of either algorithm:
 * a thread's VT items, log2(NT) <= 9 levels of the CTA scan, and across
 * tiles at most 8 roundings per preceding tile (a look-back window step or a
 * carry); reduce-then-scan's partials add a serial fold of at most n/NT:
 * depth <= n/NT + 8 * tiles + 2 VT + 100. */
TB_TEST(test_float_rounding_bound, "float rounding bound on real data") {
  const int64_t n = tb_test.quick ? 40000 : 1000000;
  const tb_launch_box boxes[] = {{64, 7}, {128, 7}, {256, 15}};
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t) {
    fixture f;
    if (fixture_make(&f, (tb_type)t, TB_OP_PLUS, n, 5)) {
      tb_rng r;
      tb_rng_seed(&r, tb_test.seed + 11);
      for (int64_t i = 0; i < n; ++i) {
        tb_value v;
        if (t == TB_FLOAT) v.f32 = (float)(2 * tb_rng_unit(&r) - 1);
        else v.f64 = 2 * tb_rng_unit(&r) - 1;
        tb_store((tb_type)t, f.host, i, v);
      }
      TB_ASSERT_OK(tb_buffer_upload(&f.in, f.host, n * tb_type_size((tb_type)t)), "upload");
      for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; ++b) {
        const int64_t tiles = (n + boxes[b].nt * boxes[b].vt - 1) / (boxes[b].nt * boxes[b].vt);
        const int64_t depth = n / boxes[b].nt + 8 * tiles + 2 * boxes[b].vt + 100;
        for (int a = 0; a < 2; ++a)
          check(&f, kAlgos[a], (tb_scan_kind)(b % 2), &boxes[b], 0, n, false, depth, NULL);
      }
    }
    fixture_free(&f);
  }
}

/* NaN and infinities: plus and multiplies propagate NaN from its position on
 * (the elements before it stay finite); min/max ignore NaN. */
TB_TEST(test_special_values, "NaN and infinities") {
  const int64_t n = 20000;
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t)
    for (int op = 0; op < TB_OP_COUNT; ++op) {
      if (tb_check_type_op((tb_type)t, (tb_op)op) != TB_OK) continue;
      /* The smallest box the operator has: several tiles of n. */
      tb_launch_box box;
      CU_ASSERT_FATAL(tb_scan_grid((tb_type)t, (tb_op)op, &box, 1) > 0);
      fixture f;
      if (fixture_make(&f, (tb_type)t, (tb_op)op, n, 9)) {
        const double specials[] = {NAN, INFINITY, -INFINITY};
        const int64_t where[] = {896, 9001, 19999};
        for (int k = 0; k < 3; ++k) {
          tb_value v;
          if (t == TB_FLOAT) v.f32 = (float)specials[k];
          else v.f64 = specials[k];
          tb_store(f.t, f.host, where[k], v);
        }
        TB_ASSERT_OK(tb_buffer_upload(&f.in, f.host, n * tb_type_size(f.t)), "upload");
        for (int a = 0; a < 2; ++a)
          for (int k = 0; k < 2; ++k) check(&f, kAlgos[a], (tb_scan_kind)k, &box, 0, n, false, 0, NULL);
      }
      fixture_free(&f);
    }
}

/* Scratch that other work left dirty: the look-back zeroes nothing, and a
 * status word counts only with the call's tag, so zeros, 0xff bytes, tagless
 * prefixes and random bytes must all read as not yet posted. Every type,
 * inclusive and exclusive, the default box and the smallest (2^20 + 3 items:
 * hundreds to thousands of tiles; 2^14 + 3 under a sanitizer). */
TB_TEST(test_lookback_dirty_scratch, "look-back over scratch left dirty") {
  const int64_t n = tb_test.sanitizer ? (1 << 14) + 3 : (1 << 20) + 3;
  tb_rng r = tb_test_rng(0xd1);
  tb_buffer scratch = {0};
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    fixture f;
    tb_launch_box smallest;
    CU_ASSERT_FATAL(tb_scan_grid((tb_type)t, TB_OP_PLUS, &smallest, 1) > 0);
    if (fixture_make(&f, (tb_type)t, TB_OP_PLUS, n, 0xd1 + t))
      for (int b = 0; b < 2; ++b)
        for (int p = 0; p < TB_TEST_DIRTY_PATTERNS; ++p) {
          const tb_scan_kind kind = p % 2 ? TB_SCAN_INCLUSIVE : TB_SCAN_EXCLUSIVE;
          const tb_launch_box *box = b ? &smallest : NULL;
          /* the first call sizes the scratch, the second finds it dirty */
          if (!check(&f, TB_SCAN_LOOKBACK, kind, box, 0, n, false, 0, &scratch) ||
              !tb_test_dirty_scratch(&scratch, p, &r) ||
              !check(&f, TB_SCAN_LOOKBACK, kind, box, 0, n, false, 0, &scratch))
            break;
        }
    fixture_free(&f);
  }
  tb_buffer_free(&scratch);
}

TB_TEST(test_bad_input, "bad input") {
  tb_buffer in = {0}, out = {0};
  TB_ASSERT_OK(tb_buffer_alloc(&in, 1024 * sizeof(double)), "alloc");
  TB_ASSERT_OK(tb_buffer_alloc(&out, 1024 * sizeof(double)), "alloc");
  const size_t free_before = tb_test_free_device_bytes();
  const tb_launch_box off_grid = {64, 1}, too_big = {256, 31};
  const tb_scan_kind X = TB_SCAN_EXCLUSIVE;
  const tb_scan_algo D = TB_SCAN_DEFAULT;
  TB_EXPECT_REJECTS(
      tb_scan(TB_INT32, TB_OP_PLUS, X, D, NULL, out.ptr, 10, NULL, NULL, NULL, NULL, 0), "tb_scan",
      "d_in is NULL", "n = 10");
  TB_EXPECT_REJECTS(
      tb_scan(TB_INT32, TB_OP_PLUS, X, D, in.ptr, NULL, 10, NULL, NULL, NULL, NULL, 0), "tb_scan",
      "d_out is NULL", "n = 10");
  TB_EXPECT_REJECTS(
      tb_scan(TB_INT32, TB_OP_PLUS, X, D, in.ptr, out.ptr, -5, NULL, NULL, NULL, NULL, 0),
      "tb_scan", "n = -5", "negative");
  TB_EXPECT_REJECTS(
      tb_scan(TB_FLOAT, TB_OP_BIT_OR, X, D, in.ptr, out.ptr, 10, NULL, NULL, NULL, NULL, 0),
      "tb_scan", "operator bit_or", "does not apply to float");
  TB_EXPECT_REJECTS(tb_scan(TB_INT32, TB_OP_PLUS, (tb_scan_kind)7, D, in.ptr, out.ptr, 10, NULL,
                            NULL, NULL, NULL, 0),
                    "tb_scan", "unknown scan kind 7");
  TB_EXPECT_REJECTS(tb_scan(TB_INT32, TB_OP_PLUS, X, (tb_scan_algo)7, in.ptr, out.ptr, 10, NULL,
                            NULL, NULL, NULL, 0),
                    "tb_scan", "unknown algorithm 7");
  TB_EXPECT_REJECTS(
      tb_scan(TB_INT32, TB_OP_PLUS, X, D, in.ptr, out.ptr, 10, NULL, NULL, &off_grid, NULL, 0),
      "tb_scan", "launch box 64x1", "not in the scan grid");
  /* a double tile over shared memory */
  TB_EXPECT_REJECTS(
      tb_scan(TB_DOUBLE, TB_OP_PLUS, X, D, in.ptr, out.ptr, 10, NULL, NULL, &too_big, NULL, 0),
      "tb_scan", "launch box 256x31", "does not fit in shared memory for scan over double");
  TB_EXPECT_REJECTS(tb_scan(TB_INT64, TB_OP_PLUS, X, D, in.ptr, (char *)out.ptr + 2, 10, NULL, NULL,
                            NULL, NULL, 0),
                    "tb_scan", "d_out is not aligned to its elements");
  CU_ASSERT_EQUAL(tb_test_free_device_bytes(), free_before);
  tb_buffer_free(&in);
  tb_buffer_free(&out);
}

int main(int argc, char **argv) { return tb_test_main(argc, argv, "scan_test"); }
