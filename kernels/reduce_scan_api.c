/* Public reduce and scan entry points: argument checks, scratch management
 * and host totals around the per-type dispatch in reduce_scan.cu. */
#include <stdint.h>
#include <string.h>

#include "kernels/reduce_scan_dispatch.h"
#include "kernels/tuned.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

/* ---- the kernel sets (kernels/grid.h) ---------------------------------------- */

/* Each kernel set's table for a type (kernels/reduce_scan_entry.cu), the
 * tuned set's first. */
#ifdef TB_WIDE_SET
static const tb_scan_type_set *(*const kSets[TB_KERNEL_SETS])(tb_type) = {tb_scan_tuned_set,
                                                                          tb_scan_wide_set};
#else
static const tb_scan_type_set *(*const kSets[TB_KERNEL_SETS])(tb_type) = {tb_scan_tuned_set};
#endif

static tb_grid_sets reduce_grids(tb_type t) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kSets[s](t)->reduce_grid;
  return g;
}

static tb_grid_sets scan_grids(tb_type t) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kSets[s](t)->scan_grid;
  return g;
}

/* The launch of a resolved box: the first set's that compiles it. */
static tb_scan_launch reduce_of(tb_type t, tb_op op, tb_launch_box box) {
  tb_scan_launch k = NULL;
  for (int s = 0; s < TB_KERNEL_SETS && !k; ++s) k = kSets[s](t)->reduce(op, box);
  return k;
}

static tb_scan_launch scan_of(tb_type t, tb_op op, tb_launch_box box) {
  tb_scan_launch k = NULL;
  for (int s = 0; s < TB_KERNEL_SETS && !k; ++s) k = kSets[s](t)->scan(op, box);
  return k;
}

int tb_reduce_grid(tb_type type, tb_op op, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(reduce_grids(type).set, op, out, cap) : 0;
}

int tb_scan_grid(tb_type type, tb_op op, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(scan_grids(type).set, op, out, cap) : 0;
}

/* From the generated table (kernels/tuned/): the fastest box at the largest
 * swept size, per type. */
tb_launch_box tb_reduce_default_box(tb_type type) {
  return tb_type_valid(type) ? tb_tuned_box(TB_TUNED_REDUCE, type, 0, 0) : (tb_launch_box){0, 0};
}
tb_launch_box tb_scan_default_box(tb_type type) {
  return tb_type_valid(type) ? tb_tuned_box(TB_TUNED_SCAN, type, 0, 0) : (tb_launch_box){0, 0};
}
tb_scan_algo tb_scan_default_algo(tb_type type) {
  (void)type;
  return TB_SCAN_LOOKBACK;
}

static tb_status check_common(const char *fn, tb_type type, tb_op op, const void *d_in,
                              int64_t n) {
  if (tb_check_type_op(type, op) != TB_OK)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s", fn, tb_last_error());
  if (n < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: negative count n = %lld", fn, (long long)n);
  if (n > TB_MAX_ITEMS)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: n = %lld is over the limit of 2^40 items", fn,
                   (long long)n);
  if (n > 0 && !d_in) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_in is NULL with n = %lld", fn, (long long)n);
  if ((uintptr_t)d_in % tb_type_size(type) != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_in is not aligned to its %zu-byte elements", fn,
                   tb_type_size(type));
  return TB_OK;
}

/* The scratch of a call (core/cuda.h): what the kernels need, then a slot
 * for the total when the caller wants it on the host only. */
typedef struct {
  size_t kernel_bytes, total_bytes;
  void *kernel, *total;
} layout;

static void lay_out(tb_scratch *s, layout *l) {
  l->kernel = tb_scratch_take(s, l->kernel_bytes);
  l->total = tb_scratch_take(s, l->total_bytes);
}

/* Copies the device total to the host once the stream reaches it. */
static tb_status fetch_total(void *h_total, const void *d_total, size_t bytes, cudaStream_t stream) {
  TB_CUDA_TRY(cudaMemcpyAsync(h_total, d_total, bytes, cudaMemcpyDeviceToHost, stream));
  TB_CUDA_TRY(cudaStreamSynchronize(stream));
  return TB_OK;
}

/* A call through its launch: the scratch sized, laid out and taken, the
 * kernels, the total copied to the host when asked for. */
static tb_status run(tb_scan_launch launch, tb_type type, tb_scan_call *c, void *h_total,
                     tb_buffer *scratch) {
  layout l = {.total_bytes = !c->total && h_total ? tb_type_size(type) : 0};
  TB_TRY(launch(c));
  l.kernel_bytes = c->scratch_bytes;
  tb_scratch s = {0};
  lay_out(&s, &l);
  TB_TRY(tb_scratch_begin(&s, scratch));
  lay_out(&s, &l);
  if (!c->total && h_total) c->total = l.total;
  c->scratch = l.kernel;
  tb_status st = launch(c);
  if (st == TB_OK && h_total) st = fetch_total(h_total, c->total, tb_type_size(type), c->stream);
  return tb_scratch_end(&s, st, c->stream);
}

/* The box's launch (resolve_box has found it in a set). */
static tb_status launch_of(const char *fn, tb_scan_launch k, tb_launch_box b, tb_scan_launch *out) {
  if (!k)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: box %dx%d runs, but no kernel set has it", fn,
                   b.nt, b.vt);
  *out = k;
  return TB_OK;
}

tb_status tb_reduce(tb_type type, tb_op op, const void *d_in, int64_t n, void *d_total,
                    void *h_total, const tb_launch_box *box, tb_buffer *scratch,
                    cudaStream_t stream) {
  tb_launch_box b;
  TB_TRY(check_common("tb_reduce", type, op, d_in, n));
  if (!d_total && !h_total)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_reduce: neither d_total nor h_total is given");
  TB_TRY(tb_resolve_box("tb_reduce", reduce_grids(type).set, type, op, box,
                        tb_reduce_default_box(type), &b));
  tb_scan_launch k = NULL;
  TB_TRY(launch_of("tb_reduce", reduce_of(type, op, b), b, &k));
  tb_scan_call c = {.in = d_in, .n = n, .total = d_total, .stream = stream};
  return run(k, type, &c, h_total, scratch);
}

tb_status tb_scan(tb_type type, tb_op op, tb_scan_kind kind, tb_scan_algo algo, const void *d_in,
                  void *d_out, int64_t n, void *d_total, void *h_total, const tb_launch_box *box,
                  tb_buffer *scratch, cudaStream_t stream) {
  tb_launch_box b;
  TB_TRY(check_common("tb_scan", type, op, d_in, n));
  if (n > 0 && !d_out)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_scan: d_out is NULL with n = %lld", (long long)n);
  if ((uintptr_t)d_out % tb_type_size(type) != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_scan: d_out is not aligned to its elements");
  if (kind != TB_SCAN_EXCLUSIVE && kind != TB_SCAN_INCLUSIVE)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_scan: unknown scan kind %d", (int)kind);
  if (algo == TB_SCAN_DEFAULT) algo = tb_scan_default_algo(type);
  if (algo != TB_SCAN_LOOKBACK && algo != TB_SCAN_REDUCE_THEN_SCAN)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_scan: unknown algorithm %d", (int)algo);
  TB_TRY(tb_resolve_box("tb_scan", scan_grids(type).set, type, op, box, tb_scan_default_box(type),
                        &b));
  tb_scan_launch k = NULL;
  TB_TRY(launch_of("tb_scan", scan_of(type, op, b), b, &k));
  tb_scan_call c = {.kind = kind,
                    .algo = algo,
                    .in = d_in,
                    .out = d_out,
                    .n = n,
                    .total = d_total,
                    .stream = stream};
  return run(k, type, &c, h_total, scratch);
}
