/* Public load-balancing search and interval entry points: argument checks,
 * launch boxes and scratch around lbs.cu and the per-type interval.cu. */
#include <stdint.h>
#include <string.h>

#include "kernels/interval_dispatch.h"
#include "kernels/tuned.h"
#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

/* ---- the kernel sets (kernels/grid.h) ---------------------------------------- */

/* The search's kernel sets, and each set's table for a type
 * (kernels/interval_entry.cu), the tuned set's first. */
#ifdef TB_WIDE_SET
static const tb_lbs_set *const kLbsSets[TB_KERNEL_SETS] = {&tb_lbs_tuned_set, &tb_lbs_wide_set};
static const tb_interval_type_set *(*const kSets[TB_KERNEL_SETS])(tb_type) = {tb_interval_tuned_set,
                                                                              tb_interval_wide_set};
#else
static const tb_lbs_set *const kLbsSets[TB_KERNEL_SETS] = {&tb_lbs_tuned_set};
static const tb_interval_type_set *(*const kSets[TB_KERNEL_SETS])(tb_type) = {
    tb_interval_tuned_set};
#endif

static tb_grid_sets lbs_grids(void) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kLbsSets[s]->grid;
  return g;
}

static tb_grid_sets interval_grids(tb_type t) {
  tb_grid_sets g;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) g.set[s] = kSets[s](t)->grid;
  return g;
}

/* The policy of a resolved box: the first set's that compiles it. */
static const tb_lbs_policy *lbs_policy_of(tb_launch_box box) {
  const tb_lbs_policy *p = NULL;
  for (int s = 0; s < TB_KERNEL_SETS && !p; ++s) p = kLbsSets[s]->resolve(box);
  return p;
}

static const tb_interval_policy *interval_policy_of(tb_type t, tb_launch_box box) {
  const tb_interval_policy *p = NULL;
  for (int s = 0; s < TB_KERNEL_SETS && !p; ++s) p = kSets[s](t)->resolve(box);
  return p;
}

/* The average count of a geometry, which the tuned boxes depend on: short
 * runs put half of every tile into scan entries and want large tiles, long
 * runs want more threads. */
static double avg_count(int64_t num_objects, int64_t n_items) {
  return num_objects > 0 ? (double)n_items / (double)num_objects : 1.0;
}

/* box, or when a tile of it does not fit the type (the generated rows come
 * from int32 sweeps), the box of the grid with the same NT and the largest
 * VT below that fits; the largest fitting box of a smaller NT after that. */
static tb_launch_box fitting(tb_launch_box box, const tb_grid *const *sets) {
  if (tb_grid_set_of(sets, TB_OP_PLUS, box) >= 0) return box;
  tb_launch_box boxes[64], best = {0, 0};
  const int n = tb_grid_list(sets, TB_OP_PLUS, boxes, 64);
  for (int i = 0; i < n && i < 64; ++i) {
    const tb_launch_box b = boxes[i];
    if (b.nt > box.nt || (b.nt == box.nt && b.vt > box.vt)) continue;
    if (b.nt > best.nt || (b.nt == best.nt && b.vt > best.vt)) best = b;
  }
  return best;
}

/* From the generated table (kernels/tuned/): per average count, the fastest
 * box of the int32 sweep at the nearest count. */
tb_launch_box tb_lbs_default_box(int64_t num_objects, int64_t n_items) {
  return fitting(tb_tuned_box(TB_TUNED_LBS, TB_INT32, avg_count(num_objects, n_items), 0),
                 lbs_grids().set);
}

tb_launch_box tb_interval_default_box(tb_interval_op op, tb_type type, int64_t num_objects,
                                      int64_t n_items) {
  if (op < 0 || op >= TB_INTERVAL_OP_COUNT || !tb_type_valid(type)) return (tb_launch_box){0, 0};
  const tb_tuned_family family = op == TB_INTERVAL_EXPAND ? TB_TUNED_EXPAND : TB_TUNED_MOVE;
  return fitting(tb_tuned_box(family, type, avg_count(num_objects, n_items), 0),
                 interval_grids(type).set);
}

int tb_lbs_grid(tb_launch_box *out, int cap) {
  return tb_grid_list(lbs_grids().set, TB_OP_PLUS, out, cap);
}

int tb_interval_grid(tb_type type, tb_launch_box *out, int cap) {
  return tb_type_valid(type) ? tb_grid_list(interval_grids(type).set, TB_OP_PLUS, out, cap) : 0;
}

/* The checks every call shares: sizes that fit int32, a scan when there are
 * items, and objects for them. */
static tb_status check_sizes(const char *fn, const int32_t *d_scan, int64_t num_objects,
                             int64_t n_items) {
  if (num_objects < 0 || num_objects > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_objects = %lld outside [0, INT32_MAX]", fn,
                   (long long)num_objects);
  if (n_items < 0 || n_items > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: n_items = %lld outside [0, INT32_MAX] (the scan is int32)", fn,
                   (long long)n_items);
  if (n_items > 0 && num_objects == 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %lld items but no objects to own them", fn,
                   (long long)n_items);
  if (n_items > 0 && !d_scan)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_scan is NULL with %lld objects", fn,
                   (long long)num_objects);
  if ((uintptr_t)d_scan % sizeof(int32_t) != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_scan is not aligned to int32", fn);
  return TB_OK;
}

/* A device array the call needs when it has items: not NULL, aligned. */
static tb_status check_array(const char *fn, const char *name, const void *p, size_t align,
                             int64_t n_items) {
  if (n_items > 0 && !p)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL with n_items = %lld", fn, name,
                   (long long)n_items);
  if ((uintptr_t)p % align != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is not aligned to its %zu-byte elements", fn,
                   name, align);
  return TB_OK;
}

static tb_status check_type(const char *fn, tb_type t) {
  if (!tb_type_valid(t)) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown type %d", fn, (int)t);
  return TB_OK;
}

static tb_status check_count(const char *fn, const char *name, int64_t n) {
  if (n < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s = %lld is negative", fn, name, (long long)n);
  return TB_OK;
}

/* ---- lbs ------------------------------------------------------------------ */

int tb_lbs_wave_tiles(tb_launch_box box) {
  const tb_lbs_policy *p = lbs_policy_of(box);
  return p ? p->wave_tiles() : 0;
}

tb_status tb_lbs(const int32_t *d_scan, int64_t num_objects, int64_t n_items, int32_t *d_obj,
                 int32_t *d_rank, const tb_launch_box *box, tb_buffer *scratch,
                 cudaStream_t stream) {
  static const char fn[] = "tb_lbs";
  tb_launch_box b;
  TB_TRY(check_sizes(fn, d_scan, num_objects, n_items));
  TB_TRY(check_array(fn, "d_obj", d_obj, sizeof(int32_t), n_items));
  TB_TRY(check_array(fn, "d_rank", d_rank, sizeof(int32_t), 0));
  TB_TRY(tb_resolve_box(fn, lbs_grids().set, TB_TYPE_COUNT, TB_OP_PLUS, box,
                        tb_lbs_default_box(num_objects, n_items), &b));
  if (n_items == 0) return TB_OK;
  const tb_lbs_policy *k = lbs_policy_of(b);
  if (!k) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: box %dx%d has no policy", fn, b.nt, b.vt);
  tb_interval_call c = {.scan = d_scan,
                        .num_objects = (int)num_objects,
                        .n_items = (int)n_items,
                        .obj = d_obj,
                        .rank = d_rank,
                        .stream = stream};
  TB_TRY(k->lbs(&c));
  tb_scratch s;
  TB_TRY(tb_scratch_begin_one(&s, scratch, c.scratch_bytes, &c.scratch));
  return tb_scratch_end(&s, k->lbs(&c), stream);
}

/* ---- intervals ------------------------------------------------------------ */

typedef struct {
  tb_type type;
  tb_interval_op op;
  tb_launch_box box;
  const int32_t *gather, *scatter, *scan;
  const void *in;
  void *out;
  int64_t n_in, n_out;
} interval_args;

/* The checks and the run every interval call shares; gather / scatter are
 * checked by the caller (NULL where the operation has none). */
static tb_status interval_run(const char *fn, interval_args *a, int64_t num_objects,
                              int64_t n_items, const tb_launch_box *box, tb_buffer *scratch,
                              cudaStream_t stream) {
  TB_TRY(check_type(fn, a->type));
  TB_TRY(check_sizes(fn, a->scan, num_objects, n_items));
  const size_t sz = tb_type_size(a->type);
  TB_TRY(check_array(fn, a->op == TB_INTERVAL_EXPAND ? "d_values" : "d_in", a->in, sz, n_items));
  TB_TRY(check_array(fn, "d_out", a->out, sz, n_items));
  TB_TRY(check_count(fn, "n_in", a->n_in));
  TB_TRY(check_count(fn, "n_out", a->n_out));
  TB_TRY(tb_resolve_box(fn, interval_grids(a->type).set, a->type, TB_OP_PLUS, box,
                        tb_interval_default_box(a->op, a->type, num_objects, n_items), &a->box));
  if (n_items == 0) return TB_OK;
  const tb_interval_policy *k = interval_policy_of(a->type, a->box);
  if (!k)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: box %dx%d has no policy", fn, a->box.nt,
                   a->box.vt);
  tb_interval_call c = {.op = a->op,
                        .scan = a->scan,
                        .gather = a->gather,
                        .scatter = a->scatter,
                        .num_objects = (int)num_objects,
                        .n_items = (int)n_items,
                        .in = a->in,
                        .out = a->out,
                        .n_in = a->n_in,
                        .n_out = a->n_out,
                        .stream = stream};
  const tb_interval_launch launch = a->op == TB_INTERVAL_EXPAND ? k->expand : k->move;
  TB_TRY(launch(&c));
  tb_scratch s;
  TB_TRY(tb_scratch_begin_one(&s, scratch, c.scratch_bytes, &c.scratch));
  return tb_scratch_end(&s, launch(&c), stream);
}

tb_status tb_interval_expand(tb_type type, const int32_t *d_scan, int64_t num_objects,
                             int64_t n_items, const void *d_values, void *d_out,
                             const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream) {
  interval_args a = {type,   TB_INTERVAL_EXPAND, {0, 0}, NULL,        NULL,
                     d_scan, d_values,           d_out,  num_objects, n_items};
  return interval_run("tb_interval_expand", &a, num_objects, n_items, box, scratch, stream);
}

tb_status tb_interval_move(tb_type type, const int32_t *d_gather, const int32_t *d_scatter,
                           const int32_t *d_scan, int64_t num_objects, int64_t n_items,
                           const void *d_in, int64_t n_in, void *d_out, int64_t n_out,
                           const tb_launch_box *box, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_interval_move";
  TB_TRY(check_array(fn, "d_gather", d_gather, sizeof(int32_t), n_items));
  TB_TRY(check_array(fn, "d_scatter", d_scatter, sizeof(int32_t), n_items));
  interval_args a = {type, TB_INTERVAL_MOVE, {0, 0}, d_gather, d_scatter, d_scan, d_in, d_out, n_in,
                     n_out};
  return interval_run(fn, &a, num_objects, n_items, box, scratch, stream);
}

tb_status tb_interval_gather(tb_type type, const int32_t *d_gather, const int32_t *d_scan,
                             int64_t num_objects, int64_t n_items, const void *d_in, int64_t n_in,
                             void *d_out, const tb_launch_box *box, tb_buffer *scratch,
                             cudaStream_t stream) {
  static const char fn[] = "tb_interval_gather";
  TB_TRY(check_array(fn, "d_gather", d_gather, sizeof(int32_t), n_items));
  interval_args a = {type,   TB_INTERVAL_GATHER, {0, 0}, d_gather, NULL, d_scan, d_in, d_out, n_in,
                     n_items};
  return interval_run(fn, &a, num_objects, n_items, box, scratch, stream);
}

tb_status tb_interval_scatter(tb_type type, const int32_t *d_scatter, const int32_t *d_scan,
                              int64_t num_objects, int64_t n_items, const void *d_in, void *d_out,
                              int64_t n_out, const tb_launch_box *box, tb_buffer *scratch,
                              cudaStream_t stream) {
  static const char fn[] = "tb_interval_scatter";
  TB_TRY(check_array(fn, "d_scatter", d_scatter, sizeof(int32_t), n_items));
  interval_args a = {
      type, TB_INTERVAL_SCATTER, {0, 0}, NULL, d_scatter, d_scan, d_in, d_out, n_items, n_out};
  return interval_run(fn, &a, num_objects, n_items, box, scratch, stream);
}

/* ---- validation ------------------------------------------------------------ */

tb_status tb_interval_validate(const int32_t *d_scan, int64_t num_objects, int64_t n_items,
                               tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_interval_validate";
  TB_TRY(check_sizes(fn, d_scan, num_objects, n_items));
  if (num_objects == 0) return TB_OK;
  if (!d_scan)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: d_scan is NULL with %lld objects", fn,
                   (long long)num_objects);
  tb_scratch s;
  void *d_first = NULL;
  TB_TRY(tb_scratch_begin_one(&s, scratch, sizeof(uint32_t), &d_first));
  uint32_t first = 0;
  int32_t pair[2] = {0, 0}; /* scan[i - 1], scan[i] */
  tb_status st =
      tb_offsets_validate_run(d_scan, (int)num_objects, (int)n_items, false, d_first, stream);
  if (st == TB_OK)
    TB_CUDA_GOTO(st, done,
                 cudaMemcpyAsync(&first, d_first, sizeof first, cudaMemcpyDeviceToHost, stream));
  if (st == TB_OK) TB_CUDA_GOTO(st, done, cudaStreamSynchronize(stream));
  if (st != TB_OK || first == UINT32_MAX) goto done;
  const int64_t i = first;
  TB_CUDA_GOTO(st, done, cudaMemcpy(&pair[1], d_scan + i, sizeof(int32_t), cudaMemcpyDeviceToHost));
  if (i > 0)
    TB_CUDA_GOTO(st, done,
                 cudaMemcpy(&pair[0], d_scan + i - 1, sizeof(int32_t), cudaMemcpyDeviceToHost));
  if (i == 0 && pair[1] != 0)
    st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: scan[0] = %d, an exclusive scan starts at 0", fn,
                 pair[1]);
  else if (i > 0 && pair[0] > pair[1])
    st = tb_fail(TB_ERR_INVALID_ARGUMENT,
                 "%s: scan[%lld] = %d is less than scan[%lld] = %d (the scan must not decrease)",
                 fn, (long long)i, pair[1], (long long)(i - 1), pair[0]);
  else
    st = tb_fail(TB_ERR_INVALID_ARGUMENT,
                 "%s: scan[%lld] = %d, the last entry, exceeds n_items = %lld (the total is wrong)",
                 fn, (long long)i, pair[1], (long long)n_items);
done:
  return tb_scratch_end(&s, st, stream);
}
