/* Sparse test and benchmark matrices for SpMV, in CSR (int32 indices): two
 * random patterns whose row lengths follow a count geometry (core/geometry.h)
 * and two structured ones (Laplacian stencils). CPU only, seeded
 * (core/rng.h): the same spec and seed give the same matrix on every machine.
 * Only the pattern is generated; values are the caller's (tb_fill_random). */
#ifndef TB_CORE_MATRIX_H
#define TB_CORE_MATRIX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tb_matrix_kind {
  /* Row lengths uniform in [1, 2L - 1] (TB_GEOM_UNIFORM with avg L). */
  TB_MATRIX_UNIFORM_ROWS,
  /* Row lengths heavy-tailed (TB_GEOM_POWER_LAW with avg L): mostly short
   * rows, empty ones among them, a few very long. */
  TB_MATRIX_POWER_LAW_ROWS,
  /* 2D 5-point Laplacian on a g x g grid. */
  TB_MATRIX_STENCIL_2D5,
  /* 3D 7-point Laplacian on a g x g x g grid. */
  TB_MATRIX_STENCIL_3D7,
  TB_MATRIX_KIND_COUNT
} tb_matrix_kind;

typedef struct tb_matrix_spec {
  tb_matrix_kind kind;
  double avg_row;     /* L, the mean row length of the random kinds (> 0, finite);
                         ignored by the stencils */
  int64_t target_nnz; /* 1 ..= INT32_MAX */
} tb_matrix_spec;

typedef struct tb_csr_matrix {
  int32_t rows, cols;
  int64_t nnz;
  int32_t *row_offsets; /* rows + 1 entries, row_offsets[0] = 0, row_offsets[rows] = nnz */
  int32_t *col;         /* nnz entries, strictly increasing within each row, in [0, cols) */
} tb_csr_matrix;

/* Generates the pattern of spec into *out (overwritten, not freed first; free
 * it with tb_csr_matrix_free).
 *
 * Random kinds: square, rows = cols = tb_geometry_num_objects(L, target_nnz)
 * = ceil(target_nnz / L), nnz exactly target_nnz. Row lengths come from
 * tb_geometry_counts (UNIFORM or POWER_LAW); a row longer than cols is cut to
 * cols and what it loses is spread over rows with room (changes the shape
 * only when L is near sqrt(target_nnz)). Each row's columns are distinct,
 * sorted, and spread uniformly over [0, cols): an exactly uniform random
 * subset for short rows (up to 32 entries) and for dense ones (at least 1/64
 * of cols); other rows take len sorted uniform draws y_i in [0, cols - len]
 * made distinct by x_i = y_i + i, which differs from a uniform subset only
 * where draws collide (under 1/64 of adjacent pairs). Linear in nnz, integer
 * arithmetic and IEEE multiplies only, so bit-identical everywhere. r must
 * not be NULL.
 *
 * Stencils: g is the largest with nnz <= target_nnz, at least 2;
 * nnz = 5g^2 - 4g (2D, rows = cols = g^2) or 7g^3 - 6g^2 (3D, g^3). Natural
 * ordering (index = (z g + y) g + x), each row the diagonal plus its existing
 * grid neighbours. No randomness: r is not used and may be NULL.
 *
 * Errors (out zeroed, nothing leaked): TB_ERR_INVALID_ARGUMENT for NULL spec
 * or out, NULL r for a random kind, an invalid kind, avg_row not finite or
 * <= 0 (random kinds), target_nnz outside [1, INT32_MAX], more than INT32_MAX
 * rows, target_nnz > rows * cols (rows cannot be capped at cols), and uniform
 * rows with L < 1 (every row holds at least one entry);
 * TB_ERR_OUT_OF_MEMORY when an allocation fails. */
tb_status tb_matrix_generate(const tb_matrix_spec *spec, tb_rng *r, tb_csr_matrix *out);

/* Frees the arrays and zeroes *m; NULL is fine, so is a zeroed matrix. */
void tb_csr_matrix_free(tb_csr_matrix *m);

/* "uniform_rows", "power_law_rows", "stencil_2d5", "stencil_3d7"; "invalid"
 * otherwise. */
const char *tb_matrix_name(tb_matrix_kind k);
/* The inverse of tb_matrix_name; false (and *out untouched) if unknown. out
 * may be NULL (only asks whether s is a name). */
bool tb_matrix_parse(const char *s, tb_matrix_kind *out);

#ifdef __cplusplus
}
#endif
#endif
