/* Segmented reduction sweep: tilebench's CSR segmented reduction and
 * reduce-by-key (tuned default, every box of the grid, and the preprocess +
 * apply path) beside cub::DeviceSegmentedReduce::Reduce and
 * cub::DeviceReduce::ReduceByKey, for plus over int32, int64, float and
 * double, 2^16..2^28 items and average segment lengths L = 1..16384, lengths
 * uniform in [1, 2L - 1] as CUB's and cuSPARSE's published figures draw them (TB_GEOM_UNIFORM: no
 * empty segments, so the kernels run without support_empty).
 *
 * Reduce-by-key sees the same geometry: run i of the keys is segment i and
 * holds key i, so its runs are exactly the CSR segments (the non-empty ones:
 * only a segment file has empty segments).
 *
 * --tb_lengths=lognormal:SIGMA|zipf:S draws the lengths of every row but the
 * fixed-length ones from that model instead (TB_GEOM_LOGNORMAL, TB_GEOM_ZIPF:
 * mean L, never empty), --tb_segments=FILE runs them on the file's
 * segments, at its own size and mean length only (empty segments then get
 * support_empty), and --tb_matrix=PATH on each matrix's rows, at its
 * nonzeros (tuned default and baselines; no box sweep). Their algorithm
 * names carry the lengths' tag (suites/sweep_lengths.h:
 * "segreduce_mtx_cage10") so that they never mix with the uniform rows.
 *
 * The indirect rows (tb only: CUB's segmented reduction has no sources
 * array) read segment s from sources[s] = n - csr[s + 1], the segments laid
 * out in reverse: the same items as the direct rows, through the indirect
 * kernel, which the ratio to the direct row prices.
 *
 * The apply rows time tb_segreduce_apply / tb_reduce_by_key_apply with the
 * plan made once outside the timed region (the iterative-solver case: the
 * geometry stays, the values change).
 *
 * Every box is swept at 2^26 (2^20 with --tb_quick), for the heat maps and
 * the tuning table; the tuned kernel set's boxes (those every operator
 * runs at) at 2^16..2^22 too, where a call is a wave or a few of tiles
 * and the defaults may take another of them (a size band, tools/
 * gen_defaults). The tuned default's rows report its box as the counters
 * nt and vt.
 *
 * Bytes that must move (s the element size, S segments, n items):
 *   segreduce, segreduce_apply   n s + 4 (S + 1) + S s
 *                                (values, the S + 1 offsets CUB reads, results)
 *   segreduce_indirect           the same + 4 S (the sources)
 *   reduce_by_key(_apply)        4 n + n s + S (4 + s) + 4
 *                                (keys, values, unique keys and results, run count)
 * The apply rows use the same counts as the direct ones, so the two compare
 * on one scale.
 *
 * Every benchmark first checks its whole output, on its first repetition
 * (tb_sweep_checked), against the CPU reference (cpuref/segreduce.h): bit
 * for bit for integers, and exactly for floats, whose values are small
 * integers (tb_fill_random, core/rng.h) on which every partial sum is exact
 * in any order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "core/sweep.h"
#include "core/validate.h"
#include "cpuref/segreduce.h"
#include "kernels/tilebench.h"
#include "suites/baselines/cub_seg.h"
#include "suites/sweep_lengths.h"

typedef enum {
  ALG_SEGREDUCE,
  ALG_SEGREDUCE_APPLY,
  ALG_REDUCE_BY_KEY,
  ALG_REDUCE_BY_KEY_APPLY,
  ALG_SEGREDUCE_INDIRECT,
  ALG_SEGREDUCE_FIXED,
  ALG_COUNT
} algorithm;

/* tilebench, then CUB at its strongest for each row: the toolkit's and the
 * newest CUB (cub_lib.h), the newest also told the longest segment (its
 * thread- and warp-per-segment paths) and, where every segment has one
 * length, its fixed-size overload. */
typedef enum { IMPL_TB, IMPL_CUB, IMPL_CUB35, IMPL_CUB35_HINT, IMPL_CUB35_FIXED, IMPL_COUNT } impl;

static const char *kAlgName[ALG_COUNT] = {"segreduce",          "segreduce_apply",
                                          "reduce_by_key",      "reduce_by_key_apply",
                                          "segreduce_indirect", "segreduce_fixed"};
static const char *kImplName[IMPL_COUNT] = {"tb", "cub", "cub35", "cub35_hint", "cub35_fixed"};

static tb_cub_lib impl_lib(impl which) { return which == IMPL_CUB ? TB_CUB_TOOLKIT : TB_CUB_LATEST; }

static bool is_apply(algorithm a) { return a == ALG_SEGREDUCE_APPLY || a == ALG_REDUCE_BY_KEY_APPLY; }
static bool by_key(algorithm a) { return a == ALG_REDUCE_BY_KEY || a == ALG_REDUCE_BY_KEY_APPLY; }
/* Direct CSR rows: every segment read where its offsets say. */
static bool direct(algorithm a) { return a == ALG_SEGREDUCE || a == ALG_SEGREDUCE_FIXED; }

/* The lengths: uniform, a model (--tb_lengths: set -1) or a set of them (a
 * file, a matrix's rows). The fixed-length rows are the same whatever they
 * are: registered only with uniform, their names never tagged. */
static bool fixed(algorithm a) { return a == ALG_SEGREDUCE_FIXED; }

static void algorithm_name(algorithm a, int set, char *out, size_t cap) {
  if (fixed(a)) snprintf(out, cap, "%s", kAlgName[a]);
  else tb_lengths_name(kAlgName[a], set, out, cap);
}

static tb_geometry_spec spec_of(algorithm a, int seg) {
  return fixed(a) ? tb_geometry_spec_default(TB_GEOM_FIXED, seg) : tb_lengths_spec(seg);
}

typedef struct {
  algorithm alg;
  tb_type t;
  int64_t n;
  int seg;
  int set; /* tb_lengths_set; -1: the model */
  impl which;
  tb_launch_box box; /* {0, 0}: tuned default */
} bench_case;

static int64_t max_n(void) { return tb_sweep_max(1 << 28, 1 << 20); }
/* The size of the box sweep (the heat maps, the tuning table, the defaults). */
static int64_t box_n(void) { return tb_sweep_max(1 << 26, 1 << 20); }
/* The smaller sizes the tuned boxes are swept at (the defaults' size bands):
 * every size of the sweep up to 2^22. */
static bool band_n(int64_t n) { return !tb_sweep.quick && n < box_n() && n <= 1 << 22; }

/* ---- the geometry of the current (n, seg), built once for its benchmarks ---- */

typedef struct {
  int64_t n;
  int seg, set;
  tb_geometry kind;
  int32_t num;   /* segments */
  int32_t runs;  /* the non-empty ones: reduce-by-key's runs */
  int32_t longest; /* what CUB is told: known before the timing, as a user knows their data */
  int32_t *csr;  /* num + 1 start offsets, the last one n (CUB's form) */
  int32_t *keys; /* n keys: run i holds key i */
  int32_t *sources; /* the indirect rows': n - csr[s + 1] */
  tb_buffer d_csr, d_keys, d_sources;
} problem;

static problem prob = {.n = -1};

static void problem_release(void) {
  free(prob.csr), free(prob.keys), free(prob.sources);
  tb_buffer_free(&prob.d_csr), tb_buffer_free(&prob.d_keys), tb_buffer_free(&prob.d_sources);
  memset(&prob, 0, sizeof prob);
  prob.n = -1;
}

static tb_status problem_get(int64_t n, int seg, algorithm a, int set) {
  const tb_geometry_spec spec = spec_of(a, seg);
  const tb_geometry kind = spec.kind;
  if (fixed(a)) set = -1;
  if (prob.n == n && prob.seg == seg && prob.kind == kind && prob.set == set) return TB_OK;
  problem_release();
  const tb_segments *file = tb_lengths_set(set);
  const int64_t num = file ? file->num : tb_geometry_num_objects(&spec, n);
  tb_rng r;
  tb_rng_seed(&r, 0x5e900000u + (uint64_t)n * 131 + (uint64_t)seg); /* FIXED draws nothing */
  int32_t *counts = malloc(sizeof(int32_t) * num);
  prob.csr = malloc(sizeof(int32_t) * (num + 1));
  prob.keys = malloc(sizeof(int32_t) * n);
  prob.sources = malloc(sizeof(int32_t) * num);
  if (!counts || !prob.csr || !prob.keys || !prob.sources) {
    free(counts);
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "segreduce sweep: %lld segments", (long long)num);
  }
  tb_status st = TB_OK;
  if (file) memcpy(counts, file->counts, sizeof(int32_t) * num);
  else st = tb_geometry_counts(&spec, n, counts, num, &r);
  if (st == TB_OK) {
    int32_t at = 0;
    prob.longest = 0;
    prob.runs = 0;
    for (int32_t i = 0; i < (int32_t)num; ++i) {
      prob.csr[i] = at;
      if (counts[i] > prob.longest) prob.longest = counts[i];
      prob.runs += counts[i] > 0;
      for (int32_t k = 0; k < counts[i]; ++k) prob.keys[at + k] = i;
      at += counts[i];
    }
    prob.csr[num] = at; /* == n: the counts sum to n exactly */
    for (int32_t i = 0; i < (int32_t)num; ++i) prob.sources[i] = at - prob.csr[i + 1];
  }
  free(counts);
  TB_TRY(st);
  prob.n = n, prob.seg = seg, prob.set = set, prob.kind = kind, prob.num = (int32_t)num;
  TB_TRY(tb_buffer_put(&prob.d_csr, prob.csr, sizeof(int32_t) * (num + 1)));
  TB_TRY(tb_buffer_put(&prob.d_sources, prob.sources, sizeof(int32_t) * num));
  return tb_buffer_put(&prob.d_keys, prob.keys, sizeof(int32_t) * n);
}

/* ---- the values: small integers (tb_fill_random for plus), so that every
 * partial sum of a segment is exact in float and double, in any order ---- */

static tb_sweep_input values; /* the current benchmark's type, set by run() */

/* ---- the CPU's answer for (family, type, n, seg), kept for its benchmarks ---- */

static struct {
  bool by_key, indirect;
  tb_geometry kind;
  tb_type t;
  int64_t n;
  int seg, set;
  void *values;   /* num results of type t */
  int32_t *keys;  /* reduce-by-key: the key of each run */
  int32_t num;    /* reduce-by-key: the number of runs */
} ref = {.t = TB_TYPE_COUNT};

static tb_status reference_get(const bench_case *c) {
  const bool indirect = c->alg == ALG_SEGREDUCE_INDIRECT;
  if (ref.t == c->t && ref.by_key == by_key(c->alg) && ref.indirect == indirect && ref.n == c->n &&
      ref.seg == c->seg && ref.set == prob.set && ref.kind == prob.kind)
    return TB_OK;
  free(ref.values), free(ref.keys);
  ref.keys = NULL;
  ref.t = TB_TYPE_COUNT;
  /* Reduce-by-key's outputs sized for n runs, which is always enough. */
  const size_t cap = by_key(c->alg) ? (size_t)c->n : (size_t)prob.num;
  ref.values = malloc(cap * tb_type_size(c->t));
  if (!ref.values) return tb_fail(TB_ERR_OUT_OF_MEMORY, "segreduce sweep: reference");
  const void *in = values.host;
  if (by_key(c->alg)) {
    ref.keys = malloc(sizeof(int32_t) * cap);
    if (!ref.keys) return tb_fail(TB_ERR_OUT_OF_MEMORY, "segreduce sweep: reference keys");
    TB_TRY(tb_cpu_reduce_by_key(c->t, TB_OP_PLUS, prob.keys, in, (int32_t)c->n, ref.values,
                                ref.keys, &ref.num));
    if (ref.num != prob.runs) /* the keys are built so that runs and segments coincide */
      return tb_fail(TB_ERR_MISMATCH, "segreduce sweep: %d runs of keys for %d non-empty segments",
                     ref.num, prob.runs);
  } else {
    TB_TRY(tb_cpu_segreduce_csr(c->t, TB_OP_PLUS, in, (int32_t)c->n, prob.csr, prob.num,
                                indirect ? prob.sources : NULL, tb_identity(c->t, TB_OP_PLUS),
                                ref.values));
    ref.num = prob.num;
  }
  ref.by_key = by_key(c->alg), ref.indirect = indirect, ref.kind = prob.kind, ref.t = c->t,
  ref.n = c->n,
  ref.seg = c->seg, ref.set = prob.set;
  return TB_OK;
}

/* ---- the code under test ---- */

static tb_buffer d_out, d_keys_out, d_num, scratch;
static tb_seg_plan *plan; /* the apply rows': made before the timing, freed after it */

static tb_status launch(void *arg) {
  const bench_case *c = arg;
  const void *in = values.dev;
  const int32_t *csr = prob.d_csr.ptr, *keys = prob.d_keys.ptr;
  const tb_op plus = TB_OP_PLUS;
  switch (c->alg) {
    case ALG_SEGREDUCE:
    case ALG_SEGREDUCE_FIXED:
      if (c->which == IMPL_CUB35_FIXED)
        return tb_cub_segreduce_fixed(TB_CUB_LATEST, c->t, plus, in, prob.num, prob.seg, d_out.ptr,
                                      &scratch, 0);
      if (c->alg == ALG_SEGREDUCE_FIXED && c->which == IMPL_TB)
        return tb_segreduce_fixed(c->t, plus, in, prob.num, prob.seg, d_out.ptr, &scratch, 0);
      if (c->which != IMPL_TB)
        return tb_cub_segreduce(impl_lib(c->which), c->t, plus, in, csr, prob.num,
                                c->which == IMPL_CUB35_HINT ? prob.longest : 0, d_out.ptr,
                                &scratch, 0);
      return tb_segreduce_csr(c->t, plus, in, c->n, csr, prob.num, NULL, prob.runs < prob.num,
                              d_out.ptr, &c->box, &scratch, 0);
    case ALG_SEGREDUCE_INDIRECT:
      return tb_segreduce_csr(c->t, plus, in, c->n, csr, prob.num, prob.d_sources.ptr,
                              prob.runs < prob.num, d_out.ptr, &c->box, &scratch, 0);
    case ALG_SEGREDUCE_APPLY: return tb_segreduce_apply(plan, plus, in, d_out.ptr, &scratch, 0);
    case ALG_REDUCE_BY_KEY:
      if (c->which != IMPL_TB)
        return tb_cub_reduce_by_key(impl_lib(c->which), c->t, plus, keys, in, c->n, d_keys_out.ptr, d_out.ptr,
                                    d_num.ptr, &scratch, 0);
      /* The run count goes to the device: nothing synchronises inside the timing. */
      return tb_reduce_by_key(c->t, plus, keys, in, c->n, d_keys_out.ptr, d_out.ptr, NULL,
                              d_num.ptr, &c->box, &scratch, 0);
    default: return tb_reduce_by_key_apply(plan, plus, in, d_out.ptr, &scratch, 0);
  }
}

/* The plan of an apply row (tuned default box), made outside the timing.
 * reduce-by-key's preprocess writes the unique keys and the run count. */
static tb_status plan_make(const bench_case *c) {
  if (c->alg == ALG_SEGREDUCE_APPLY)
    return tb_segreduce_csr_preprocess(c->t, c->n, prob.d_csr.ptr, prob.num, prob.runs < prob.num,
                                       &c->box, &plan, 0);
  return tb_reduce_by_key_preprocess(c->t, prob.d_keys.ptr, c->n, d_keys_out.ptr, NULL, d_num.ptr,
                                     &c->box, &plan, 0);
}

/* Runs the case once (making the apply rows' plan on the way: reduce-by-key's
 * preprocess writes the unique keys and the run count) and compares its whole
 * output with the CPU's. The outputs are poisoned first, so that an element
 * nobody writes cannot pass. */
static tb_status validate(const bench_case *c) {
  const size_t sz = tb_type_size(c->t), num = (size_t)prob.num;
  void *got = tb_sweep_host_buffer(num * (sz > 4 ? sz : 4));
  if (!got) return TB_ERR_OUT_OF_MEMORY;
  TB_CUDA_TRY(cudaMemset(d_out.ptr, 0xa5, num * sz));
  TB_CUDA_TRY(cudaMemset(d_keys_out.ptr, 0xa5, num * sizeof(int32_t)));
  TB_CUDA_TRY(cudaMemset(d_num.ptr, 0xff, sizeof(int32_t)));
  if (is_apply(c->alg)) TB_TRY(plan_make(c));
  TB_TRY(launch((void *)c));
  char what[160], of[176];
  char alg[64];
  algorithm_name(c->alg, c->set, alg, sizeof alg);
  snprintf(what, sizeof what, "%s/%s %s n=%lld seg=%d (%d segments) box=%dx%d", alg,
           kImplName[c->which], tb_type_name(c->t), (long long)c->n, c->seg,
           prob.num, c->box.nt, c->box.vt);
  if (by_key(c->alg)) {
    int32_t runs = -1;
    TB_TRY(tb_buffer_download(&d_num, &runs, sizeof runs));
    if (runs != ref.num)
      return tb_fail(TB_ERR_MISMATCH, "%s: %d runs, expected %d", what, runs, ref.num);
    TB_TRY(tb_buffer_download(&d_keys_out, got, num * sizeof(int32_t)));
    snprintf(of, sizeof of, "%s: keys", what);
    TB_TRY(tb_compare_exact(TB_INT32, got, ref.keys, ref.num, of));
  }
  TB_TRY(tb_buffer_download(&d_out, got, num * sz));
  /* Sums of small integers: exact in every type (only a zero's sign may differ). */
  snprintf(of, sizeof of, "%s: out", what);
  return tb_compare_exact(c->t, got, ref.values, ref.num, of);
}

/* ---- benchmarks ---- */

/* num segments, runs of them non-empty (reduce-by-key's runs). */
static int64_t bytes_moved(algorithm alg, tb_type t, int64_t n, int64_t num, int64_t runs) {
  const int64_t s = (int64_t)tb_type_size(t);
  if (by_key(alg)) return 4 * n + n * s + runs * (4 + s) + 4;
  if (alg == ALG_SEGREDUCE_FIXED) return n * s + num * s; /* no offsets needed */
  return n * s + 4 * (num + 1) + num * s + (alg == ALG_SEGREDUCE_INDIRECT ? 4 * num : 0);
}

static void run(tb_bench_state *st, void *arg) {
  const bench_case *c = arg;
  const size_t sz = tb_type_size(c->t);
  tb_status s = problem_get(c->n, c->seg, c->alg, c->set);
  /* A segment file or a matrix may be larger than the sweep's sizes. */
  const int64_t cap = c->n > max_n() ? c->n : max_n();
  if (s == TB_OK) s = tb_sweep_input_get(c->t, TB_OP_PLUS, TB_DRAW_EXACT, 0, cap, &values);
  if (s == TB_OK) s = tb_buffer_reserve(&d_out, (size_t)prob.num * sz);
  if (s == TB_OK) s = tb_buffer_reserve(&d_keys_out, (size_t)prob.num * sizeof(int32_t));
  if (s == TB_OK) s = tb_buffer_reserve(&d_num, sizeof(int32_t));
  if (s == TB_OK) s = reference_get(c);
  if (s == TB_OK && !tb_sweep_checked(c)) {
    s = validate(c);
    if (s == TB_OK) tb_sweep_checked_pass(c);
  } else if (s == TB_OK && is_apply(c->alg)) {
    s = plan_make(c); /* a later repetition: the check made the first one's */
  }
  if (s == TB_OK)
    tb_sweep_measure(st, launch, (void *)c, c->n,
                     bytes_moved(c->alg, c->t, c->n, prob.num, prob.runs));
  else
    tb_bench_skip_with_error(st, tb_last_error());
  tb_seg_plan_free(plan);
  plan = NULL;
  if (s == TB_OK && c->which == IMPL_TB && c->box.nt == 0) {
    /* The tuned default's box, for the plot driver's tuning table. */
    const tb_launch_box def = c->alg == ALG_REDUCE_BY_KEY ? tb_reduce_by_key_default_box(c->t)
                              : !direct(c->alg) ? tb_segreduce_default_box(c->t) /* plans, indirect */
                              : prob.runs < prob.num /* support_empty */
                                  ? tb_segreduce_default_box_empty(c->t, prob.num, c->n)
                                  : tb_segreduce_default_box_for(c->t, prob.num, c->n);
    tb_bench_set_counter(st, "nt", def.nt, TB_COUNTER_VALUE);
    tb_bench_set_counter(st, "vt", def.vt, TB_COUNTER_VALUE);
  }
  if (s == TB_OK && !fixed(c->alg)) tb_lengths_counters(st, c->set);
}

static void add(algorithm alg, tb_type t, int64_t n, int seg, int set, impl which,
                tb_launch_box box) {
  bench_case *c = malloc(sizeof *c);
  if (!c) return;
  *c = (bench_case){alg, t, n, seg, set, which, box};
  char name[192], alg_name[80];
  algorithm_name(alg, set, alg_name, sizeof alg_name);
  tb_sweep_name(name, sizeof name, alg_name, kImplName[which], tb_type_name(t), n, seg, box.nt,
                box.vt);
  tb_bench_register(name, run, c, free);
  const tb_geometry_spec spec = spec_of(alg, seg);
  const tb_segments *file = fixed(alg) ? NULL : tb_lengths_set(set);
  const int64_t num = file ? file->num : tb_geometry_num_objects(&spec, n);
  const int64_t runs = file ? file->num - file->empty : num;
  tb_bench_set_iterations(tb_sweep_iterations(bytes_moved(alg, t, n, num, runs)));
}

/* Which boxes a (n, seg) sweeps besides the tuned default. */
typedef enum { BOXES_NONE, BOXES_TUNED, BOXES_ALL } box_rows;

/* The boxes of type's grid that run for every operator, the tuned kernel
 * set's: those of a non-plus operator (the wide set adds plus alone). */
static int tuned_boxes(tb_type t, tb_launch_box *out, int cap) {
  return tb_segreduce_grid(t, TB_OP_MAX, out, cap);
}

/* The rows of one (n, seg): every type and family, tb beside CUB, the box
 * sweep where boxes says (the tuned set's boxes: segmented reduction only,
 * reduce-by-key has one tuned box a type). */
static void add_rows(int64_t n, int seg, int set, box_rows boxes) {
  const tb_launch_box tuned = {0, 0};
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    tb_launch_box grid[64];
    const int nbox = boxes == BOXES_ALL     ? tb_segreduce_grid((tb_type)t, TB_OP_PLUS, grid, 64)
                     : boxes == BOXES_TUNED ? tuned_boxes((tb_type)t, grid, 64)
                                            : 0;
    for (int a = ALG_SEGREDUCE; a <= ALG_REDUCE_BY_KEY; a += 2) {
      add((algorithm)a, (tb_type)t, n, seg, set, IMPL_TB, tuned);
      add((algorithm)a, (tb_type)t, n, seg, set, IMPL_CUB, tuned);
      add((algorithm)a, (tb_type)t, n, seg, set, IMPL_CUB35, tuned);
      if (a == ALG_SEGREDUCE) add((algorithm)a, (tb_type)t, n, seg, set, IMPL_CUB35_HINT, tuned);
      add((algorithm)(a + 1), (tb_type)t, n, seg, set, IMPL_TB, tuned); /* apply */
      if (a == ALG_SEGREDUCE) add(ALG_SEGREDUCE_INDIRECT, (tb_type)t, n, seg, set, IMPL_TB, tuned);
      for (int b = 0; b < nbox && b < 64 && (boxes == BOXES_ALL || a == ALG_SEGREDUCE); ++b)
        add((algorithm)a, (tb_type)t, n, seg, set, IMPL_TB, grid[b]);
    }
  }
}

static void register_all(void) {
  tb_cub_note_versions(tb_sweep_note_version);
  tb_lengths_context();
  /* A file or matrices: each set at its own size and mean length only (a
   * file's boxes too: its only size). */
  for (int set = 0; set < tb_lengths_sets(); ++set)
    add_rows(tb_lengths_set(set)->total, tb_lengths_set_seg(set), set,
             tb_sweep_flag("--tb_segments") != NULL ? BOXES_ALL : BOXES_NONE);
  if (tb_lengths_sets() > 0) return;

  static const int segs[] = {1, 4, 16, 64, 256, 1024, 16384};
  static const int quick_segs[] = {1, 16, 256, 16384};
  const int *seg = tb_sweep.quick ? quick_segs : segs;
  const int nseg = tb_lengths_reach("segreduce", seg, tb_sweep.quick ? 4 : 7);
  const tb_launch_box tuned = {0, 0};
  /* Geometry outermost (built once per (n, seg)), then the type, then the
   * family: each reference is computed once. */
  for (int64_t n = tb_sweep_max(1 << 16, 1 << 18); n <= max_n(); n <<= 2)
    for (int g = 0; g < nseg; ++g) {
      add_rows(n, seg[g], -1, n == box_n() ? BOXES_ALL : band_n(n) ? BOXES_TUNED : BOXES_NONE);
      /* Every segment of length L: tb_segreduce_fixed beside CUB's
       * fixed-size overload, neither reading offsets. The same rows
       * whatever the lengths: a uniform run has them. */
      for (int t = 0; t < TB_TYPE_COUNT && tb_lengths_uniform(); ++t) {
        add(ALG_SEGREDUCE_FIXED, (tb_type)t, n, seg[g], -1, IMPL_TB, tuned);
        add(ALG_SEGREDUCE_FIXED, (tb_type)t, n, seg[g], -1, IMPL_CUB35_HINT, tuned);
        add(ALG_SEGREDUCE_FIXED, (tb_type)t, n, seg[g], -1, IMPL_CUB35_FIXED, tuned);
      }
    }
}

int main(int argc, char **argv) {
  tb_lengths_declare();
  const int rc = tb_sweep_main(argc, argv, "segreduce", register_all);
  problem_release();
  free(ref.values), free(ref.keys);
  tb_buffer_free(&d_out), tb_buffer_free(&d_keys_out), tb_buffer_free(&d_num);
  tb_buffer_free(&scratch);
  tb_lengths_release();
  return rc;
}
