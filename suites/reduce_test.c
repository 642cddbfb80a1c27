/* reduce: the GPU kernels against the CPU reference, for every type x
 * operator x launch box, on the sizes where tiling goes wrong (0, 1, a tile
 * and its neighbours, leftovers after many tiles, random sizes) and from
 * misaligned starts (the kernel peels an unaligned head before its vector
 * loads).
 *
 * Floating-point comparisons: tb_fill_random draws data on which every
 * partial result is exact in any order (core/rng.h), so the GPU must match
 * the higher-precision reference exactly; one test on real-valued data uses
 * the derived rounding bound instead. */
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

/* Random data for one (type, op) on the host and the device. */
typedef struct {
  tb_type t;
  tb_op op;
  int64_t cap;
  void *host;
  tb_buffer dev;
} input;

static bool input_make(input *in, tb_type t, tb_op op, int64_t cap, uint64_t salt) {
  memset(in, 0, sizeof *in);
  in->t = t, in->op = op, in->cap = cap;
  in->host = malloc((size_t)cap * tb_type_size(t));
  if (!in->host) return false;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ salt);
  tb_fill_random(&r, t, op, in->host, cap);
  const size_t bytes = (size_t)cap * tb_type_size(t);
  return TB_ASSERT_OK(tb_buffer_alloc(&in->dev, bytes), "input alloc") &&
         TB_ASSERT_OK(tb_buffer_upload(&in->dev, in->host, bytes), "input upload");
}

static void input_free(input *in) {
  free(in->host);
  tb_buffer_free(&in->dev);
}

static const void *at(const void *base, tb_type t, int64_t i) {
  return (const char *)base + i * (int64_t)tb_type_size(t);
}

/* The CPU's answer for in[offset, offset + n): exact for integers, in
 * higher precision for floats. */
static tb_value reference(const input *in, int64_t offset, int64_t n, double *sum_abs) {
  tb_value want;
  memset(&want, 0, sizeof want);
  if (tb_type_is_float(in->t))
    tb_cpu_reduce_f64(in->t, in->op, at(in->host, in->t, offset), n, &want.f64, sum_abs);
  else
    tb_cpu_reduce(in->t, in->op, at(in->host, in->t, offset), n, &want);
  return want;
}

/* One GPU reduction of in[offset, offset + n) against the CPU. */
static bool check(const input *in, const tb_launch_box *box, int64_t offset, int64_t n,
                  double bound, tb_buffer *scratch) {
  char what[256];
  snprintf(what, sizeof what, "reduce %s %s n=%lld offset=%lld box=%dx%d", tb_type_name(in->t),
           tb_op_name(in->op), (long long)n, (long long)offset, box ? box->nt : 0,
           box ? box->vt : 0);
  tb_value got;
  memset(&got, 0xab, sizeof got);
  if (!TB_ASSERT_OK(tb_reduce(in->t, in->op, at(in->dev.ptr, in->t, offset), n, NULL, &got, box,
                              scratch, 0),
                    what))
    return false;
  return TB_ASSERT_OK(tb_compare_value(in->t, got, reference(in, offset, n, NULL), bound, what),
                      what);
}

TB_TEST(test_every_type_op_box, "every type x op x box") {
  tb_buffer scratch = {0};
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed);
  int failures = 0;
  TB_FOR_EACH_TYPE_OP(t, op) {
    /* Every box for plus; the tuned ones for the other operators. */
    tb_launch_box boxes[64];
    const int nboxes = tb_reduce_grid((tb_type)t, (tb_op)op, boxes, 64);
    CU_ASSERT_FATAL(nboxes > 0 && nboxes <= 64);
    input in;
    if (!input_make(&in, (tb_type)t, (tb_op)op, tb_test.max_random_n + 4, t * 16 + op)) {
      input_free(&in);
      continue;
    }
    for (int b = 0; b < nboxes && failures < 10; ++b) {
      const int64_t tile = (int64_t)boxes[b].nt * boxes[b].vt;
      const int64_t sizes[] = {0,
                               1,
                               tile - 1,
                               tile,
                               tile + 1,
                               3 * tile + 5,
                               tb_test_random_size(&r, 4096),
                               tb_test_random_size(&r, tb_test.max_random_n)};
      for (int s = 0; s < 8; ++s)
        if (!check(&in, &boxes[b], s % 4, sizes[s], 0.0, &scratch)) ++failures;
    }
    input_free(&in);
  }
  tb_buffer_free(&scratch);
}

/* The tuned default box (NULL and {0, 0}), the device-total path and a NULL
 * scratch, at the largest test size. */
TB_TEST(test_default_box_and_outputs, "default box, device and host totals") {
  const int64_t n = tb_test.max_random_n;
  TB_FOR_EACH_TYPE_OP(t, op) {
    input in;
    if (input_make(&in, (tb_type)t, (tb_op)op, n + 1, 99 + t * 16 + op)) {
      const tb_launch_box zero = {0, 0};
      check(&in, NULL, 0, n, 0.0, NULL);
      check(&in, &zero, 1, n, 0.0, NULL);

      tb_buffer d_total = {0};
      tb_value got, host_too;
      memset(&got, 0, sizeof got);
      TB_ASSERT_OK(tb_buffer_alloc(&d_total, sizeof(tb_value)), "alloc total");
      TB_ASSERT_OK(tb_reduce(in.t, in.op, in.dev.ptr, n, d_total.ptr, &host_too, NULL, NULL, 0),
                   "reduce to device and host");
      TB_ASSERT_OK(tb_buffer_download(&d_total, &got, tb_type_size(in.t)), "download total");
      const tb_value want = reference(&in, 0, n, NULL);
      TB_ASSERT_OK(tb_compare_value(in.t, got, want, 0.0, "device total"), "device total");
      TB_ASSERT_OK(tb_compare_value(in.t, host_too, want, 0.0, "host total"), "host total");
      tb_buffer_free(&d_total);
    }
    input_free(&in);
  }
}

/* Real-valued data, where the order of the GPU's additions shows. The bound
 * follows reduce_kernel: each thread folds at most n/NT + VT + 2 items
 * serially, the CTA tree adds log2(NT) <= 9 levels, and the pass over the
 * partials (at most 132 SMs x 32 CTAs of them) repeats both: depth <=
 * n/NT + 2 VT + 100. */
TB_TEST(test_float_rounding_bound, "float rounding bound on real data") {
  const int64_t n = tb_test.quick ? 50000 : 3000000;
  const tb_launch_box boxes[] = {{64, 1}, {128, 7}, {256, 16}, {512, 15}};
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t) {
    const size_t sz = tb_type_size((tb_type)t);
    void *host = malloc(n * sz);
    tb_buffer dev = {0};
    tb_rng r;
    tb_rng_seed(&r, tb_test.seed + 7);
    for (int64_t i = 0; i < n; ++i) {
      tb_value v;
      if (t == TB_FLOAT) v.f32 = (float)(2 * tb_rng_unit(&r) - 1);
      else v.f64 = 2 * tb_rng_unit(&r) - 1;
      tb_store((tb_type)t, host, i, v);
    }
    TB_ASSERT_OK(tb_buffer_alloc(&dev, n * sz), "alloc");
    TB_ASSERT_OK(tb_buffer_upload(&dev, host, n * sz), "upload");
    double want, sum_abs;
    tb_cpu_reduce_f64((tb_type)t, TB_OP_PLUS, host, n, &want, &sum_abs);
    for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; ++b) {
      tb_value got;
      char what[128];
      snprintf(what, sizeof what, "reduce %s plus, real data, n=%lld box=%dx%d",
               tb_type_name((tb_type)t), (long long)n, boxes[b].nt, boxes[b].vt);
      TB_ASSERT_OK(tb_reduce((tb_type)t, TB_OP_PLUS, dev.ptr, n, NULL, &got, &boxes[b], NULL, 0),
                   what);
      const int64_t depth = n / boxes[b].nt + 2 * boxes[b].vt + 100;
      const double bound = tb_sum_error_bound((tb_type)t, depth, sum_abs);
      TB_ASSERT_OK(tb_compare_value((tb_type)t, got, (tb_value){.f64 = want}, bound, what), what);
    }
    tb_buffer_free(&dev);
    free(host);
  }
}

/* NaN and infinities, placed at several positions of a multi-tile input.
 * Documented behaviour: plus and multiplies propagate NaN (inf - inf is NaN);
 * min and max ignore NaN (only NaNs give the identity, +inf / -inf). */
TB_TEST(test_special_values, "NaN and infinities") {
  const int64_t n = 20000;
  const int64_t positions[] = {0, 1, 4095, 4096, n / 2, n - 1};
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t)
    for (int op = 0; op < TB_OP_COUNT; ++op) {
      if (tb_check_type_op((tb_type)t, (tb_op)op) != TB_OK) continue;
      /* The smallest box the operator has: several tiles of n. */
      tb_launch_box box;
      CU_ASSERT_FATAL(tb_reduce_grid((tb_type)t, (tb_op)op, &box, 1) > 0);
      for (int kind = 0; kind < 3; ++kind)
        for (size_t p = 0; p < sizeof positions / sizeof positions[0]; ++p) {
          input in;
          if (input_make(&in, (tb_type)t, (tb_op)op, n, 555)) {
            const double specials[3][2] = {{NAN, 1.0}, {INFINITY, 1.0}, {INFINITY, -INFINITY}};
            for (int k = 0; k < 2; ++k) {
              const int64_t i = (positions[p] + k * 7919) % n;
              tb_value v;
              if (t == TB_FLOAT) v.f32 = (float)specials[kind][k];
              else v.f64 = specials[kind][k];
              if (specials[kind][k] != 1.0) tb_store(in.t, in.host, i, v);
            }
            TB_ASSERT_OK(tb_buffer_upload(&in.dev, in.host, n * tb_type_size(in.t)), "upload");
            check(&in, &box, 0, n, 0.0, NULL);
          }
          input_free(&in);
        }
    }
  /* min over nothing but NaN ignores them all: the identity, as for n = 0 */
  input in;
  if (input_make(&in, TB_FLOAT, TB_OP_MIN, 5000, 1)) {
    for (int64_t i = 0; i < 5000; ++i) ((float *)in.host)[i] = NAN;
    TB_ASSERT_OK(tb_buffer_upload(&in.dev, in.host, 5000 * sizeof(float)), "upload");
    tb_value got;
    TB_ASSERT_OK(tb_reduce(TB_FLOAT, TB_OP_MIN, in.dev.ptr, 5000, NULL, &got, NULL, NULL, 0),
                 "min of NaNs");
    CU_ASSERT(isinf(got.f32) && got.f32 > 0);
  }
  input_free(&in);
}

/* Integer overflow wraps (two's complement), as on the CPU. */
TB_TEST(test_integer_wraparound, "integer wrap-around") {
  const int64_t n = 100003;
  for (int t = TB_INT32; t <= TB_INT64; ++t)
    for (int op = TB_OP_PLUS; op <= TB_OP_MULTIPLIES; op += TB_OP_MULTIPLIES - TB_OP_PLUS) {
      input in;
      if (input_make(&in, (tb_type)t, (tb_op)op, n, 3)) {
        for (int64_t i = 0; i < n; ++i) {
          tb_value v;
          if (t == TB_INT32) v.i32 = op == TB_OP_PLUS ? INT32_MAX - (int32_t)(i % 5) : 3;
          else v.i64 = op == TB_OP_PLUS ? INT64_MAX - i % 5 : 3;
          tb_store(in.t, in.host, i, v);
        }
        TB_ASSERT_OK(tb_buffer_upload(&in.dev, in.host, n * tb_type_size(in.t)), "upload");
        check(&in, NULL, 0, n, 0.0, NULL);
      }
      input_free(&in);
    }
}

/* Bad input: a clear status and message, nothing written, nothing leaked. */
TB_TEST(test_bad_input, "bad input") {
  tb_buffer in = {0}, total = {0};
  TB_ASSERT_OK(tb_buffer_alloc(&in, 1024 * sizeof(double)), "alloc");
  TB_ASSERT_OK(tb_buffer_alloc(&total, sizeof(double)), "alloc");
  const size_t free_before = tb_test_free_device_bytes();
  double h;
  const tb_launch_box off_grid = {100, 3}, half = {128, 0};
  TB_EXPECT_REJECTS(tb_reduce(TB_INT32, TB_OP_PLUS, NULL, 10, total.ptr, NULL, NULL, NULL, 0),
                    "tb_reduce", "d_in is NULL", "n = 10");
  TB_EXPECT_REJECTS(tb_reduce(TB_INT32, TB_OP_PLUS, in.ptr, -1, total.ptr, NULL, NULL, NULL, 0),
                    "tb_reduce", "n = -1", "negative");
  TB_EXPECT_REJECTS(tb_reduce(TB_INT32, TB_OP_PLUS, in.ptr, 10, NULL, NULL, NULL, NULL, 0),
                    "tb_reduce", "neither d_total nor h_total is given");
  TB_EXPECT_REJECTS(tb_reduce(TB_FLOAT, TB_OP_BIT_AND, in.ptr, 10, NULL, &h, NULL, NULL, 0),
                    "tb_reduce", "operator bit_and", "does not apply to float");
  TB_EXPECT_REJECTS(tb_reduce(TB_DOUBLE, TB_OP_BIT_XOR, in.ptr, 10, NULL, &h, NULL, NULL, 0),
                    "tb_reduce", "operator bit_xor", "does not apply to double");
  TB_EXPECT_REJECTS(tb_reduce((tb_type)9, TB_OP_PLUS, in.ptr, 10, NULL, &h, NULL, NULL, 0),
                    "tb_reduce", "invalid element type 9");
  TB_EXPECT_REJECTS(tb_reduce(TB_INT32, (tb_op)42, in.ptr, 10, NULL, &h, NULL, NULL, 0),
                    "tb_reduce", "invalid operator 42");
  TB_EXPECT_REJECTS(tb_reduce(TB_INT32, TB_OP_PLUS, in.ptr, 10, NULL, &h, &off_grid, NULL, 0),
                    "tb_reduce", "launch box 100x3", "not in the reduce grid");
  TB_EXPECT_REJECTS(tb_reduce(TB_INT32, TB_OP_PLUS, in.ptr, 10, NULL, &h, &half, NULL, 0),
                    "tb_reduce", "launch box 128x0", "not in the reduce grid");
  TB_EXPECT_REJECTS(
      tb_reduce(TB_INT64, TB_OP_PLUS, (char *)in.ptr + 4, 10, NULL, &h, NULL, NULL, 0), "tb_reduce",
      "d_in is not aligned", "8-byte elements");
  CU_ASSERT_EQUAL(tb_test_free_device_bytes(), free_before);
  tb_buffer_free(&in);
  tb_buffer_free(&total);
}

/* A CUDA failure comes back as TB_ERR_CUDA with CUDA's own words. Run last:
 * it leaves a (non-sticky) error behind in the runtime. */
TB_TEST(test_cuda_error, "CUDA error") {
  if (tb_test.sanitizer) {
    printf("skipped under compute-sanitizer, which counts the deliberate failure ");
    return;
  }
  const size_t free_before = tb_test_free_device_bytes();
  void *not_device = (void *)(uintptr_t)0x10;
  tb_status st = tb_reduce(TB_INT32, TB_OP_PLUS, not_device, 0, not_device, NULL, NULL, NULL, 0);
  TB_ASSERT_STATUS(st, TB_ERR_CUDA, "total written to an address that is no device memory");
  CU_ASSERT(strstr(tb_last_error(), "cuda") != NULL || strstr(tb_last_error(), "CUDA") != NULL);
  CU_ASSERT_EQUAL(tb_test_free_device_bytes(), free_before);
}

int main(int argc, char **argv) { return tb_test_main(argc, argv, "reduce_test"); }
