/* OpenMP-style reductions: the GPU runtime against the serial reference, at
 * each level on its own (the three warp algorithms over lane patterns, the
 * block reduction over every block size, the cross-block reduction over grids
 * of one block to many per SM), for every type and operator, alone and
 * mixed in clauses of up to four variables, on the tree and the atomics path.
 *
 * Comparisons are exact: tb_fill_random draws data whose every partial
 * result is exact in any order (core/rng.h), floats included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "core/validate.h"
#include "cpuref/omp_reduce.h"
#include "kernels/omp_reduce_dispatch.h" /* the callbacks-through-pointers kernels */
#include "kernels/tilebench.h"
#include "suites/testing.h"

enum { kMaxVars = TB_OMP_MAX_VARS };

/* Every (type, op) pair a variable can have. */
typedef struct { tb_type t; tb_op op; } pair;
static int all_pairs(pair *out) {
  int count = 0;
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int op = 0; op < TB_OP_COUNT; ++op)
      if (tb_check_type_op((tb_type)t, (tb_op)op) == TB_OK) out[count++] = (pair){t, op};
  return count;
}

/* A clause on the host and the device: n inputs and `slots` results per
 * variable (1 for a whole reduction, one per warp for the warp tests). */
typedef struct {
  int k;
  pair p[kMaxVars];
  int64_t n, slots;
  void *in[kMaxVars], *init[kMaxVars];
  tb_buffer d_in[kMaxVars], d_result[kMaxVars];
} clause;

static void clause_free(clause *c) {
  for (int v = 0; v < kMaxVars; ++v) {
    free(c->in[v]);
    free(c->init[v]);
    tb_buffer_free(&c->d_in[v]);
    tb_buffer_free(&c->d_result[v]);
  }
  memset(c, 0, sizeof *c);
}

static bool clause_make(clause *c, int k, const pair *p, int64_t n, int64_t slots, uint64_t salt) {
  memset(c, 0, sizeof *c);
  c->k = k, c->n = n, c->slots = slots;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ salt);
  for (int v = 0; v < k; ++v) {
    c->p[v] = p[v];
    const size_t size = tb_type_size(p[v].t);
    /* Initial values count as inputs for the exactness of float sums. */
    void *all = malloc((size_t)(n + slots) * size);
    c->in[v] = malloc((size_t)(n > 0 ? n : 1) * size);
    c->init[v] = malloc((size_t)slots * size);
    if (!all || !c->in[v] || !c->init[v]) {
      free(all);
      CU_FAIL("host allocation");
      return false;
    }
    tb_fill_random(&r, p[v].t, p[v].op, all, n + slots);
    memcpy(c->in[v], all, (size_t)n * size);
    memcpy(c->init[v], (char *)all + n * size, (size_t)slots * size);
    free(all);
    if (!TB_ASSERT_OK(tb_buffer_alloc(&c->d_in[v], (size_t)n * size), "input alloc") ||
        !TB_ASSERT_OK(tb_buffer_upload(&c->d_in[v], c->in[v], (size_t)n * size), "upload") ||
        !TB_ASSERT_OK(tb_buffer_alloc(&c->d_result[v], (size_t)slots * size), "result alloc"))
      return false;
  }
  return true;
}

/* Resets every result to its initial value. */
static bool clause_reset(clause *c) {
  for (int v = 0; v < c->k; ++v)
    if (!TB_ASSERT_OK(tb_buffer_upload(&c->d_result[v], c->init[v],
                                       (size_t)c->slots * tb_type_size(c->p[v].t)),
                      "reset results"))
      return false;
  return true;
}

static void clause_vars(const clause *c, tb_omp_var *vars) {
  for (int v = 0; v < c->k; ++v)
    vars[v] = (tb_omp_var){c->p[v].t, c->p[v].op, c->d_in[v].ptr, c->d_result[v].ptr};
}

static void describe(char *out, size_t cap, const clause *c, const char *what) {
  int len = snprintf(out, cap, "%s n=%lld vars=", what, (long long)c->n);
  for (int v = 0; v < c->k && len < (int)cap; ++v)
    len += snprintf(out + len, cap - (size_t)len, "%s%s:%s", v ? "," : "", tb_type_name(c->p[v].t),
                    tb_op_name(c->p[v].op));
}

/* Downloads every variable's results into got[v] (c->slots values each). */
static bool clause_fetch(const clause *c, void **got) {
  for (int v = 0; v < c->k; ++v) {
    const size_t bytes = (size_t)c->slots * tb_type_size(c->p[v].t);
    got[v] = malloc(bytes ? bytes : 1);
    if (!got[v] || !TB_ASSERT_OK(tb_buffer_download(&c->d_result[v], got[v], bytes), "download"))
      return false;
  }
  return true;
}

static void results_free(void **got) {
  for (int v = 0; v < kMaxVars; ++v) free(got[v]), got[v] = NULL;
}

/* Result `slot` of every variable against the serial reduction of the
 * inputs that slot covers: `count` of them from `first`, or, when mask is
 * not 0, the lanes of mask among the 32 from `first`. */
static bool check_slot(const clause *c, void *const *got, int64_t slot, int64_t first,
                       int64_t count, uint32_t mask, const char *what) {
  for (int v = 0; v < c->k; ++v) {
    const tb_type t = c->p[v].t;
    const size_t size = tb_type_size(t);
    const char *in = (const char *)c->in[v] + first * (int64_t)size;
    char lanes[32 * sizeof(double)];
    if (mask) {
      count = 0;
      for (int l = 0; l < 32; ++l)
        if (mask >> l & 1u) memcpy(lanes + size * (size_t)count++, in + size * (size_t)l, size);
      in = lanes;
    }
    tb_cpu_omp_var ref = {t, c->p[v].op, in, tb_load(t, c->init[v], slot)};
    if (!TB_ASSERT_OK(tb_cpu_omp_reduce(&ref, 1, count), "cpu reference")) return false;
    char full[320];
    snprintf(full, sizeof full, "%s: variable %d, slot %lld, mask 0x%08x", what, v,
             (long long)slot, mask);
    if (!TB_ASSERT_OK(tb_compare_value(t, tb_load(t, got[v], slot), ref.value, 0.0, full), full))
      return false;
  }
  return true;
}

/* One whole reduction of the clause against the CPU. */
static bool run_clause(clause *c, tb_omp_method method, const tb_launch_box *box,
                       int64_t num_blocks, tb_buffer *scratch, const char *what) {
  char full[256];
  describe(full, sizeof full, c, what);
  snprintf(full + strlen(full), sizeof full - strlen(full), " %s box=%dx%d blocks=%lld",
           method == TB_OMP_TREE ? "tree" : "atomics", box ? box->nt : 0, box ? box->vt : 0,
           (long long)num_blocks);
  tb_omp_var vars[kMaxVars];
  clause_vars(c, vars);
  void *got[kMaxVars] = {0};
  const bool ok =
      clause_reset(c) &&
      TB_ASSERT_OK(tb_omp_reduce(vars, c->k, c->n, method, NULL, box, num_blocks, scratch, 0),
                   full) &&
      clause_fetch(c, got) && check_slot(c, got, 0, 0, c->n, 0, full);
  results_free(got);
  return ok;
}

/* A random clause of k variables (pairs drawn from all of them). */
static void random_pairs(tb_rng *r, int k, pair *out) {
  pair all[TB_TYPE_COUNT * TB_OP_COUNT];
  const int count = all_pairs(all);
  for (int v = 0; v < k; ++v) out[v] = all[tb_rng_range(r, 0, count - 1)];
}

/* The clause the issue names: a double, an int64 and a float, each with its
 * own operator, and an int32. */
static const pair kMixed[kMaxVars] = {
    {TB_DOUBLE, TB_OP_PLUS}, {TB_INT64, TB_OP_MAX}, {TB_FLOAT, TB_OP_MIN}, {TB_INT32, TB_OP_PLUS}};

/* The clauses the block, grid and tiny-grid tests run: the mixed one (the
 * kernels that walk a clause's codes) and each of its variables alone (the
 * kernels typed for one variable); under a sanitizer, the mixed one and the
 * double alone. */
typedef struct {
  int k;
  const pair *p;
} shape;
enum { kShapes = kMaxVars + 1 };
static int clause_shapes(shape *out) {
  int count = 0;
  out[count++] = (shape){kMaxVars, kMixed};
  for (int v = 0; v < (tb_test.sanitizer ? 1 : kMaxVars); ++v) out[count++] = (shape){1, &kMixed[v]};
  return count;
}

/* ---- warp level ------------------------------------------------------------ */

/* Runs one warp algorithm over the masks, for clauses that between them
 * cover every (type, op) pair, and checks every warp. */
static void check_warps(int version, const uint32_t *masks, int num_warps, const char *what) {
  pair all[TB_TYPE_COUNT * TB_OP_COUNT];
  const int count = all_pairs(all);
  for (int first = 0; first < count; first += kMaxVars) {
    const int k = count - first < kMaxVars ? count - first : kMaxVars;
    clause c;
    if (!clause_make(&c, k, all + first, (int64_t)num_warps * 32, num_warps, 0x3a9u + first)) {
      clause_free(&c);
      return;
    }
    char full[256];
    describe(full, sizeof full, &c, what);
    tb_omp_var vars[kMaxVars];
    clause_vars(&c, vars);
    void *got[kMaxVars] = {0};
    if (clause_reset(&c) &&
        TB_ASSERT_OK(tb_omp_warp_reduce(vars, k, masks, num_warps, version, NULL, 0), full) &&
        clause_fetch(&c, got))
      for (int w = 0; w < num_warps; ++w)
        if (!check_slot(&c, got, w, (int64_t)w * 32, 32, masks[w], full)) break;
    results_free(got);
    clause_free(&c);
  }
}

TB_TEST(test_warp_full, "warp v0: full warps") {
  uint32_t masks[64];
  for (int w = 0; w < 64; ++w) masks[w] = UINT32_MAX;
  check_warps(0, masks, 64, "warp v0 (full)");
}

/* Every contiguous prefix of lanes, 1 to 32. */
TB_TEST(test_warp_contiguous, "warp v1: every contiguous prefix") {
  uint32_t masks[32];
  for (int w = 0; w < 32; ++w) masks[w] = w == 31 ? UINT32_MAX : (2u << w) - 1;
  check_warps(1, masks, 32, "warp v1 (contiguous prefixes)");
}

/* Every prefix, every single lane, every pair and 10^4 random masks (fewer
 * under the sanitizer). */
TB_TEST(test_warp_dispersed, "warp v2: prefixes, single lanes, pairs, random masks") {
  const int randoms = tb_test.sanitizer ? 500 : 10000;
  const int total = 32 + 32 + 496 + randoms;
  uint32_t *masks = malloc(sizeof *masks * (size_t)total);
  CU_ASSERT_PTR_NOT_NULL_FATAL(masks);
  int w = 0;
  for (int l = 0; l < 32; ++l) masks[w++] = l == 31 ? UINT32_MAX : (2u << l) - 1;
  for (int l = 0; l < 32; ++l) masks[w++] = 1u << l;
  for (int a = 0; a < 32; ++a)
    for (int b = a + 1; b < 32; ++b) masks[w++] = 1u << a | 1u << b;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ 0x77u);
  while (w < total) {
    /* Vary the density: a mask is the AND of 0 to 3 random words. */
    uint32_t m = (uint32_t)tb_rng_next(&r);
    for (int64_t d = tb_rng_range(&r, 0, 3); d > 0; --d) m &= (uint32_t)tb_rng_next(&r);
    if (m) masks[w++] = m;
  }
  check_warps(2, masks, total, "warp v2 (dispersed)");
  free(masks);
}

/* ---- block level ------------------------------------------------------------ */

/* One block of every size from 1 to 1024 (a sample under the sanitizer),
 * each with a vt drawn from the four, on each clause shape: the block
 * reduction alone decides the result. */
TB_TEST(test_block_sizes, "block: every size 1..1024") {
  static const int sample[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 95, 96, 97, 500, 993, 1023, 1024};
  static const int vts[] = {1, 2, 4, 8};
  shape sh[kShapes];
  const int shapes = clause_shapes(sh);
  for (int k = 0; k < shapes; ++k) {
    clause c;
    bool ok = clause_make(&c, sh[k].k, sh[k].p, 5000, 1, 0xb10c);
    tb_rng r;
    tb_rng_seed(&r, tb_test.seed ^ 0xb5u);
    tb_buffer scratch = {0};
    const int count = tb_test.sanitizer ? (int)(sizeof sample / sizeof *sample) : 1024;
    for (int i = 0; ok && i < count; ++i) {
      const tb_launch_box box = {tb_test.sanitizer ? sample[i] : i + 1,
                                 vts[tb_rng_range(&r, 0, 3)]};
      ok = run_clause(&c, TB_OMP_TREE, &box, 1, &scratch, "one block");
    }
    tb_buffer_free(&scratch);
    clause_free(&c);
    if (!ok) break;
  }
}

/* ---- cross-block level ---------------------------------------------------------- */

/* Grids from one block to many per SM (more blocks than items included, so
 * that some blocks fold nothing), odd block sizes among them, and sizes
 * around the tile. */
TB_TEST(test_grids, "cross-block: 1 block to many per SM") {
  static const int64_t grids[] = {1, 2, 7, 132, 133, 264, 1000, 1057, 4096, 20000, 0};
  static const int nts[] = {33, 64, 96, 256, 1024};
  static const int64_t sizes[] = {1, 31, 1000, 65536 + 3, 1 << 20};
  shape sh[kShapes];
  const int shapes = clause_shapes(sh);
  const int64_t max_n = tb_test.sanitizer ? 1 << 14 : 1 << 20;
  for (int k = 0; k < shapes; ++k) {
    tb_rng r;
    tb_rng_seed(&r, tb_test.seed ^ 0x9a1du);
    tb_buffer scratch = {0};
    clause c;
    bool ok = clause_make(&c, sh[k].k, sh[k].p, max_n, 1, 0x6a1d);
    for (size_t s = 0; ok && s < sizeof sizes / sizeof *sizes; ++s) {
      c.n = sizes[s] < max_n ? sizes[s] : max_n;
      for (size_t g = 0; ok && g < sizeof grids / sizeof *grids; ++g) {
        if (tb_test.sanitizer && grids[g] > 1057) continue;
        const tb_launch_box box = {nts[tb_rng_range(&r, 0, 4)], 1 << tb_rng_range(&r, 0, 3)};
        ok = run_clause(&c, TB_OMP_TREE, &box, grids[g], &scratch, "grid");
      }
    }
    tb_buffer_free(&scratch);
    clause_free(&c);
    if (!ok) break;
  }
}

/* Grids smaller than the items left over around the 16-byte body: block
 * sizes 1..8 on one to three blocks (and num_blocks 0, which sizes the grid
 * to n), every n mod 4 and every start alignment of every type, both paths.
 * The peeled items must reach a grid of a single thread. */
TB_TEST(test_tiny_grids, "tiny grids: 1..8 threads x 1..3 blocks, every n mod 4 and alignment") {
  static const int64_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 33, 66, 131};
  enum { kSizes = sizeof sizes / sizeof *sizes, kMaxOff = 3 };
  shape sh[kShapes];
  const int shapes = clause_shapes(sh);
  for (int k = 0; k < shapes; ++k) {
    clause c;
    bool ok = clause_make(&c, sh[k].k, sh[k].p, 131 + kMaxOff, 1, 0x7109);
    tb_buffer scratch = {0};
    for (int off = 0; ok && off <= kMaxOff; ++off)
      for (int nt = 1; ok && nt <= 8; ++nt)
        for (int64_t blocks = 0; ok && blocks <= 3; ++blocks)
          for (int s = 0; ok && s < kSizes; ++s)
            for (int m = 0; ok && m < 2; ++m) {
              if (tb_test.sanitizer && (s % 3 != off % 3 || nt % 2 == blocks % 2)) continue;
              const tb_launch_box box = {nt, 1 << (s % 4)};
              tb_omp_var vars[kMaxVars];
              clause_vars(&c, vars);
              /* The 8-byte variables start off a 16-byte boundary at odd offsets. */
              for (int v = 0; v < c.k; ++v)
                vars[v].d_in = (const char *)vars[v].d_in + off * (int64_t)tb_type_size(c.p[v].t);
              char what[200];
              snprintf(what, sizeof what, "tiny grid: %s vars=%d n=%lld start +%d box=%dx%d blocks=%lld",
                       m ? "atomics" : "tree", c.k, (long long)sizes[s], off, box.nt, box.vt,
                       (long long)blocks);
              void *got[kMaxVars] = {0};
              ok = clause_reset(&c) &&
                   TB_ASSERT_OK(tb_omp_reduce(vars, c.k, sizes[s], m ? TB_OMP_ATOMICS : TB_OMP_TREE,
                                              NULL, &box, blocks, &scratch, 0),
                                what) &&
                   clause_fetch(&c, got) && check_slot(&c, got, 0, off, sizes[s], 0, what);
              results_free(got);
            }
    tb_buffer_free(&scratch);
    clause_free(&c);
    if (!ok) break;
  }
}

/* ---- types, operators, clauses ---------------------------------------------------- */

/* Every (type, op) pair alone, at random sizes, on both paths. */
TB_TEST(test_every_pair, "every type x operator, tree and atomics") {
  pair all[TB_TYPE_COUNT * TB_OP_COUNT];
  const int count = all_pairs(all);
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ 0x9a17u);
  tb_buffer scratch = {0};
  for (int i = 0; i < count; ++i) {
    clause c;
    const int64_t n = tb_test_random_size(&r, tb_test.max_random_n);
    if (clause_make(&c, 1, &all[i], n, 1, 0x100u + i)) {
      run_clause(&c, TB_OMP_TREE, NULL, 0, &scratch, "pair");
      run_clause(&c, TB_OMP_ATOMICS, NULL, 0, &scratch, "pair");
    }
    clause_free(&c);
  }
  tb_buffer_free(&scratch);
}

/* Random clauses of 1 to 4 variables, random sizes, boxes and grids. */
TB_TEST(test_random_clauses, "random clauses of 1-4 variables") {
  static const int nts[] = {1, 32, 64, 128, 129, 256, 512, 1024};
  const int clauses = tb_test.sanitizer ? 6 : 60;
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed ^ 0xc1a5u);
  tb_buffer scratch = {0};
  for (int i = 0; i < clauses; ++i) {
    pair p[kMaxVars];
    const int k = (int)tb_rng_range(&r, 1, kMaxVars);
    random_pairs(&r, k, p);
    const int64_t n = tb_test_random_size(&r, tb_test.max_random_n);
    const tb_launch_box box = {nts[tb_rng_range(&r, 0, 7)], 1 << tb_rng_range(&r, 0, 3)};
    const int64_t blocks = tb_rng_range(&r, 0, 1) ? 0 : tb_rng_range(&r, 1, 3000);
    clause c;
    bool ok = clause_make(&c, k, p, n, 1, 0x5000u + i) &&
              run_clause(&c, TB_OMP_TREE, &box, blocks, &scratch, "random clause") &&
              run_clause(&c, TB_OMP_ATOMICS, &box, blocks, &scratch, "random clause");
    clause_free(&c);
    if (!ok) break;
  }
  tb_buffer_free(&scratch);
}

/* The clause at the largest test size, default box and grid; the
 * caller's callbacks passed explicitly; the scratch allocated inside. */
TB_TEST(test_mixed_large, "mixed clause, large n, explicit callbacks") {
  clause c;
  if (clause_make(&c, kMaxVars, kMixed, tb_test.max_random_n, 1, 0x1a59e)) {
    run_clause(&c, TB_OMP_TREE, NULL, 0, NULL, "mixed, own scratch");
    run_clause(&c, TB_OMP_ATOMICS, NULL, 0, NULL, "mixed, own scratch");
    tb_omp_callbacks cb;
    tb_omp_var vars[kMaxVars];
    clause_vars(&c, vars);
    void *got[kMaxVars] = {0};
    if (TB_ASSERT_OK(tb_omp_generated_callbacks(&cb), "callbacks") && clause_reset(&c) &&
        TB_ASSERT_OK(tb_omp_reduce(vars, kMaxVars, c.n, TB_OMP_TREE, &cb, NULL, 0, NULL, 0),
                     "explicit callbacks") &&
        clause_fetch(&c, got))
      check_slot(&c, got, 0, 0, c.n, 0, "mixed, explicit callbacks");
    results_free(got);
  }
  clause_free(&c);
}

/* Inputs that start off a 16-byte boundary: the kernels peel the items
 * before the first boundary and after the last whole vector. */
TB_TEST(test_misaligned, "misaligned starts") {
  static const int64_t sizes[] = {1, 2, 3, 5, 17, 1000, 100003};
  clause c;
  if (clause_make(&c, kMaxVars, kMixed, 100003 + 3, 1, 0xa119)) {
    tb_omp_var vars[kMaxVars];
    for (int off = 1; off <= 3; ++off)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
        for (int m = 0; m < 2; ++m) {
          clause_vars(&c, vars);
          for (int v = 0; v < kMaxVars; ++v)
            vars[v].d_in = (const char *)vars[v].d_in + off * (int64_t)tb_type_size(c.p[v].t);
          char what[160];
          snprintf(what, sizeof what, "misaligned by %d items, n=%lld, %s", off,
                   (long long)sizes[s], m ? "atomics" : "tree");
          void *got[kMaxVars] = {0};
          const bool ok =
              clause_reset(&c) &&
              TB_ASSERT_OK(tb_omp_reduce(vars, kMaxVars, sizes[s], m ? TB_OMP_ATOMICS : TB_OMP_TREE,
                                         NULL, NULL, 0, NULL, 0),
                           what) &&
              clause_fetch(&c, got) && check_slot(&c, got, 0, off, sizes[s], 0, what);
          results_free(got);
          if (!ok) goto done;
        }
  }
done:
  clause_free(&c);
}

/* The public entry point calls the generated callbacks directly (inlined);
 * other callbacks go through the pointers. Run that path, with the
 * generated callbacks behind the pointers, over grids and block sizes. */
TB_TEST(test_callbacks_through_pointers, "callbacks through pointers") {
  static const struct { int nt, vt; int64_t blocks, n; } runs[] = {
      {1, 1, 1, 1000}, {33, 2, 7, 5000}, {256, 4, 264, 1 << 18}, {1024, 8, 1100, 1 << 20},
      {96, 1, 3000, 77777}};
  tb_omp_callbacks cb;
  clause c;
  tb_buffer partials = {0};
  if (TB_ASSERT_OK(tb_omp_generated_callbacks(&cb), "callbacks") &&
      clause_make(&c, kMaxVars, kMixed, 1 << 20, 1, 0x1d1)) {
    for (size_t i = 0; i < sizeof runs / sizeof *runs; ++i) {
      tb_omp_clause k = {.num_vars = kMaxVars};
      for (int v = 0; v < kMaxVars; ++v) {
        k.in[v] = c.d_in[v].ptr, k.result[v] = c.d_result[v].ptr;
        k.code[v] = tb_omp_code(c.p[v].t, c.p[v].op);
      }
      c.n = runs[i].n;
      char what[160];
      snprintf(what, sizeof what, "through pointers: n=%lld box=%dx%d blocks=%lld",
               (long long)c.n, runs[i].nt, runs[i].vt, (long long)runs[i].blocks);
      void *got[kMaxVars] = {0};
      const bool ok =
          clause_reset(&c) &&
          TB_ASSERT_OK(tb_buffer_reserve(&partials, runs[i].blocks * tb_omp_partial_bytes()),
                       "partials") &&
          TB_ASSERT_OK(tb_omp_launch(&k, c.n, TB_OMP_TREE, runs[i].nt, runs[i].vt, runs[i].blocks,
                                     &cb, false, partials.ptr, 0),
                       what) &&
          TB_ASSERT_OK(cudaDeviceSynchronize() == cudaSuccess ? TB_OK : TB_ERR_CUDA, what) &&
          clause_fetch(&c, got) && check_slot(&c, got, 0, 0, c.n, 0, what);
      results_free(got);
      if (!ok) break;
    }
  }
  tb_buffer_free(&partials);
  clause_free(&c);
}

/* n = 0 leaves every variable as it was. */
TB_TEST(test_empty, "n = 0") {
  clause c;
  if (clause_make(&c, kMaxVars, kMixed, 0, 1, 0xe)) {
    run_clause(&c, TB_OMP_TREE, NULL, 0, NULL, "empty");
    run_clause(&c, TB_OMP_ATOMICS, NULL, 0, NULL, "empty");
  }
  clause_free(&c);
}

/* ---- bad input ------------------------------------------------------------------ */

TB_TEST(test_bad_input, "bad input") {
  const size_t free_before = tb_test_free_device_bytes();
  clause c;
  if (!clause_make(&c, 2, kMixed, 1000, 1, 0xbad)) {
    clause_free(&c);
    return;
  }
  tb_omp_var vars[kMaxVars + 1];
  clause_vars(&c, vars);
  const char *const R = "tb_omp_reduce", *const W = "tb_omp_warp_reduce";
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 0, 1000, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "0 variables", "a clause reduces 1 to 4");
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, kMaxVars + 1, 1000, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "5 variables", "a clause reduces 1 to 4");
  TB_EXPECT_REJECTS(tb_omp_reduce(NULL, 1, 1000, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "vars is NULL");
  const tb_omp_callbacks none = {NULL, NULL};
  tb_omp_callbacks half;
  if (TB_ASSERT_OK(tb_omp_generated_callbacks(&half), "callbacks")) {
    half.inter_warp_copy = NULL;
    TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, &half, NULL, 0, NULL, 0), R,
                      "the inter_warp_copy callback is NULL");
  }
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, &none, NULL, 0, NULL, 0), R,
                    "the shuffle_reduce callback is NULL");
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, NULL, 1, 2, &none, 0), W,
                    "the shuffle_reduce callback is NULL");
  TB_EXPECT_REJECTS(tb_omp_generated_callbacks(NULL), "tb_omp_generated_callbacks", "out is NULL");
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, -1, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R, "n = -1",
                    "negative");
  /* an n that does not fit */
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, INT64_MAX, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "n = 9223372036854775807", "does not fit (at most 2^60 items)");
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, NULL, NULL, -1, NULL, 0), R,
                    "num_blocks = -1", "does not fit a grid");
  TB_EXPECT_REJECTS(
      tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, NULL, NULL, (int64_t)INT32_MAX + 1, NULL, 0), R,
      "num_blocks = 2147483648", "does not fit a grid");
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, (tb_omp_method)7, NULL, NULL, 0, NULL, 0), R,
                    "unknown method 7");
  const tb_launch_box big = {1025, 1}, zero_nt = {0, 4}, odd_vt = {256, 3};
  static const char rule[] = "is not in the omp_reduce grid (nt 1..1024, vt one of 1, 2, 4, 8)";
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, NULL, &big, 0, NULL, 0), R,
                    "launch box 1025x1", rule);
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, NULL, &zero_nt, 0, NULL, 0), R,
                    "launch box 0x4", rule);
  TB_EXPECT_REJECTS(tb_omp_reduce(vars, 2, 1000, TB_OMP_TREE, NULL, &odd_vt, 0, NULL, 0), R,
                    "launch box 256x3", rule);

  tb_omp_var broken[2] = {vars[0], vars[1]};
  broken[1].d_in = NULL;
  TB_EXPECT_REJECTS(tb_omp_reduce(broken, 2, 1000, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "variable 1: d_in is NULL", "n = 1000");
  broken[1] = vars[1], broken[1].d_result = NULL;
  TB_EXPECT_REJECTS(tb_omp_reduce(broken, 2, 1000, TB_OMP_ATOMICS, NULL, NULL, 0, NULL, 0), R,
                    "variable 1: d_result is NULL");
  broken[1] = vars[1], broken[1].type = TB_FLOAT, broken[1].op = TB_OP_BIT_OR;
  TB_EXPECT_REJECTS(tb_omp_reduce(broken, 2, 1000, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "variable 1: operator bit_or", "does not apply to float");
  /* vars[1] is int64 (kMixed) */
  broken[1] = vars[1], broken[1].d_in = (const char *)vars[1].d_in + 1;
  TB_EXPECT_REJECTS(tb_omp_reduce(broken, 2, 1000, TB_OMP_TREE, NULL, NULL, 0, NULL, 0), R,
                    "variable 1: d_in or d_result is not aligned", "8-byte elements");

  uint32_t masks[2] = {0x0000ffffu, 0x00ff00ffu};
  /* a partial mask for version 0, a gapped one for version 1, an empty one */
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, masks, 1, 0, NULL, 0), W, "warp 0: mask 0x0000ffff",
                    "does not suit version 0");
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, masks + 1, 1, 1, NULL, 0), W,
                    "warp 0: mask 0x00ff00ff", "does not suit version 1");
  masks[0] = 0;
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, masks, 1, 2, NULL, 0), W, "warp 0: mask 0x00000000",
                    "does not suit version 2");
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, masks, 1, 3, NULL, 0), W,
                    "unknown warp algorithm version 3");
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, NULL, 1, 2, NULL, 0), W, "h_masks is NULL");
  TB_EXPECT_REJECTS(tb_omp_warp_reduce(vars, 2, masks, -1, 2, NULL, 0), W, "negative num_warps -1");
  /* The variables are untouched by every rejected call. */
  void *got[kMaxVars] = {0};
  if (clause_reset(&c) && clause_fetch(&c, got))
    for (int v = 0; v < 2; ++v)
      CU_ASSERT(memcmp(got[v], c.init[v], tb_type_size(c.p[v].t)) == 0);
  results_free(got);
  clause_free(&c);
  CU_ASSERT_EQUAL(tb_test_free_device_bytes(), free_before);
}

int main(int argc, char **argv) { return tb_test_main(argc, argv, "omp_reduce"); }
