/* Matrix Market files in CSR: read with SuiteSparse's CHOLMOD, expanded,
 * sorted and kept in a binary cache so that a sweep parses each file once.
 * CPU only.
 *
 * Read: "coordinate" files with a real, integer or pattern field and general,
 * symmetric or skew-symmetric storage ("hermitian" with a real field reads as
 * symmetric). The result is the whole matrix, whatever the file stores:
 *  - symmetric: every off-diagonal entry (i, j) also stands for (j, i);
 *  - skew-symmetric: the same with the mirror negated;
 *  - pattern: every value is 1;
 *  - duplicates (which the format forbids) are summed, as CHOLMOD sums them
 *    when it assembles a matrix; a pattern's stay 1;
 *  - a symmetric or skew-symmetric file stores one triangle: the lower, as
 *    the format says, or the upper alone, each entry then standing for its
 *    mirror all the same;
 *  - explicit zeros are kept: they are part of the pattern.
 * Refused, with a message naming the file and, where there is one, the line
 * and the rule: a file that cannot be opened, no %%MatrixMarket banner at
 * the start of its first line, "array" (dense) format, complex values, a
 * field that disagrees with the entries (a pattern file with values, an
 * integer field with 1.5), an entry of more or fewer numbers than the field
 * has or with anything after them, sizes that do not fit int32 indices
 * (rows, columns, or nonzeros after expansion above INT32_MAX), .gz files
 * (gunzip them first), an entry with an index 0 (the format is 1-based:
 * CHOLMOD would read the whole file as 0-based), an index outside the size
 * line's shape or that is no integer, a value that is not a finite number
 * (magnitudes from 1e308 too: CHOLMOD reads them as infinite) or duplicates
 * that sum to one that is not, a count of entries other than the size
 * line's, a symmetric file with entries in both triangles (summing (i, j)
 * with (j, i) would double a matrix stored whole under a symmetric banner),
 * a skew-symmetric file with a nonzero diagonal, a line over 1024
 * characters, a NUL byte (no text file has one).
 *
 * Cache (tb_mtx_load): <dir>/<name>.<hash>.tbcsr, <name> the file's
 * tb_mtx_name and <hash> 16 hex digits of a hash of its absolute path; dir
 * is $TB_MATRIX_CACHE, else $HOME/.cache/tilebench/matrices. An entry holds
 * a header (magic, version, byte order, shape, flags, the source's path,
 * size and modification time, a checksum of the arrays) then the arrays
 * (row offsets, columns, values unless pattern). It is used only when all of
 * it checks out, the CSR invariants included; otherwise (the source changed,
 * another version wrote it, it is truncated or corrupt) the file is parsed
 * again and the entry replaced, atomically (written aside, then renamed). */
#ifndef TB_CORE_MTX_H
#define TB_CORE_MTX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* tb_mtx_read of the text of `name` (for messages) from f, read from its
 * start twice (rewound: a file or fmemopen's stream, not a pipe). Rows or
 * columns above max_dim are refused as those above INT32_MAX are
 * (tb_mtx_read's limit; the fuzzer passes less, so that a size line cannot
 * make it allocate gigabytes). */
tb_status tb_mtx_parse(FILE *f, const char *name, int64_t max_dim, tb_mtx *out);

/* Frees the arrays and zeroes *m; NULL is fine, so is a zeroed matrix. */
void tb_mtx_free(tb_mtx *m);

/* The name of a matrix file, for rows and cache entries: its base name
 * without ".mtx", lower case, every run of characters other than [a-z0-9]
 * (underscores included) made one '_', cut to fit cap (incl. the NUL) and to
 * TB_MTX_NAME_MAX characters; "matrix" if nothing is left. "G3_circuit.mtx":
 * "g3_circuit"; "web-Google.mtx": "web_google". */
enum { TB_MTX_NAME_MAX = 40 };
void tb_mtx_name(const char *path, char *out, size_t cap);

/* The matrix files a path names: the file itself, or every file under a
 * folder (recursively, symbolic links followed) whose name ends in ".mtx",
 * sorted by path. Under a folder, files ending in ".mtx.gz" (compressed:
 * gunzip them to use them) and ".mtx" files in array format (dense vectors
 * that come with a matrix, such as a right-hand side) are left out and
 * named in skipped, "<path>: <why>". */
typedef struct tb_mtx_files {
  char **paths;
  int count;
  char **skipped;
  int nskipped;
} tb_mtx_files;

/* Errors (out zeroed): TB_ERR_IO when path cannot be read;
 * TB_ERR_INVALID_ARGUMENT for a folder without a matrix file;
 * TB_ERR_OUT_OF_MEMORY. */
tb_status tb_mtx_find(const char *path, tb_mtx_files *out);
void tb_mtx_files_free(tb_mtx_files *f);

/* The cache folder: $TB_MATRIX_CACHE if set and not empty, else
 * $HOME/.cache/tilebench/matrices. TB_ERR_INVALID_ARGUMENT when neither
 * variable is set or the path does not fit cap. */
tb_status tb_mtx_cache_dir(char *out, size_t cap);

/* The cache entry of the file at path, in dir (NULL: tb_mtx_cache_dir).
 * TB_ERR_IO when path cannot be resolved (it does not exist, say). */
tb_status tb_mtx_cache_path(const char *path, const char *dir, char *out, size_t cap);

typedef enum tb_mtx_cache_event {
  TB_MTX_CACHE_HIT,      /* read from the cache entry */
  TB_MTX_CACHE_WRITTEN,  /* parsed; there was no entry, one was written */
  TB_MTX_CACHE_REBUILT,  /* parsed; the entry was stale or corrupt (why), replaced */
  TB_MTX_CACHE_UNUSABLE, /* parsed; no entry could be written (why) */
} tb_mtx_cache_event;

typedef struct tb_mtx_cache_info {
  tb_mtx_cache_event event;
  char entry[4096]; /* the entry's path */
  char why[512];    /* REBUILT, UNUSABLE: what was wrong with the entry; "" otherwise */
} tb_mtx_cache_info;

/* tb_mtx_read through the cache in dir (NULL: tb_mtx_cache_dir): the entry
 * if it is fresh and sound, else the file parsed and the entry (re)written.
 * A cache that cannot be used is no error: the matrix is still read, and
 * info (may be NULL) says so. Errors are tb_mtx_read's. */
tb_status tb_mtx_load(const char *path, const char *dir, tb_mtx *out, tb_mtx_cache_info *info);

/* Every matrix path names (tb_mtx_find), each loaded through the cache in
 * turn and handed to each(ctx, path, name, m) (name: tb_mtx_name), which
 * may keep what it needs but not m; a non-OK return stops the walk. What it
 * does is said on stderr for who ("spmv"): each file's shape and whether
 * the cache served it, the files left out (tb_mtx_find's, and those without
 * nonzeros). Refused (TB_ERR_INVALID_ARGUMENT): two files of one name
 * (their rows would have one name), no matrix with nonzeros; and
 * tb_mtx_find's and tb_mtx_load's errors. */
typedef tb_status (*tb_mtx_each_fn)(void *ctx, const char *path, const char *name,
                                    const tb_mtx *m);
tb_status tb_mtx_load_each(const char *path, const char *who, tb_mtx_each_fn each, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
