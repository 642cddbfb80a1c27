/* Load-balancing search and interval sweep: tilebench's kernels (tuned
 * default and every box of the grid) beside Thrust and the newest CUB's
 * cub::DeviceFind::UpperBoundSortedValues (lbs, expand) and
 * cub::DeviceMemcpy::Batched (move, gather, scatter), over 2^16..2^28 work
 * items and average counts 1..16384, counts uniform in [1, 2L - 1] as the
 * published Thrust and CUB figures draw them.
 *
 * Move, gather and scatter place the intervals back to back in a
 * pseudo-random order (a different one for the source and the
 * destination): every element moves once, nothing overlaps, and short
 * intervals land at random addresses, as in a real reshuffle. With counts of
 * 1 to 7 that is a random permutation of 4-byte elements, bound by the
 * DRAM's random-access rate for any implementation; interval_move_inorder
 * (every interval keeps its place: one batched copy) shows the per-interval
 * overhead of each implementation instead.
 *
 * Move, gather and scatter stop at 2^26 items: at 2^28 the CPU side alone
 * (placing 2^28 short intervals at random and the references' random
 * accesses) takes longer than the rest of the sweep.
 *
 * --tb_lengths=lognormal:SIGMA|zipf:S draws the counts from that model
 * instead (TB_GEOM_LOGNORMAL, TB_GEOM_ZIPF: mean L, never zero), and
 * --tb_segments=FILE takes them from the file, at its own size and mean
 * only (every type, every box, the moves too), and --tb_matrix=PATH takes
 * each matrix's row lengths, at its nonzeros (lbs and expand, every type,
 * tuned default and baselines); the algorithm names then carry
 * "_lognormal", "_zipf", "_file" or "_mtx_<name>" (suites/sweep_lengths.h),
 * so that they never mix with the uniform rows.
 *
 * Bytes that must move: lbs 4B + 4N; expand 4B + B s + N s; move, gather,
 * scatter 12B + 2N s (B objects, N items, s the element size). Every
 * benchmark first checks its whole output bit for bit against the CPU
 * reference, on its first repetition (tb_sweep_checked). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/geometry.h"
#include "core/rng.h"
#include "core/sweep.h"
#include "core/validate.h"
#include "cpuref/interval.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"
#include "suites/baselines/cub_find.h"
#include "suites/baselines/cub_lib.h"
#include "suites/baselines/cub_memcpy.h"
#include "suites/baselines/thrust.h"
#include "suites/sweep_lengths.h"

typedef enum {
  ALG_LBS,
  ALG_EXPAND,
  ALG_MOVE,
  ALG_GATHER,
  ALG_SCATTER,
  ALG_MOVE_INORDER, /* move with gather = scatter = scan: intervals keep their places */
  ALG_COUNT
} algorithm;
/* tilebench; the family's library baseline (Thrust for lbs and expand, CUB's
 * batched copy for the rest); and for lbs and expand also the newest CUB's
 * merge-path search (cub::DeviceFind::UpperBoundSortedValues). */
typedef enum { IMPL_TB, IMPL_BASELINE, IMPL_CUB_FIND } impl;

static const char *kAlgName[ALG_COUNT] = {"lbs",           "interval_expand",  "interval_move",
                                          "interval_gather", "interval_scatter", "interval_move_inorder"};

typedef struct {
  algorithm alg;
  tb_type t;
  int64_t n;
  int seg;
  int set; /* tb_lengths_set; -1: the model */
  impl which;
  tb_launch_box box; /* {0, 0}: tuned default */
} bench_case;

/* ---- the problem of the current (n, seg), built once for its benchmarks ---- */

typedef struct {
  int64_t n;
  int seg, set;
  int32_t num; /* objects */
  int32_t *scan, *gather, *scatter;
  tb_buffer d_scan, d_gather, d_scatter;
  bool placed; /* gather / scatter built */
} problem;

static problem prob = {.n = -1};
/* The current benchmark's values (expand: one per object) and input (the
 * moves: one per item), of its type; any data suits a move. */
static struct { tb_sweep_input values, in; } data;
static struct {
  algorithm alg;
  tb_type t;
  int64_t n;
  int seg, set;
  void *want;
} ref = {.alg = ALG_COUNT};
static tb_buffer d_out, scratch, thrust_scratch;
static tb_cub_batches batches;
static struct {
  algorithm alg;
  tb_type t;
  int64_t n;
  int seg, set;
} batches_for = {.alg = ALG_COUNT};

static int64_t max_n(void) { return tb_sweep_max(1 << 28, 1 << 22); }

static void problem_release(void) {
  free(prob.scan), free(prob.gather), free(prob.scatter);
  tb_buffer_free(&prob.d_scan), tb_buffer_free(&prob.d_gather), tb_buffer_free(&prob.d_scatter);
  memset(&prob, 0, sizeof prob);
  prob.n = -1;
}

/* A pseudo-random bijection of [0, n): xor, xor-shift and odd-multiply
 * rounds (each a bijection on [0, 2^bits)), re-applied until the value lands
 * below n. O(1) per element: a shuffle of 2^28 would dominate the sweep. */
typedef struct {
  uint64_t n, mask, key[3], mul[3];
  int shift;
} permutation;

static permutation permutation_make(uint64_t n, tb_rng *r) {
  permutation p = {n, 1, {0}, {0}, 1};
  int bits = 1;
  while ((p.mask + 1) < n) p.mask = (p.mask << 1) | 1, ++bits;
  p.shift = bits / 2 + 1;
  for (int i = 0; i < 3; ++i) p.key[i] = tb_rng_next(r) & p.mask, p.mul[i] = tb_rng_next(r) | 1;
  return p;
}

static uint64_t permute(const permutation *p, uint64_t x) {
  do {
    for (int i = 0; i < 3; ++i) {
      x ^= p->key[i];
      x ^= x >> p->shift;
      x = (x * p->mul[i]) & p->mask;
    }
  } while (x >= p->n);
  return x;
}

/* offsets[j]: where interval j starts when the intervals are laid out back
 * to back in permuted order. */
static void place(const int32_t *scan, int32_t num, int64_t n, tb_rng *r, int32_t *offsets) {
  const permutation p = permutation_make((uint64_t)num, r);
  int32_t acc = 0;
  for (int32_t k = 0; k < num; ++k) {
    const int32_t j = (int32_t)permute(&p, (uint64_t)k);
    offsets[j] = acc;
    acc += (j + 1 < num ? scan[j + 1] : (int32_t)n) - scan[j];
  }
}

static tb_status problem_get(int64_t n, int seg, int set, bool placed) {
  if (prob.n != n || prob.seg != seg || prob.set != set) {
    problem_release();
    /* The counts: uniform, a model (--tb_lengths) or a set (a file, a matrix's rows). */
    const tb_geometry_spec spec = tb_lengths_spec(seg);
    const tb_segments *file = tb_lengths_set(set);
    const int64_t num = file ? file->num : tb_geometry_num_objects(&spec, n);
    tb_rng r;
    tb_rng_seed(&r, 0x1b5000u + (uint64_t)n * 131 + (uint64_t)seg);
    int32_t *counts = malloc(sizeof(int32_t) * num);
    prob.scan = malloc(sizeof(int32_t) * num);
    if (!counts || !prob.scan) {
      free(counts);
      return tb_fail(TB_ERR_OUT_OF_MEMORY, "interval sweep: %lld objects", (long long)num);
    }
    tb_status st = TB_OK;
    if (file) memcpy(counts, file->counts, sizeof(int32_t) * num);
    else st = tb_geometry_counts(&spec, n, counts, num, &r);
    if (st == TB_OK) tb_cpu_counts_scan(counts, (int32_t)num, prob.scan);
    free(counts);
    TB_TRY(st);
    prob.n = n, prob.seg = seg, prob.set = set, prob.num = (int32_t)num;
    TB_TRY(tb_buffer_put(&prob.d_scan, prob.scan, sizeof(int32_t) * num));
  }
  if (placed && !prob.placed) {
    tb_rng r;
    tb_rng_seed(&r, 0x9e3779b9u + (uint64_t)prob.n + (uint64_t)prob.seg);
    prob.gather = malloc(sizeof(int32_t) * prob.num);
    prob.scatter = malloc(sizeof(int32_t) * prob.num);
    if (!prob.gather || !prob.scatter)
      return tb_fail(TB_ERR_OUT_OF_MEMORY, "interval sweep: offsets of %d objects", prob.num);
    place(prob.scan, prob.num, prob.n, &r, prob.gather);
    place(prob.scan, prob.num, prob.n, &r, prob.scatter);
    TB_TRY(tb_buffer_put(&prob.d_gather, prob.gather, sizeof(int32_t) * prob.num));
    TB_TRY(tb_buffer_put(&prob.d_scatter, prob.scatter, sizeof(int32_t) * prob.num));
    prob.placed = true;
  }
  return TB_OK;
}

static tb_status inputs_get(tb_type t, int64_t num, int64_t n) {
  TB_TRY(tb_sweep_input_get(t, TB_OP_MAX, TB_DRAW_EXACT, 0, num, &data.values));
  return tb_sweep_input_get(t, TB_OP_MAX, TB_DRAW_EXACT, 1, n, &data.in);
}

static size_t out_size(const bench_case *c) {
  return c->alg == ALG_LBS ? sizeof(int32_t) : tb_type_size(c->t);
}

/* The CPU's output for the case's (algorithm, type, n, seg), kept while
 * the benchmarks of that combination run. */
static tb_status reference_get(const bench_case *c) {
  if (ref.alg == c->alg && ref.t == c->t && ref.n == c->n && ref.seg == c->seg &&
      ref.set == c->set)
    return TB_OK;
  free(ref.want);
  ref.alg = ALG_COUNT;
  ref.want = malloc((size_t)c->n * out_size(c));
  if (!ref.want) return tb_fail(TB_ERR_OUT_OF_MEMORY, "interval sweep: reference");
  const int32_t num = prob.num, n = (int32_t)c->n;
  const tb_type t = c->t;
  switch (c->alg) {
    case ALG_LBS: TB_TRY(tb_cpu_lbs(prob.scan, num, n, ref.want)); break;
    case ALG_EXPAND:
      TB_TRY(tb_cpu_interval_expand(t, prob.scan, num, n, data.values.host, ref.want));
      break;
    case ALG_MOVE:
      TB_TRY(tb_cpu_interval_move(t, prob.gather, prob.scatter, prob.scan, num, n, data.in.host,
                                  ref.want));
      break;
    case ALG_MOVE_INORDER:
      TB_TRY(
          tb_cpu_interval_move(t, prob.scan, prob.scan, prob.scan, num, n, data.in.host, ref.want));
      break;
    case ALG_GATHER:
      TB_TRY(tb_cpu_interval_gather(t, prob.gather, prob.scan, num, n, data.in.host, ref.want));
      break;
    default:
      TB_TRY(tb_cpu_interval_scatter(t, prob.scatter, prob.scan, num, n, data.in.host, ref.want));
  }
  ref.alg = c->alg, ref.t = c->t, ref.n = c->n, ref.seg = c->seg, ref.set = c->set;
  return TB_OK;
}

/* cub::DeviceMemcpy::Batched's pointer arrays, built here, outside the timed
 * region, once per (algorithm, type, n, seg). */
static tb_status batches_get(const bench_case *c) {
  if (batches_for.alg == c->alg && batches_for.t == c->t && batches_for.n == c->n &&
      batches_for.seg == c->seg && batches_for.set == c->set)
    return TB_OK;
  batches_for.alg = ALG_COUNT;
  const bool inorder = c->alg == ALG_MOVE_INORDER;
  const int32_t *gather = c->alg == ALG_SCATTER ? NULL : inorder ? prob.d_scan.ptr : prob.d_gather.ptr;
  const int32_t *scatter = c->alg == ALG_GATHER ? NULL : inorder ? prob.d_scan.ptr : prob.d_scatter.ptr;
  TB_TRY(tb_cub_batches_make(&batches, c->t, gather, scatter, prob.d_scan.ptr, prob.num, c->n,
                             data.in.dev, d_out.ptr, 0));
  batches_for.alg = c->alg, batches_for.t = c->t, batches_for.n = c->n, batches_for.seg = c->seg,
  batches_for.set = c->set;
  return TB_OK;
}

static tb_status launch(void *arg) {
  const bench_case *c = arg;
  const int32_t *scan = prob.d_scan.ptr, *gather = prob.d_gather.ptr, *scatter = prob.d_scatter.ptr;
  const int64_t num = prob.num, n = c->n;
  if (c->which == IMPL_CUB_FIND) {
    if (c->alg == ALG_LBS) return tb_cub_find_lbs(scan, num, n, d_out.ptr, &thrust_scratch, 0);
    return tb_cub_find_interval_expand(c->t, scan, num, n, data.values.dev, d_out.ptr,
                                       &thrust_scratch, 0);
  }
  if (c->which == IMPL_BASELINE) {
    if (c->alg == ALG_LBS) return tb_thrust_lbs(scan, num, n, d_out.ptr, 0);
    if (c->alg == ALG_EXPAND)
      return tb_thrust_interval_expand(c->t, scan, num, n, data.values.dev, d_out.ptr,
                                       &thrust_scratch, 0);
    return tb_cub_batches_copy(&batches, &scratch, 0);
  }
  switch (c->alg) {
    case ALG_LBS: return tb_lbs(scan, num, n, d_out.ptr, NULL, &c->box, &scratch, 0);
    case ALG_EXPAND:
      return tb_interval_expand(c->t, scan, num, n, data.values.dev, d_out.ptr, &c->box, &scratch,
                                0);
    case ALG_MOVE:
      return tb_interval_move(c->t, gather, scatter, scan, num, n, data.in.dev, n, d_out.ptr, n,
                              &c->box, &scratch, 0);
    case ALG_MOVE_INORDER:
      return tb_interval_move(c->t, scan, scan, scan, num, n, data.in.dev, n, d_out.ptr, n, &c->box,
                              &scratch, 0);
    case ALG_GATHER:
      return tb_interval_gather(c->t, gather, scan, num, n, data.in.dev, n, d_out.ptr, &c->box,
                                &scratch, 0);
    default:
      return tb_interval_scatter(c->t, scatter, scan, num, n, data.in.dev, d_out.ptr, n, &c->box,
                                 &scratch, 0);
  }
}

/* Runs the case once and compares its whole output with the CPU's. */
static tb_status validate(const bench_case *c) {
  const size_t bytes = (size_t)c->n * out_size(c);
  void *got = tb_sweep_host_buffer(bytes);
  if (!got) return TB_ERR_OUT_OF_MEMORY;
  /* Poisoned, so that an element nobody writes cannot pass. */
  TB_CUDA_TRY(cudaMemset(d_out.ptr, 0xa5, bytes));
  TB_TRY(launch((void *)c));
  TB_TRY(tb_buffer_download(&d_out, got, bytes));
  char what[160];
  snprintf(what, sizeof what, "%s %s n=%lld seg=%d box=%dx%d (elements as bits)", kAlgName[c->alg],
           tb_type_name(c->t), (long long)c->n, c->seg, c->box.nt, c->box.vt);
  /* Moved data, NaN payloads included: compared bit for bit. */
  return tb_compare_exact(out_size(c) == 8 ? TB_INT64 : TB_INT32, got, ref.want, c->n, what);
}

static int64_t bytes_moved(const bench_case *c) {
  const int64_t b = prob.num, n = c->n, s = (int64_t)tb_type_size(c->t);
  switch (c->alg) {
    case ALG_LBS: return 4 * b + 4 * n;
    case ALG_EXPAND: return 4 * b + b * s + n * s;
    default: return 12 * b + 2 * n * s;
  }
}

static void run(tb_bench_state *st, void *arg) {
  const bench_case *c = arg;
  const bool moves = c->alg >= ALG_MOVE;
  tb_status s = problem_get(c->n, c->seg, c->set, moves && c->alg != ALG_MOVE_INORDER);
  if (s == TB_OK && c->alg != ALG_LBS) s = inputs_get(c->t, prob.num, c->n);
  if (s == TB_OK) s = tb_buffer_reserve(&d_out, (size_t)c->n * out_size(c));
  if (s == TB_OK) s = reference_get(c);
  if (s == TB_OK && moves && c->which == IMPL_BASELINE) s = batches_get(c);
  if (s == TB_OK && !tb_sweep_checked(c)) {
    s = validate(c);
    if (s == TB_OK) tb_sweep_checked_pass(c);
  }
  if (s != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  tb_sweep_measure(st, launch, (void *)c, c->n, bytes_moved(c));
  tb_lengths_counters(st, c->set);
}

static void add(algorithm alg, tb_type t, int64_t n, int seg, int set, impl which,
                tb_launch_box box) {
  bench_case *c = malloc(sizeof *c);
  if (!c) return;
  *c = (bench_case){alg, t, n, seg, set, which, box};
  static const char *kBaseline[ALG_COUNT] = {"thrust", "thrust", "cub", "cub", "cub", "cub"};
  char name[192], alg_name[80];
  tb_lengths_name(kAlgName[alg], set, alg_name, sizeof alg_name);
  tb_sweep_name(name, sizeof name, alg_name,
                which == IMPL_TB ? "tb" : which == IMPL_CUB_FIND ? "cub35_find" : kBaseline[alg],
                alg == ALG_LBS ? "int32" : tb_type_name(t), n, seg, box.nt, box.vt);
  tb_bench_register(name, run, c, free);
  /* About 1 GiB of traffic per benchmark (ceiling: the estimate from the
   * element bytes, which the interval bytes only add to). */
  const int64_t s = alg == ALG_LBS ? 4 : (int64_t)tb_type_size(t);
  tb_bench_set_iterations(tb_sweep_iterations(2 * n * s));
}

/* The rows of one (n, seg): lbs, then every family of the types given
 * (types outermost: the inputs are drawn once per type), tb beside the
 * baselines, the box sweep where boxes says; moves: the move families too. */
static void add_rows(int64_t n, int seg, int set, int types, bool boxes, bool moves) {
  const tb_launch_box tuned = {0, 0};
  tb_launch_box lbs_boxes[64], int_boxes[64];
  const int n_lbs = boxes ? tb_lbs_grid(lbs_boxes, 64) : 0;
  const int n_int = boxes ? tb_interval_grid(TB_INT32, int_boxes, 64) : 0;
  add(ALG_LBS, TB_INT32, n, seg, set, IMPL_TB, tuned);
  add(ALG_LBS, TB_INT32, n, seg, set, IMPL_BASELINE, tuned);
  add(ALG_LBS, TB_INT32, n, seg, set, IMPL_CUB_FIND, tuned);
  for (int b = 0; b < n_lbs && b < 64; ++b) add(ALG_LBS, TB_INT32, n, seg, set, IMPL_TB, lbs_boxes[b]);
  for (int t = 0; t < types; ++t)
    for (int a = ALG_EXPAND; a < (moves ? ALG_COUNT : ALG_EXPAND + 1); ++a) {
      if (t != TB_INT32 && a != ALG_EXPAND && a != ALG_MOVE) continue;
      add((algorithm)a, (tb_type)t, n, seg, set, IMPL_TB, tuned);
      add((algorithm)a, (tb_type)t, n, seg, set, IMPL_BASELINE, tuned);
      if (a == ALG_EXPAND) add((algorithm)a, (tb_type)t, n, seg, set, IMPL_CUB_FIND, tuned);
      if (t == TB_INT32 && a <= ALG_MOVE)
        for (int b = 0; b < n_int && b < 64; ++b)
          add((algorithm)a, (tb_type)t, n, seg, set, IMPL_TB, int_boxes[b]);
    }
}

static void register_all(void) {
  tb_cub_note_versions(tb_sweep_note_version);
  tb_sweep_note_version("thrust", tb_thrust_version());
  tb_lengths_context();
  /* A file: its size and mean count only, every type, box and family. A
   * matrix: lbs and expand over its rows, every type, no box sweep. */
  const bool file = tb_sweep_flag("--tb_segments") != NULL;
  for (int set = 0; set < tb_lengths_sets(); ++set)
    add_rows(tb_lengths_set(set)->total, tb_lengths_set_seg(set), set, TB_TYPE_COUNT, file, file);
  if (tb_lengths_sets() > 0) return;

  static const int segs[] = {1, 2, 4, 16, 64, 256, 1024, 16384};
  const int nseg = tb_lengths_reach("interval", segs, (int)(sizeof segs / sizeof segs[0]));
  for (int64_t n = 1 << 16; n <= max_n(); n <<= 2)
    for (int g = 0; g < nseg; ++g) {
      /* Boxes at one small and one large size only: the heat maps and the
       * tuning table within one 10-minute run. The other types where the
       * published baseline figures are measured: 2^26 (the largest quick
       * size). The moves stop at 2^26 (see the top). */
      const bool boxes = tb_sweep.quick ? n == (1 << 20) : n == (1 << 20) || n == (1 << 26);
      const int types = n == (tb_sweep.quick ? 1 << 22 : 1 << 26) ? TB_TYPE_COUNT : 1;
      add_rows(n, segs[g], -1, types, boxes, n <= max_n() / 4);
    }
}

int main(int argc, char **argv) {
  tb_lengths_declare();
  const int rc = tb_sweep_main(argc, argv, "interval", register_all);
  problem_release();
  free(ref.want);
  tb_cub_batches_free(&batches);
  tb_buffer_free(&d_out), tb_buffer_free(&scratch), tb_buffer_free(&thrust_scratch);
  tb_lengths_release();
  return rc;
}
