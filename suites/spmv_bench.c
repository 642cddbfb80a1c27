/* SpMV sweep: y = A x over CSR matrices, tilebench's binary SpMV (tuned
 * default and every box of the grid on every matrix, each plain and by the
 * preprocess + apply path) beside cusparseSpMV with CUSPARSE_SPMV_CSR_ALG1
 * and ALG2, in float and double (the types cuSPARSE has), on a suite of
 * matrices of 2^16 to 2^26 nonzeros, every 4x (up to 2^22 with --tb_quick;
 * boxes at the largest only), core/matrix.h:
 *
 *   spmv/<impl>/<type>/n:<nnz>/seg:<L>              rows of length uniform in
 *                                                   [1, 2L - 1], L = 4..1024
 *   spmv_power_law/<impl>/<type>/n:<nnz>/seg:<L>    heavy-tailed row lengths,
 *                                                   mean L = 4, 16, 64 (empty
 *                                                   rows among them)
 *   spmv_stencil_2d5/<impl>/<type>/n:<nnz>          2D 5-point Laplacian
 *   spmv_stencil_3d7/<impl>/<type>/n:<nnz>          3D 7-point Laplacian
 *
 * <impl> is tb, cusparse_alg1 or cusparse_alg2 (descriptors and buffer made
 * before the timing, no cusparseSpMV_preprocess: a single call's cost, as
 * tb's plain rows pay for their own partition); each matrix's name with
 * _apply (spmv_apply/tb/..., spmv_power_law_apply/tb/...) times
 * tb_spmv_apply with the plan made once outside the timing, beside
 * cusparse_pre_alg1 / cusparse_pre_alg2, cusparseSpMV after
 * cusparseSpMV_preprocess, also done once outside the timing.
 * tb runs without support_empty except on the power-law matrices.
 *
 * n is the matrix's nonzero count: exactly the size for the random kinds,
 * the largest stencil grid that fits for the others (matrix.h gives the rule).
 *
 * Bytes that must move (s the element size): nnz (4 + s) for the column
 * indices and values, 4 (rows + 1) for the row offsets, rows s for y, and
 * cols s for x, counted once (the minimum: every element of x read once).
 * Items = nnz.
 *
 * --tb_matrix=PATH measures the matrices of Matrix Market files instead of
 * the suite: PATH is a .mtx file or a folder of them (core/mtx.h: read with
 * CHOLMOD, symmetric files expanded, parsed once into a cache). Each file's
 * rows are those of a suite matrix, named after the file:
 *
 *   spmv_mtx_<name>/<impl>/<type>/n:<nnz>         <name>: tb_mtx_name, the
 *   spmv_mtx_<name>_apply/<impl>/<type>/n:<nnz>   file's name in [a-z0-9_]
 *
 * (tuned default and baselines; no box sweep), with support_empty where the
 * matrix has an empty row. The file's values are not used (a pattern has
 * none): values and x are drawn as for the suite. Such a run is partial: its
 * rows join a result without replacing the suite's.
 *
 * Matrix values and x are uniform in [-1, 1]. Every benchmark first checks y
 * (on its first repetition: tb_sweep_checked)
 * against tb_cpu_spmv_csr_f64 (higher precision), each row within the
 * rounding bound derived at row_bounds(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/matrix.h"
#include "core/mtx.h"
#include "core/rng.h"
#include "core/sweep.h"
#include "core/validate.h"
#include "cpuref/segreduce.h"
#include "kernels/tilebench.h"
#include "suites/baselines/cusparse.h"

/* cuSPARSE as plain rows compare with it: one call, no preprocess; the
 * apply rows with cusparseSpMV_preprocess done once, outside the timing. */
typedef enum {
  IMPL_TB,
  IMPL_CUSPARSE_ALG1,
  IMPL_CUSPARSE_ALG2,
  IMPL_CUSPARSE_PRE_ALG1,
  IMPL_CUSPARSE_PRE_ALG2,
  IMPL_COUNT
} impl;

static const char *kImplName[IMPL_COUNT] = {"tb", "cusparse_alg1", "cusparse_alg2",
                                            "cusparse_pre_alg1", "cusparse_pre_alg2"};

static bool cusparse_preprocessed(impl w) { return w == IMPL_CUSPARSE_PRE_ALG1 || w == IMPL_CUSPARSE_PRE_ALG2; }
static int cusparse_alg(impl w) { return w == IMPL_CUSPARSE_ALG1 || w == IMPL_CUSPARSE_PRE_ALG1 ? 1 : 2; }

/* The matrices, in registration order. */
typedef struct {
  tb_matrix_kind kind;
  int seg; /* L, the mean row length of the random kinds; 0 for the stencils */
} matrix_id;

static const matrix_id kMatrices[] = {
    {TB_MATRIX_UNIFORM_ROWS, 4},      {TB_MATRIX_UNIFORM_ROWS, 16},
    {TB_MATRIX_UNIFORM_ROWS, 64},     {TB_MATRIX_UNIFORM_ROWS, 256},
    {TB_MATRIX_UNIFORM_ROWS, 1024},   {TB_MATRIX_POWER_LAW_ROWS, 4},
    {TB_MATRIX_POWER_LAW_ROWS, 16},   {TB_MATRIX_POWER_LAW_ROWS, 64},
    {TB_MATRIX_STENCIL_2D5, 0},       {TB_MATRIX_STENCIL_3D7, 0},
};
enum { kNumMatrices = sizeof kMatrices / sizeof kMatrices[0] };

static const char *kAlgName[TB_MATRIX_KIND_COUNT] = {"spmv", "spmv_power_law", "spmv_stencil_2d5",
                                                     "spmv_stencil_3d7"};

typedef struct {
  int matrix; /* index into kMatrices */
  tb_type t;
  impl which;
  bool apply;        /* tb's preprocess + apply path */
  tb_launch_box box; /* {0, 0}: tuned default */
  int64_t target;    /* the nonzeros asked of the generator */
  int64_t nnz;       /* as registered (the name's n) */
} bench_case;

/* The largest matrices; the default rows run every 4x from 2^16 up to it. */
static int64_t target_nnz(void) { return tb_sweep_max(1 << 26, 1 << 22); }

/* Rows, columns and nonzeros of a matrix, by matrix.h's rules, so that
 * names and iteration counts are known before anything is generated. */
typedef struct {
  int64_t rows, cols, nnz;
} shape;

static shape shape_of(const matrix_id *m, int64_t target) {
  if (m->kind == TB_MATRIX_STENCIL_2D5 || m->kind == TB_MATRIX_STENCIL_3D7) {
    const bool d3 = m->kind == TB_MATRIX_STENCIL_3D7;
    int64_t g = 2;
    for (;;) { /* the largest g with nnz(g) <= target, at least 2 */
      const int64_t h = g + 1, nnz = d3 ? 7 * h * h * h - 6 * h * h : 5 * h * h - 4 * h;
      if (nnz > target) break;
      g = h;
    }
    const int64_t rows = d3 ? g * g * g : g * g;
    return (shape){rows, rows, d3 ? 7 * g * g * g - 6 * g * g : 5 * g * g - 4 * g};
  }
  const int64_t rows = (target + m->seg - 1) / m->seg;
  return (shape){rows, rows, target};
}

static int64_t bytes_moved(tb_type t, shape sh) {
  const int64_t s = (int64_t)tb_type_size(t);
  return sh.nnz * (4 + s) + 4 * (sh.rows + 1) + sh.rows * s + sh.cols * s;
}

/* ---- --tb_matrix: matrices from files ---- */

/* A file's matrix as registered: its shape, known before the run, for names
 * and iteration counts. Case index kNumMatrices + i is file i. */
typedef struct {
  char *path;
  char alg[64]; /* "spmv_mtx_<name>" */
  shape sh;
  bool empty_rows; /* tb needs support_empty */
} file_matrix;

static struct {
  file_matrix *m;
  int count;
} files;

static void files_release(void) {
  for (int i = 0; i < files.count; ++i) free(files.m[i].path);
  free(files.m);
  files.m = NULL, files.count = 0;
}

static bool is_file(int matrix) { return matrix >= kNumMatrices; }
static const file_matrix *file_of(int matrix) { return &files.m[matrix - kNumMatrices]; }

/* One matrix of --tb_matrix: its shape and name, kept. */
static tb_status file_add(void *ctx, const char *path, const char *name, const tb_mtx *m) {
  (void)ctx;
  file_matrix *grown = realloc(files.m, sizeof *files.m * (size_t)(files.count + 1));
  if (!grown) return tb_fail(TB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  files.m = grown;
  file_matrix *f = &files.m[files.count];
  *f = (file_matrix){.sh = {m->csr.rows, m->csr.cols, m->csr.nnz}};
  for (int32_t r = 0; r < m->csr.rows; ++r)
    f->empty_rows |= m->csr.row_offsets[r + 1] == m->csr.row_offsets[r];
  snprintf(f->alg, sizeof f->alg, "spmv_mtx_%s", name);
  if ((f->path = malloc(strlen(path) + 1)) == NULL)
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "out of memory");
  memcpy(f->path, path, strlen(path) + 1);
  ++files.count;
  return TB_OK;
}

/* --tb_matrix's value: every matrix it names, loaded once (through the cache)
 * for its shape. */
static tb_status files_parse(const char *value) {
  files_release(); /* given twice: the last counts */
  const tb_status s = tb_mtx_load_each(value, "spmv", file_add, NULL);
  if (s != TB_OK) files_release();
  return s;
}

static const tb_sweep_flag_def kFlags[] = {
    {"--tb_matrix", "PATH",
     "a Matrix Market file or a folder of them: its matrices, not the suite",
     files_parse, true},
};

/* ---- the current matrix's pattern, generated once for its benchmarks ---- */

static struct {
  int index; /* into kMatrices; -1: none */
  int64_t target;
  tb_csr_matrix m;
  tb_buffer d_csr, d_cols;
} mat = {.index = -1};

static void matrix_release(void) {
  tb_csr_matrix_free(&mat.m);
  tb_buffer_free(&mat.d_csr), tb_buffer_free(&mat.d_cols);
  mat.index = -1;
}

static tb_status matrix_get(int index, int64_t target) {
  if (mat.index == index && mat.target == target) return TB_OK;
  matrix_release();
  if (is_file(index)) {
    tb_mtx m;
    TB_TRY(tb_mtx_load(file_of(index)->path, NULL, &m, NULL)); /* the cache's, by now */
    mat.m = m.csr;                                            /* the pattern; values are drawn */
    free(m.values);
  } else {
    const matrix_id *id = &kMatrices[index];
    const tb_matrix_spec spec = {id->kind, id->seg > 0 ? id->seg : 1, target};
    tb_rng r;
    tb_rng_seed(&r, 0x59a7000u + (uint64_t)index * 131 + (uint64_t)target);
    TB_TRY(tb_matrix_generate(&spec, &r, &mat.m));
  }
  mat.index = index, mat.target = target;
  TB_TRY(tb_buffer_put(&mat.d_csr, mat.m.row_offsets, sizeof(int32_t) * ((size_t)mat.m.rows + 1)));
  return tb_buffer_put(&mat.d_cols, mat.m.col, sizeof(int32_t) * (size_t)mat.m.nnz);
}

/* ---- values and x: uniform reals in [-1, 1), the current benchmark's type ---- */

/* The same draws for both types (float holds them rounded). */
static struct { tb_sweep_input values, x; } data;

static tb_status data_get(tb_type t, int64_t nnz, int64_t cols) {
  TB_TRY(tb_sweep_input_get(t, TB_OP_PLUS, TB_DRAW_UNIT, 0, nnz, &data.values));
  return tb_sweep_input_get(t, TB_OP_PLUS, TB_DRAW_UNIT, 1, cols, &data.x);
}

/* ---- the CPU's y for (matrix, type) and each row's error bound ---- */

static struct {
  int index;
  int64_t target;
  tb_type t;
  double *y, *bound;
} ref = {.index = -1, .t = TB_TYPE_COUNT};

/* bound[r], from sum_abs[r] = Σ|a x| over row r (k entries):
 * - the GPU, in any order and with or without FMA: a k-term dot product has
 *   at most k roundings on any path (k - 1 additions, the product), so
 *   |gpu - exact| <= gamma_k Σ|a x| (Higham, Accuracy and Stability of
 *   Numerical Algorithms, 3.1);
 * - the reference (double for float, long double for double, then rounded
 *   to double): unit roundoff at most 2^-11 of the type's, so its sum is
 *   within gamma_(k / 2048 + 1) Σ|a x| in the type's units, and the final
 *   rounding adds one more.
 * gamma_a + gamma_b <= gamma_(a + b), hence depth k + k / 2048 + 2. An empty
 * row has bound 0: exactly 0. */
static void row_bounds(tb_type t, const tb_csr_matrix *m, double *sum_abs_to_bound) {
  for (int32_t r = 0; r < m->rows; ++r) {
    const int64_t k = m->row_offsets[r + 1] - m->row_offsets[r];
    sum_abs_to_bound[r] = tb_sum_error_bound(t, k + k / 2048 + 2, sum_abs_to_bound[r]);
  }
}

static tb_status reference_get(const bench_case *c) {
  if (ref.index == c->matrix && ref.target == c->target && ref.t == c->t) return TB_OK;
  free(ref.y), free(ref.bound);
  ref.index = -1;
  const tb_csr_matrix *m = &mat.m;
  ref.y = malloc(sizeof(double) * (size_t)m->rows);
  ref.bound = malloc(sizeof(double) * (size_t)m->rows);
  if (!ref.y || !ref.bound) return tb_fail(TB_ERR_OUT_OF_MEMORY, "spmv sweep: reference");
  TB_TRY(tb_cpu_spmv_csr_f64(c->t, data.values.host, m->col, (int32_t)m->nnz, m->row_offsets,
                             m->rows, NULL, data.x.host, m->cols, ref.y, ref.bound));
  row_bounds(c->t, m, ref.bound);
  ref.index = c->matrix, ref.target = c->target, ref.t = c->t;
  return TB_OK;
}

/* ---- the code under test ---- */

static tb_buffer d_y, scratch;
static tb_seg_plan *plan;      /* apply rows: made before validation, freed after timing */
static tb_cusparse_spmv *csp;  /* cuSPARSE rows: likewise */

static bool support_empty(const bench_case *c) {
  if (is_file(c->matrix)) return file_of(c->matrix)->empty_rows;
  return kMatrices[c->matrix].kind == TB_MATRIX_POWER_LAW_ROWS;
}

static tb_status launch(void *arg) {
  const bench_case *c = arg;
  const tb_csr_matrix *m = &mat.m;
  const void *values = data.values.dev, *x = data.x.dev;
  const int32_t *csr = mat.d_csr.ptr, *cols = mat.d_cols.ptr;
  if (c->which != IMPL_TB) return tb_cusparse_spmv_run(csp);
  if (c->apply) return tb_spmv_apply(plan, TB_OP_PLUS, values, cols, x, m->cols, d_y.ptr, &scratch, 0);
  return tb_spmv_csr_binary(c->t, TB_OP_MULTIPLIES, TB_OP_PLUS, values, cols, m->nnz, csr, m->rows,
                            NULL, x, m->cols, support_empty(c), d_y.ptr, &c->box, &scratch, 0);
}

/* What a row does once per benchmark, outside the timing: the plan of an
 * apply row, cuSPARSE's descriptors, buffer and preprocessing. */
static tb_status prepare(const bench_case *c) {
  const tb_csr_matrix *m = &mat.m;
  if (c->which != IMPL_TB)
    return tb_cusparse_spmv_create(c->t, cusparse_alg(c->which), m->rows, m->cols, m->nnz,
                                   mat.d_csr.ptr, mat.d_cols.ptr, data.values.dev, data.x.dev,
                                   d_y.ptr, cusparse_preprocessed(c->which), 0, &csp);
  if (c->apply)
    return tb_spmv_preprocess(c->t, m->nnz, mat.d_csr.ptr, m->rows, support_empty(c), &c->box,
                              &plan, 0);
  return TB_OK;
}

/* Runs the case once and checks every row of y. y is poisoned with NaN
 * first: a row nobody writes cannot pass. */
static tb_status validate(const bench_case *c) {
  const size_t bytes = (size_t)mat.m.rows * tb_type_size(c->t);
  void *got = tb_sweep_host_buffer(bytes);
  if (!got) return TB_ERR_OUT_OF_MEMORY;
  TB_CUDA_TRY(cudaMemset(d_y.ptr, 0xff, bytes));
  TB_TRY(launch((void *)c));
  TB_TRY(tb_buffer_download(&d_y, got, bytes));
  char what[192];
  const bool file = is_file(c->matrix);
  snprintf(what, sizeof what, "%s/%s %s %s L=%d (%d rows, %lld nonzeros) box=%dx%d",
           file ? file_of(c->matrix)->alg : kAlgName[kMatrices[c->matrix].kind],
           kImplName[c->which], c->apply ? "apply" : "direct", tb_type_name(c->t),
           file ? 0 : kMatrices[c->matrix].seg, mat.m.rows, (long long)mat.m.nnz, c->box.nt,
           c->box.vt);
  return tb_compare(c->t, got, ref.y, ref.bound, mat.m.rows, what);
}

/* ---- benchmarks ---- */

static void run(tb_bench_state *st, void *arg) {
  const bench_case *c = arg;
  tb_status s = matrix_get(c->matrix, c->target);
  if (s == TB_OK && mat.m.nnz != c->nnz)
    s = tb_fail(TB_ERR_INVALID_ARGUMENT, "spmv sweep: the matrix has %lld nonzeros, its name says %lld",
                (long long)mat.m.nnz, (long long)c->nnz);
  if (s == TB_OK) s = data_get(c->t, mat.m.nnz, mat.m.cols);
  if (s == TB_OK) s = tb_buffer_reserve(&d_y, (size_t)mat.m.rows * tb_type_size(c->t));
  if (s == TB_OK) s = reference_get(c);
  if (s == TB_OK) s = prepare(c);
  if (s == TB_OK && !tb_sweep_checked(c)) {
    s = validate(c);
    if (s == TB_OK) tb_sweep_checked_pass(c);
  }
  if (s == TB_OK) {
    const shape sh = {mat.m.rows, mat.m.cols, mat.m.nnz};
    tb_sweep_measure(st, launch, (void *)c, mat.m.nnz, bytes_moved(c->t, sh));
  } else {
    tb_bench_skip_with_error(st, tb_last_error());
  }
  tb_seg_plan_free(plan), plan = NULL;
  tb_cusparse_spmv_destroy(csp), csp = NULL;
  if (s == TB_OK && c->which == IMPL_TB && c->box.nt == 0) {
    /* The tuned default's box, for the plot driver's tuning table. */
    const tb_launch_box def = support_empty(c) && !c->apply
                                  ? tb_spmv_default_box_empty(c->t, mat.m.rows, mat.m.nnz)
                                  : tb_spmv_default_box_for(c->t, mat.m.rows, mat.m.nnz);
    tb_bench_set_counter(st, "nt", def.nt, TB_COUNTER_VALUE);
    tb_bench_set_counter(st, "vt", def.vt, TB_COUNTER_VALUE);
  }
}

static void add(int matrix, int64_t target, tb_type t, impl which, bool apply, tb_launch_box box) {
  const bool file = is_file(matrix);
  const shape sh = file ? file_of(matrix)->sh : shape_of(&kMatrices[matrix], target);
  const int seg = file ? 0 : kMatrices[matrix].seg;
  bench_case *c = malloc(sizeof *c);
  if (!c) return;
  *c = (bench_case){matrix, t, which, apply, box, target, sh.nnz};
  char alg[80], name[224];
  snprintf(alg, sizeof alg, "%s%s", file ? file_of(matrix)->alg : kAlgName[kMatrices[matrix].kind],
           apply ? "_apply" : "");
  tb_sweep_name(name, sizeof name, alg, kImplName[which], tb_type_name(t), sh.nnz, seg, box.nt,
                box.vt);
  tb_bench_register(name, run, c, free);
  tb_bench_set_iterations(tb_sweep_iterations(bytes_moved(t, sh)));
}

/* --tb_matrix: each file's default and baseline rows, in float and double. */
static void register_files(void) {
  static const tb_type types[] = {TB_FLOAT, TB_DOUBLE};
  const tb_launch_box tuned = {0, 0};
  for (int i = 0; i < files.count; ++i)
    for (int k = 0; k < 2; ++k) {
      const int matrix = kNumMatrices + i;
      for (int w = IMPL_TB; w <= IMPL_CUSPARSE_ALG2; ++w)
        add(matrix, 0, types[k], (impl)w, false, tuned);
      add(matrix, 0, types[k], IMPL_TB, true, tuned);
      add(matrix, 0, types[k], IMPL_CUSPARSE_PRE_ALG1, true, tuned);
      add(matrix, 0, types[k], IMPL_CUSPARSE_PRE_ALG2, true, tuned);
    }
}

static void register_all(void) {
  tb_sweep_note_version("cusparse", tb_cusparse_version());
  if (files.count > 0) {
    register_files();
    return;
  }
  static const tb_type types[] = {TB_FLOAT, TB_DOUBLE};
  const tb_launch_box tuned = {0, 0};
  /* Matrix outermost: each is generated once; boxes at the largest size only. */
  for (int64_t target = 1 << 16; target <= target_nnz(); target <<= 2)
    for (int i = 0; i < kNumMatrices; ++i)
      for (int k = 0; k < 2; ++k) {
        const tb_type t = types[k];
        /* A square random matrix of mean row length L needs L rows at least. */
        if (kMatrices[i].seg * (int64_t)kMatrices[i].seg > target) continue;
        for (int w = IMPL_TB; w <= IMPL_CUSPARSE_ALG2; ++w) add(i, target, t, (impl)w, false, tuned);
        add(i, target, t, IMPL_TB, true, tuned);
        add(i, target, t, IMPL_CUSPARSE_PRE_ALG1, true, tuned);
        add(i, target, t, IMPL_CUSPARSE_PRE_ALG2, true, tuned);
        if (target != target_nnz()) continue;
        tb_launch_box boxes[64];
        const int nbox = tb_segreduce_grid(t, TB_OP_PLUS, boxes, 64);
        /* Apply by box too: a plan's default is chosen on those rows (plans take VT up to
         * TB_SEG_PLAN_MAX_VT; the grid's wider boxes are the plain form's). */
        for (int b = 0; b < nbox && b < 64; ++b) {
          add(i, target, t, IMPL_TB, false, boxes[b]);
          if (boxes[b].vt <= TB_SEG_PLAN_MAX_VT) add(i, target, t, IMPL_TB, true, boxes[b]);
        }
      }
}

int main(int argc, char **argv) {
  tb_sweep_declare_flags(kFlags, (int)(sizeof kFlags / sizeof kFlags[0]));
  const int rc = tb_sweep_main(argc, argv, "spmv", register_all);
  matrix_release();
  files_release();
  free(ref.y), free(ref.bound);
  tb_buffer_free(&d_y), tb_buffer_free(&scratch);
  return rc;
}
