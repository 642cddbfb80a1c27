/* scan sweep: tilebench's single-pass look-back scan (tuned default and every
 * box) and the reference's reduce-then-scan (every box), beside
 * cub::DeviceScan, exclusive and inclusive, over sizes 2^10..2^28 and all
 * four types. Every benchmark first validates its output against the CPU, on
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
  tb_scan_kind kind;
  tb_scan_algo algo;
  int64_t n;
  impl which;
  tb_launch_box box; /* {0, 0}: tuned default */
} bench_case;

typedef struct {
  const bench_case *c;
  const void *d_in;
  void *d_out;
  tb_buffer *scratch;
} launch_ctx;

static int64_t max_n(void) { return tb_sweep_max(1 << 28, 1 << 22); }

static tb_status launch(void *p) {
  const launch_ctx *x = p;
  const bench_case *c = x->c;
  if (c->which != IMPL_TB)
    return tb_cub_scan(impl_lib(c->which), c->t, c->op, c->kind, x->d_in, x->d_out, c->n,
                       x->scratch, 0);
  return tb_scan(c->t, c->op, c->kind, c->algo, x->d_in, x->d_out, c->n, NULL, NULL, &c->box,
                 x->scratch, 0);
}

/* The CPU's scan of the current (type, op, kind, n), computed once: as type
 * t for integers, in higher precision (double) for floats. */
static const void *reference(const bench_case *c, const void *in) {
  static tb_type t = TB_TYPE_COUNT;
  static tb_op op = TB_OP_COUNT;
  static tb_scan_kind k;
  static int64_t cached_n = -1;
  static void *want;
  if (t != c->t || op != c->op || k != c->kind || cached_n != c->n) {
    free(want);
    want = malloc((size_t)c->n * sizeof(double));
    if (!want) return NULL;
    const bool inclusive = c->kind == TB_SCAN_INCLUSIVE;
    if (tb_type_is_float(c->t))
      tb_cpu_scan_f64(c->t, c->op, inclusive, in, want, c->n, NULL, NULL, NULL);
    else
      tb_cpu_scan(c->t, c->op, inclusive, in, want, c->n, NULL);
    t = c->t, op = c->op, k = c->kind, cached_n = c->n;
  }
  return want;
}

static void run(tb_bench_state *st, void *arg) {
  const bench_case *c = arg;
  static tb_buffer scratch, out;
  const size_t sz = tb_type_size(c->t);
  tb_sweep_input in;
  if (tb_sweep_input_get(c->t, c->op, TB_DRAW_EXACT, 0, max_n(), &in) != TB_OK ||
      tb_buffer_reserve(&out, (size_t)max_n() * sizeof(double)) != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  launch_ctx x = {c, in.dev, out.ptr, &scratch};
  if (!tb_sweep_checked(c)) {
    void *got = tb_sweep_host_buffer((size_t)c->n * sz);
    const void *want = got ? reference(c, in.host) : NULL;
    if (!want) {
      tb_bench_skip_with_error(st, got ? "out of host memory for validation" : tb_last_error());
      return;
    }
    /* Checked once, on a poisoned output: exact, since the data keeps every
     * prefix exact. */
    char what[160];
    snprintf(what, sizeof what, "%s %s %s n=%lld box=%dx%d", tb_type_name(c->t), tb_op_name(c->op),
             c->kind == TB_SCAN_INCLUSIVE ? "inclusive" : "exclusive", (long long)c->n, c->box.nt,
             c->box.vt);
    tb_status s = cudaMemset(out.ptr, 0xff, (size_t)c->n * sz) == cudaSuccess
                      ? launch(&x)
                      : tb_fail(TB_ERR_CUDA, "poisoning the output failed");
    if (s == TB_OK) s = tb_buffer_download(&out, got, (size_t)c->n * sz);
    if (s == TB_OK) s = tb_compare(c->t, got, want, NULL, c->n, what);
    if (s != TB_OK) {
      tb_bench_skip_with_error(st, tb_last_error());
      return;
    }
    tb_sweep_checked_pass(c);
  }
  tb_sweep_measure(st, launch, &x, c->n, 2 * c->n * (int64_t)sz);
}

static void add(tb_type t, tb_op op, tb_scan_kind kind, tb_scan_algo algo, int64_t n, impl which,
                tb_launch_box box) {
  bench_case *c = malloc(sizeof *c);
  if (!c) return;
  *c = (bench_case){t, op, kind, algo, n, which, box};
  char algorithm[64], name[192];
  snprintf(algorithm, sizeof algorithm, "scan_%s%s%s",
           kind == TB_SCAN_INCLUSIVE ? "inclusive" : "exclusive", op == TB_OP_MAX ? "_max" : "",
           algo == TB_SCAN_REDUCE_THEN_SCAN ? "_rts" : "");
  tb_sweep_name(name, sizeof name, algorithm, impl_name(which), tb_type_name(t), n, 0, box.nt,
                box.vt);
  tb_bench_register(name, run, c, free);
  tb_bench_set_iterations(tb_sweep_iterations(2 * n * (int64_t)tb_type_size(t)));
}

static int sweeps_boxes(int64_t n) {
  if (tb_sweep.quick) return n == (1 << 20);
  return n == (1 << 16) || n == (1 << 20) || n == (1 << 24) || n == (1 << 26);
}

static void register_all(void) {
  tb_cub_note_versions(tb_sweep_note_version);
  const tb_launch_box tuned = {0, 0};
  const struct {
    tb_op op;
    tb_scan_kind kind;
  } variants[] = {{TB_OP_PLUS, TB_SCAN_EXCLUSIVE}, {TB_OP_PLUS, TB_SCAN_INCLUSIVE},
                  {TB_OP_MAX, TB_SCAN_INCLUSIVE}};
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int v = 0; v < 3; ++v)
      for (int64_t n = 1 << 10; n <= max_n(); n <<= 2) {
        const tb_op op = variants[v].op;
        const tb_scan_kind kind = variants[v].kind;
        add((tb_type)t, op, kind, TB_SCAN_DEFAULT, n, IMPL_TB, tuned);
        add((tb_type)t, op, kind, TB_SCAN_REDUCE_THEN_SCAN, n, IMPL_TB, tuned);
        add((tb_type)t, op, kind, TB_SCAN_DEFAULT, n, IMPL_CUB, tuned);
        add((tb_type)t, op, kind, TB_SCAN_DEFAULT, n, IMPL_CUB35, tuned);
        if (v != 0 || !sweeps_boxes(n)) continue; /* boxes: exclusive sum */
        tb_launch_box boxes[64];
        const int count = tb_scan_grid((tb_type)t, TB_OP_PLUS, boxes, 64);
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < count && b < 64; ++b)
            add((tb_type)t, op, kind, a ? TB_SCAN_REDUCE_THEN_SCAN : TB_SCAN_LOOKBACK, n, IMPL_TB,
                boxes[b]);
      }
}

int main(int argc, char **argv) { return tb_sweep_main(argc, argv, "scan", register_all); }
