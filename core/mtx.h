/* Matrix Market files in CSR: read with SuiteSparse's CHOLMOD, expanded and
 * sorted. CPU only.
 *
 * Read: "coordinate" files with a real, integer or pattern field and general,
 * symmetric or skew-symmetric storage ("hermitian" with a real field reads as
 * symmetric). The result is the whole matrix, whatever the file stores:
 *  - symmetric: every off-diagonal entry (i, j) also stands for (j, i);
 *  - skew-symmetric: the same with the mirror negated;
 *  - pattern: every value is 1;
 *  - duplicates (which the format forbids) are summed, as CHOLMOD sums them
 *    when it assembles a matrix; a pattern's stay 1. So are an entry above
 *    the diagonal of a symmetric file and its mirror below, if both appear;
 *  - explicit zeros are kept: they are part of the pattern.
 * Refused, with a message naming the file: a file that cannot be opened, no
 * %%MatrixMarket banner, "array" (dense) format, complex values, a field
 * that disagrees with the entries (a pattern file with values, say), sizes
 * that do not fit int32 indices (rows, columns, or nonzeros after expansion
 * above INT32_MAX), .gz files (gunzip them first), and whatever CHOLMOD's
 * parser refuses (a short file: "premature EOF"; an index out of range; a
 * malformed entry), with its message.
 *
 * One leniency of CHOLMOD's is kept: a file with a 0 index anywhere is read
 * as 0-based throughout (Matrix Market files are 1-based; such a file is
 * not one).
 */
#ifndef TB_CORE_MTX_H
#define TB_CORE_MTX_H

#include <stddef.h>
#include <stdint.h>

#include "core/matrix.h"
#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a file stored, in tb_mtx.flags. */
enum {
  TB_MTX_PATTERN = 1u << 0,   /* no values in the file: every value is 1 */
  TB_MTX_INTEGER = 1u << 1,   /* an integer field (held as double: exact to 2^53) */
  TB_MTX_SYMMETRIC = 1u << 2, /* one triangle stored, mirrored here */
  TB_MTX_SKEW = 1u << 3,      /* one triangle stored, mirrored and negated here */
};

typedef struct tb_mtx {
  tb_csr_matrix csr; /* sorted by row, then column; columns distinct within a row */
  double *values;    /* csr.nnz entries, in csr's order */
  unsigned flags;    /* TB_MTX_* */
  int64_t file_nnz;  /* entries the file lists (before expansion) */
} tb_mtx;

/* A file's banner, read without parsing the rest (a folder's companion
 * files, dense vectors among them, can be told apart cheaply). */
typedef enum tb_mtx_format { TB_MTX_FORMAT_COORDINATE, TB_MTX_FORMAT_ARRAY } tb_mtx_format;
typedef enum tb_mtx_field {
  TB_MTX_FIELD_REAL,
  TB_MTX_FIELD_INTEGER,
  TB_MTX_FIELD_COMPLEX,
  TB_MTX_FIELD_PATTERN,
} tb_mtx_field;
typedef enum tb_mtx_symmetry {
  TB_MTX_STORE_GENERAL,
  TB_MTX_STORE_SYMMETRIC,
  TB_MTX_STORE_SKEW,
  TB_MTX_STORE_HERMITIAN,
} tb_mtx_symmetry;

typedef struct tb_mtx_banner {
  tb_mtx_format format;
  tb_mtx_field field;
  tb_mtx_symmetry symmetry;
} tb_mtx_banner;

/* The banner of the file at path. TB_ERR_IO when it cannot be read,
 * TB_ERR_INVALID_ARGUMENT when its first line is not a valid banner. */
tb_status tb_mtx_read_banner(const char *path, tb_mtx_banner *out);

/* Reads the file at path into *out (overwritten, not freed first; free it
 * with tb_mtx_free). Errors (out zeroed, nothing leaked): TB_ERR_IO when the
 * file cannot be opened or read; TB_ERR_INVALID_ARGUMENT for NULL arguments,
 * a file refused (above) or too large; TB_ERR_OUT_OF_MEMORY. */
tb_status tb_mtx_read(const char *path, tb_mtx *out);

/* Frees the arrays and zeroes *m; NULL is fine, so is a zeroed matrix. */
void tb_mtx_free(tb_mtx *m);

/* The name of a matrix file, for rows: its base name
 * without ".mtx", lower case, every run of characters other than [a-z0-9]
 * (underscores included) made one '_', cut to fit cap (incl. the NUL) and to
 * TB_MTX_NAME_MAX characters; "matrix" if nothing is left. "G3_circuit.mtx":
 * "g3_circuit"; "web-Google.mtx": "web_google". */
enum { TB_MTX_NAME_MAX = 40 };
void tb_mtx_name(const char *path, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
