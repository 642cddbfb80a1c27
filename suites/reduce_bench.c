/* reduce sweep: tilebench's kernels (tuned default and every box of the
 * grid) beside cub::DeviceReduce, over sizes 2^10..2^28 and all four types.
 * Every benchmark first validates its result against the CPU reference, on
 * its first repetition (tb_sweep_checked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h" /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/sweep.h"
#include "core/types.h"
#include "core/validate.h"
#include "cpuref/reduce_scan.h"
#include "kernels/tilebench.h"
#include "suites/baselines/cub.h"

/* tilebench, then the two CUBs (cub_lib.h): the toolkit's and the newest. */
typedef enum { IMPL_TB, IMPL_CUB, IMPL_CUB35 } impl;

static tb_cub_lib impl_lib(impl which) { return which == IMPL_CUB35 ? TB_CUB_LATEST : TB_CUB_TOOLKIT; }
static const char *impl_name(impl which) {
  return which == IMPL_TB ? "tb" : tb_cub_lib_name(impl_lib(which));
}

typedef struct {
  tb_type t;
  tb_op op;
  int64_t n;
  impl which;
  tb_launch_box box; /* {0, 0}: tuned default */
} bench_case;

typedef struct {
  const bench_case *c;
  const void *d_in;
  void *d_total;
  tb_buffer *scratch;
} launch_ctx;

static int64_t max_n(void) { return tb_sweep_max(1 << 28, 1 << 22); }

static tb_status launch(void *p) {
  const launch_ctx *x = p;
  const bench_case *c = x->c;
  if (c->which != IMPL_TB)
    return tb_cub_reduce(impl_lib(c->which), c->t, c->op, x->d_in, c->n, x->d_total, x->scratch, 0);
  return tb_reduce(c->t, c->op, x->d_in, c->n, x->d_total, NULL, &c->box, x->scratch, 0);
}

/* The CPU's total for the current (type, op, n), computed once. */
static tb_value reference(const bench_case *c, const void *in) {
  static tb_type t = TB_TYPE_COUNT;
  static tb_op op = TB_OP_COUNT;
  static int64_t cached_n = -1;
  static tb_value total;
  if (t != c->t || op != c->op || cached_n != c->n) {
    memset(&total, 0, sizeof total);
    if (tb_type_is_float(c->t))
      tb_cpu_reduce_f64(c->t, c->op, in, c->n, &total.f64, NULL);
    else
      tb_cpu_reduce(c->t, c->op, in, c->n, &total);
    t = c->t, op = c->op, cached_n = c->n;
  }
  return total;
}

static void run(tb_bench_state *st, void *arg) {
  const bench_case *c = arg;
  static tb_buffer scratch, total;
  tb_sweep_input in;
  if (tb_sweep_input_get(c->t, c->op, TB_DRAW_EXACT, 0, max_n(), &in) != TB_OK ||
      tb_buffer_reserve(&total, sizeof(double)) != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  launch_ctx x = {c, in.dev, total.ptr, &scratch};

  if (!tb_sweep_checked(c)) {
    /* Checked once: exact, since the data keeps every partial result exact. */
    tb_value got;
    memset(&got, 0, sizeof got);
    char what[160];
    snprintf(what, sizeof what, "%s %s n=%lld box=%dx%d", tb_type_name(c->t), tb_op_name(c->op),
             (long long)c->n, c->box.nt, c->box.vt);
    tb_status s = launch(&x);
    if (s == TB_OK) s = tb_buffer_download(&total, &got, tb_type_size(c->t));
    if (s == TB_OK) s = tb_compare_value(c->t, got, reference(c, in.host), 0.0, what);
    if (s != TB_OK) {
      tb_bench_skip_with_error(st, tb_last_error());
      return;
    }
    tb_sweep_checked_pass(c);
  }
  tb_sweep_measure(st, launch, &x, c->n, c->n * (int64_t)tb_type_size(c->t));
}

static void add(tb_type t, tb_op op, int64_t n, impl which, tb_launch_box box) {
  bench_case *c = malloc(sizeof *c);
  if (!c) return;
  *c = (bench_case){t, op, n, which, box};
  char name[160];
  tb_sweep_name(name, sizeof name, op == TB_OP_PLUS ? "reduce" : "reduce_max",
                impl_name(which), tb_type_name(t), n, 0, box.nt, box.vt);
  tb_bench_register(name, run, c, free);
  tb_bench_set_iterations(tb_sweep_iterations(n * (int64_t)tb_type_size(t)));
}

/* Boxes are swept at a few sizes only (small, mid, L2-exceeding, large):
 * enough for the heat maps and the tuning table within one 10-minute run. */
static int sweeps_boxes(int64_t n) {
  if (tb_sweep.quick) return n == (1 << 20);
  return n == (1 << 16) || n == (1 << 20) || n == (1 << 24) || n == (1 << 26);
}

static void register_all(void) {
  tb_cub_note_versions(tb_sweep_note_version);
  const tb_op ops[] = {TB_OP_PLUS, TB_OP_MAX};
  const tb_launch_box tuned = {0, 0};
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int o = 0; o < 2; ++o)
      for (int64_t n = 1 << 10; n <= max_n(); n <<= 2) {
        add((tb_type)t, ops[o], n, IMPL_TB, tuned);
        add((tb_type)t, ops[o], n, IMPL_CUB, tuned);
        add((tb_type)t, ops[o], n, IMPL_CUB35, tuned);
        if (ops[o] != TB_OP_PLUS || !sweeps_boxes(n)) continue;
        tb_launch_box boxes[64];
        const int count = tb_reduce_grid((tb_type)t, TB_OP_PLUS, boxes, 64);
        for (int b = 0; b < count && b < 64; ++b) add((tb_type)t, ops[o], n, IMPL_TB, boxes[b]);
      }
}

int main(int argc, char **argv) { return tb_sweep_main(argc, argv, "reduce", register_all); }
