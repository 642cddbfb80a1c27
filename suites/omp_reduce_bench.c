/* omp_reduce sweep: k variables reduced in one fused pass (the tree path,
 * tuned default and every box of the grid at two sizes) beside k separate
 * cub::DeviceReduce calls and beside the atomics path, for n = 2^12..2^26.
 *
 * Clauses ("<set>" in the benchmark name):
 *   <type>_x<k>  k = 1..4 variables of one type, all plus;
 *   mixed_x<k>   k = 2..4: double plus, int64 max, float min, int32 plus.
 * Every variable reads its own array. Items are the elements read (k n);
 * bytes the bytes read. Every benchmark validates its results against the
 * CPU reference (exact: core/rng.h) before its first repetition is timed
 * (tb_sweep_checked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sweep.h"
#include "core/rng.h"
#include "core/validate.h"
#include "cpuref/omp_reduce.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"
#include "suites/baselines/cub.h"

enum { kMaxVars = TB_OMP_MAX_VARS };
/* tb's tree and atomics methods, then one CUB reduction per variable from
 * each CUB (cub_lib.h): the toolkit's and the newest. */
typedef enum { IMPL_TB, IMPL_ATOMICS, IMPL_CUB, IMPL_CUB35 } impl;
static const char *const kImplName[] = {"tb", "atomics", "cub", "cub35"};

typedef struct {
  int k;
  tb_type t[kMaxVars];
  tb_op op[kMaxVars];
  char name[32];
} clause_set;

typedef struct {
  clause_set set;
  int64_t n;
  impl which;
  tb_launch_box box; /* {0, 0}: tuned default */
} bench_case;

static int64_t max_n(void) { return tb_sweep_max(1 << 26, 1 << 20); }

/* Variable v's input: drawn for plus (exact sums; min and max are exact on
 * any data), one array per variable so that a clause reads distinct data. */
static tb_status input(tb_type t, int v, tb_sweep_input *out) {
  return tb_sweep_input_get(t, TB_OP_PLUS, TB_DRAW_EXACT, v, max_n(), out);
}

/* The CPU's reduction of variable v of (t, op) over n, from the identity;
 * cached, since many benchmarks share it. */
static tb_status reference(tb_type t, tb_op op, int v, int64_t n, tb_value *out) {
  enum { kCache = 256 };
  typedef struct { tb_type t; tb_op op; int v; int64_t n; tb_value value; } entry;
  static entry cache[kCache];
  static int used;
  for (int i = 0; i < used; ++i)
    if (cache[i].t == t && cache[i].op == op && cache[i].v == v && cache[i].n == n) {
      *out = cache[i].value;
      return TB_OK;
    }
  tb_sweep_input in;
  TB_TRY(input(t, v, &in));
  tb_cpu_omp_var ref = {t, op, in.host, tb_identity(t, op)};
  TB_TRY(tb_cpu_omp_reduce(&ref, 1, n));
  if (used < kCache) cache[used++] = (entry){t, op, v, n, ref.value};
  *out = ref.value;
  return TB_OK;
}

/* ---- one benchmark ---------------------------------------------------------------- */

typedef struct {
  const bench_case *c;
  tb_omp_var vars[kMaxVars];
  tb_buffer *scratch;
} launch_ctx;

static tb_status launch(void *p) {
  const launch_ctx *x = p;
  const bench_case *c = x->c;
  if (c->which == IMPL_CUB || c->which == IMPL_CUB35) {
    const tb_cub_lib lib = c->which == IMPL_CUB35 ? TB_CUB_LATEST : TB_CUB_TOOLKIT;
    for (int v = 0; v < c->set.k; ++v)
      TB_TRY(tb_cub_reduce(lib, x->vars[v].type, x->vars[v].op, x->vars[v].d_in, c->n,
                           x->vars[v].d_result, x->scratch, 0));
    return TB_OK;
  }
  const tb_omp_method method = c->which == IMPL_ATOMICS ? TB_OMP_ATOMICS : TB_OMP_TREE;
  return tb_omp_reduce(x->vars, c->set.k, c->n, method, NULL, &c->box, 0, x->scratch, 0);
}

/* One launch from identities, then every variable against the CPU. */
static tb_status validate(launch_ctx *x, tb_buffer *results) {
  const bench_case *c = x->c;
  char what[160];
  snprintf(what, sizeof what, "omp_reduce %s %s n=%lld box=%dx%d", kImplName[c->which],
           c->set.name, (long long)c->n, c->box.nt, c->box.vt);
  tb_value init[kMaxVars], got[kMaxVars];
  for (int v = 0; v < c->set.k; ++v) init[v] = tb_identity(c->set.t[v], c->set.op[v]);
  TB_TRY(tb_buffer_upload(results, init, sizeof init));
  TB_TRY(launch(x));
  TB_TRY(tb_buffer_download(results, got, sizeof got));
  for (int v = 0; v < c->set.k; ++v) {
    tb_value want;
    TB_TRY(reference(c->set.t[v], c->set.op[v], v, c->n, &want));
    TB_TRY(tb_compare_value(c->set.t[v], got[v], want, 0.0, what));
  }
  return TB_OK;
}

static void run(tb_bench_state *st, void *arg) {
  const bench_case *c = arg;
  static tb_buffer scratch, results;
  launch_ctx x = {c, {{0}}, &scratch};
  int64_t bytes = 0;
  tb_status s = tb_buffer_reserve(&results, kMaxVars * sizeof(tb_value));
  for (int v = 0; s == TB_OK && v < c->set.k; ++v) {
    tb_sweep_input in;
    s = input(c->set.t[v], v, &in);
    if (s != TB_OK) break;
    /* Results sit one tb_value apart, each aligned for its type. */
    x.vars[v] =
        (tb_omp_var){c->set.t[v], c->set.op[v], in.dev, (char *)results.ptr + v * sizeof(tb_value)};
    bytes += c->n * (int64_t)tb_type_size(c->set.t[v]);
  }
  if (s == TB_OK && !tb_sweep_checked(c)) {
    s = validate(&x, &results);
    if (s == TB_OK) tb_sweep_checked_pass(c);
  }
  if (s != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  tb_sweep_measure(st, launch, &x, c->n * c->set.k, bytes);
}

/* ---- registration ------------------------------------------------------------------ */

static clause_set homogeneous(tb_type t, int k) {
  clause_set s = {.k = k};
  for (int v = 0; v < k; ++v) s.t[v] = t, s.op[v] = TB_OP_PLUS;
  snprintf(s.name, sizeof s.name, "%s_x%d", tb_type_name(t), k);
  return s;
}

static clause_set mixed(int k) {
  static const tb_type types[] = {TB_DOUBLE, TB_INT64, TB_FLOAT, TB_INT32};
  static const tb_op ops[] = {TB_OP_PLUS, TB_OP_MAX, TB_OP_MIN, TB_OP_PLUS};
  clause_set s = {.k = k};
  for (int v = 0; v < k; ++v) s.t[v] = types[v], s.op[v] = ops[v];
  snprintf(s.name, sizeof s.name, "mixed_x%d", k);
  return s;
}

static void add(clause_set set, int64_t n, impl which, tb_launch_box box) {
  bench_case *c = malloc(sizeof *c);
  if (!c) return;
  *c = (bench_case){set, n, which, box};
  char name[160];
  tb_sweep_name(name, sizeof name, "omp_reduce", kImplName[which], set.name, n, 0, box.nt,
                box.vt);
  tb_bench_register(name, run, c, free);
  int64_t bytes = 0;
  for (int v = 0; v < set.k; ++v) bytes += n * (int64_t)tb_type_size(set.t[v]);
  tb_bench_set_iterations(tb_sweep_iterations(bytes));
}

/* Boxes are swept for one variable of each type and the full mixed clause,
 * at a launch-bound, an L2-sized and a DRAM-bound size. */
static bool sweeps_boxes(const clause_set *s, int64_t n) {
  if (s->k != 1 && strcmp(s->name, "mixed_x4") != 0) return false;
  return tb_sweep.quick ? n == (1 << 20) : n == (1 << 20) || n == (1 << 22) || n == (1 << 26);
}

static void add_set(clause_set set) {
  const tb_launch_box tuned = {0, 0};
  for (int64_t n = 1 << 12; n <= max_n(); n <<= 2) {
    add(set, n, IMPL_TB, tuned);
    add(set, n, IMPL_ATOMICS, tuned);
    add(set, n, IMPL_CUB, tuned);
    add(set, n, IMPL_CUB35, tuned);
    if (!sweeps_boxes(&set, n)) continue;
    tb_launch_box boxes[32];
    const int count = tb_omp_grid(boxes, 32);
    for (int b = 0; b < count && b < 32; ++b) add(set, n, IMPL_TB, boxes[b]);
  }
}

static void register_all(void) {
  tb_cub_note_versions(tb_sweep_note_version);
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int k = 1; k <= kMaxVars; ++k) add_set(homogeneous((tb_type)t, k));
  for (int k = 2; k <= kMaxVars; ++k) add_set(mixed(k));
}

int main(int argc, char **argv) { return tb_sweep_main(argc, argv, "omp_reduce", register_all); }
