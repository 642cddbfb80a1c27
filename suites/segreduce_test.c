/* Segmented reduction over CSR descriptors (direct and indirect),
 * reduce-by-key and CSR SpMV (unary and binary): the GPU entry points against
 * the CPU references (cpuref/segreduce.h) for every type x operator x launch
 * box x segment geometry, with and without empty segments; preprocess +
 * apply; the opt-in descriptor validation; bad input; and malformed
 * descriptors, which must give unspecified output but never touch memory
 * outside the arrays (run under compute-sanitizer memcheck with --sanitizer;
 * guard zones around the outputs catch stray writes without it).
 *
 * Exactness: tb_fill_random draws data on which every partial result is exact
 * in any order (core/rng.h), so integer results are compared bit for bit and
 * float results against the higher-precision reference with no tolerance.
 * SpMV products keep that property because the matrix holds only {1, -1}
 * (floats) or {1, -1, 2, 3} (integers, where products wrap as the reference
 * wraps) and x is drawn as for a sum of max(x_len, nz) terms. One test runs
 * real-valued data against the rounding bound derived next to it.
 *
 * Outputs are poisoned before every run, so an element the kernel fails to
 * write cannot pass. Every random choice comes from a tb_rng seeded from
 * tb_test.seed (--seed=N), which every failure message repeats. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "core/validate.h"
#include "cpuref/segreduce.h"
#include "kernels/tilebench.h"
#include "suites/testing.h"

enum { kMaxBoxes = 128, kMaxFailures = 10, kPoison = 0xa5 };

/* ---- small helpers ------------------------------------------------------------ */

static tb_status cuda_status(cudaError_t e, const char *what) {
  return e == cudaSuccess ? TB_OK : tb_fail(TB_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

/* A device copy of `bytes` of host data (at least 16 bytes are allocated, so
 * that an empty array is still a valid pointer). */
static bool upload(tb_buffer *b, const void *host, size_t bytes) {
  return TB_ASSERT_OK(tb_buffer_alloc(b, bytes ? bytes : 16), "alloc") &&
         (bytes == 0 || TB_ASSERT_OK(tb_buffer_upload(b, host, bytes), "upload"));
}

static bool poison(void *d, size_t bytes) {
  return bytes == 0 || TB_ASSERT_OK(cuda_status(cudaMemset(d, kPoison, bytes), "poison"), "poison");
}

static int32_t *alloc_i32(int64_t n) { return malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1)); }

static bool op_fits(tb_type t, int op) { return tb_test_fits(t, (tb_op)op); }

/* The operators the type x box sweeps run: every one that fits, or under
 * --quick / --sanitizer plus, max and (integers) bit_and. */
/* Under a sanitizer only plus: every kernel and box still runs, and the
 * other operators change no memory access. */
static bool op_swept(tb_type t, int op) {
  if (tb_test.sanitizer) return op == TB_OP_PLUS;
  return op_fits(t, op) &&
         (!tb_test.quick || op == TB_OP_PLUS || op == TB_OP_MAX || op == TB_OP_BIT_AND);
}

/* Whether a sweep runs support_empty `se` on a geometry: only true where
 * there are empty segments; both ways on strict ones (under --quick one way,
 * alternating with the form). */
static bool mode_swept(bool strict, int se, int form) {
  if (!strict) return se;
  return !tb_test.quick || se == form;
}

static int ceil_log2(int64_t x) {
  int k = 0;
  while (((int64_t)1 << k) < x) ++k;
  return k;
}

static bool count_matches(int64_t got, int64_t want, const char *what, const char *which) {
  char text[512];
  snprintf(text, sizeof text, "%s (%s)", what, which);
  return TB_ASSERT_OK(got == want ? TB_OK
                                  : tb_fail(TB_ERR_MISMATCH, "%s: %lld runs, expected %lld", text,
                                            (long long)got, (long long)want),
                      text);
}

/* The boxes of the family's grid for t. */
static int grid_of(tb_type t, tb_launch_box *out) {
  const int n = tb_segreduce_grid(t, TB_OP_PLUS, out, kMaxBoxes);
  CU_ASSERT(n > 0 && n <= kMaxBoxes);
  return n < 0 ? 0 : n > kMaxBoxes ? kMaxBoxes : n;
}

static bool in_grid(const tb_launch_box *grid, int n, tb_launch_box b) {
  for (int i = 0; i < n; ++i)
    if (grid[i].nt == b.nt && grid[i].vt == b.vt) return true;
  return false;
}

/* Whether grid (tb_segreduce_grid or tb_reduce_by_key_grid) lists box for op
 * (NULL: the tuned default, always): the grid is plus's, the other
 * operators are compiled at the tuned boxes. */
static bool in_op_grid(int (*grid)(tb_type, tb_op, tb_launch_box *, int), tb_type t, int op,
                       const tb_launch_box *box) {
  if (!box) return true;
  tb_launch_box g[kMaxBoxes];
  const int n = grid(t, (tb_op)op, g, kMaxBoxes);
  return in_grid(g, n < kMaxBoxes ? n : kMaxBoxes, *box);
}
static bool op_at_box(tb_type t, int op, const tb_launch_box *box) {
  return in_op_grid(tb_segreduce_grid, t, op, box);
}
static bool by_key_op_at_box(tb_type t, int op, const tb_launch_box *box) {
  return in_op_grid(tb_reduce_by_key_grid, t, op, box);
}

/* op_swept, where the build has op at box. */
static bool op_swept_at(tb_type t, int op, const tb_launch_box *box) {
  return op_swept(t, op) && op_at_box(t, op, box);
}

/* Under --quick / --sanitizer (every launch many times slower there) the
 * first, a middle and the last box of the grid; all of them otherwise. */
static bool box_selected(int i, int n) {
  return !tb_test.quick || i == 0 || i == n / 2 || i == n - 1;
}

/* The box a call runs with: box, or the tuned default for NULL / {0, 0}. */
static tb_launch_box effective_box(tb_type t, const tb_launch_box *box) {
  if (box && (box->nt || box->vt)) return *box;
  return tb_segreduce_default_box(t);
}

static int64_t tile_of(tb_type t, const tb_launch_box *box) {
  const tb_launch_box b = effective_box(t, box);
  return b.nt > 0 && b.vt > 0 ? (int64_t)b.nt * b.vt : 1024;
}

static void box_text(char *out, size_t cap, const tb_launch_box *box) {
  if (box) snprintf(out, cap, "%dx%d", box->nt, box->vt);
  else snprintf(out, cap, "default");
}

/* "fn type op form box=.. geometry (seed N)": the case, for failure messages. */
static void describe(char *out, size_t cap, const char *fn, tb_type t, tb_op op, const char *form,
                     const tb_launch_box *box, const char *geometry) {
  char b[32];
  box_text(b, sizeof b, box);
  snprintf(out, cap, "%s %s %s %s box=%s %s (seed %llu)", fn, tb_type_name(t), tb_op_name(op),
           form, b, geometry, (unsigned long long)tb_test.seed);
}

/* ---- segment geometries --------------------------------------------------------- */

/* A CSR geometry on the host and the device: lens[s] is segment s's length,
 * csr their exclusive scan; sources lay the segments out elsewhere for the
 * indirect form, either as a random permutation of the segments (every item
 * read once) or at random starts (segments may share items). */
typedef struct {
  char name[200];
  int32_t num_segments, count;
  int32_t *lens, *csr, *sources;
  tb_buffer d_csr, d_sources;
} geom;

static void geom_free(geom *g) {
  free(g->lens), free(g->csr), free(g->sources);
  tb_buffer_free(&g->d_csr), tb_buffer_free(&g->d_sources);
  memset(g, 0, sizeof *g);
}

/* Takes lens (n of them) over; label names the geometry. */
static bool geom_from_lens(geom *g, int32_t *lens, int64_t n, bool overlap, tb_rng *r,
                           const char *label) {
  memset(g, 0, sizeof *g);
  g->lens = lens;
  g->num_segments = (int32_t)n;
  g->csr = alloc_i32(n);
  g->sources = alloc_i32(n);
  int32_t *order = alloc_i32(n);
  if (!lens || !g->csr || !g->sources || !order) {
    free(order);
    CU_FAIL("host allocation");
    return false;
  }
  int64_t acc = 0;
  for (int64_t s = 0; s < n; ++s) g->csr[s] = (int32_t)acc, acc += lens[s];
  CU_ASSERT_FATAL(acc <= INT32_MAX);
  g->count = (int32_t)acc;
  if (overlap) {
    for (int64_t s = 0; s < n; ++s)
      g->sources[s] = (int32_t)tb_rng_range(r, 0, g->count - lens[s]);
  } else {
    for (int64_t s = 0; s < n; ++s) order[s] = (int32_t)s;
    for (int64_t s = n - 1; s > 0; --s) {
      const int64_t k = tb_rng_range(r, 0, s);
      const int32_t x = order[s];
      order[s] = order[k], order[k] = x;
    }
    int32_t at = 0;
    for (int64_t s = 0; s < n; ++s) g->sources[order[s]] = at, at += lens[order[s]];
  }
  free(order);
  snprintf(g->name, sizeof g->name, "%s: %d segments over %d items, %s sources", label,
           (int)g->num_segments, (int)g->count, overlap ? "overlapping" : "permuted");
  const size_t bytes = sizeof(int32_t) * (size_t)n;
  return upload(&g->d_csr, g->csr, bytes) && upload(&g->d_sources, g->sources, bytes);
}

typedef enum { SHAPE_SPEC, SHAPE_ONE_SEGMENT, SHAPE_LONG_MIDDLE } geo_shape;

typedef struct {
  geo_shape shape;
  tb_geometry_spec spec; /* SHAPE_SPEC */
  bool strict;           /* no empty segment (support_empty may be false) */
  int64_t total;         /* items asked for (strict SPEC shapes may add a few) */
} geo_case;

static geo_case spec_case(tb_geometry kind, double avg, bool strict, int64_t total) {
  geo_case c = {SHAPE_SPEC, tb_geometry_spec_default(kind, avg), strict, total};
  return c;
}

/* The layouts where segmented reduction goes wrong, for a box whose tile
 * holds T items. Strict ones first (*n_strict of them): strict generator
 * output has its zero counts raised to 1. The others have empty segments,
 * two of them at each end besides what the generator draws. Sizes are a few
 * tiles and, but for all_one (exactly 4 tiles), not a multiple of the tile. */
static int geo_cases(int64_t T, tb_rng *r, geo_case *out, int *n_strict) {
  const int64_t n = (4 * T + 13 > 3001 ? 4 * T + 13 : 3001) + tb_rng_range(r, 0, 63);
  int k = 0;
  out[k++] = spec_case(TB_GEOM_FIXED, 7.0, true, n);
  out[k++] = spec_case(TB_GEOM_UNIFORM, 16.0, true, n);
  out[k++] = spec_case(TB_GEOM_ALL_ONE, 1.0, true, 4 * T); /* a segment per item */
  out[k++] = spec_case(TB_GEOM_ONE_GIANT, 6.0, true, n);
  out[k++] = spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n); /* crossing every boundary */
  out[k++] = spec_case(TB_GEOM_FIXED, (double)(T - 1), true, n);
  out[k++] = (geo_case){SHAPE_ONE_SEGMENT, {0}, true, n};
  out[k++] = (geo_case){SHAPE_LONG_MIDDLE, {0}, true, n}; /* tiles without a segment end */
  *n_strict = k;
  out[k++] = spec_case(TB_GEOM_EMPTY_FRACTION, 3.0, false, n);
  out[k] = spec_case(TB_GEOM_ZERO_RUNS, 2.0, false, n);
  out[k++].spec.run_length = (double)(T / 2 + 1);
  out[k++] = spec_case(TB_GEOM_POWER_LAW, 8.0, false, n);
  out[k++] = spec_case(TB_GEOM_ZEROS_BUT_ONE, 1.0, false, n);
  return k;
}

static bool geom_make(geom *g, const geo_case *c, bool overlap, tb_rng *r) {
  memset(g, 0, sizeof *g);
  char label[96];
  int32_t *lens = NULL;
  int64_t n = 0;
  if (c->shape == SHAPE_ONE_SEGMENT) {
    n = 1, lens = alloc_i32(1);
    if (lens) lens[0] = (int32_t)c->total;
    snprintf(label, sizeof label, "one segment");
  } else if (c->shape == SHAPE_LONG_MIDDLE) {
    n = 4, lens = alloc_i32(4);
    if (lens) lens[0] = 1, lens[1] = (int32_t)c->total - 3, lens[2] = 1, lens[3] = 1;
    snprintf(label, sizeof label, "one segment over many tiles");
  } else {
    const int pad = c->strict ? 0 : 2;
    const int64_t num = tb_geometry_num_objects(&c->spec, c->total);
    CU_ASSERT_FATAL(num >= 0);
    n = num + 2 * pad;
    lens = calloc((size_t)(n > 0 ? n : 1), sizeof(int32_t));
    if (lens && !TB_ASSERT_OK(tb_geometry_counts(&c->spec, c->total, lens + pad, num, r),
                              tb_geometry_name(c->spec.kind))) {
      free(lens);
      return false;
    }
    if (lens && c->strict)
      for (int64_t s = 0; s < n; ++s) lens[s] = lens[s] > 0 ? lens[s] : 1;
    snprintf(label, sizeof label, "%s avg=%g%s", tb_geometry_name(c->spec.kind), c->spec.avg,
             c->strict ? "" : " +empty ends");
  }
  return geom_from_lens(g, lens, n, overlap, r, label);
}

/* ---- values and outputs ------------------------------------------------------------ */

/* n values of type t on the host and the device. */
typedef struct {
  tb_type t;
  tb_op op;
  int64_t n;
  void *host;
  tb_buffer dev;
} values;

static void values_free(values *v) {
  free(v->host);
  tb_buffer_free(&v->dev);
  memset(v, 0, sizeof *v);
}

/* Exact-in-any-order data for op (tb_fill_random), drawn as for `as_n` items
 * (>= n): the first n of them. */
static bool values_make_as(values *v, tb_type t, tb_op op, int64_t n, int64_t as_n, tb_rng *r) {
  memset(v, 0, sizeof *v);
  v->t = t, v->op = op, v->n = n;
  if (as_n < n) as_n = n;
  v->host = malloc((size_t)(as_n > 0 ? as_n : 1) * tb_type_size(t));
  if (!v->host) {
    CU_FAIL("host allocation");
    return false;
  }
  tb_fill_random(r, t, op, v->host, as_n);
  return upload(&v->dev, v->host, (size_t)n * tb_type_size(t));
}

static bool values_make(values *v, tb_type t, tb_op op, int64_t n, tb_rng *r) {
  return values_make_as(v, t, op, n, n, r);
}

/* Real-valued data, uniform in [-1, 1). */
static bool values_make_real(values *v, tb_type t, int64_t n, tb_rng *r) {
  memset(v, 0, sizeof *v);
  v->t = t, v->op = TB_OP_PLUS, v->n = n;
  v->host = malloc((size_t)(n > 0 ? n : 1) * tb_type_size(t));
  if (!v->host) return false;
  for (int64_t i = 0; i < n; ++i) {
    tb_value x;
    if (t == TB_FLOAT) x.f32 = (float)(2 * tb_rng_unit(r) - 1);
    else x.f64 = 2 * tb_rng_unit(r) - 1;
    tb_store(t, v->host, i, x);
  }
  return upload(&v->dev, v->host, (size_t)n * tb_type_size(t));
}

/* Results on the device and the host, 8 bytes per element whatever the type
 * (want holds doubles for floats, as tb_compare takes them), keys and a run
 * count for reduce-by-key. */
typedef struct {
  int64_t cap;
  void *got, *want;
  int32_t *got_keys, *want_keys;
  tb_buffer dev, dev_keys, dev_num;
} outputs;

static void outputs_free(outputs *o) {
  free(o->got), free(o->want), free(o->got_keys), free(o->want_keys);
  tb_buffer_free(&o->dev), tb_buffer_free(&o->dev_keys), tb_buffer_free(&o->dev_num);
  memset(o, 0, sizeof *o);
}

/* Room for n results. */
static bool outputs_reserve(outputs *o, int64_t n) {
  if (n < 1) n = 1;
  if (o->got && n <= o->cap) return true;
  outputs_free(o);
  o->cap = n;
  o->got = malloc(8 * (size_t)n), o->want = malloc(8 * (size_t)n);
  o->got_keys = alloc_i32(n), o->want_keys = alloc_i32(n);
  if (!o->got || !o->want || !o->got_keys || !o->want_keys) {
    CU_FAIL("host allocation");
    return false;
  }
  return TB_ASSERT_OK(tb_buffer_alloc(&o->dev, 8 * (size_t)n), "alloc out") &&
         TB_ASSERT_OK(tb_buffer_alloc(&o->dev_keys, 4 * (size_t)n), "alloc keys out") &&
         TB_ASSERT_OK(tb_buffer_alloc(&o->dev_num, 8), "alloc count");
}

static bool fetch(const tb_buffer *b, void *host, size_t bytes, const char *what) {
  return bytes == 0 || TB_ASSERT_OK(tb_buffer_download(b, host, bytes), what);
}

/* A reference of type t, as tb_compare takes it: floats widened to double in
 * place (want holds 8 bytes per element). Walking down, float i is read
 * before double i overwrites floats 2i and 2i + 1, which lie at or above i
 * and were read already. */
static void widen(tb_type t, void *want, int64_t n) {
  if (t != TB_FLOAT) return;
  for (int64_t i = n - 1; i >= 0; --i) {
    const double d = ((const float *)want)[i];
    ((double *)want)[i] = d;
  }
}

/* got (n elements of t) against want (t for integers, double for floats);
 * bound NULL: exact. */
static bool compare(tb_type t, const void *got, const void *want, const double *bound, int64_t n,
                    const char *what) {
  return TB_ASSERT_OK(tb_compare(t, got, want, bound, n, what), what);
}

/* Every result is the identity of op. */
static bool all_identity(tb_type t, tb_op op, const void *got, int64_t n, const char *what) {
  const tb_value id = tb_identity(t, op);
  for (int64_t i = 0; i < n; ++i) {
    const tb_value x = tb_load(t, got, i);
    if (memcmp(&x, &id, tb_type_size(t)) != 0)
      return TB_ASSERT_OK(tb_fail(TB_ERR_MISMATCH, "%s: result %lld is %g, not the identity %g",
                                  what, (long long)i, tb_test_as_double(t, x),
                                  tb_test_as_double(t, id)),
                          what);
  }
  CU_PASS(what);
  return true;
}

/* ---- segmented reduction ------------------------------------------------------------ */

/* The reference into o->want: exact in t for integers, in higher precision
 * for floats. */
static bool segreduce_reference(const geom *g, const values *v, bool indirect, outputs *o,
                                double *sum_abs) {
  const tb_value id = tb_identity(v->t, v->op);
  const int32_t *src = indirect ? g->sources : NULL;
  const tb_status st =
      tb_type_is_float(v->t)
          ? tb_cpu_segreduce_csr_f64(v->t, v->op, v->host, g->count, g->csr, g->num_segments, src,
                                     id, o->want, sum_abs)
          : tb_cpu_segreduce_csr(v->t, v->op, v->host, g->count, g->csr, g->num_segments, src, id,
                                 o->want);
  return TB_ASSERT_OK(st, "cpu reference");
}

/* Poisons, runs tb_segreduce_csr and downloads; what gets the case. */
static bool run_segreduce(const geom *g, const values *v, bool indirect, bool support_empty,
                          const tb_launch_box *box, tb_buffer *scratch, outputs *o, char *what,
                          size_t what_cap) {
  char form[48];
  snprintf(form, sizeof form, "%s%s", indirect ? "indirect" : "direct",
           support_empty ? " support_empty" : "");
  describe(what, what_cap, "segreduce", v->t, v->op, form, box, g->name);
  const size_t bytes = (size_t)g->num_segments * tb_type_size(v->t);
  return outputs_reserve(o, g->num_segments) && poison(o->dev.ptr, bytes) &&
         TB_ASSERT_OK(tb_segreduce_csr(v->t, v->op, v->dev.ptr, g->count, g->d_csr.ptr,
                                       g->num_segments, indirect ? g->d_sources.ptr : NULL,
                                       support_empty, o->dev.ptr, box, scratch, 0),
                      what) &&
         fetch(&o->dev, o->got, bytes, what);
}

static bool check_segreduce(const geom *g, const values *v, bool indirect, bool support_empty,
                            const tb_launch_box *box, tb_buffer *scratch, outputs *o) {
  char what[400];
  return run_segreduce(g, v, indirect, support_empty, box, scratch, o, what, sizeof what) &&
         segreduce_reference(g, v, indirect, o, NULL) &&
         compare(v->t, o->got, o->want, NULL, g->num_segments, what);
}

/* Every type x operator x box (and the default) x geometry, direct and
 * indirect, support_empty both ways where the geometry allows it. */
static void test_segreduce_every_case(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid && failures < kMaxFailures; ++b) {
      if (b >= 0 && !box_selected(b, n_grid)) continue;
      const tb_launch_box *box = b < 0 ? NULL : &grid[b];
      geo_case cases[16];
      int n_strict = 0;
      const int n_cases = geo_cases(tile_of((tb_type)t, box), &r, cases, &n_strict);
      for (int c = 0; c < n_cases && failures < kMaxFailures; ++c) {
        geom g;
        if (!geom_make(&g, &cases[c], c % 2 == 1, &r)) {
          ++failures;
          geom_free(&g);
          continue;
        }
        /* Odd boxes use a scratch allocated inside the call. */
        tb_buffer *s = b % 2 ? NULL : &scratch;
        for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
          if (!op_swept_at((tb_type)t, op, box)) continue;
          values v;
          if (!values_make(&v, (tb_type)t, (tb_op)op, g.count, &r)) ++failures;
          else
            for (int indirect = 0; indirect < 2; ++indirect)
              for (int se = 0; se < 2; ++se)
                if (mode_swept(cases[c].strict, se, indirect) &&
                    !check_segreduce(&g, &v, indirect, se, box, s, &o))
                  ++failures;
          values_free(&v);
        }
        geom_free(&g);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* Integer wrap-around (random bits summed and multiplied), a single item,
 * and count == 0 with segments: every result the identity. */
static void test_segreduce_edges(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 11);
  outputs o = {0};
  tb_launch_box grid[kMaxBoxes];
  const int n_grid = grid_of(TB_INT32, grid);
  /* Wrap-around: all bits random, plus and multiplies (short segments, so
   * that products do not all end in zero bits). */
  static const tb_op wrap_ops[] = {TB_OP_PLUS, TB_OP_MULTIPLIES};
  for (int t = TB_INT32; t <= TB_INT64; ++t) {
    geo_case c = spec_case(TB_GEOM_UNIFORM, 6.0, true, 20011);
    geom g;
    if (geom_make(&g, &c, false, &r)) {
      values v;
      if (values_make(&v, (tb_type)t, TB_OP_BIT_XOR, g.count, &r)) {
        snprintf(g.name + strlen(g.name), sizeof g.name - strlen(g.name), ", random bits");
        for (int op = 0; op < 2; ++op) {
          v.op = wrap_ops[op];
          check_segreduce(&g, &v, false, false, NULL, NULL, &o);
          const bool at = n_grid > 0 && op_at_box((tb_type)t, v.op, &grid[0]);
          check_segreduce(&g, &v, true, true, at ? &grid[0] : NULL, NULL, &o);
        }
      }
      values_free(&v);
    }
    geom_free(&g);
  }
  /* One item in one segment. */
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    int32_t *lens = alloc_i32(1);
    if (lens) lens[0] = 1;
    geom g;
    values v;
    if (geom_from_lens(&g, lens, 1, false, &r, "one item") &&
        values_make(&v, (tb_type)t, TB_OP_MAX, 1, &r)) {
      check_segreduce(&g, &v, false, false, NULL, NULL, &o);
      check_segreduce(&g, &v, true, true, NULL, NULL, &o);
    }
    values_free(&v);
    geom_free(&g);
  }
  /* count == 0: 1, 7 and 5000 empty segments, every op, the default and
   * the first box. */
  static const int32_t nums[] = {1, 7, 5000};
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; ++k) {
    int32_t *lens = calloc((size_t)nums[k], sizeof(int32_t));
    geom g;
    if (!geom_from_lens(&g, lens, nums[k], false, &r, "no items")) {
      geom_free(&g);
      continue;
    }
    for (int t = 0; t < TB_TYPE_COUNT; ++t)
      for (int op = 0; op < TB_OP_COUNT; ++op) {
        if (!op_fits((tb_type)t, op)) continue;
        values v;
        if (values_make(&v, (tb_type)t, (tb_op)op, 0, &r))
          for (int indirect = 0; indirect < 2; ++indirect) {
            char what[400];
            const bool at = indirect && n_grid > 0 && op_at_box((tb_type)t, op, &grid[0]);
            if (run_segreduce(&g, &v, indirect, true, at ? &grid[0] : NULL, NULL, &o, what,
                              sizeof what))
              all_identity((tb_type)t, (tb_op)op, o.got, g.num_segments, what);
          }
        values_free(&v);
      }
    geom_free(&g);
  }
  outputs_free(&o);
}

/* The tuned default (NULL and {0, 0}) on up to 2^22 items, plus. Average
 * lengths of 4095 and 4096 lie either side of where 8-byte values change
 * from the one-pass run core to the tile core (kRunsBelowLength in
 * kernels/segreduce.cu). */
static void test_segreduce_default_large(void) {
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const tb_launch_box zero = {0, 0};
  const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 16.0, true, n),
                            spec_case(TB_GEOM_FIXED, 4095.0, true, n),
                            spec_case(TB_GEOM_FIXED, 4096.0, true, n),
                            spec_case(TB_GEOM_ALL_ONE, 1.0, true, n),
                            spec_case(TB_GEOM_ONE_GIANT, 64.0, true, n),
                            spec_case(TB_GEOM_POWER_LAW, 64.0, false, n),
                            spec_case(TB_GEOM_ZERO_RUNS, 4.0, false, n)};
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 1);
  outputs o = {0};
  tb_buffer scratch = {0};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    geom g;
    if (geom_make(&g, &cases[c], c % 2 == 1, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        values v;
        if (values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r))
          for (int indirect = 0; indirect < 2; ++indirect)
            check_segreduce(&g, &v, indirect, !cases[c].strict || indirect, indirect ? &zero : NULL,
                            indirect ? NULL : &scratch, &o);
        values_free(&v);
      }
    geom_free(&g);
  }
  tb_buffer_free(&scratch);
  outputs_free(&o);
}

/* ---- reduce-by-key ----------------------------------------------------------------- */

/* Keys whose runs have the lengths of a geometry's non-empty segments. */
typedef struct {
  char name[260];
  int32_t count;
  int32_t *keys;
  tb_buffer d_keys;
} keyset;

static void keyset_free(keyset *k) {
  free(k->keys);
  tb_buffer_free(&k->d_keys);
  memset(k, 0, sizeof *k);
}

/* mode 0: random int32 keys; 1: alternating 0 / 1 (every key comes back);
 * 2: keys from {0..3}; 3: ascending run numbers. Consecutive runs always get
 * different keys. */
static const char *const kKeyModes[] = {"random keys", "alternating 0/1 keys", "keys in 0..3",
                                        "ascending keys"};

static bool keyset_make(keyset *k, const geom *g, int mode, tb_rng *r) {
  memset(k, 0, sizeof *k);
  k->count = g->count;
  k->keys = alloc_i32(g->count);
  if (!k->keys) return false;
  int32_t run = 0, prev = 0, at = 0;
  for (int32_t s = 0; s < g->num_segments; ++s) {
    if (g->lens[s] == 0) continue;
    int32_t key = run;
    if (mode == 0 || mode == 2) {
      do {
        key = mode == 0 ? (int32_t)(uint32_t)tb_rng_next(r) : (int32_t)tb_rng_range(r, 0, 3);
      } while (run > 0 && key == prev);
    } else if (mode == 1) {
      key = run % 2;
    }
    for (int32_t i = 0; i < g->lens[s]; ++i) k->keys[at++] = key;
    prev = key, ++run;
  }
  snprintf(k->name, sizeof k->name, "%s, %s", g->name, kKeyModes[mode & 3]);
  return upload(&k->d_keys, k->keys, sizeof(int32_t) * (size_t)k->count);
}

/* The reference into o->want and o->want_keys; *runs the run count. */
static bool rbk_reference(const keyset *k, const values *v, outputs *o, int32_t *runs,
                          double *sum_abs) {
  if (!TB_ASSERT_OK(tb_cpu_reduce_by_key(v->t, v->op, k->keys, v->host, k->count, o->want,
                                         o->want_keys, runs),
                    "cpu reduce_by_key"))
    return false;
  if (!tb_type_is_float(v->t)) return true;
  int32_t *csr = alloc_i32(k->count), n = 0;
  const bool ok =
      csr && TB_ASSERT_OK(tb_cpu_keys_to_csr(k->keys, k->count, csr, &n), "cpu keys_to_csr") &&
      TB_ASSERT_OK(tb_cpu_segreduce_csr_f64(v->t, v->op, v->host, k->count, csr, n, NULL,
                                            tb_identity(v->t, v->op), o->want, sum_abs),
                   "cpu segreduce_f64");
  free(csr);
  return ok;
}

/* One tb_reduce_by_key. variant bit 0: keys out; bits 1-2: the run count to
 * the host (0), the device (1), both (2), neither (3). */
static bool check_rbk(const keyset *k, const values *v, int variant, const tb_launch_box *box,
                      tb_buffer *scratch, outputs *o) {
  const bool with_keys = variant & 1;
  const int where = (variant >> 1) & 3;
  const bool to_host = where == 0 || where == 2, to_dev = where == 1 || where == 2;
  static const char *const wheres[] = {"count to host", "count to device", "count to both",
                                       "count nowhere"};
  char form[64], what[480];
  snprintf(form, sizeof form, "%s, %s", with_keys ? "keys out" : "no keys out", wheres[where]);
  describe(what, sizeof what, "reduce_by_key", v->t, v->op, form, box, k->name);
  const size_t sz = tb_type_size(v->t);
  int64_t h_runs = -1;
  int32_t d_runs = -1, runs = 0;
  if (!outputs_reserve(o, k->count) || !poison(o->dev.ptr, (size_t)k->count * sz) ||
      !poison(o->dev_keys.ptr, sizeof(int32_t) * (size_t)k->count) ||
      !poison(o->dev_num.ptr, sizeof(int32_t)))
    return false;
  if (!TB_ASSERT_OK(tb_reduce_by_key(v->t, v->op, k->d_keys.ptr, v->dev.ptr, k->count,
                                     with_keys ? o->dev_keys.ptr : NULL, o->dev.ptr,
                                     to_host ? &h_runs : NULL, to_dev ? o->dev_num.ptr : NULL, box,
                                     scratch, 0),
                    what) ||
      !rbk_reference(k, v, o, &runs, NULL))
    return false;
  bool ok = true;
  if (to_host) ok = count_matches(h_runs, runs, what, "host count") && ok;
  if (to_dev)
    ok = fetch(&o->dev_num, &d_runs, sizeof d_runs, what) &&
         count_matches(d_runs, runs, what, "device count") && ok;
  ok = fetch(&o->dev, o->got, (size_t)runs * sz, what) &&
       compare(v->t, o->got, o->want, NULL, runs, what) && ok;
  if (with_keys) {
    char kwhat[520];
    snprintf(kwhat, sizeof kwhat, "%s (keys)", what);
    ok = fetch(&o->dev_keys, o->got_keys, sizeof(int32_t) * (size_t)runs, kwhat) &&
         compare(TB_INT32, o->got_keys, o->want_keys, NULL, runs, kwhat) && ok;
  }
  return ok;
}

/* Every type x operator x box x run-length geometry x key pattern; the
 * output options rotate over the cases. */
static void test_reduce_by_key_every_case(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 2);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0, variant = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid && failures < kMaxFailures; ++b) {
      if (b >= 0 && !box_selected(b, n_grid)) continue;
      const tb_launch_box *box = b < 0 ? NULL : &grid[b];
      geo_case cases[16];
      int n_strict = 0;
      const int n_cases = geo_cases(tile_of((tb_type)t, box), &r, cases, &n_strict);
      for (int c = 0; c < n_cases && failures < kMaxFailures; ++c) {
        geom g;
        keyset k;
        memset(&k, 0, sizeof k);
        if (!geom_make(&g, &cases[c], false, &r) || !keyset_make(&k, &g, (c + b + 1) % 4, &r)) {
          ++failures;
        } else {
          for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
            if (!op_swept((tb_type)t, op) || !by_key_op_at_box((tb_type)t, op, box)) continue;
            values v;
            if (!values_make(&v, (tb_type)t, (tb_op)op, k.count, &r) ||
                !check_rbk(&k, &v, variant++ % 8, box, b % 2 ? NULL : &scratch, &o))
              ++failures;
            values_free(&v);
          }
        }
        keyset_free(&k);
        geom_free(&g);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* The look-back over 10^4 random sizes per type (500 under --quick, 40
 * under a sanitizer): log-uniform up to 2^20 items, one case in a hundred
 * up to 2^23 (thousands of tiles), mean run lengths 1 to 4096, on the tuned
 * default and on the box with the smallest tile, plus. */
static void test_reduce_by_key_random_sizes(void) {
  const int cases = tb_test.sanitizer ? 40 : tb_test.quick ? 500 : 10000;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 4);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    const tb_launch_box *smallest = &grid[0];
    for (int b = 1; b < n_grid; ++b)
      if (grid[b].nt * grid[b].vt < smallest->nt * smallest->vt) smallest = &grid[b];
    for (int i = 0; i < cases && failures < kMaxFailures; ++i) {
      const int max_log = tb_rng_range(&r, 0, 99) == 0 ? 23 : 20;
      const int64_t n =
          1 + (int64_t)(tb_rng_next(&r) % ((uint64_t)1 << tb_rng_range(&r, 0, max_log)));
      const int64_t len = (int64_t)1 << tb_rng_range(&r, 0, 12);
      const geo_case c = spec_case(TB_GEOM_UNIFORM, (double)(len < n ? len : n), true, n);
      geom g;
      keyset k;
      memset(&k, 0, sizeof k);
      if (!geom_make(&g, &c, false, &r) || !keyset_make(&k, &g, i % 4, &r)) {
        ++failures;
      } else {
        values v;
        if (!values_make(&v, (tb_type)t, TB_OP_PLUS, k.count, &r) ||
            !check_rbk(&k, &v, i % 8, i % 2 ? smallest : NULL, &scratch, &o))
          ++failures;
        values_free(&v);
      }
      keyset_free(&k);
      geom_free(&g);
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* count == 0 gives no runs (to the host and the device); the tuned default on
 * up to 2^22 items with plus. */
static void test_reduce_by_key_empty_and_large(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 3);
  outputs o = {0};
  if (outputs_reserve(&o, 16)) {
    for (int t = 0; t < TB_TYPE_COUNT; ++t) {
      int64_t h_runs = -1;
      int32_t d_runs = -1;
      char what[160];
      snprintf(what, sizeof what, "reduce_by_key %s count=0 (seed %llu)", tb_type_name((tb_type)t),
               (unsigned long long)tb_test.seed);
      if (poison(o.dev_num.ptr, 4) &&
          TB_ASSERT_OK(tb_reduce_by_key((tb_type)t, TB_OP_PLUS, o.dev_keys.ptr, o.dev.ptr, 0,
                                        o.dev_keys.ptr, o.dev.ptr, &h_runs, o.dev_num.ptr, NULL,
                                        NULL, 0),
                       what) &&
          fetch(&o.dev_num, &d_runs, sizeof d_runs, what)) {
        count_matches(h_runs, 0, what, "host count");
        count_matches(d_runs, 0, what, "device count");
      }
    }
  }
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 16.0, true, n),
                            spec_case(TB_GEOM_ALL_ONE, 1.0, true, n),
                            spec_case(TB_GEOM_POWER_LAW, 64.0, false, n)};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    geom g;
    keyset k;
    memset(&k, 0, sizeof k);
    if (geom_make(&g, &cases[c], false, &r) && keyset_make(&k, &g, (int)c, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        values v;
        if (values_make(&v, (tb_type)t, TB_OP_PLUS, k.count, &r)) check_rbk(&k, &v, 5, NULL, NULL, &o);
        values_free(&v);
      }
    keyset_free(&k);
    geom_free(&g);
  }
  outputs_free(&o);
}

/* ---- SpMV -------------------------------------------------------------------------- */

/* A CSR matrix: rows from a geometry (nz = g.count), random columns in
 * [0, x_len). */
typedef struct {
  geom g;
  int32_t x_len;
  int32_t *cols;
  tb_buffer d_cols;
} spmat;

static void spmat_free(spmat *m) {
  geom_free(&m->g);
  free(m->cols);
  tb_buffer_free(&m->d_cols);
  memset(m, 0, sizeof *m);
}

static bool random_cols(tb_rng *r, int32_t *cols, int32_t nz, int32_t x_len) {
  for (int32_t i = 0; i < nz; ++i) cols[i] = (int32_t)tb_rng_range(r, 0, x_len - 1);
  return true;
}

static bool spmat_make(spmat *m, const geo_case *c, bool overlap, int32_t x_len, tb_rng *r) {
  memset(m, 0, sizeof *m);
  if (!geom_make(&m->g, c, overlap, r)) return false;
  m->x_len = x_len;
  m->cols = alloc_i32(m->g.count);
  if (!m->cols) return false;
  random_cols(r, m->cols, m->g.count, x_len);
  snprintf(m->g.name + strlen(m->g.name), sizeof m->g.name - strlen(m->g.name), ", x_len=%d",
           (int)x_len);
  return upload(&m->d_cols, m->cols, sizeof(int32_t) * (size_t)m->g.count);
}

/* SpMV data for (t, add_op): the matrix from {1, -1} (floats) or
 * {1, -1, 2, 3} (integers), x drawn for add_op as for a reduction of
 * max(x_len, nz) terms, so every row's partial results are exact. */
typedef struct {
  values matrix, x;
} spvals;

static void spvals_free(spvals *sv) {
  values_free(&sv->matrix);
  values_free(&sv->x);
}

static bool spvals_make(spvals *sv, tb_type t, tb_op add_op, const spmat *m, tb_rng *r) {
  memset(sv, 0, sizeof *sv);
  const int64_t nz = m->g.count;
  return values_make(&sv->matrix, t, TB_OP_MULTIPLIES, nz, r) &&
         values_make_as(&sv->x, t, add_op, m->x_len, nz, r);
}

/* The reference into o->want (type t, widened for floats). */
static bool spmv_reference(const spmat *m, const spvals *sv, tb_op add_op, bool binary,
                           bool indirect, outputs *o) {
  const tb_type t = sv->x.t;
  const geom *g = &m->g;
  const int32_t *src = indirect ? g->sources : NULL;
  const tb_value id = tb_identity(t, add_op);
  const tb_status st =
      binary ? tb_cpu_spmv_csr(t, TB_OP_MULTIPLIES, add_op, sv->matrix.host, m->cols, g->count,
                               g->csr, g->num_segments, src, sv->x.host, m->x_len, id, o->want)
             : tb_cpu_spmv_csr_unary(t, add_op, m->cols, g->count, g->csr, g->num_segments, src,
                                     sv->x.host, m->x_len, id, o->want);
  widen(t, o->want, g->num_segments);
  return TB_ASSERT_OK(st, "cpu spmv");
}

static bool check_spmv(const spmat *m, const spvals *sv, tb_op add_op, bool binary, bool indirect,
                       bool support_empty, const tb_launch_box *box, tb_buffer *scratch,
                       outputs *o) {
  const tb_type t = sv->x.t;
  const geom *g = &m->g;
  char form[64], what[480];
  snprintf(form, sizeof form, "%s %s%s", binary ? "binary" : "unary",
           indirect ? "indirect" : "direct", support_empty ? " support_empty" : "");
  describe(what, sizeof what, "spmv", t, add_op, form, box, g->name);
  const size_t bytes = (size_t)g->num_segments * tb_type_size(t);
  if (!outputs_reserve(o, g->num_segments) || !poison(o->dev.ptr, bytes)) return false;
  const int32_t *src = indirect ? g->d_sources.ptr : NULL;
  const tb_status st =
      binary ? tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, add_op, sv->matrix.dev.ptr, m->d_cols.ptr,
                                  g->count, g->d_csr.ptr, g->num_segments, src, sv->x.dev.ptr,
                                  m->x_len, support_empty, o->dev.ptr, box, scratch, 0)
             : tb_spmv_csr_unary(t, add_op, m->d_cols.ptr, g->count, g->d_csr.ptr,
                                 g->num_segments, src, sv->x.dev.ptr, m->x_len, support_empty,
                                 o->dev.ptr, box, scratch, 0);
  return TB_ASSERT_OK(st, what) && fetch(&o->dev, o->got, bytes, what) &&
         spmv_reference(m, sv, add_op, binary, indirect, o) &&
         compare(t, o->got, o->want, NULL, g->num_segments, what);
}

/* Every type x add operator x box x a few row geometries, unary and binary,
 * direct and indirect, support_empty both ways where allowed. */
static void test_spmv_every_case(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 4);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid && failures < kMaxFailures; ++b) {
      if (b >= 0 && !box_selected(b, n_grid)) continue;
      const tb_launch_box *box = b < 0 ? NULL : &grid[b];
      const int64_t T = tile_of((tb_type)t, box), n = 3 * T + 17;
      const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 12.0, true, n),
                                spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n),
                                spec_case(TB_GEOM_POWER_LAW, 8.0, false, n),
                                spec_case(TB_GEOM_ZEROS_BUT_ONE, 2.0, false, n)};
      for (int c = 0; c < 4 && failures < kMaxFailures; ++c) {
        spmat m;
        const int32_t x_len = c == 3 ? 1 : (int32_t)tb_rng_range(&r, 2, 5000);
        if (!spmat_make(&m, &cases[c], c % 2 == 0, x_len, &r)) {
          ++failures;
          spmat_free(&m);
          continue;
        }
        for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
          if (!op_swept_at((tb_type)t, op, box)) continue;
          spvals sv;
          if (!spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r)) ++failures;
          else
            for (int binary = 0; binary < 2; ++binary)
              for (int indirect = 0; indirect < 2; ++indirect)
                for (int se = 0; se < 2; ++se)
                  if (mode_swept(cases[c].strict, se, indirect ^ binary) &&
                      !check_spmv(&m, &sv, (tb_op)op, binary, indirect, se, box,
                                  (b + binary) % 2 ? NULL : &scratch, &o))
                    ++failures;
          spvals_free(&sv);
        }
        spmat_free(&m);
      }
    }
  }
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* nz == 0 over several rows: every row the identity; the tuned default on a
 * large matrix; a mul_op other than multiplies is refused. */
static void test_spmv_edges_and_large(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 5);
  outputs o = {0};
  {
    int32_t *lens = calloc(300, sizeof(int32_t));
    spmat m;
    memset(&m, 0, sizeof m);
    if (geom_from_lens(&m.g, lens, 300, false, &r, "no nonzeros")) {
      m.x_len = 10;
      m.cols = alloc_i32(1);
      if (upload(&m.d_cols, m.cols, 0))
        for (int t = 0; t < TB_TYPE_COUNT; ++t)
          for (int op = TB_OP_PLUS; op <= TB_OP_MAX; ++op) {
            spvals sv;
            if (spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r))
              for (int binary = 0; binary < 2; ++binary)
                for (int indirect = 0; indirect < 2; ++indirect)
                  check_spmv(&m, &sv, (tb_op)op, binary, indirect, true, NULL, NULL, &o);
            spvals_free(&sv);
          }
    }
    spmat_free(&m);
  }
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 16.0, true, n / 2),
                            spec_case(TB_GEOM_POWER_LAW, 32.0, false, n / 2)};
  for (int c = 0; c < 2; ++c) {
    spmat m;
    if (spmat_make(&m, &cases[c], c == 1, 1 << 16, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        spvals sv;
        if (spvals_make(&sv, (tb_type)t, TB_OP_PLUS, &m, &r))
          for (int binary = 0; binary < 2; ++binary)
            for (int indirect = 0; indirect < 2; ++indirect)
              check_spmv(&m, &sv, TB_OP_PLUS, binary, indirect, !cases[c].strict || indirect,
                         NULL, NULL, &o);
        spvals_free(&sv);
      }
    spmat_free(&m);
  }
  /* mul_op must be multiplies. */
  {
    const geo_case c = spec_case(TB_GEOM_UNIFORM, 4.0, true, 1000);
    spmat m;
    spvals sv;
    if (spmat_make(&m, &c, false, 100, &r) && spvals_make(&sv, TB_INT32, TB_OP_PLUS, &m, &r) &&
        outputs_reserve(&o, m.g.num_segments)) {
      for (int mul = 0; mul < TB_OP_COUNT; ++mul) {
        if (mul == TB_OP_MULTIPLIES) continue;
        char needle[96]; /* spmv binary with mul_op `mul` */
        snprintf(needle, sizeof needle, "mul_op %s: ", tb_op_name((tb_op)mul));
        tb_clear_error();
        const tb_status st = tb_spmv_csr_binary(TB_INT32, (tb_op)mul, TB_OP_PLUS,
                                                sv.matrix.dev.ptr, m.d_cols.ptr, m.g.count,
                                                m.g.d_csr.ptr, m.g.num_segments, NULL,
                                                sv.x.dev.ptr, m.x_len, false, o.dev.ptr, NULL,
                                                NULL, 0);
        TB_ASSERT_REJECTS(st, "tb_spmv_csr_binary", needle, "the kernels implement multiplies",
                          NULL);
      }
    }
    spvals_free(&sv);
    spmat_free(&m);
  }
  outputs_free(&o);
}

/* ---- real-valued data: the rounding bound -------------------------------------------- */

/* Rounding depth of one segment's result on a box: a thread folds at most VT
 * items before the CTA scan and at most VT more after it (the walk to the
 * segment's end), the CTA's scan adds at most 2 log2(NT) levels, the carry
 * one rounding per tile the segment crosses, and a look-back 5 levels (a
 * warp's reduction of 32 tiles) per 32 tiles; 8 more for the final folds of
 * carry-in and partial. */
static int64_t rounding_depth(tb_launch_box b, int64_t count) {
  if (b.nt <= 0 || b.vt <= 0) return count + 1; /* no box: any order of count terms */
  const int64_t tile = (int64_t)b.nt * b.vt, tiles = (count + tile - 1) / tile;
  return 2 * b.vt + 2 * ceil_log2(b.nt) + tiles + 5 * (tiles / 32 + 1) + 8;
}

/* The same for a call with box; NULL (the tuned default, which the API may
 * choose per call) takes the worst box of the grid. */
static int64_t rounding_depth_for(tb_type t, const tb_launch_box *box, int64_t count) {
  if (box) return rounding_depth(*box, count);
  tb_launch_box grid[kMaxBoxes];
  const int n = grid_of(t, grid);
  int64_t worst = rounding_depth(tb_segreduce_default_box(t), count);
  for (int i = 0; i < n; ++i) {
    const int64_t d = rounding_depth(grid[i], count);
    worst = d > worst ? d : worst;
  }
  return worst;
}

static void check_real_bound(tb_type t, const double *sum_abs, int64_t depth, int64_t n,
                             const void *got, const void *want, const char *what) {
  double *bound = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!bound) return;
  for (int64_t s = 0; s < n; ++s) bound[s] = tb_sum_error_bound(t, depth, sum_abs[s]);
  compare(t, got, want, bound, n, what);
  free(bound);
}

/* Uniform [-1, 1) floats and doubles: segreduce (direct, indirect, both
 * support_empty modes), reduce-by-key and binary SpMV with plus against the
 * higher-precision references and tb_sum_error_bound. */
static void test_real_data_rounding_bound(void) {
  const int64_t n = tb_test.quick ? 1 << 15 : 1 << 21;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 6);
  outputs o = {0};
  for (int t = TB_FLOAT; t <= TB_DOUBLE; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    const tb_launch_box *boxes[3] = {NULL, n_grid > 0 ? &grid[0] : NULL,
                                     n_grid > 0 ? &grid[n_grid - 1] : NULL};
    const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 700.0, true, n),
                              spec_case(TB_GEOM_POWER_LAW, 300.0, false, n)};
    for (int c = 0; c < 2; ++c) {
      spmat m;
      values v, mat, x;
      memset(&v, 0, sizeof v), memset(&mat, 0, sizeof mat), memset(&x, 0, sizeof x);
      double *sum_abs = NULL;
      if (spmat_make(&m, &cases[c], c == 1, 4096, &r) && values_make_real(&v, (tb_type)t, n, &r) &&
          values_make_real(&mat, (tb_type)t, m.g.count, &r) &&
          values_make_real(&x, (tb_type)t, m.x_len, &r) &&
          outputs_reserve(&o, m.g.count > m.g.num_segments ? m.g.count : m.g.num_segments) &&
          (sum_abs = malloc(sizeof(double) * (size_t)o.cap)) != NULL) {
        const geom *g = &m.g;
        CU_ASSERT_EQUAL(g->count, n); /* neither geometry adds items */
        for (int b = 0; b < 3 && g->count == n; ++b) {
          const int64_t depth = rounding_depth_for((tb_type)t, boxes[b], g->count);
          for (int indirect = 0; indirect < 2; ++indirect)
            for (int se = cases[c].strict ? 0 : 1; se < 2; ++se) {
              char what[400];
              if (run_segreduce(g, &v, indirect, se, boxes[b], NULL, &o, what, sizeof what) &&
                  segreduce_reference(g, &v, indirect, &o, sum_abs))
                check_real_bound((tb_type)t, sum_abs, depth, g->num_segments, o.got, o.want,
                                 what);
            }
          /* Binary SpMV: one more rounding, the product. */
          for (int indirect = 0; indirect < 2; ++indirect) {
            char what[400];
            describe(what, sizeof what, "spmv", (tb_type)t, TB_OP_PLUS,
                     indirect ? "binary indirect, real data" : "binary direct, real data",
                     boxes[b], g->name);
            const size_t bytes = (size_t)g->num_segments * tb_type_size((tb_type)t);
            if (poison(o.dev.ptr, bytes) &&
                TB_ASSERT_OK(tb_spmv_csr_binary((tb_type)t, TB_OP_MULTIPLIES, TB_OP_PLUS,
                                                mat.dev.ptr, m.d_cols.ptr, g->count, g->d_csr.ptr,
                                                g->num_segments,
                                                indirect ? g->d_sources.ptr : NULL, x.dev.ptr,
                                                m.x_len, !cases[c].strict, o.dev.ptr, boxes[b],
                                                NULL, 0),
                             what) &&
                fetch(&o.dev, o.got, bytes, what) &&
                TB_ASSERT_OK(tb_cpu_spmv_csr_f64((tb_type)t, mat.host, m.cols, g->count, g->csr,
                                                 g->num_segments, indirect ? g->sources : NULL,
                                                 x.host, m.x_len, o.want, sum_abs),
                             "cpu spmv f64"))
              check_real_bound((tb_type)t, sum_abs, depth + 1, g->num_segments, o.got, o.want,
                               what);
          }
          /* Reduce-by-key over the geometry's runs. */
          keyset k;
          if (keyset_make(&k, g, 0, &r)) {
            char what[480];
            describe(what, sizeof what, "reduce_by_key", (tb_type)t, TB_OP_PLUS, "real data",
                     boxes[b], k.name);
            int64_t runs = -1;
            int32_t want_runs = 0;
            if (TB_ASSERT_OK(tb_reduce_by_key((tb_type)t, TB_OP_PLUS, k.d_keys.ptr, v.dev.ptr,
                                              k.count, NULL, o.dev.ptr, &runs, NULL, boxes[b],
                                              NULL, 0),
                             what) &&
                rbk_reference(&k, &v, &o, &want_runs, sum_abs) &&
                count_matches(runs, want_runs, what, "host count") &&
                fetch(&o.dev, o.got, (size_t)want_runs * tb_type_size((tb_type)t), what))
              check_real_bound((tb_type)t, sum_abs, depth, want_runs, o.got, o.want, what);
          }
          keyset_free(&k);
        }
      }
      free(sum_abs);
      values_free(&v), values_free(&mat), values_free(&x);
      spmat_free(&m);
    }
  }
  outputs_free(&o);
}

/* ---- preprocess + apply ------------------------------------------------------------- */

/* One plan of each kind per type x box (the default, the first and the last
 * of the grid) x geometry, each applied to several value arrays (and, for
 * SpMV, several column arrays) and every operator. */
static void test_preprocess_apply(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 7);
  tb_buffer scratch = {0};
  outputs o = {0};
  int failures = 0;
  const int reps = tb_test.quick ? 1 : 2; /* applications per plan and operator */
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = grid_of((tb_type)t, grid);
    const tb_launch_box *boxes[3] = {NULL, n_grid > 0 ? &grid[0] : NULL,
                                     n_grid > 0 ? &grid[n_grid - 1] : NULL};
    for (int b = 0; b < 3 && failures < kMaxFailures; ++b) {
      const int64_t T = tile_of((tb_type)t, boxes[b]), n = 3 * T + 29;
      const geo_case cases[] = {spec_case(TB_GEOM_UNIFORM, 9.0, true, n),
                                spec_case(TB_GEOM_FIXED, (double)(T + 1), true, n),
                                spec_case(TB_GEOM_POWER_LAW, 8.0, false, n),
                                spec_case(TB_GEOM_ZEROS_BUT_ONE, 1.0, false, n)};
      for (int c = 0; c < 4 && failures < kMaxFailures; ++c) {
        const bool se = !cases[c].strict || c == 1;
        char form[64];
        spmat m;
        keyset k;
        memset(&k, 0, sizeof k);
        if (!spmat_make(&m, &cases[c], false, (int32_t)tb_rng_range(&r, 1, 3000), &r) ||
            !keyset_make(&k, &m.g, c, &r) ||
            !outputs_reserve(&o, m.g.count > m.g.num_segments ? m.g.count : m.g.num_segments)) {
          ++failures;
          keyset_free(&k);
          spmat_free(&m);
          continue;
        }
        const geom *g = &m.g;
        /* Segmented reduction. */
        tb_seg_plan *plan = NULL;
        char what[480];
        describe(what, sizeof what, "segreduce_csr_preprocess", (tb_type)t, TB_OP_PLUS,
                 se ? "support_empty" : "", boxes[b], g->name);
        if (TB_ASSERT_OK(tb_segreduce_csr_preprocess((tb_type)t, g->count, g->d_csr.ptr,
                                                     g->num_segments, se, boxes[b], &plan, 0),
                         what)) {
          for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op)
            for (int rep = 0; rep < reps && op_swept_at((tb_type)t, op, boxes[b]); ++rep) {
              values v;
              snprintf(form, sizeof form, "apply #%d%s", rep, se ? " support_empty" : "");
              describe(what, sizeof what, "segreduce", (tb_type)t, (tb_op)op, form, boxes[b],
                       g->name);
              const size_t bytes = (size_t)g->num_segments * tb_type_size((tb_type)t);
              if (!values_make(&v, (tb_type)t, (tb_op)op, g->count, &r) ||
                  !poison(o.dev.ptr, bytes) ||
                  !TB_ASSERT_OK(tb_segreduce_apply(plan, (tb_op)op, v.dev.ptr, o.dev.ptr,
                                                   rep ? &scratch : NULL, 0),
                                what) ||
                  !fetch(&o.dev, o.got, bytes, what) ||
                  !segreduce_reference(g, &v, false, &o, NULL) ||
                  !compare((tb_type)t, o.got, o.want, NULL, g->num_segments, what))
                ++failures;
              values_free(&v);
            }
        } else {
          ++failures;
        }
        tb_seg_plan_free(plan);
        /* SpMV over the same rows; the columns are an apply argument, so the
         * second round draws new ones. */
        plan = NULL;
        describe(what, sizeof what, "spmv_preprocess", (tb_type)t, TB_OP_PLUS,
                 se ? "support_empty" : "", boxes[b], g->name);
        if (TB_ASSERT_OK(tb_spmv_preprocess((tb_type)t, g->count, g->d_csr.ptr, g->num_segments,
                                            se, boxes[b], &plan, 0),
                         what)) {
          for (int rep = 0; rep < reps; ++rep) {
            if (rep == 1 && (!random_cols(&r, m.cols, g->count, m.x_len) ||
                             !TB_ASSERT_OK(tb_buffer_upload(&m.d_cols, m.cols,
                                                            sizeof(int32_t) * (size_t)g->count),
                                           "upload cols")))
              break;
            for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op) {
              if (!op_swept_at((tb_type)t, op, boxes[b])) continue;
              spvals sv;
              if (!spvals_make(&sv, (tb_type)t, (tb_op)op, &m, &r)) ++failures;
              else
                for (int binary = 0; binary < 2; ++binary) {
                  snprintf(form, sizeof form, "apply #%d %s%s", rep, binary ? "binary" : "unary",
                           se ? " support_empty" : "");
                  describe(what, sizeof what, "spmv", (tb_type)t, (tb_op)op, form, boxes[b],
                           g->name);
                  const size_t bytes = (size_t)g->num_segments * tb_type_size((tb_type)t);
                  if (!poison(o.dev.ptr, bytes) ||
                      !TB_ASSERT_OK(tb_spmv_apply(plan, (tb_op)op,
                                                  binary ? sv.matrix.dev.ptr : NULL, m.d_cols.ptr,
                                                  sv.x.dev.ptr, m.x_len, o.dev.ptr,
                                                  binary ? &scratch : NULL, 0),
                                    what) ||
                      !fetch(&o.dev, o.got, bytes, what) ||
                      !spmv_reference(&m, &sv, (tb_op)op, binary, false, &o) ||
                      !compare((tb_type)t, o.got, o.want, NULL, g->num_segments, what))
                    ++failures;
                }
              spvals_free(&sv);
            }
          }
        } else {
          ++failures;
        }
        tb_seg_plan_free(plan);
        /* Reduce-by-key over keys made from the rows. */
        plan = NULL;
        int64_t h_runs = -1;
        int32_t d_runs = -1, runs = 0;
        describe(what, sizeof what, "reduce_by_key_preprocess", (tb_type)t, TB_OP_PLUS, "",
                 boxes[b], k.name);
        if (poison(o.dev_keys.ptr, sizeof(int32_t) * (size_t)k.count) &&
            poison(o.dev_num.ptr, sizeof(int32_t)) &&
            TB_ASSERT_OK(tb_reduce_by_key_preprocess((tb_type)t, k.d_keys.ptr, k.count,
                                                     o.dev_keys.ptr, &h_runs, o.dev_num.ptr,
                                                     boxes[b], &plan, 0),
                         what)) {
          /* What the preprocess reported: the run count and keys (the keys
           * serve as int32 values for the reference). */
          if (TB_ASSERT_OK(tb_cpu_reduce_by_key(TB_INT32, TB_OP_PLUS, k.keys, k.keys, k.count,
                                                o.want, o.want_keys, &runs),
                           "cpu reduce_by_key")) {
            count_matches(h_runs, runs, what, "host count from preprocess");
            if (fetch(&o.dev_num, &d_runs, sizeof d_runs, what))
              count_matches(d_runs, runs, what, "device count from preprocess");
            char kwhat[520];
            snprintf(kwhat, sizeof kwhat, "%s (keys)", what);
            if (fetch(&o.dev_keys, o.got_keys, sizeof(int32_t) * (size_t)runs, kwhat))
              compare(TB_INT32, o.got_keys, o.want_keys, NULL, runs, kwhat);
          }
          for (int op = 0; op < TB_OP_COUNT && failures < kMaxFailures; ++op)
            for (int rep = 0; rep < reps && op_swept_at((tb_type)t, op, boxes[b]); ++rep) {
              values v;
              snprintf(form, sizeof form, "apply #%d", rep);
              describe(what, sizeof what, "reduce_by_key", (tb_type)t, (tb_op)op, form, boxes[b],
                       k.name);
              if (!values_make(&v, (tb_type)t, (tb_op)op, k.count, &r) ||
                  !rbk_reference(&k, &v, &o, &runs, NULL) ||
                  !poison(o.dev.ptr, (size_t)runs * tb_type_size((tb_type)t)) ||
                  !TB_ASSERT_OK(tb_reduce_by_key_apply(plan, (tb_op)op, v.dev.ptr, o.dev.ptr,
                                                       rep ? NULL : &scratch, 0),
                                what) ||
                  !fetch(&o.dev, o.got, (size_t)runs * tb_type_size((tb_type)t), what) ||
                  !compare((tb_type)t, o.got, o.want, NULL, runs, what))
                ++failures;
              values_free(&v);
            }
        } else {
          ++failures;
        }
        tb_seg_plan_free(plan);
        keyset_free(&k);
        spmat_free(&m);
      }
    }
  }
  tb_seg_plan_free(NULL); /* documented as fine */
  CU_PASS("tb_seg_plan_free(NULL)");
  outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* Plans over no items (support_empty): every result the identity, no runs;
 * a plan applied by another kind's apply, or with an operator its type does
 * not take, is refused. */
static void test_plan_edges(void) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 8);
  outputs o = {0};
  geom g;
  memset(&g, 0, sizeof g);
  int32_t *lens = calloc(40, sizeof(int32_t));
  if (!outputs_reserve(&o, 64) || !geom_from_lens(&g, lens, 40, false, &r, "no items")) {
    geom_free(&g);
    outputs_free(&o);
    return;
  }
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    tb_seg_plan *seg = NULL, *sp = NULL, *rbk = NULL;
    char what[400];
    describe(what, sizeof what, "plans over no items", (tb_type)t, TB_OP_PLUS, "", NULL, g.name);
    int64_t h_runs = -1;
    if (TB_ASSERT_OK(tb_segreduce_csr_preprocess((tb_type)t, 0, g.d_csr.ptr, 40, true, NULL, &seg,
                                                 0),
                     what) &&
        TB_ASSERT_OK(tb_spmv_preprocess((tb_type)t, 0, g.d_csr.ptr, 40, true, NULL, &sp, 0),
                     what) &&
        TB_ASSERT_OK(tb_reduce_by_key_preprocess((tb_type)t, g.d_csr.ptr, 0, NULL, &h_runs, NULL,
                                                 NULL, &rbk, 0),
                     what)) {
      count_matches(h_runs, 0, what, "host count");
      for (int op = 0; op < TB_OP_COUNT; ++op) {
        if (!op_fits((tb_type)t, op)) continue;
        describe(what, sizeof what, "apply over no items", (tb_type)t, (tb_op)op, "", NULL,
                 g.name);
        const size_t bytes = 40 * tb_type_size((tb_type)t);
        if (poison(o.dev.ptr, bytes) &&
            TB_ASSERT_OK(tb_segreduce_apply(seg, (tb_op)op, g.d_sources.ptr, o.dev.ptr, NULL, 0),
                         what) &&
            fetch(&o.dev, o.got, bytes, what))
          all_identity((tb_type)t, (tb_op)op, o.got, 40, what);
        for (int binary = 0; binary < 2; ++binary)
          if (poison(o.dev.ptr, bytes) &&
              TB_ASSERT_OK(tb_spmv_apply(sp, (tb_op)op, binary ? g.d_sources.ptr : NULL,
                                         g.d_csr.ptr, g.d_sources.ptr, 1, o.dev.ptr, NULL, 0),
                           what) &&
              fetch(&o.dev, o.got, bytes, what))
            all_identity((tb_type)t, (tb_op)op, o.got, 40, what);
        TB_ASSERT_OK(tb_reduce_by_key_apply(rbk, (tb_op)op, g.d_sources.ptr, o.dev.ptr, NULL, 0),
                     what);
      }
      /* The wrong kind of plan, and an operator the type does not take. */
#define EXPECT(call, api, ...) TB_ASSERT_REJECTS((tb_clear_error(), (call)), api, __VA_ARGS__, NULL)
      void *out = o.dev.ptr;
      const void *in = g.d_sources.ptr;
      const char *const SA = "tb_segreduce_apply", *const RA = "tb_reduce_by_key_apply";
      const char *const PA = "tb_spmv_apply", *const type = tb_type_name((tb_type)t);
      EXPECT(tb_spmv_apply(seg, TB_OP_PLUS, NULL, g.d_csr.ptr, in, 1, out, NULL, 0), PA,
             "the plan was made for segreduce, not spmv");
      EXPECT(tb_reduce_by_key_apply(seg, TB_OP_PLUS, in, out, NULL, 0), RA,
             "the plan was made for segreduce, not reduce_by_key");
      EXPECT(tb_segreduce_apply(rbk, TB_OP_PLUS, in, out, NULL, 0), SA,
             "the plan was made for reduce_by_key, not segreduce");
      EXPECT(tb_spmv_apply(rbk, TB_OP_PLUS, NULL, g.d_csr.ptr, in, 1, out, NULL, 0), PA,
             "the plan was made for reduce_by_key, not spmv");
      EXPECT(tb_segreduce_apply(sp, TB_OP_PLUS, in, out, NULL, 0), SA,
             "the plan was made for spmv, not segreduce");
      EXPECT(tb_reduce_by_key_apply(sp, TB_OP_PLUS, in, out, NULL, 0), RA,
             "the plan was made for spmv, not reduce_by_key");
      EXPECT(tb_segreduce_apply(seg, (tb_op)99, in, out, NULL, 0), SA, "invalid operator 99");
      if (tb_type_is_float((tb_type)t)) {
        /* a float plan with bit_and, bit_or, bit_xor */
        EXPECT(tb_segreduce_apply(seg, TB_OP_BIT_AND, in, out, NULL, 0), SA,
               "operator bit_and does not apply to ", type);
        EXPECT(tb_reduce_by_key_apply(rbk, TB_OP_BIT_OR, in, out, NULL, 0), RA,
               "operator bit_or does not apply to ", type);
        EXPECT(tb_spmv_apply(sp, TB_OP_BIT_XOR, NULL, g.d_csr.ptr, in, 1, out, NULL, 0), PA,
               "operator bit_xor does not apply to ", type);
      }
#undef EXPECT
    }
    tb_seg_plan_free(seg), tb_seg_plan_free(sp), tb_seg_plan_free(rbk);
  }
  geom_free(&g);
  outputs_free(&o);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void test_bad_input(void) {
  enum { S = 10, C = 30 };
  int32_t csr_host[S];
  for (int i = 0; i < S; ++i) csr_host[i] = 3 * i;
  tb_buffer a = {0}, b = {0}, c = {0};
  int32_t *managed = NULL, *pinned = NULL;
  tb_seg_plan *seg = NULL, *sp = NULL, *rbk = NULL;
  int64_t h_runs = 0;
  const bool ready =
      upload(&a, csr_host, sizeof csr_host) && TB_ASSERT_OK(tb_buffer_alloc(&b, 4096), "alloc") &&
      TB_ASSERT_OK(tb_buffer_alloc(&c, 4096), "alloc") &&
      TB_ASSERT_OK(cuda_status(cudaMemset(b.ptr, 0, 4096), "memset"), "memset") &&
      TB_ASSERT_OK(cuda_status(cudaMemset(c.ptr, kPoison, 4096), "memset"), "memset") &&
      TB_ASSERT_OK(cuda_status(cudaMallocManaged((void **)&managed, sizeof csr_host,
                                                 cudaMemAttachGlobal),
                               "cudaMallocManaged"),
                   "managed") &&
      TB_ASSERT_OK(cuda_status(cudaMallocHost((void **)&pinned, sizeof csr_host), "cudaMallocHost"),
                   "pinned") &&
      TB_ASSERT_OK(cuda_status(cudaDeviceSynchronize(), "sync"), "sync") &&
      /* Valid plans of each kind (float), for the apply checks. */
      TB_ASSERT_OK(tb_segreduce_csr_preprocess(TB_FLOAT, C, a.ptr, S, false, NULL, &seg, 0),
                   "segreduce plan") &&
      TB_ASSERT_OK(tb_spmv_preprocess(TB_FLOAT, C, a.ptr, S, false, NULL, &sp, 0), "spmv plan") &&
      TB_ASSERT_OK(tb_reduce_by_key_preprocess(TB_FLOAT, b.ptr, C, NULL, &h_runs, NULL, NULL,
                                               &rbk, 0),
                   "reduce_by_key plan");
  if (!ready) goto done;
  memcpy(managed, csr_host, sizeof csr_host);
  memcpy(pinned, csr_host, sizeof csr_host);
  managed[0] = 5, pinned[0] = 5;

  const size_t free_before = tb_test_free_device_bytes();
  const int32_t *csr = a.ptr, *zeros = b.ptr;
  const void *in = b.ptr;
  void *out = c.ptr;
  const int64_t big = (int64_t)INT32_MAX + 1;
  const tb_launch_box half = {128, 0}, zero_nt = {0, 7}, negative = {-128, 5};
  tb_launch_box grid[kMaxBoxes];
  const int n_grid = grid_of(TB_FLOAT, grid);
  /* Boxes outside the grid (whichever of these are). */
  const tb_launch_box candidates[] = {{100, 3}, {64, 2}, {1024, 1}, {256, 64}, {32, 1}, {512, 16}};
  tb_seg_plan *p = NULL;
  /* The call runs first, then the message it left is read. */
#define EXPECT(call, api, ...) TB_ASSERT_REJECTS((tb_clear_error(), (call)), api, __VA_ARGS__, NULL)
/* A refused preprocess leaves no plan (freed all the same, so that the leak
 * check below counts only what the calls themselves kept). */
#define EXPECT_NO_PLAN(call, api, ...) \
  do {                                 \
    p = NULL;                          \
    EXPECT((call), api, __VA_ARGS__);  \
    CU_ASSERT_PTR_NULL(p);             \
    tb_seg_plan_free(p);               \
  } while (0)
  const char *const SC = "tb_segreduce_csr", *const RK = "tb_reduce_by_key";
  const char *const SU = "tb_spmv_csr_unary", *const SB = "tb_spmv_csr_binary";
  const char *const SP = "tb_segreduce_csr_preprocess", *const PP = "tb_spmv_preprocess";
  const char *const RP = "tb_reduce_by_key_preprocess", *const SV = "tb_segreduce_validate";
  const char *const SA = "tb_segreduce_apply", *const RA = "tb_reduce_by_key_apply";
  const char *const PA = "tb_spmv_apply";
  /* The rules: sizes in [0, 2^31) (segments, rows in [1, 2^31)), the grid, csr[0] == 0. */
  const char *const R0 = "outside [0, 2^31)", *const R1 = "outside [1, 2^31)";
  const char *const GRID = "is not in the segreduce grid";
  const char *const RK_GRID = "is not in the reduce_by_key grid";
  const char *const CSR0 = "d_csr[0] = 5, the first segment starts at 0";

  /* tb_segreduce_csr */
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, 0, NULL, false, out, NULL, NULL, 0),
         SC, "num_segments = 0", R1);
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, -1, NULL, true, out, NULL, NULL, 0),
         SC, "num_segments = -1", R1);
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, big, NULL, true, out, NULL, NULL, 0),
         SC, "num_segments = 2147483648", R1);
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, -1, csr, S, NULL, true, out, NULL, NULL, 0),
         SC, "count = -1", R0);
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, big, csr, S, NULL, false, out, NULL, NULL, 0),
         SC, "count = 2147483648", R0);
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, NULL, C, csr, S, NULL, false, out, NULL, NULL, 0),
         SC, "d_in is NULL");
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, NULL, S, NULL, false, out, NULL, NULL, 0),
         SC, "d_csr is NULL");
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, S, NULL, false, NULL, NULL, NULL, 0),
         SC, "d_out is NULL");
  EXPECT(tb_segreduce_csr((tb_type)9, TB_OP_PLUS, in, C, csr, S, NULL, false, out, NULL, NULL, 0),
         SC, "unknown type 9");
  EXPECT(tb_segreduce_csr(TB_INT32, (tb_op)42, in, C, csr, S, NULL, false, out, NULL, NULL, 0),
         SC, "invalid operator 42");
  EXPECT(tb_segreduce_csr(TB_FLOAT, TB_OP_BIT_AND, in, C, csr, S, NULL, false, out, NULL, NULL, 0),
         SC, "operator bit_and does not apply to float");
  /* double bit_xor (indirect) */
  EXPECT(tb_segreduce_csr(TB_DOUBLE, TB_OP_BIT_XOR, in, C, csr, S, zeros, true, out, NULL, NULL, 0),
         SC, "operator bit_xor does not apply to double");
  EXPECT(tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &half, NULL, 0),
         SC, "launch box 128x0", GRID);
  EXPECT(tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &zero_nt, NULL, 0),
         SC, "launch box 0x7", GRID);
  EXPECT(tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &negative, NULL,
                          0),
         SC, "launch box -128x5", GRID);
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; ++i) {
    if (in_grid(grid, n_grid, candidates[i])) continue;
    char box[64]; /* a box not in the grid */
    snprintf(box, sizeof box, "launch box %dx%d", candidates[i].nt, candidates[i].vt);
    EXPECT(tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &candidates[i],
                            NULL, 0),
           SC, box, GRID);
    EXPECT(tb_reduce_by_key(TB_FLOAT, TB_OP_PLUS, zeros, in, C, NULL, out, &h_runs, NULL,
                            &candidates[i], NULL, 0),
           RK, box, RK_GRID);
    EXPECT(tb_spmv_csr_unary(TB_FLOAT, TB_OP_PLUS, zeros, C, csr, S, NULL, in, 4, false, out,
                             &candidates[i], NULL, 0),
           SU, box, GRID);
    EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_FLOAT, C, csr, S, false, &candidates[i], &p, 0),
                   SP, box, GRID);
  }
  /* A box of the grid that min is not compiled at (plus has every box, the
   * other operators the tuned ones): the call, and the apply of a plan made
   * at it, say so. */
  for (int i = 0; i < n_grid; ++i) {
    if (op_at_box(TB_FLOAT, TB_OP_MIN, &grid[i])) continue;
    char box[64];
    snprintf(box, sizeof box, "launch box %dx%d", grid[i].nt, grid[i].vt);
    const char *const NOT_MIN = "is not compiled for segreduce over float with operator min";
    EXPECT(tb_segreduce_csr(TB_FLOAT, TB_OP_MIN, in, C, csr, S, NULL, false, out, &grid[i], NULL,
                            0),
           SC, box, NOT_MIN);
    if (!by_key_op_at_box(TB_FLOAT, TB_OP_MIN, &grid[i]))
      EXPECT(tb_reduce_by_key(TB_FLOAT, TB_OP_MIN, zeros, in, C, NULL, out, &h_runs, NULL, &grid[i],
                              NULL, 0),
             RK, box, "is not compiled for reduce_by_key over float with operator min");
    tb_seg_plan *at = NULL;
    if (TB_ASSERT_OK(tb_segreduce_csr_preprocess(TB_FLOAT, C, csr, S, false, &grid[i], &at, 0),
                     "plan at a plus-only box"))
      EXPECT(tb_segreduce_apply(at, TB_OP_MIN, in, out, NULL, 0), SA, box, NOT_MIN);
    tb_seg_plan_free(at);
    break;
  }
  /* csr[0] = 5 in managed memory (direct; indirect with support_empty), in pinned host memory */
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, managed, S, NULL, false, out, NULL, NULL, 0),
         SC, CSR0);
  EXPECT(tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, managed, S, zeros, true, out, NULL, NULL, 0),
         SC, CSR0);
  EXPECT(tb_segreduce_csr(TB_INT64, TB_OP_MAX, in, C, pinned, S, NULL, true, out, NULL, NULL, 0),
         SC, CSR0);

  /* tb_reduce_by_key */
  EXPECT(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, in, -1, NULL, out, &h_runs, NULL, NULL,
                          NULL, 0),
         RK, "count = -1", R0);
  EXPECT(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, in, big, NULL, out, &h_runs, NULL, NULL,
                          NULL, 0),
         RK, "count = 2147483648", R0);
  EXPECT(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, NULL, in, C, NULL, out, &h_runs, NULL, NULL, NULL,
                          0),
         RK, "d_keys is NULL");
  EXPECT(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, NULL, C, NULL, out, &h_runs, NULL, NULL,
                          NULL, 0),
         RK, "d_values is NULL");
  EXPECT(tb_reduce_by_key(TB_INT32, TB_OP_PLUS, zeros, in, C, NULL, NULL, &h_runs, NULL, NULL,
                          NULL, 0),
         RK, "d_values_out is NULL");
  EXPECT(tb_reduce_by_key((tb_type)-1, TB_OP_PLUS, zeros, in, C, NULL, out, &h_runs, NULL, NULL,
                          NULL, 0),
         RK, "unknown type -1");
  EXPECT(tb_reduce_by_key(TB_FLOAT, TB_OP_BIT_OR, zeros, in, C, NULL, out, &h_runs, NULL, NULL,
                          NULL, 0),
         RK, "operator bit_or does not apply to float");
  EXPECT(tb_reduce_by_key(TB_FLOAT, TB_OP_PLUS, zeros, in, C, NULL, out, &h_runs, NULL, &half, NULL,
                          0),
         RK, "launch box 128x0", RK_GRID);

  /* tb_spmv_csr_unary / tb_spmv_csr_binary */
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, -1, csr, S, NULL, in, 4, true, out, NULL,
                           NULL, 0),
         SU, "nz = -1", R0);
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, big, csr, S, NULL, in, 4, true, out, NULL,
                           NULL, 0),
         SU, "nz = 2147483648", R0);
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, 0, NULL, in, 4, true, out, NULL,
                           NULL, 0),
         SU, "num_rows = 0", R1);
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, big, NULL, in, 4, true, out, NULL,
                           NULL, 0),
         SU, "num_rows = 2147483648", R1);
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, NULL, C, csr, S, NULL, in, 4, false, out, NULL,
                           NULL, 0),
         SU, "d_cols is NULL");
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, NULL, S, NULL, in, 4, false, out, NULL,
                           NULL, 0),
         SU, "d_csr is NULL");
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, S, NULL, NULL, 4, false, out, NULL,
                           NULL, 0),
         SU, "d_x is NULL");
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, S, NULL, in, 4, false, NULL, NULL,
                           NULL, 0),
         SU, "d_y is NULL");
  EXPECT(tb_spmv_csr_unary(TB_INT32, TB_OP_PLUS, zeros, C, csr, S, NULL, in, -1, false, out, NULL,
                           NULL, 0),
         SU, "x_len = -1", R0);
  EXPECT(tb_spmv_csr_unary(TB_FLOAT, TB_OP_BIT_AND, zeros, C, csr, S, NULL, in, 4, false, out,
                           NULL, NULL, 0),
         SU, "operator bit_and does not apply to float");
  EXPECT(tb_spmv_csr_unary(TB_FLOAT, TB_OP_PLUS, zeros, C, managed, S, NULL, in, 4, false, out,
                           NULL, NULL, 0),
         SU, CSR0);
  EXPECT(tb_spmv_csr_unary(TB_FLOAT, TB_OP_PLUS, zeros, C, csr, S, NULL, in, 4, false, out,
                           &zero_nt, NULL, 0),
         SU, "launch box 0x7", GRID);
  EXPECT(tb_spmv_csr_binary(TB_INT32, TB_OP_PLUS, TB_OP_PLUS, in, zeros, C, csr, S, NULL, in, 4,
                            false, out, NULL, NULL, 0),
         SB, "mul_op plus: the kernels implement multiplies");
  EXPECT(tb_spmv_csr_binary(TB_DOUBLE, TB_OP_MAX, TB_OP_PLUS, in, zeros, C, csr, S, NULL, in, 4,
                            false, out, NULL, NULL, 0),
         SB, "mul_op max: the kernels implement multiplies");
  EXPECT(tb_spmv_csr_binary(TB_INT64, (tb_op)42, TB_OP_PLUS, in, zeros, C, csr, S, NULL, in, 4,
                            false, out, NULL, NULL, 0),
         SB, "mul_op (invalid): the kernels implement multiplies");
  EXPECT(tb_spmv_csr_binary(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, NULL, zeros, C, csr, S, NULL,
                            in, 4, false, out, NULL, NULL, 0),
         SB, "d_matrix is NULL");
  EXPECT(tb_spmv_csr_binary(TB_FLOAT, TB_OP_MULTIPLIES, TB_OP_BIT_OR, in, zeros, C, csr, S, NULL,
                            in, 4, false, out, NULL, NULL, 0),
         SB, "operator bit_or does not apply to float");
  EXPECT(tb_spmv_csr_binary(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, in, zeros, C, managed, S,
                            zeros, in, 4, true, out, NULL, NULL, 0),
         SB, CSR0);
  EXPECT(tb_spmv_csr_binary(TB_INT32, TB_OP_MULTIPLIES, TB_OP_PLUS, in, zeros, C, csr, S, NULL, in,
                            4, true, out, &negative, NULL, 0),
         SB, "launch box -128x5", GRID);

  /* preprocess */
  EXPECT(tb_segreduce_csr_preprocess(TB_INT32, C, csr, S, false, NULL, NULL, 0), SP,
         "plan is NULL");
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_INT32, C, csr, 0, false, NULL, &p, 0), SP,
                 "num_segments = 0", R1);
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_INT32, -1, csr, S, true, NULL, &p, 0), SP,
                 "count = -1", R0);
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_INT32, big, csr, S, true, NULL, &p, 0), SP,
                 "count = 2147483648", R0);
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_INT32, C, NULL, S, true, NULL, &p, 0), SP,
                 "d_csr is NULL");
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess((tb_type)7, C, csr, S, true, NULL, &p, 0), SP,
                 "unknown type 7");
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_INT32, C, csr, S, true, &half, &p, 0), SP,
                 "launch box 128x0", GRID);
  EXPECT_NO_PLAN(tb_segreduce_csr_preprocess(TB_INT32, C, managed, S, false, NULL, &p, 0), SP,
                 CSR0);
  EXPECT(tb_reduce_by_key_preprocess(TB_INT32, zeros, C, NULL, NULL, NULL, NULL, NULL, 0), RP,
         "plan is NULL");
  EXPECT_NO_PLAN(tb_reduce_by_key_preprocess(TB_INT32, NULL, C, NULL, NULL, NULL, NULL, &p, 0), RP,
                 "d_keys is NULL");
  EXPECT_NO_PLAN(tb_reduce_by_key_preprocess(TB_INT32, zeros, -1, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "count = -1", R0);
  EXPECT_NO_PLAN(tb_reduce_by_key_preprocess(TB_INT32, zeros, big, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "count = 2147483648", R0);
  EXPECT_NO_PLAN(tb_reduce_by_key_preprocess((tb_type)7, zeros, C, NULL, NULL, NULL, NULL, &p, 0),
                 RP, "unknown type 7");
  EXPECT_NO_PLAN(tb_reduce_by_key_preprocess(TB_INT32, zeros, C, NULL, NULL, NULL, &zero_nt, &p, 0),
                 RP, "launch box 0x7", GRID);
  EXPECT(tb_spmv_preprocess(TB_INT32, C, csr, S, false, NULL, NULL, 0), PP, "plan is NULL");
  EXPECT_NO_PLAN(tb_spmv_preprocess(TB_INT32, -1, csr, S, false, NULL, &p, 0), PP, "nz = -1", R0);
  EXPECT_NO_PLAN(tb_spmv_preprocess(TB_INT32, C, csr, 0, false, NULL, &p, 0), PP,
                 "num_rows = 0", R1);
  EXPECT_NO_PLAN(tb_spmv_preprocess(TB_INT32, C, NULL, S, false, NULL, &p, 0), PP,
                 "d_csr is NULL");
  EXPECT_NO_PLAN(tb_spmv_preprocess(TB_INT32, C, managed, S, true, NULL, &p, 0), PP, CSR0);

  /* apply (the plans are float) */
  EXPECT(tb_segreduce_apply(NULL, TB_OP_PLUS, in, out, NULL, 0), SA, "plan is NULL");
  EXPECT(tb_segreduce_apply(seg, TB_OP_PLUS, NULL, out, NULL, 0), SA, "d_in is NULL");
  EXPECT(tb_segreduce_apply(seg, TB_OP_PLUS, in, NULL, NULL, 0), SA, "d_out is NULL");
  EXPECT(tb_segreduce_apply(seg, TB_OP_BIT_AND, in, out, NULL, 0), SA,
         "operator bit_and does not apply to float");
  EXPECT(tb_reduce_by_key_apply(NULL, TB_OP_PLUS, in, out, NULL, 0), RA, "plan is NULL");
  EXPECT(tb_reduce_by_key_apply(rbk, TB_OP_PLUS, NULL, out, NULL, 0), RA, "d_values is NULL");
  EXPECT(tb_reduce_by_key_apply(rbk, TB_OP_PLUS, in, NULL, NULL, 0), RA, "d_values_out is NULL");
  EXPECT(tb_spmv_apply(NULL, TB_OP_PLUS, NULL, zeros, in, 4, out, NULL, 0), PA, "plan is NULL");
  EXPECT(tb_spmv_apply(sp, TB_OP_PLUS, NULL, NULL, in, 4, out, NULL, 0), PA, "d_cols is NULL");
  EXPECT(tb_spmv_apply(sp, TB_OP_PLUS, in, zeros, NULL, 4, out, NULL, 0), PA, "d_x is NULL");
  EXPECT(tb_spmv_apply(sp, TB_OP_PLUS, in, zeros, in, 4, NULL, NULL, 0), PA, "d_y is NULL");
  EXPECT(tb_spmv_apply(sp, TB_OP_PLUS, NULL, zeros, in, -1, out, NULL, 0), PA, "x_len = -1", R0);
  EXPECT(tb_spmv_apply(sp, TB_OP_BIT_OR, NULL, zeros, in, 4, out, NULL, 0), PA,
         "operator bit_or does not apply to float");
  EXPECT(tb_spmv_apply(seg, TB_OP_PLUS, NULL, zeros, in, 4, out, NULL, 0), PA,
         "the plan was made for segreduce, not spmv");
  EXPECT(tb_segreduce_apply(rbk, TB_OP_PLUS, in, out, NULL, 0), SA,
         "the plan was made for reduce_by_key, not segreduce");

  /* validate */
  EXPECT(tb_segreduce_validate(NULL, S, C, false, NULL, 0, NULL, 0), SV, "d_csr is NULL");
  EXPECT(tb_segreduce_validate(csr, 0, C, false, NULL, 0, NULL, 0), SV, "num_segments = 0", R1);
  EXPECT(tb_segreduce_validate(csr, S, -1, false, NULL, 0, NULL, 0), SV, "count = -1", R0);
  EXPECT(tb_segreduce_validate(csr, S, big, false, NULL, 0, NULL, 0), SV,
         "count = 2147483648", R0);
  EXPECT(tb_segreduce_validate(csr, S, C, false, zeros, -1, NULL, 0), SV, "x_len = -1", R0);
#undef EXPECT_NO_PLAN
#undef EXPECT

  /* Nothing leaked, nothing written. */
  const size_t free_after = tb_test_free_device_bytes();
  if (free_after != free_before)
    printf("\n  bad input: free device memory %zu before, %zu after\n", free_before, free_after);
  CU_ASSERT_EQUAL(free_after, free_before);
  {
    unsigned char got[4096], want[4096];
    memset(want, kPoison, sizeof want);
    if (fetch(&c, got, sizeof got, "download"))
      CU_ASSERT(memcmp(got, want, sizeof got) == 0);
  }
done:
  tb_seg_plan_free(seg), tb_seg_plan_free(sp), tb_seg_plan_free(rbk);
  if (managed) cudaFree(managed);
  if (pinned) cudaFreeHost(pinned);
  tb_buffer_free(&a), tb_buffer_free(&b), tb_buffer_free(&c);
}

/* ---- tb_segreduce_validate ------------------------------------------------------------ */

/* Whether the message names `index` as a whole number. */
static bool names_index(const char *msg, int64_t index) {
  char needle[32];
  snprintf(needle, sizeof needle, "%lld", (long long)index);
  const size_t len = strlen(needle);
  for (const char *p = strstr(msg, needle); p; p = strstr(p + 1, needle)) {
    const bool starts = p == msg || p[-1] < '0' || p[-1] > '9';
    const bool ends = p[len] < '0' || p[len] > '9';
    if (starts && ends) return true;
  }
  return false;
}

/* tb_segreduce_validate's verdict: TB_OK when index < 0; otherwise
 * TB_ERR_INVALID_ARGUMENT with a message naming the array (arg: "csr[" or
 * "cols["), index (or alt, when >= 0) and the rule broken there. */
static void expect_verdict(const tb_buffer *d_csr, int32_t n, int64_t count, bool support_empty,
                           const tb_buffer *d_cols, int64_t x_len, int64_t index, int64_t alt,
                           const char *arg, const char *rule, const char *what) {
  char text[256];
  snprintf(text, sizeof text, "validate %s%s%s", what, support_empty ? ", support_empty" : "",
           d_cols ? ", with columns" : "");
  tb_clear_error();
  const tb_status st = tb_segreduce_validate(d_csr->ptr, n, count, support_empty,
                                             d_cols ? d_cols->ptr : NULL, x_len, NULL, 0);
  if (index < 0) {
    TB_ASSERT_OK(st, text);
    return;
  }
  if (!TB_ASSERT_REJECTS(st, "tb_segreduce_validate", arg, rule, NULL)) {
    printf("  (%s)\n", text);
    return;
  }
  const bool named = names_index(tb_last_error(), index) || (alt >= 0 && names_index(tb_last_error(), alt));
  if (!named)
    printf("\n  %s: message \"%s\" does not name index %lld\n", text, tb_last_error(),
           (long long)index);
  CU_ASSERT(named);
}

static void test_validate(void) {
  enum { N = 300000, X = 100 };
  const int64_t count = 3 * (int64_t)N;
  int32_t *csr = alloc_i32(N), *cols = alloc_i32(count);
  tb_buffer d = {0}, dc = {0};
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 9);
  if (!csr || !cols) goto done;
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i;
  for (int64_t m = 0; m < count; ++m) cols[m] = (int32_t)tb_rng_range(&r, 0, X - 1);
  if (!upload(&d, csr, sizeof(int32_t) * N) || !upload(&dc, cols, sizeof(int32_t) * count))
    goto done;
  for (int se = 0; se < 2; ++se) {
    expect_verdict(&d, N, count, se, NULL, 0, -1, -1, NULL, NULL, "good csr");
    expect_verdict(&d, N, count, se, &dc, X, -1, -1, NULL, NULL, "good csr");
    /* Offsets past count: csr[N - 1] = 3N - 3 > count. */
    expect_verdict(&d, N, 3 * (int64_t)N - 4, se, NULL, 0, N - 1, -1, "csr[",
                   se ? "the last start, exceeds count" : "the last start, is not below count",
                   "offsets past count");
  }
  /* The last segment empty (csr[N - 1] == count): fine only with support_empty. */
  expect_verdict(&d, N, count - 3, true, NULL, 0, -1, -1, NULL, NULL, "empty last segment");
  expect_verdict(&d, N, count - 3, false, NULL, 0, N - 1, -1, "csr[",
                 "the last start, is not below count", "empty last segment");
  /* Empty segments in the middle (999 and, later, 200000). The message may
   * name the segment or the offset that repeats. */
  csr[1000] = csr[999], csr[200001] = csr[200000];
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload")) {
    expect_verdict(&d, N, count, true, NULL, 0, -1, -1, NULL, NULL, "empty segments");
    expect_verdict(&d, N, count, false, NULL, 0, 1000, 999, "csr[",
                   "(an empty or descending segment)", "empty segments");
  }
  /* Descending offsets, and a later one: the first is named. */
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i;
  csr[123456] = csr[123455] - 1, csr[200000] = 0;
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload"))
    for (int se = 0; se < 2; ++se)
      expect_verdict(&d, N, count, se, NULL, 0, 123456, -1, "csr[",
                     se ? "(descending)" : "(an empty or descending segment)",
                     "descending offsets");
  /* csr[0] != 0 on the device. */
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i + 1;
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload"))
    for (int se = 0; se < 2; ++se)
      expect_verdict(&d, N, count, se, NULL, 0, 0, -1, "csr[0] = 1",
                     "the first segment starts at 0", "csr[0] = 1");
  /* Columns out of [0, x_len): too large first, then negative. */
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i;
  cols[777777] = X, cols[800000] = -1;
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload") &&
      TB_ASSERT_OK(tb_buffer_upload(&dc, cols, sizeof(int32_t) * count), "upload")) {
    expect_verdict(&d, N, count, false, &dc, X, 777777, -1, "cols[",
                   "outside [0, x_len = 100)", "column = x_len");
    expect_verdict(&d, N, count, false, NULL, X, -1, -1, NULL, NULL, "bad columns not passed");
  }
  cols[777777] = 0, cols[700001] = -1;
  if (TB_ASSERT_OK(tb_buffer_upload(&dc, cols, sizeof(int32_t) * count), "upload"))
    expect_verdict(&d, N, count, true, &dc, X, 700001, -1, "cols[", "outside [0, x_len = 100)",
                   "column -1");
done:
  tb_buffer_free(&d), tb_buffer_free(&dc);
  free(csr), free(cols);
}

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

enum { kGuard = 4096, kCanary = 0x3c };

/* A device array of n elements of `size` bytes with kGuard canary elements
 * on each side; mid() is what the call gets. */
typedef struct {
  tb_buffer b;
  size_t size;
  int64_t n;
} guarded;

static void *mid(const guarded *g) { return (char *)g->b.ptr + kGuard * g->size; }

static bool guarded_make(guarded *g, size_t size, int64_t n) {
  g->size = size, g->n = n;
  const size_t bytes = size * (size_t)(n + 2 * kGuard);
  return TB_ASSERT_OK(tb_buffer_alloc(&g->b, bytes), "alloc") &&
         TB_ASSERT_OK(cuda_status(cudaMemset(g->b.ptr, kCanary, bytes), "canary"), "canary");
}

static bool guards_intact(const guarded *g, const char *what) {
  const size_t guard = kGuard * g->size, bytes = g->size * (size_t)(g->n + 2 * kGuard);
  unsigned char *host = malloc(bytes);
  bool ok = host && fetch(&g->b, host, bytes, what);
  for (size_t i = 0; ok && i < guard; ++i)
    ok = host[i] == kCanary && host[bytes - 1 - i] == kCanary;
  free(host);
  if (!ok) printf("\n  %s: a guard zone was written\n", what);
  CU_ASSERT(ok);
  return ok;
}

/* The device after a call on malformed input: healthy, guards intact. Any
 * status is fine. */
static bool after_call(tb_status st, const guarded *const *outs, int n_outs, const char *label,
                       const char *call) {
  char what[256];
  snprintf(what, sizeof what, "%s: %s (returned %s; seed %llu)", label, call, tb_status_string(st),
           (unsigned long long)tb_test.seed);
  if (!TB_ASSERT_OK(cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"), what))
    return false;
  bool ok = true;
  for (int i = 0; i < n_outs; ++i) ok = guards_intact(outs[i], what) && ok;
  return ok;
}

/* With support_empty, a CSR with an offset outside [0, count] or a
 * descending pair gives every segment the identity (kernels/tilebench.h). */
static bool identity_everywhere(const int32_t *csr, int32_t num_segments, int32_t count) {
  for (int32_t s = 0; s < num_segments; ++s) {
    const int32_t next = s + 1 < num_segments ? csr[s + 1] : count;
    if (csr[s] < 0 || csr[s] > count || next < csr[s]) return true;
  }
  return false;
}

/* Whether every output between the guards is 0, plus's identity. */
static bool all_zero(const guarded *g, const char *what) {
  const size_t bytes = g->size * (size_t)(g->n + 2 * kGuard), guard = kGuard * g->size;
  unsigned char *host = malloc(bytes);
  bool ok = host && fetch(&g->b, host, bytes, what);
  for (size_t i = guard; ok && i < bytes - guard; ++i) ok = host[i] == 0;
  free(host);
  if (!ok) printf("\n  %s: a segment is not the identity\n", what);
  CU_ASSERT(ok);
  return ok;
}

typedef struct {
  const char *label;
  const int32_t *csr;     /* num_segments entries */
  const int32_t *sources; /* num_segments entries */
  const int32_t *cols;    /* count entries */
  bool csr_bad;           /* validation (strict) must refuse the csr */
  bool cols_bad;          /* ... or the columns */
} malformed;

/* What tb_segreduce_validate (strict, without support_empty) must say of a
 * descriptor: the first entry of csr, else of cols, that breaks a rule, in
 * *arg ("csr[i] = "), and the words of the rule. */
static const char *first_broken(const malformed *mc, int32_t num_segments, int32_t count,
                                int32_t x_len, char *arg, size_t cap) {
  const int32_t *csr = mc->csr;
  snprintf(arg, cap, "(nothing is broken)");
  for (int32_t i = 0; i < num_segments; ++i) {
    const char *rule = NULL;
    if (i == 0 && csr[0] != 0) rule = "the first segment starts at 0";
    else if (i > 0 && csr[i - 1] >= csr[i]) rule = "(an empty or descending segment)";
    else if (i == num_segments - 1 && csr[i] >= count) rule = "the last start, is not below count";
    if (rule) {
      snprintf(arg, cap, "csr[%d] = ", i);
      return rule;
    }
  }
  for (int32_t m = 0; m < count; ++m)
    if (mc->cols[m] < 0 || mc->cols[m] >= x_len) {
      snprintf(arg, cap, "cols[%d] = ", m);
      return "outside [0, x_len = ";
    }
  return NULL;
}

/* Every entry point on one malformed descriptor with validation off.
 * Inputs are allocated to their exact sizes, so that memcheck (--sanitizer)
 * sees any read past them; outputs carry guard zones. */
static bool run_malformed(const malformed *mc, int32_t num_segments, int32_t count, int32_t x_len,
                          tb_type t, tb_rng *r) {
  const size_t sz = tb_type_size(t);
  void *host = malloc(sz * (size_t)count);
  tb_buffer d_csr = {0}, d_src = {0}, d_cols = {0}, d_in = {0}, d_x = {0}, scratch = {0};
  guarded out = {0}, keys_out = {0}, rbk_out = {0}, num = {0};
  bool ok = false;
  if (!host) goto done;
  tb_fill_random(r, t, TB_OP_PLUS, host, count);
  if (!upload(&d_csr, mc->csr, sizeof(int32_t) * (size_t)num_segments) ||
      !upload(&d_src, mc->sources, sizeof(int32_t) * (size_t)num_segments) ||
      !upload(&d_cols, mc->cols, sizeof(int32_t) * (size_t)count) ||
      !upload(&d_in, host, sz * (size_t)count) || !upload(&d_x, host, sz * (size_t)x_len) ||
      !guarded_make(&out, sz, num_segments) || !guarded_make(&keys_out, 4, num_segments) ||
      !guarded_make(&rbk_out, sz, num_segments) || !guarded_make(&num, 4, 1))
    goto done;
  const int32_t *csr = d_csr.ptr, *src = d_src.ptr, *cols = d_cols.ptr;
  const void *in = d_in.ptr, *x = d_x.ptr;
  void *y = mid(&out);
  const guarded *o1[] = {&out}, *o3[] = {&keys_out, &rbk_out, &num};
  const char *L = mc->label;
  tb_status st;
  ok = true;
  for (int se = 0; se < 2 && ok; ++se) {
    const char *mode = se ? "support_empty" : "strict";
    char call[128];
    tb_buffer *s = se ? &scratch : NULL;
    snprintf(call, sizeof call, "segreduce direct %s", mode);
    st = tb_segreduce_csr(t, TB_OP_PLUS, in, count, csr, num_segments, NULL, se, y, NULL, s, 0);
    ok = ok && after_call(st, o1, 1, L, call);
    if (ok && se && st == TB_OK && identity_everywhere(mc->csr, num_segments, count))
      ok = all_zero(&out, call);
    snprintf(call, sizeof call, "segreduce indirect %s", mode);
    st = tb_segreduce_csr(t, TB_OP_MAX, in, count, csr, num_segments, src, se, y, NULL, s, 0);
    ok = ok && after_call(st, o1, 1, L, call);
    for (int indirect = 0; indirect < 2 && ok; ++indirect) {
      snprintf(call, sizeof call, "spmv unary %s %s", indirect ? "indirect" : "direct", mode);
      st = tb_spmv_csr_unary(t, TB_OP_PLUS, cols, count, csr, num_segments,
                             indirect ? src : NULL, x, x_len, se, y, NULL, s, 0);
      ok = ok && after_call(st, o1, 1, L, call);
      snprintf(call, sizeof call, "spmv binary %s %s", indirect ? "indirect" : "direct", mode);
      st = tb_spmv_csr_binary(t, TB_OP_MULTIPLIES, TB_OP_MIN, in, cols, count, csr, num_segments,
                              indirect ? src : NULL, x, x_len, se, y, NULL, s, 0);
      ok = ok && after_call(st, o1, 1, L, call);
    }
    tb_seg_plan *plan = NULL;
    snprintf(call, sizeof call, "segreduce preprocess + apply %s", mode);
    st = tb_segreduce_csr_preprocess(t, count, csr, num_segments, se, NULL, &plan, 0);
    if (st == TB_OK) st = tb_segreduce_apply(plan, TB_OP_PLUS, in, y, s, 0);
    tb_seg_plan_free(plan);
    ok = ok && after_call(st, o1, 1, L, call);
    plan = NULL;
    snprintf(call, sizeof call, "spmv preprocess + apply unary, binary %s", mode);
    st = tb_spmv_preprocess(t, count, csr, num_segments, se, NULL, &plan, 0);
    if (st == TB_OK) {
      st = tb_spmv_apply(plan, TB_OP_PLUS, NULL, cols, x, x_len, y, s, 0);
      ok = ok && after_call(st, o1, 1, L, call);
      st = tb_spmv_apply(plan, TB_OP_MAX, in, cols, x, x_len, y, s, 0);
    }
    tb_seg_plan_free(plan);
    ok = ok && after_call(st, o1, 1, L, call);
  }
  /* Reduce-by-key takes any keys: the malformed offsets as keys
   * (num_segments of them, num_segments <= count values). */
  if (ok) {
    int64_t runs = 0;
    st = tb_reduce_by_key(t, TB_OP_PLUS, csr, in, num_segments, mid(&keys_out), mid(&rbk_out),
                          &runs, mid(&num), NULL, NULL, 0);
    ok = after_call(st, o3, 3, L, "reduce_by_key, offsets as keys");
  }
  /* The opt-in validation refuses what the calls above could not. */
  if (ok && (mc->csr_bad || mc->cols_bad)) {
    char arg[48];
    const char *rule = first_broken(mc, num_segments, count, x_len, arg, sizeof arg);
    tb_clear_error();
    st = tb_segreduce_validate(csr, num_segments, count, false, cols, x_len, NULL, 0);
    if (!TB_ASSERT_REJECTS(st, "tb_segreduce_validate", arg, rule, NULL))
      printf("  (%s: validate)\n", L);
  }
done:
  free(host);
  tb_buffer_free(&d_csr), tb_buffer_free(&d_src), tb_buffer_free(&d_cols);
  tb_buffer_free(&d_in), tb_buffer_free(&d_x), tb_buffer_free(&scratch);
  tb_buffer_free(&out.b), tb_buffer_free(&keys_out.b), tb_buffer_free(&rbk_out.b);
  tb_buffer_free(&num.b);
  return ok;
}

static void test_malformed_memory_safe(void) {
  const int32_t B = tb_test.quick ? 20000 : 200000, N = 3 * B, X = 1000;
  int32_t *csr = alloc_i32(B), *src = alloc_i32(B), *good_src = alloc_i32(B);
  int32_t *cols = alloc_i32(N), *good_cols = alloc_i32(N);
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + 10);
  if (!csr || !src || !good_src || !cols || !good_cols) goto done;
  for (int32_t j = 0; j < B; ++j) good_src[j] = (int32_t)tb_rng_range(&r, 0, N - 1);
  for (int32_t m = 0; m < N; ++m) good_cols[m] = (int32_t)tb_rng_range(&r, 0, X - 1);
  for (int k = 0; k < 10; ++k) {
    const tb_type t = (tb_type)(k % TB_TYPE_COUNT);
    malformed mc = {NULL, csr, good_src, good_cols, true, false};
    switch (k) {
      case 0:
        mc.label = "random offsets";
        for (int32_t j = 0; j < B; ++j) csr[j] = (int32_t)tb_rng_range(&r, -N, 2 * (int64_t)N);
        break;
      case 1:
        mc.label = "descending offsets (into negatives)";
        for (int32_t j = 0; j < B; ++j) csr[j] = N - 6 * j;
        break;
      case 2:
        mc.label = "offsets starting past 0";
        for (int32_t j = 0; j < B; ++j) csr[j] = 1000 + 2 * j;
        break;
      case 3:
        mc.label = "extreme offsets";
        for (int32_t j = 0; j < B; ++j) csr[j] = j % 2 ? INT32_MAX : INT32_MIN;
        break;
      case 4:
        mc.label = "one spike past count";
        for (int32_t j = 0; j < B; ++j) csr[j] = 3 * j;
        csr[B / 2] = 5 * N;
        break;
      case 5:
        mc.label = "huge ascending offsets";
        csr[0] = 0;
        for (int32_t j = 1; j < B; ++j) csr[j] = INT32_MAX - (B - j);
        break;
      case 6:
        mc.label = "last offsets past count";
        for (int32_t j = 0; j < B; ++j) csr[j] = 4 * j;
        break;
      case 7:
        mc.label = "empty segments without support_empty";
        for (int32_t j = 0; j < B; ++j) csr[j] = 6 * (j / 2);
        break;
      case 8:
        mc.label = "sources out of range";
        mc.csr_bad = false;
        for (int32_t j = 0; j < B; ++j) csr[j] = 3 * j;
        for (int32_t j = 0; j < B; ++j)
          src[j] = j % 7 == 0   ? INT32_MAX - j
                   : j % 7 == 1 ? INT32_MIN + j
                                : (int32_t)tb_rng_range(&r, -2 * (int64_t)N, 2 * (int64_t)N);
        mc.sources = src;
        break;
      default:
        mc.label = "columns out of range";
        mc.csr_bad = false, mc.cols_bad = true;
        for (int32_t j = 0; j < B; ++j) csr[j] = 3 * j;
        for (int32_t m = 0; m < N; ++m)
          cols[m] = m % 5 == 0   ? INT32_MAX
                    : m % 5 == 1 ? INT32_MIN
                                 : (int32_t)tb_rng_range(&r, -2 * (int64_t)X, 2 * (int64_t)X);
        mc.cols = cols;
        break;
    }
    if (!run_malformed(&mc, B, N, X, t, &r)) break; /* a dead context fails everything after */
  }
done:
  free(csr), free(src), free(good_src), free(cols), free(good_cols);
}

int main(int argc, char **argv) {
  static const CU_TestInfo tests[] = {
      {"segreduce: every type x op x box x geometry", test_segreduce_every_case},
      {"segreduce: wrap-around, one item, no items", test_segreduce_edges},
      {"segreduce: default box, large", test_segreduce_default_large},
      {"reduce_by_key: every type x op x box x runs", test_reduce_by_key_every_case},
      {"reduce_by_key: no items, default box large", test_reduce_by_key_empty_and_large},
      {"reduce_by_key: look-back over random sizes", test_reduce_by_key_random_sizes},
      {"spmv: every type x add op x box x rows", test_spmv_every_case},
      {"spmv: no nonzeros, large, mul_op", test_spmv_edges_and_large},
      {"real data: rounding bound", test_real_data_rounding_bound},
      {"preprocess + apply", test_preprocess_apply},
      {"plans: no items, wrong kind", test_plan_edges},
      {"bad input", test_bad_input},
      {"validation entry point", test_validate},
      {"malformed descriptors stay memory safe", test_malformed_memory_safe},
      CU_TEST_INFO_NULL,
  };
  return tb_test_main(argc, argv, "segreduce_test", tests);
}
