/* Public OpenMP-style reduction entry points: argument checks, the grid and
 * the partials' scratch around the kernels in omp_reduce.cu. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cuda.h" /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"
#include "kernels/grid.h"
#include "kernels/omp_reduce_dispatch.h"
#include "kernels/tilebench.h"
#include "kernels/tuned.h"

static const int kGridNt[] = {64, 128, 256, 512, 1024};
static const int kGridVt[] = {1, 2, 4, 8};
enum { kNts = sizeof kGridNt / sizeof kGridNt[0], kVts = sizeof kGridVt / sizeof kGridVt[0] };

/* n bounded so that every index the kernels form, a grid stride past the
 * last item included, stays far inside int64_t. */
static const int64_t kMaxItems = INT64_C(1) << 60;

int tb_omp_grid(tb_launch_box *out, int cap) {
  int count = 0;
  for (int i = 0; i < kNts; ++i)
    for (int j = 0; j < kVts; ++j, ++count)
      if (count < cap) out[count] = (tb_launch_box){kGridNt[i], kGridVt[j]};
  return count;
}

/* From the generated table (kernels/tuned/): the best geometric mean over
 * the clauses swept. */
tb_launch_box tb_omp_default_box(void) { return tb_tuned_box(TB_TUNED_OMP, TB_INT32, 0, 0); }

/* The kernels take any block size of 1..1024 (the sweep measures the list
 * above) at the vts they are compiled for: one kernel set. */
static int omp_list(tb_op op, tb_launch_box *out, int cap) {
  (void)op;
  return tb_omp_grid(out, cap);
}
static tb_box_verdict omp_verdict(tb_op op, tb_launch_box box) {
  (void)op;
  if (box.nt < 1 || box.nt > 1024) return TB_BOX_NOT_IN_GRID;
  for (int j = 0; j < kVts; ++j)
    if (box.vt == kGridVt[j]) return TB_BOX_RUNS;
  return TB_BOX_NOT_IN_GRID;
}
static const tb_grid kOmpGrid = {"omp_reduce", omp_list, omp_verdict,
                                 "nt 1..1024, vt one of 1, 2, 4, 8"};
#ifdef TB_WIDE_SET
static const tb_grid *const kOmpGrids[TB_KERNEL_SETS] = {&kOmpGrid, &tb_no_grid};
#else
static const tb_grid *const kOmpGrids[TB_KERNEL_SETS] = {&kOmpGrid};
#endif

/* The generated callbacks' device addresses, per device (each device loads
 * the module on its own), read once: reading a symbol costs more than a
 * small reduction. Devices past kCachedDevices are read every time. */
enum { kCachedDevices = 64 };
static tb_omp_callbacks callbacks_of_device[kCachedDevices];
static pthread_mutex_t callbacks_lock = PTHREAD_MUTEX_INITIALIZER;

tb_status tb_omp_generated_callbacks(tb_omp_callbacks *out) {
  if (!out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_omp_generated_callbacks: out is NULL");
  int dev = 0;
  TB_CUDA_TRY(cudaGetDevice(&dev));
  const bool cached = dev >= 0 && dev < kCachedDevices;
  tb_omp_callbacks cb = {0};
  if (cached) {
    pthread_mutex_lock(&callbacks_lock);
    cb = callbacks_of_device[dev];
    pthread_mutex_unlock(&callbacks_lock);
  }
  if (!cb.shuffle_reduce) {
    TB_TRY(tb_omp_device_callbacks(&cb));
    if (cached) {
      pthread_mutex_lock(&callbacks_lock);
      callbacks_of_device[dev] = cb;
      pthread_mutex_unlock(&callbacks_lock);
    }
  }
  *out = cb;
  return TB_OK;
}

/* The callbacks to call (NULL: the generated ones), and whether they are the
 * generated ones, which the kernels may then call directly. */
static tb_status resolve_callbacks(const char *fn, const tb_omp_callbacks *given,
                                   tb_omp_callbacks *out, bool *generated) {
  tb_omp_callbacks gen;
  TB_TRY(tb_omp_generated_callbacks(&gen));
  if (!given) given = &gen;
  if (!given->shuffle_reduce)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: the shuffle_reduce callback is NULL", fn);
  if (!given->inter_warp_copy)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: the inter_warp_copy callback is NULL", fn);
  *out = *given;
  *generated = given->shuffle_reduce == gen.shuffle_reduce &&
               given->inter_warp_copy == gen.inter_warp_copy;
  return TB_OK;
}

/* Checks the variables and packs them into the kernels' clause. */
static tb_status make_clause(const char *fn, const tb_omp_var *vars, int num_vars, int64_t n,
                             tb_omp_clause *clause) {
  if (!vars) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: vars is NULL", fn);
  if (num_vars < 1 || num_vars > TB_OMP_MAX_VARS)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %d variables: a clause reduces 1 to %d", fn,
                   num_vars, TB_OMP_MAX_VARS);
  memset(clause, 0, sizeof *clause);
  clause->num_vars = num_vars;
  for (int v = 0; v < num_vars; ++v) {
    const tb_omp_var *x = &vars[v];
    if (tb_check_type_op(x->type, x->op) != TB_OK)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: variable %d: %s", fn, v, tb_last_error());
    const size_t size = tb_type_size(x->type);
    if (n > 0 && !x->d_in)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: variable %d: d_in is NULL with n = %lld", fn, v,
                     (long long)n);
    if (!x->d_result)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: variable %d: d_result is NULL", fn, v);
    if ((uintptr_t)x->d_in % size != 0 || (uintptr_t)x->d_result % size != 0)
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: variable %d: d_in or d_result is not aligned to its %zu-byte elements",
                     fn, v, size);
    clause->in[v] = x->d_in;
    clause->result[v] = x->d_result;
    clause->code[v] = tb_omp_code(x->type, x->op);
  }
  return TB_OK;
}

/* num_blocks, or one block per resident slot, but no more blocks than tiles. */
static tb_status choose_blocks(const tb_omp_clause *clause, const tb_omp_var *vars,
                               tb_omp_method method, bool generated, tb_launch_box b, int64_t n,
                               int64_t num_blocks, int64_t *out) {
  if (num_blocks > 0) {
    *out = num_blocks;
    return TB_OK;
  }
  int per_sm = 0, sm_count = 0;
  TB_TRY(tb_omp_residency(clause, method, generated, b.nt, b.vt, &per_sm, &sm_count));
  if (per_sm < 1)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_omp_reduce: a block of %d threads (vt %d) does "
                   "not fit on an SM", b.nt, b.vt);
  /* A tile is nt * vt vectors of 16 bytes: the widest variable's array has
   * the most vectors, so it counts the tiles. */
  size_t widest = 1;
  for (int v = 0; v < clause->num_vars; ++v)
    if (tb_type_size(vars[v].type) > widest) widest = tb_type_size(vars[v].type);
  const int64_t tile = (int64_t)b.nt * b.vt * (int64_t)(16 / widest);
  const int64_t tiles = (n + tile - 1) / tile;
  const int64_t slots = (int64_t)per_sm * sm_count;
  *out = tiles < slots ? (tiles > 0 ? tiles : 1) : slots;
  return TB_OK;
}

tb_status tb_omp_reduce(const tb_omp_var *vars, int num_vars, int64_t n, tb_omp_method method,
                        const tb_omp_callbacks *callbacks, const tb_launch_box *box,
                        int64_t num_blocks, tb_buffer *scratch, cudaStream_t stream) {
  static const char fn[] = "tb_omp_reduce";
  if (n < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: negative count n = %lld", fn, (long long)n);
  if (n > kMaxItems)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: n = %lld does not fit (at most 2^60 items)", fn,
                   (long long)n);
  tb_omp_clause clause;
  TB_TRY(make_clause(fn, vars, num_vars, n, &clause));
  if (method != TB_OMP_TREE && method != TB_OMP_ATOMICS)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown method %d", fn, (int)method);
  tb_omp_callbacks cb = {0};
  bool generated = false;
  if (method == TB_OMP_TREE) TB_TRY(resolve_callbacks(fn, callbacks, &cb, &generated));
  tb_launch_box b = {0, 0};
  TB_TRY(tb_resolve_box(fn, kOmpGrids, TB_TYPE_COUNT, TB_OP_PLUS, box, tb_omp_default_box(), &b));
  if (num_blocks < 0 || num_blocks > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_blocks = %lld does not fit a grid (0..%d)", fn,
                   (long long)num_blocks, INT32_MAX);
  if (n == 0) return TB_OK; /* every variable keeps its value */

  int64_t blocks = 0;
  TB_TRY(choose_blocks(&clause, vars, method, generated, b, n, num_blocks, &blocks));
  /* The tree method's partials, one per block (atomics need none). */
  const size_t bytes = method == TB_OMP_TREE ? (size_t)blocks * tb_omp_partial_bytes() : 0;
  tb_scratch s;
  void *partials = NULL;
  TB_TRY(tb_scratch_begin_one(&s, scratch, bytes, &partials));
  return tb_scratch_end(
      &s, tb_omp_launch(&clause, n, method, b.nt, b.vt, blocks, &cb, generated, partials, stream),
      stream);
}

/* Whether a lane mask suits a warp algorithm (see tb_omp_warp_reduce). */
static bool mask_fits(uint32_t mask, int version) {
  switch (version) {
    case 0: return mask == UINT32_MAX;
    case 1: return mask != 0 && (mask & (mask + 1)) == 0; /* 0...01...1 */
    case 2: return mask != 0;
    default: return false;
  }
}

tb_status tb_omp_warp_reduce(const tb_omp_var *vars, int num_vars, const uint32_t *h_masks,
                             int num_warps, int version, const tb_omp_callbacks *callbacks,
                             cudaStream_t stream) {
  static const char fn[] = "tb_omp_warp_reduce";
  if (num_warps < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: negative num_warps %d", fn, num_warps);
  if (num_warps > INT32_MAX / 32)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %d warps do not fit", fn, num_warps);
  tb_omp_clause clause;
  TB_TRY(make_clause(fn, vars, num_vars, (int64_t)num_warps * 32, &clause));
  if (version < 0 || version > 2)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown warp algorithm version %d", fn, version);
  tb_omp_callbacks cb;
  bool generated; /* the warp kernel always calls through the pointers */
  TB_TRY(resolve_callbacks(fn, callbacks, &cb, &generated));
  if (num_warps == 0) return TB_OK;
  if (!h_masks) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: h_masks is NULL", fn);
  for (int w = 0; w < num_warps; ++w)
    if (!mask_fits(h_masks[w], version))
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: warp %d: mask 0x%08x does not suit version %d",
                     fn, w, h_masks[w], version);

  tb_scratch s;
  void *d_masks = NULL;
  const size_t bytes = (size_t)num_warps * sizeof(uint32_t);
  TB_TRY(tb_scratch_begin_one(&s, NULL, bytes, &d_masks));
  tb_status st = tb_buffer_upload(s.buf, h_masks, bytes);
  if (st == TB_OK) st = tb_omp_launch_warps(&clause, d_masks, num_warps, version, &cb, stream);
  return tb_scratch_end(&s, st, stream);
}
