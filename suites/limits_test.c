/* The size limits kernels/tilebench.h states, tested at the limit and just
 * inside it, where 32-bit index arithmetic wraps:
 *   - reduce and scan past 2^31 items, int32 and int64, both scan algorithms;
 *   - the segmented family at count = INT32_MAX and INT32_MAX - 1 (every box,
 *     support_empty, indirect, preprocess + apply, SpMV unary and binary,
 *     reduce-by-key) and at num_segments = INT32_MAX; segments of one length
 *     over INT32_MAX and INT32_MAX - 1 items;
 *   - load-balancing search and intervals at n_items = INT32_MAX, with few
 *     objects and with num_objects = INT32_MAX;
 *   - one past each limit is rejected.
 *
 * The inputs repeat with a prime period P, value g(i mod P), so that the sum
 * of any range has a closed form (whole periods plus a prefix of one) and the
 * checks need no reference pass over 2^31 items; a wrapped index reads the
 * wrong part of the period and changes the sum. Arrays of 2^31 elements move
 * through one pinned chunk, generated and checked chunk by chunk.
 *
 * The suite needs about 40 GiB of device memory and runs only on GPUs that
 * have it (Bazel tag `large`: `./tilebench test` leaves it out on smaller
 * ones and says so). --sanitizer keeps the default boxes and int32 only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/cuda.h"
#include "kernels/tilebench.h"
#include "suites/testing.h"

enum { kPeriod = 1000003 };             /* prime: no power-of-two stride is a multiple */
static const int64_t kChunk = 1 << 26;  /* items per host round trip */
static const int64_t kMaxCount = INT32_MAX;
static const double kNeedGiB = 40.0;

/* ---- the periodic pattern --------------------------------------------------------- */

static int32_t g_value[kPeriod];      /* g(j), in [-64, 63] */
static int64_t g_prefix[kPeriod + 1]; /* sum of g(0 .. j-1) */

static void pattern_init(void) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  g_prefix[0] = 0;
  for (int j = 0; j < kPeriod; ++j) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    g_value[j] = (int32_t)(x % 128) - 64;
    g_prefix[j + 1] = g_prefix[j] + g_value[j];
  }
}

/* The exact sum of g(i mod P) over i in [0, i). */
static int64_t pattern_sum_to(int64_t i) {
  return (i / kPeriod) * g_prefix[kPeriod] + g_prefix[i % kPeriod];
}
static int64_t pattern_sum(int64_t begin, int64_t end) {
  return pattern_sum_to(end) - pattern_sum_to(begin);
}

/* A result of the element type: int32 sums wrap. */
static int64_t as_type(tb_type t, int64_t v) {
  return t == TB_INT32 ? (int64_t)(int32_t)(uint32_t)(uint64_t)v : v;
}

/* ---- generated arrays, chunk by chunk --------------------------------------------- */

/* Writes the values of items [base, base + n) of some array to out. */
typedef void (*gen_fn)(const void *ctx, int64_t base, int64_t n, int64_t *out);

static void gen_pattern(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx;
  int64_t j = base % kPeriod;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = g_value[j];
    if (++j == kPeriod) j = 0;
  }
}

static void gen_index_mod_period(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx;
  int64_t j = base % kPeriod;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = j;
    if (++j == kPeriod) j = 0;
  }
}

static void gen_iota(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx;
  for (int64_t k = 0; k < n; ++k) out[k] = base + k;
}

static void gen_zero(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx, (void)base;
  memset(out, 0, sizeof *out * (size_t)n);
}

static void gen_one(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx, (void)base;
  for (int64_t k = 0; k < n; ++k) out[k] = 1;
}

/* Scans of the pattern: S(i) (exclusive) or S(i + 1) (inclusive). */
static void gen_exclusive_sums(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx;
  int64_t s = pattern_sum_to(base), j = base % kPeriod;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = s;
    s += g_value[j];
    if (++j == kPeriod) j = 0;
  }
}
static void gen_inclusive_sums(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  gen_exclusive_sums(ctx, base + 1, n, out);
}

/* A segment geometry on the host: num starts (non-decreasing) over count. */
typedef struct geometry {
  int64_t count, num;
  int32_t *starts;
} geometry;

static int64_t seg_end(const geometry *g, int64_t s) {
  return s + 1 < g->num ? g->starts[s + 1] : g->count;
}

/* The segment (object) of each item: upper_bound(starts, i) - 1; and the
 * item's rank in it. */
static int64_t segment_of(const geometry *g, int64_t i) {
  int64_t lo = 0, hi = g->num;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (g->starts[mid] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
static void gen_segment_of(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  const geometry *g = ctx;
  int64_t s = segment_of(g, base);
  for (int64_t k = 0; k < n; ++k) {
    while (s + 1 < g->num && g->starts[s + 1] <= base + k) ++s;
    out[k] = s;
  }
}
static void gen_rank(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  const geometry *g = ctx;
  gen_segment_of(ctx, base, n, out);
  for (int64_t k = 0; k < n; ++k) out[k] = base + k - g->starts[out[k]];
}
/* Interval expand of values[j] = g(j mod P): g(segment_of(i) mod P). */
static void gen_expanded(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  gen_segment_of(ctx, base, n, out);
  for (int64_t k = 0; k < n; ++k) out[k] = g_value[out[k] % kPeriod];
}

/* The staging area: a pinned chunk and the generated values. */
static void *g_pinned;
static int64_t *g_expected;

static bool stage_ready(void) {
  if (g_pinned) return true;
  if (cudaMallocHost(&g_pinned, (size_t)kChunk * 8) != cudaSuccess) {
    g_pinned = NULL;
    CU_FAIL("no pinned staging buffer");
    return false;
  }
  g_expected = malloc(sizeof(int64_t) * (size_t)kChunk);
  CU_ASSERT_PTR_NOT_NULL(g_expected);
  return g_expected != NULL;
}

/* gen over [base, base + m) into g_expected, in slices across the host's
 * cores: 2^31 items are generated and compared several times per run. */
static void generate(gen_fn gen, const void *ctx, int64_t base, int64_t m) {
  enum { kSlices = 64 };
#pragma omp parallel for schedule(static)
  for (int i = 0; i < kSlices; ++i) {
    const int64_t lo = m * i / kSlices, hi = m * (i + 1) / kSlices;
    if (hi > lo) gen(ctx, base + lo, hi - lo, g_expected + lo);
  }
}

static void stage_free(void) {
  if (g_pinned) cudaFreeHost(g_pinned);
  free(g_expected);
  g_pinned = NULL, g_expected = NULL;
}

static bool cuda_ok(cudaError_t e, const char *what) {
  return TB_ASSERT_OK(e == cudaSuccess ? TB_OK : tb_fail(TB_ERR_CUDA, "%s", cudaGetErrorString(e)),
                      what);
}

/* Allocates n elements of `size` bytes and fills them from gen. */
static bool make_array(tb_buffer *b, size_t size, int64_t n, gen_fn gen, const void *ctx,
                       const char *what) {
  if (!stage_ready() || !TB_ASSERT_OK(tb_buffer_alloc(b, size * (size_t)(n > 0 ? n : 1)), what))
    return false;
  for (int64_t base = 0; base < n; base += kChunk) {
    const int64_t m = n - base < kChunk ? n - base : kChunk;
    generate(gen, ctx, base, m);
    if (size == 4)
#pragma omp parallel for
      for (int64_t k = 0; k < m; ++k) ((int32_t *)g_pinned)[k] = (int32_t)g_expected[k];
    else
      memcpy(g_pinned, g_expected, sizeof(int64_t) * (size_t)m);
    if (!cuda_ok(cudaMemcpy((char *)b->ptr + base * (int64_t)size, g_pinned, size * (size_t)m,
                            cudaMemcpyHostToDevice),
                 what))
      return false;
  }
  return true;
}

/* Compares n elements (int32 or int64 by size) of d with gen's values. */
static bool check_array(const void *d, size_t size, int64_t n, gen_fn gen, const void *ctx,
                        const char *what) {
  if (!stage_ready()) return false;
  for (int64_t base = 0; base < n; base += kChunk) {
    const int64_t m = n - base < kChunk ? n - base : kChunk;
    if (!cuda_ok(cudaMemcpy(g_pinned, (const char *)d + base * (int64_t)size, size * (size_t)m,
                            cudaMemcpyDeviceToHost),
                 what))
      return false;
    generate(gen, ctx, base, m);
    int64_t first_bad = m;
#pragma omp parallel for reduction(min : first_bad)
    for (int64_t k = 0; k < m; ++k) {
      const int64_t got = size == 4 ? ((const int32_t *)g_pinned)[k] : ((const int64_t *)g_pinned)[k];
      const int64_t want = size == 4 ? (int32_t)(uint32_t)(uint64_t)g_expected[k] : g_expected[k];
      if (got != want && k < first_bad) first_bad = k;
    }
    if (first_bad < m) {
      const int64_t k = first_bad;
      const int64_t got = size == 4 ? ((const int32_t *)g_pinned)[k] : ((const int64_t *)g_pinned)[k];
      char text[320];
      snprintf(text, sizeof text, "%s: index %lld of %lld: expected %lld, got %lld", what,
               (long long)(base + k), (long long)n,
               (long long)(size == 4 ? (int32_t)(uint32_t)(uint64_t)g_expected[k] : g_expected[k]),
               (long long)got);
      printf("\n  FAILED %s\n", text);
      CU_FAIL(text);
      return false;
    }
  }
  return true;
}

static bool enough_memory(void) {
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  const double gib = (double)free_bytes / (1024.0 * 1024.0 * 1024.0);
  if (gib >= kNeedGiB) return true;
  char text[256];
  snprintf(text, sizeof text,
           "the limit tests need %.0f GiB of free device memory, this GPU has %.1f GiB: run them "
           "on a larger GPU (Bazel leaves out tag `large` with --test_tag_filters=-large)",
           kNeedGiB, gib);
  printf("\n  FAILED %s\n", text);
  CU_FAIL(text);
  return false;
}

/* ---- reduce and scan past 2^31 items ------------------------------------------------ */

static void check_total(tb_type t, int64_t got, int64_t want, const char *what) {
  char text[256];
  snprintf(text, sizeof text, "%s: total %lld, expected %lld", what, (long long)got,
           (long long)as_type(t, want));
  if (got != as_type(t, want)) printf("\n  FAILED %s\n", text);
  CU_ASSERT_EQUAL_FATAL(got == as_type(t, want), 1);
}

static int64_t load_total(tb_type t, const void *h) {
  return t == TB_INT32 ? *(const int32_t *)h : *(const int64_t *)h;
}

static void reduce_scan_past_2_31(tb_type t) {
  if (!enough_memory()) return;
  const int64_t n = ((int64_t)1 << 31) + (1 << 20) + 3;
  const size_t size = tb_type_size(t);
  tb_buffer in = {0}, out = {0}, scratch = {0};
  char what[160];
  union { int32_t i32; int64_t i64; } h;
  if (!make_array(&in, size, n, gen_pattern, NULL, "reduce/scan input")) goto done;

  /* Aligned and from the second item (the unaligned head). */
  for (int from = 0; from <= 1; ++from) {
    snprintf(what, sizeof what, "tb_reduce %s n = %lld from item %d", tb_type_name(t),
             (long long)(n - from), from);
    if (!TB_ASSERT_OK(tb_reduce(t, TB_OP_PLUS, (const char *)in.ptr + from * (int64_t)size,
                                n - from, NULL, &h, NULL, &scratch, 0),
                      what))
      goto done;
    check_total(t, load_total(t, &h), pattern_sum(from, n), what);
  }

  /* The OpenMP-style reduction over the same items, both paths, folded
   * into a variable that starts at 5. */
  for (int m = 0; m < 2 && !(tb_test.sanitizer && m); ++m) {
    snprintf(what, sizeof what, "tb_omp_reduce %s %s n = %lld", m ? "atomics" : "tree",
             tb_type_name(t), (long long)n);
    const int64_t five = 5;
    if (!TB_ASSERT_OK(tb_buffer_reserve(&out, 8), what) ||
        !cuda_ok(cudaMemcpy(out.ptr, &five, size, cudaMemcpyHostToDevice), what))
      goto done;
    const tb_omp_var var = {t, TB_OP_PLUS, in.ptr, out.ptr};
    if (!TB_ASSERT_OK(tb_omp_reduce(&var, 1, n, m ? TB_OMP_ATOMICS : TB_OMP_TREE, NULL, NULL, 0,
                                    &scratch, 0),
                      what) ||
        !cuda_ok(cudaMemcpy(&h, out.ptr, size, cudaMemcpyDeviceToHost), what))
      goto done;
    check_total(t, load_total(t, &h), 5 + pattern_sum(0, n), what);
  }

  if (!TB_ASSERT_OK(tb_buffer_alloc(&out, size * (size_t)n), "scan output")) goto done;
  static const tb_scan_algo algos[] = {TB_SCAN_LOOKBACK, TB_SCAN_REDUCE_THEN_SCAN};
  for (int a = 0; a < 2; ++a)
    for (int inclusive = 0; inclusive <= 1; ++inclusive) {
      if (tb_test.sanitizer && a != inclusive) continue;
      snprintf(what, sizeof what, "tb_scan %s %s %s n = %lld", tb_type_name(t),
               inclusive ? "inclusive" : "exclusive", a ? "reduce-then-scan" : "look-back",
               (long long)n);
      if (!TB_ASSERT_OK(tb_scan(t, TB_OP_PLUS, inclusive ? TB_SCAN_INCLUSIVE : TB_SCAN_EXCLUSIVE,
                                algos[a], in.ptr, out.ptr, n, NULL, &h, NULL, &scratch, 0),
                        what))
        goto done;
      check_total(t, load_total(t, &h), pattern_sum(0, n), what);
      if (!check_array(out.ptr, size, n, inclusive ? gen_inclusive_sums : gen_exclusive_sums,
                       NULL, what))
        goto done;
    }
done:
  tb_buffer_free(&in);
  tb_buffer_free(&out);
  tb_buffer_free(&scratch);
}

TB_TEST(test_reduce_scan_int32, "reduce and scan, int32, n > 2^31") {
  reduce_scan_past_2_31(TB_INT32);
}
TB_TEST(test_reduce_scan_int64, "reduce and scan, int64, n > 2^31") {
  if (!tb_test.sanitizer) reduce_scan_past_2_31(TB_INT64);
}

/* ---- the segmented family at count = INT32_MAX ------------------------------------------ */

/* Segments over count items: long ones, then short ones packed into the last
 * 2^17 items (so that the last tiles of every box end many), starts on the
 * last tiles' edges, a last segment of one item; with_empty adds empty
 * segments there too, the last ones at count itself. */
static geometry geometry_make(int64_t count, bool with_empty) {
  geometry g = {count, 0, malloc(sizeof(int32_t) * 8192)};
  const int64_t tail = count - (1 << 17);
  for (int64_t s = 0; s < 512; ++s) g.starts[g.num++] = (int32_t)(s * (tail / 512));
  uint64_t x = 0x5eed;
  for (int64_t at = tail; at < count - 1 && g.num < 8192 - 8;) {
    g.starts[g.num++] = (int32_t)at;
    if (with_empty && g.num % 7 == 0) g.starts[g.num++] = (int32_t)at;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t len = 1 + (int64_t)(x % 97);
    /* Now and then to the next multiple of 128 * 5 * 11 * 7 * 3: a tile edge
     * of several boxes. */
    if (x % 5 == 0) len = 16170 - at % 16170;
    at = at + len < count - 1 ? at + len : count - 1;
  }
  g.starts[g.num++] = (int32_t)(count - 1);
  if (with_empty) g.starts[g.num++] = (int32_t)count, g.starts[g.num++] = (int32_t)count;
  return g;
}

static bool upload_i32(tb_buffer *b, const int32_t *h, int64_t n, const char *what) {
  return TB_ASSERT_OK(tb_buffer_alloc(b, sizeof(int32_t) * (size_t)n), what) &&
         TB_ASSERT_OK(tb_buffer_upload(b, h, sizeof(int32_t) * (size_t)n), what);
}

/* out[s] against the pattern's sum over segment s, read from src[s] on
 * (src NULL: the segment's own range). */
static bool check_segments(tb_type t, const geometry *g, const int32_t *src, const void *d_out,
                           const char *what) {
  const size_t size = tb_type_size(t);
  char *got = malloc(size * (size_t)g->num);
  bool ok = got && cuda_ok(cudaMemcpy(got, d_out, size * (size_t)g->num, cudaMemcpyDeviceToHost),
                           what);
  for (int64_t s = 0; ok && s < g->num; ++s) {
    const int64_t begin = src ? src[s] : g->starts[s];
    const int64_t want = as_type(t, pattern_sum(begin, begin + seg_end(g, s) - g->starts[s]));
    const int64_t v = size == 4 ? ((int32_t *)got)[s] : ((int64_t *)got)[s];
    if (v != want) {
      char text[320];
      snprintf(text, sizeof text, "%s: segment %lld of %lld [%d, %lld): expected %lld, got %lld",
               what, (long long)s, (long long)g->num, g->starts[s], (long long)seg_end(g, s),
               (long long)want, (long long)v);
      printf("\n  FAILED %s\n", text);
      CU_FAIL(text);
      ok = false;
    }
  }
  free(got);
  return ok;
}

/* segreduce (every box; support_empty; indirect; preprocess + apply) and
 * SpMV (unary, binary; apply) at one count, int32 values already on the
 * device (the pattern), cols (i mod P) and x (the pattern over one period,
 * or ones for the binary form, whose matrix is the pattern). */
static void segmented_at(int64_t count, const tb_buffer *values, const tb_buffer *cols,
                         const tb_buffer *x_pattern, const tb_buffer *x_ones) {
  const tb_type t = TB_INT32;
  geometry strict = geometry_make(count, false), empty = geometry_make(count, true);
  tb_buffer csr = {0}, csr_e = {0}, src = {0}, out = {0}, scratch = {0};
  tb_seg_plan *plan = NULL;
  int32_t *sources = malloc(sizeof(int32_t) * (size_t)strict.num);
  char what[200];
  if (!sources || !upload_i32(&csr, strict.starts, strict.num, "csr") ||
      !upload_i32(&csr_e, empty.starts, empty.num, "csr with empty segments") ||
      !TB_ASSERT_OK(tb_buffer_alloc(&out, sizeof(int64_t) * (size_t)empty.num), "out"))
    goto done;

  tb_launch_box boxes[32];
  const int nboxes = tb_segreduce_grid(t, TB_OP_PLUS, boxes, 32);
  for (int b = 0; b < nboxes; ++b) {
    const tb_launch_box def = tb_segreduce_default_box(t);
    if (tb_test.sanitizer && (boxes[b].nt != def.nt || boxes[b].vt != def.vt)) continue;
    snprintf(what, sizeof what, "tb_segreduce_csr count = %lld box %dx%d", (long long)count,
             boxes[b].nt, boxes[b].vt);
    if (!TB_ASSERT_OK(tb_segreduce_csr(t, TB_OP_PLUS, values->ptr, count, csr.ptr, strict.num,
                                       NULL, false, out.ptr, &boxes[b], &scratch, 0),
                      what) ||
        !check_segments(t, &strict, NULL, out.ptr, what))
      goto done;
  }

  snprintf(what, sizeof what, "tb_segreduce_csr support_empty count = %lld", (long long)count);
  if (!TB_ASSERT_OK(tb_segreduce_csr(t, TB_OP_PLUS, values->ptr, count, csr_e.ptr, empty.num,
                                     NULL, true, out.ptr, NULL, &scratch, 0),
                    what) ||
      !check_segments(t, &empty, NULL, out.ptr, what))
    goto done;

  /* Indirect: the segments read their lengths from the far end, in reverse
   * order, so every source is a different offset from its segment. */
  for (int64_t s = 0; s < strict.num; ++s)
    sources[s] = (int32_t)(count - seg_end(&strict, s));
  snprintf(what, sizeof what, "tb_segreduce_csr indirect count = %lld", (long long)count);
  if (!upload_i32(&src, sources, strict.num, "sources") ||
      !TB_ASSERT_OK(tb_segreduce_csr(t, TB_OP_PLUS, values->ptr, count, csr.ptr, strict.num,
                                     src.ptr, false, out.ptr, NULL, &scratch, 0),
                    what) ||
      !check_segments(t, &strict, sources, out.ptr, what))
    goto done;

  for (int e = 0; e <= 1; ++e) {
    const geometry *g = e ? &empty : &strict;
    snprintf(what, sizeof what, "tb_segreduce_csr_preprocess + apply%s count = %lld",
             e ? " support_empty" : "", (long long)count);
    if (!TB_ASSERT_OK(tb_segreduce_csr_preprocess(t, count, e ? csr_e.ptr : csr.ptr, g->num, e,
                                                  NULL, &plan, 0),
                      what) ||
        !TB_ASSERT_OK(tb_segreduce_apply(plan, TB_OP_PLUS, values->ptr, out.ptr, &scratch, 0),
                      what) ||
        !check_segments(t, g, NULL, out.ptr, what))
      goto done;
    tb_seg_plan_free(plan), plan = NULL;
  }

  /* SpMV: item m is x[cols[m]] = g(m mod P), or pattern[m] * 1. */
  snprintf(what, sizeof what, "tb_spmv_csr_unary nz = %lld", (long long)count);
  if (!TB_ASSERT_OK(tb_spmv_csr_unary(t, TB_OP_PLUS, cols->ptr, count, csr.ptr, strict.num, NULL,
                                      x_pattern->ptr, kPeriod, false, out.ptr, NULL, &scratch, 0),
                    what) ||
      !check_segments(t, &strict, NULL, out.ptr, what))
    goto done;
  snprintf(what, sizeof what, "tb_spmv_csr_binary support_empty nz = %lld", (long long)count);
  if (!TB_ASSERT_OK(tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, TB_OP_PLUS, values->ptr, cols->ptr,
                                       count, csr_e.ptr, empty.num, NULL, x_ones->ptr, kPeriod,
                                       true, out.ptr, NULL, &scratch, 0),
                    what) ||
      !check_segments(t, &empty, NULL, out.ptr, what))
    goto done;
  snprintf(what, sizeof what, "tb_spmv_preprocess + apply nz = %lld", (long long)count);
  if (!TB_ASSERT_OK(tb_spmv_preprocess(t, count, csr.ptr, strict.num, false, NULL, &plan, 0),
                    what) ||
      !TB_ASSERT_OK(tb_spmv_apply(plan, TB_OP_PLUS, NULL, cols->ptr, x_pattern->ptr, kPeriod,
                                  out.ptr, &scratch, 0),
                    what) ||
      !check_segments(t, &strict, NULL, out.ptr, what))
    goto done;

done:
  tb_seg_plan_free(plan);
  tb_buffer_free(&csr);
  tb_buffer_free(&csr_e);
  tb_buffer_free(&src);
  tb_buffer_free(&out);
  tb_buffer_free(&scratch);
  free(sources);
  free(strict.starts);
  free(empty.starts);
}

/* Reduce-by-key at one count: keys are the segment indices of the strict
 * geometry (runs of equal keys), values the pattern. */
static void reduce_by_key_at(int64_t count, const tb_buffer *values) {
  const tb_type t = TB_INT32;
  geometry g = geometry_make(count, false);
  tb_buffer keys = {0}, keys_out = {0}, out = {0}, scratch = {0};
  tb_seg_plan *plan = NULL;
  int32_t *got_keys = malloc(sizeof(int32_t) * (size_t)g.num);
  char what[160];
  int64_t runs = 0;
  if (!got_keys || !make_array(&keys, 4, count, gen_segment_of, &g, "keys") ||
      !TB_ASSERT_OK(tb_buffer_alloc(&keys_out, sizeof(int32_t) * (size_t)g.num), "keys out") ||
      !TB_ASSERT_OK(tb_buffer_alloc(&out, sizeof(int32_t) * (size_t)g.num), "values out"))
    goto done;
  for (int form = 0; form < 2; ++form) {
    snprintf(what, sizeof what, "%s count = %lld",
             form ? "tb_reduce_by_key_preprocess + apply" : "tb_reduce_by_key", (long long)count);
    runs = -1;
    cudaMemset(keys_out.ptr, 0xff, sizeof(int32_t) * (size_t)g.num);
    if (form == 0) {
      if (!TB_ASSERT_OK(tb_reduce_by_key(t, TB_OP_PLUS, keys.ptr, values->ptr, count,
                                         keys_out.ptr, out.ptr, &runs, NULL, NULL, &scratch, 0),
                        what))
        goto done;
    } else if (!TB_ASSERT_OK(tb_reduce_by_key_preprocess(t, keys.ptr, count, keys_out.ptr, &runs,
                                                         NULL, NULL, &plan, 0),
                             what) ||
               !TB_ASSERT_OK(tb_reduce_by_key_apply(plan, TB_OP_PLUS, values->ptr, out.ptr,
                                                    &scratch, 0),
                             what)) {
      goto done;
    }
    tb_seg_plan_free(plan), plan = NULL;
    if (runs != g.num) {
      char text[200];
      snprintf(text, sizeof text, "%s: %lld runs, expected %lld", what, (long long)runs,
               (long long)g.num);
      printf("\n  FAILED %s\n", text);
      CU_FAIL(text);
      goto done;
    }
    if (!check_segments(t, &g, NULL, out.ptr, what) ||
        !cuda_ok(cudaMemcpy(got_keys, keys_out.ptr, sizeof(int32_t) * (size_t)g.num,
                            cudaMemcpyDeviceToHost),
                 what))
      goto done;
    for (int64_t s = 0; s < g.num; ++s)
      if (got_keys[s] != s) {
        char text[200];
        snprintf(text, sizeof text, "%s: key of run %lld is %d", what, (long long)s, got_keys[s]);
        CU_FAIL(text);
        goto done;
      }
  }
done:
  tb_seg_plan_free(plan);
  tb_buffer_free(&keys);
  tb_buffer_free(&keys_out);
  tb_buffer_free(&out);
  tb_buffer_free(&scratch);
  free(got_keys);
  free(g.starts);
}

TB_TEST(test_segmented_count_int32_max,
        "segreduce, SpMV, reduce-by-key at count = INT32_MAX and just inside") {
  if (!enough_memory()) return;
  tb_buffer values = {0}, cols = {0}, x = {0}, ones = {0};
  if (make_array(&values, 4, kMaxCount, gen_pattern, NULL, "values") &&
      make_array(&cols, 4, kMaxCount, gen_index_mod_period, NULL, "cols") &&
      make_array(&x, 4, kPeriod, gen_pattern, NULL, "x") &&
      make_array(&ones, 4, kPeriod, gen_one, NULL, "ones")) {
    for (int64_t count = kMaxCount; count >= kMaxCount - 1; --count) {
      segmented_at(count, &values, &cols, &x, &ones);
      if (!tb_test.sanitizer || count == kMaxCount) reduce_by_key_at(count, &values);
    }
  }
  tb_buffer_free(&values);
  tb_buffer_free(&cols);
  tb_buffer_free(&x);
  tb_buffer_free(&ones);
}

/* int64 values: the 8-byte tile path (half-capacity partials). */
TB_TEST(test_segmented_int64, "segreduce int64 at count = INT32_MAX") {
  if (tb_test.sanitizer || !enough_memory()) return;
  geometry g = geometry_make(kMaxCount, false);
  tb_buffer values = {0}, csr = {0}, out = {0};
  if (make_array(&values, 8, kMaxCount, gen_pattern, NULL, "int64 values") &&
      upload_i32(&csr, g.starts, g.num, "csr") &&
      TB_ASSERT_OK(tb_buffer_alloc(&out, 8 * (size_t)g.num), "out") &&
      TB_ASSERT_OK(tb_segreduce_csr(TB_INT64, TB_OP_PLUS, values.ptr, kMaxCount, csr.ptr, g.num,
                                    NULL, false, out.ptr, NULL, NULL, 0),
                   "tb_segreduce_csr int64 count = INT32_MAX"))
    check_segments(TB_INT64, &g, NULL, out.ptr, "tb_segreduce_csr int64 count = INT32_MAX");
  tb_buffer_free(&values);
  tb_buffer_free(&csr);
  tb_buffer_free(&out);
  free(g.starts);
}

/* tb_segreduce_csr, int32 plus, over kMaxCount segments (csr from csr_gen)
 * and `count` values of the pattern, into out; the results against want. */
static bool segreduce_max_segments(tb_buffer *values, tb_buffer *csr, tb_buffer *out, int64_t count,
                                   gen_fn csr_gen, bool support_empty, gen_fn want,
                                   const char *what) {
  return make_array(values, 4, count, gen_pattern, NULL, "values") &&
         make_array(csr, 4, kMaxCount, csr_gen, NULL, "csr") &&
         TB_ASSERT_OK(tb_buffer_alloc(out, 4 * (size_t)kMaxCount), "out") &&
         TB_ASSERT_OK(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, values->ptr, count, csr->ptr,
                                       kMaxCount, NULL, support_empty, out->ptr, NULL, NULL, 0),
                      what) &&
         check_array(out->ptr, 4, kMaxCount, want, NULL, what);
}

/* num_segments = count = INT32_MAX: every segment one item. */
TB_TEST(test_segments_int32_max, "segreduce at num_segments = INT32_MAX") {
  if (!enough_memory()) return;
  tb_buffer values = {0}, csr = {0}, out = {0};
  const char *what = "tb_segreduce_csr num_segments = count = INT32_MAX";
  if (segreduce_max_segments(&values, &csr, &out, kMaxCount, gen_iota, false, gen_pattern, what)) {
    /* SpMV with x_len = nz = num_rows = INT32_MAX: the identity matrix
     * (cols = the iota that is also the CSR), so y = x. */
    what = "tb_spmv_csr_unary x_len = nz = num_rows = INT32_MAX";
    if (TB_ASSERT_OK(cudaMemset(out.ptr, 0, 4 * (size_t)kMaxCount) == cudaSuccess ? TB_OK
                                                                              : TB_ERR_CUDA,
                     "clear") &&
        TB_ASSERT_OK(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, csr.ptr, kMaxCount, csr.ptr,
                                       kMaxCount, NULL, values.ptr, kMaxCount, false, out.ptr,
                                       NULL, NULL, 0),
                     what))
      check_array(out.ptr, 4, kMaxCount, gen_pattern, NULL, what);
  }
  tb_buffer_free(&values);
  tb_buffer_free(&csr);
  tb_buffer_free(&out);
}

/* support_empty over num_segments = INT32_MAX and 2048 items: segment s
 * starts at s >> 20 (the last one ends at 2048), so a segment in 2^20 holds
 * one item and the rest are empty, all in one tile of the direct form
 * (which leaves its rows to the pass after the tiles). */
static const int kSparseShift = 20;
static const int64_t kSparseCount = (kMaxCount >> kSparseShift) + 1;

static void gen_sparse_csr(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx;
  for (int64_t k = 0; k < n; ++k) out[k] = (base + k) >> kSparseShift;
}

/* The segment's item (gen_pattern's value at it), 0 for an empty one. */
static void gen_sparse_sums(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  (void)ctx;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t s = base + k, start = s >> kSparseShift;
    const int64_t next = s + 1 < kMaxCount ? (s + 1) >> kSparseShift : kSparseCount;
    out[k] = next > start ? g_value[start % kPeriod] : 0;
  }
}

TB_TEST(test_empty_segments_int32_max,
        "segreduce support_empty at num_segments = INT32_MAX, 2048 items") {
  if (tb_test.sanitizer || !enough_memory()) return;
  tb_buffer values = {0}, csr = {0}, out = {0};
  segreduce_max_segments(&values, &csr, &out, kSparseCount, gen_sparse_csr, true, gen_sparse_sums,
                         "tb_segreduce_csr support_empty num_segments = INT32_MAX, count = 2048");
  tb_buffer_free(&values);
  tb_buffer_free(&csr);
  tb_buffer_free(&out);
}

/* ---- segments of one length at count = INT32_MAX ------------------------------------------- */

/* The exact sum of each segment of *(const int64_t *)ctx items of the pattern. */
static void gen_fixed_sums(const void *ctx, int64_t base, int64_t n, int64_t *out) {
  const int64_t L = *(const int64_t *)ctx;
  for (int64_t k = 0; k < n; ++k) out[k] = pattern_sum((base + k) * L, (base + k + 1) * L);
}

/* tb_segreduce_fixed, int32 plus, over the pattern's first count items:
 * one segment of every item (a plain reduction past 2^30), one segment an
 * item and segments of 16 (rows a thread's, in pieces of 2^30 items), of
 * 1024 (a warp's),
 * seven of 2^31 / 7 (INT32_MAX - 1 items:
 * pieces of three rows), and 32,767 split rows of 65,537 (more than the
 * split table's slots); then one past: 2 * 2^30. */
TB_TEST(test_fixed_int32_max, "segreduce_fixed at count = INT32_MAX and just inside") {
  if (!enough_memory()) return;
  tb_buffer values = {0}, out = {0}, scratch = {0};
  const int64_t shapes[][2] = {{1, kMaxCount},         {kMaxCount, 1},
                               {kMaxCount / 16, 16},     {kMaxCount / 1024, 1024},
                               {7, kMaxCount / 7},       {32767, 65537}};
  if (make_array(&values, 4, kMaxCount, gen_pattern, NULL, "values") &&
      TB_ASSERT_OK(tb_buffer_alloc(&out, 4 * (size_t)kMaxCount), "out"))
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
      const int64_t num = shapes[k][0], L = shapes[k][1];
      if (tb_test.sanitizer && num * L > (1ll << 30)) continue;
      char what[160];
      snprintf(what, sizeof what, "tb_segreduce_fixed %lld segments of %lld", (long long)num,
               (long long)L);
      if (TB_ASSERT_OK(
              cudaMemset(out.ptr, 0x5a, 4 * (size_t)num) == cudaSuccess ? TB_OK : TB_ERR_CUDA,
              "poison") &&
          TB_ASSERT_OK(
              tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, values.ptr, num, L, out.ptr, &scratch, 0),
              what))
        check_array(out.ptr, 4, num, gen_fixed_sums, &L, what);
    }
  TB_ASSERT_REJECTS(
      tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, values.ptr, 2, 1 << 30, out.ptr, &scratch, 0),
      "tb_segreduce_fixed", "2147483648 items", NULL);
  tb_buffer_free(&values);
  tb_buffer_free(&out);
  tb_buffer_free(&scratch);
}

/* ---- load-balancing search and intervals at n_items = INT32_MAX ------------------------- */

static void lbs_on(const geometry *g, const tb_buffer *scan, const char *what) {
  tb_buffer obj = {0}, rank = {0}, scratch = {0};
  char full[200];
  snprintf(full, sizeof full, "tb_lbs %s (%lld objects, %lld items)", what, (long long)g->num,
           (long long)g->count);
  if (TB_ASSERT_OK(tb_buffer_alloc(&obj, 4 * (size_t)g->count), "obj") &&
      TB_ASSERT_OK(tb_buffer_alloc(&rank, 4 * (size_t)g->count), "rank") &&
      TB_ASSERT_OK(tb_lbs(scan->ptr, g->num, g->count, obj.ptr, rank.ptr, NULL, &scratch, 0),
                   full) &&
      check_array(obj.ptr, 4, g->count, gen_segment_of, g, full))
    check_array(rank.ptr, 4, g->count, gen_rank, g, full);
  tb_buffer_free(&obj);
  tb_buffer_free(&rank);
  tb_buffer_free(&scratch);
}

TB_TEST(test_lbs_int32_max, "lbs at n_items = INT32_MAX, few objects and INT32_MAX objects") {
  if (!enough_memory()) return;
  /* Few objects, some empty, at and just inside the limit. */
  for (int64_t count = kMaxCount; count >= kMaxCount - 1; --count) {
    geometry g = geometry_make(count, true);
    tb_buffer scan = {0};
    if (upload_i32(&scan, g.starts, g.num, "scan")) lbs_on(&g, &scan, "few objects");
    tb_buffer_free(&scan);
    free(g.starts);
  }
  /* One item per object: num_objects = n_items = INT32_MAX. Its scan is
   * the identity, so the generators need no array of starts. */
  geometry iota = {kMaxCount, kMaxCount, NULL};
  tb_buffer scan = {0}, obj = {0}, rank = {0}, scratch = {0};
  const char *what = "tb_lbs num_objects = n_items = INT32_MAX";
  if (make_array(&scan, 4, kMaxCount, gen_iota, NULL, "scan") &&
      TB_ASSERT_OK(tb_buffer_alloc(&obj, 4 * (size_t)kMaxCount), "obj") &&
      TB_ASSERT_OK(tb_buffer_alloc(&rank, 4 * (size_t)kMaxCount), "rank") &&
      TB_ASSERT_OK(tb_lbs(scan.ptr, iota.num, iota.count, obj.ptr, rank.ptr, NULL, &scratch, 0),
                   what) &&
      check_array(obj.ptr, 4, kMaxCount, gen_iota, NULL, what))
    check_array(rank.ptr, 4, kMaxCount, gen_zero, NULL, what);
  tb_buffer_free(&scan);
  tb_buffer_free(&obj);
  tb_buffer_free(&rank);
  tb_buffer_free(&scratch);
}

/* Expand, move, gather and scatter over n_items = INT32_MAX with few
 * objects: move, gather and scatter with offsets equal to the scan copy the
 * pattern in place. */
TB_TEST(test_intervals_int32_max, "interval expand, move, gather, scatter at n_items = INT32_MAX") {
  if (!enough_memory()) return;
  geometry g = geometry_make(kMaxCount, true);
  tb_buffer scan = {0}, values = {0}, in = {0}, out = {0}, scratch = {0};
  char what[160];
  if (!upload_i32(&scan, g.starts, g.num, "scan") ||
      !make_array(&values, 4, kPeriod, gen_pattern, NULL, "values") ||
      !make_array(&in, 4, kMaxCount, gen_pattern, NULL, "in") ||
      !TB_ASSERT_OK(tb_buffer_alloc(&out, 4 * (size_t)kMaxCount), "out"))
    goto done;
  /* Objects past P take values[j mod P]: expand with values of P entries
   * needs num_objects <= P, which the geometry has. */
  snprintf(what, sizeof what, "tb_interval_expand n_items = INT32_MAX");
  if (!TB_ASSERT_OK(tb_interval_expand(TB_INT32, scan.ptr, g.num, g.count, values.ptr, out.ptr,
                                       NULL, &scratch, 0),
                    what) ||
      !check_array(out.ptr, 4, g.count, gen_expanded, &g, what))
    goto done;
  for (int op = 0; op < 3; ++op) {
    if (tb_test.sanitizer && op > 0) break;
    static const char *const names[] = {"tb_interval_move", "tb_interval_gather",
                                        "tb_interval_scatter"};
    snprintf(what, sizeof what, "%s, offsets = scan, n_items = INT32_MAX", names[op]);
    if (!cuda_ok(cudaMemset(out.ptr, 0, 4 * (size_t)g.count), "clear")) goto done;
    tb_status st =
        op == 0 ? tb_interval_move(TB_INT32, scan.ptr, scan.ptr, scan.ptr, g.num, g.count, in.ptr,
                                   g.count, out.ptr, g.count, NULL, &scratch, 0)
        : op == 1 ? tb_interval_gather(TB_INT32, scan.ptr, scan.ptr, g.num, g.count, in.ptr,
                                       g.count, out.ptr, NULL, &scratch, 0)
                  : tb_interval_scatter(TB_INT32, scan.ptr, scan.ptr, g.num, g.count, in.ptr,
                                        out.ptr, g.count, NULL, &scratch, 0);
    if (!TB_ASSERT_OK(st, what) || !check_array(out.ptr, 4, g.count, gen_pattern, NULL, what))
      goto done;
  }
done:
  tb_buffer_free(&scan);
  tb_buffer_free(&values);
  tb_buffer_free(&in);
  tb_buffer_free(&out);
  tb_buffer_free(&scratch);
  free(g.starts);
}

/* ---- one past each limit --------------------------------------------------------------- */

TB_TEST(test_past_the_limits, "one past each limit is rejected") {
  const int64_t past = (int64_t)INT32_MAX + 1;
  tb_buffer d = {0};
  if (!TB_ASSERT_OK(tb_buffer_alloc(&d, 256), "alloc")) return;
  int32_t *p = d.ptr;
  int64_t total = 0;
  TB_ASSERT_REJECTS(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, p, past, p, 1, NULL, false, p, NULL,
                                     NULL, 0),
                    "tb_segreduce_csr", "count = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, p, 10, p, past, NULL, false, p, NULL,
                                     NULL, 0),
                    "tb_segreduce_csr", "num_segments = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, p, p, past, p, p, &total, NULL, NULL,
                                     NULL, 0),
                    "tb_reduce_by_key", "count = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, p, past, p, 1, NULL, p, 4, false, p,
                                      NULL, NULL, 0),
                    "tb_spmv_csr_unary", "nz = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, past, 1, p, NULL, 0),
                    "tb_segreduce_fixed", "num_segments = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, 1, past, p, NULL, 0),
                    "tb_segreduce_fixed", "segment_size = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, 65536, 32768, p, NULL, 0),
                    "tb_segreduce_fixed", "65536 * 32768 = 2147483648 items", NULL);
  TB_ASSERT_REJECTS(tb_lbs(p, 1, past, p, NULL, NULL, NULL, 0), "tb_lbs", "n_items = 2147483648",
                    NULL);
  TB_ASSERT_REJECTS(tb_lbs(p, past, 1, p, NULL, NULL, NULL, 0), "tb_lbs",
                    "num_objects = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_interval_expand(TB_INT32, p, 1, past, p, p, NULL, NULL, 0),
                    "tb_interval_expand", "n_items = 2147483648", NULL);
  TB_ASSERT_REJECTS(tb_reduce(TB_INT32, TB_OP_PLUS, p, TB_MAX_ITEMS + 1, NULL, &total, NULL, NULL,
                              0),
                    "tb_reduce", "n = 1099511627777", "2^40", NULL);
  TB_ASSERT_REJECTS(tb_scan(TB_INT32, TB_OP_PLUS, TB_SCAN_EXCLUSIVE, TB_SCAN_DEFAULT, p, p,
                            TB_MAX_ITEMS + 1, NULL, NULL, NULL, NULL, 0),
                    "tb_scan", "n = 1099511627777", "2^40", NULL);
  /* At the reduce/scan limit, the look-back's one CTA per tile would need
   * 2^40 / 448 > 2^31 tiles of the smallest box: a clear error, no
   * allocation tried. */
  const tb_launch_box smallest = {64, 7};
  TB_ASSERT_REJECTS(tb_scan(TB_INT32, TB_OP_PLUS, TB_SCAN_EXCLUSIVE, TB_SCAN_LOOKBACK, p, p,
                            TB_MAX_ITEMS, NULL, NULL, &smallest, NULL, 0),
                    "tb_scan", "look-back tiles of 64x7", NULL);
  tb_buffer_free(&d);
}

/* tb_omp_reduce takes num_blocks up to INT32_MAX: the atomics path at that
 * grid (blocks past the items fold nothing), and just inside it. */
TB_TEST(test_omp_grid_int32_max, "omp_reduce at num_blocks = INT32_MAX") {
  const int64_t n = 1000;
  int32_t h[1000], total = 0;
  for (int i = 0; i < n; ++i) h[i] = (int32_t)(i % 7) - 3, total += h[i];
  tb_buffer in = {0}, result = {0};
  if (!TB_ASSERT_OK(tb_buffer_alloc(&in, sizeof h), "in") ||
      !TB_ASSERT_OK(tb_buffer_upload(&in, h, sizeof h), "in") ||
      !TB_ASSERT_OK(tb_buffer_alloc(&result, 4), "result"))
    goto done;
  for (int64_t blocks = INT32_MAX; blocks >= INT32_MAX - 1; --blocks) {
    if (tb_test.sanitizer) break;
    char what[120];
    snprintf(what, sizeof what, "tb_omp_reduce atomics, 1 thread x %lld blocks",
             (long long)blocks);
    const int32_t zero = 0;
    int32_t got = 0;
    const tb_omp_var var = {TB_INT32, TB_OP_PLUS, in.ptr, result.ptr};
    const tb_launch_box box = {1, 1};
    if (!cuda_ok(cudaMemcpy(result.ptr, &zero, 4, cudaMemcpyHostToDevice), what) ||
        !TB_ASSERT_OK(tb_omp_reduce(&var, 1, n, TB_OMP_ATOMICS, NULL, &box, blocks, NULL, 0),
                      what) ||
        !cuda_ok(cudaMemcpy(&got, result.ptr, 4, cudaMemcpyDeviceToHost), what))
      break;
    check_total(TB_INT32, got, total, what);
  }
done:
  tb_buffer_free(&in);
  tb_buffer_free(&result);
}

int main(int argc, char **argv) {
  pattern_init();
  const int rc = tb_test_main(argc, argv, "limits");
  stage_free();
  return rc;
}
