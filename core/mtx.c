/* Matrix Market -> CSR (core/mtx.h). The banner and size line are read here,
 * so that what CHOLMOD is lenient about (it infers the field from the count
 * of numbers on a line and accepts any banner it can half-read) is checked
 * against the banner first; the entries are CHOLMOD's to parse. */
#define _POSIX_C_SOURCE 200809L
#include "core/mtx.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <suitesparse/cholmod.h>

/* The format's longest line is 1024 characters; room for "\r\n" and NUL. */
enum { kLine = 1024 + 3 };

static bool ends_with(const char *s, const char *suffix) {
  const size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Opens path for reading, a regular file only (fopen takes a folder). */
static tb_status open_file(const char *path, FILE **out) {
  *out = NULL;
  if (ends_with(path, ".gz"))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: compressed files are not read: gunzip it first",
                   path);
  FILE *f = fopen(path, "r");
  if (!f) return tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return tb_fail(TB_ERR_IO, "%s: not a regular file", path);
  }
  *out = f;
  return TB_OK;
}

/* The next line into buf: 1, 0 at the end of the file, -1 (a message set)
 * for a line longer than the format allows or a read error. */
static int next_line(FILE *f, const char *path, char *buf) {
  if (!fgets(buf, kLine, f)) {
    if (ferror(f)) return tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno)), -1;
    return 0;
  }
  if (!strchr(buf, '\n') && !feof(f))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: a line longer than 1024 characters", path), -1;
  return 1;
}

static bool is_blank(const char *s) {
  while (isspace((unsigned char)*s)) ++s;
  return *s == '\0';
}

static tb_status parse_banner(const char *path, const char *line, tb_mtx_banner *out) {
  char mark[32], object[32], format[32], field[32], symmetry[32], extra[2];
  const int n = sscanf(line, "%31s %31s %31s %31s %31s %1s", mark, object, format, field,
                       symmetry, extra);
  if (n < 1 || strcmp(mark, "%%MatrixMarket") != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: not a Matrix Market file (its first line is no %%%%MatrixMarket banner)",
                   path);
  if (n != 5 || strcasecmp(object, "matrix") != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: a banner other than '%%%%MatrixMarket matrix <format> <field> <symmetry>'",
                   path);
  if (strcasecmp(format, "coordinate") == 0) out->format = TB_MTX_FORMAT_COORDINATE;
  else if (strcasecmp(format, "array") == 0) out->format = TB_MTX_FORMAT_ARRAY;
  else return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown format '%s'", path, format);
  if (strcasecmp(field, "real") == 0) out->field = TB_MTX_FIELD_REAL;
  else if (strcasecmp(field, "integer") == 0) out->field = TB_MTX_FIELD_INTEGER;
  else if (strcasecmp(field, "complex") == 0) out->field = TB_MTX_FIELD_COMPLEX;
  else if (strcasecmp(field, "pattern") == 0) out->field = TB_MTX_FIELD_PATTERN;
  else return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown field '%s'", path, field);
  if (strcasecmp(symmetry, "general") == 0) out->symmetry = TB_MTX_STORE_GENERAL;
  else if (strcasecmp(symmetry, "symmetric") == 0) out->symmetry = TB_MTX_STORE_SYMMETRIC;
  else if (strcasecmp(symmetry, "skew-symmetric") == 0) out->symmetry = TB_MTX_STORE_SKEW;
  else if (strcasecmp(symmetry, "hermitian") == 0) out->symmetry = TB_MTX_STORE_HERMITIAN;
  else return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: unknown symmetry '%s'", path, symmetry);
  return TB_OK;
}

static tb_status read_banner(FILE *f, const char *path, char *line, tb_mtx_banner *out) {
  const int got = next_line(f, path, line);
  if (got < 0) return TB_ERR_INVALID_ARGUMENT;
  if (got == 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: an empty file", path);
  return parse_banner(path, line, out);
}

tb_status tb_mtx_read_banner(const char *path, tb_mtx_banner *out) {
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_read_banner: NULL argument");
  FILE *f;
  TB_TRY(open_file(path, &f));
  char line[kLine];
  const tb_status s = read_banner(f, path, line, out);
  fclose(f);
  return s;
}

/* ---- the header: banner, comments, size line, first entry --------------- */

typedef struct {
  tb_mtx_banner banner;
  int64_t rows, cols, nnz;
} header;

/* Reads a non-negative decimal integer at *p, moving p past it. */
static bool read_count(const char **p, int64_t *out) {
  while (isspace((unsigned char)**p)) ++*p;
  if (!isdigit((unsigned char)**p)) return false;
  errno = 0;
  char *end;
  const long long v = strtoll(*p, &end, 10);
  if (errno == ERANGE) return false;
  *p = end;
  *out = v;
  return true;
}

/* The next line that is not a comment or blank; 0 at the end of the file.
 * *lineno counts every line read, for messages. */
static int next_data_line(FILE *f, const char *path, char *line, int64_t *lineno) {
  int got;
  while ((got = next_line(f, path, line)) == 1) {
    ++*lineno;
    if (line[0] != '%' && !is_blank(line)) break;
  }
  return got;
}

/* One entry's rules the format states and CHOLMOD does not hold to: 1-based
 * indices within the size line's shape (CHOLMOD reads a file with a 0 index
 * anywhere as 0-based throughout), a finite value. */
static tb_status check_entry(const char *path, int64_t lineno, const char *line,
                             const header *h) {
  const char *p = line;
  int64_t i = 0, j = 0;
  if (!read_count(&p, &i) || !read_count(&p, &j))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: an entry starts with its row and column",
                   path, (long long)lineno);
  if (i < 1 || j < 1)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:%lld: index 0: Matrix Market indices start at 1", path, (long long)lineno);
  if (i > h->rows || j > h->cols)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: entry (%lld, %lld) outside %lld x %lld",
                   path, (long long)lineno, (long long)i, (long long)j, (long long)h->rows,
                   (long long)h->cols);
  if (h->banner.field != TB_MTX_FIELD_PATTERN) {
    char *end;
    const double v = strtod(p, &end);
    if (end == p || !isfinite(v))
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: the value is not a finite number", path,
                     (long long)lineno);
  }
  return TB_OK;
}

static int count_numbers(const char *s) {
  int n = 0;
  for (;;) {
    while (isspace((unsigned char)*s)) ++s;
    if (*s == '\0') return n;
    ++n;
    while (*s && !isspace((unsigned char)*s)) ++s;
  }
}

static tb_status read_header(FILE *f, const char *path, header *h) {
  char line[kLine];
  TB_TRY(read_banner(f, path, line, &h->banner));
  const tb_mtx_banner *b = &h->banner;
  if (b->format == TB_MTX_FORMAT_ARRAY)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: array (dense) format: only coordinate (sparse) files are read", path);
  if (b->field == TB_MTX_FIELD_COMPLEX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: complex matrices are not supported", path);
  if (b->field == TB_MTX_FIELD_PATTERN && b->symmetry == TB_MTX_STORE_SKEW)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: a pattern cannot be skew-symmetric", path);

  int64_t lineno = 1; /* the banner */
  int got = next_data_line(f, path, line, &lineno);
  if (got < 0) return TB_ERR_INVALID_ARGUMENT;
  const char *p = line;
  if (got == 0 || !read_count(&p, &h->rows) || !read_count(&p, &h->cols) ||
      !read_count(&p, &h->nnz) || !is_blank(p))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: no size line '<rows> <columns> <entries>'", path);
  if (h->rows > INT32_MAX || h->cols > INT32_MAX || h->nnz > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: %lld x %lld with %lld entries: int32 indices address at most %d of each",
                   path, (long long)h->rows, (long long)h->cols, (long long)h->nnz, INT32_MAX);
  if (b->symmetry != TB_MTX_STORE_GENERAL && h->rows != h->cols)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: symmetric storage of a %lld x %lld matrix", path,
                   (long long)h->rows, (long long)h->cols);

  /* CHOLMOD takes the field from the entries (2 numbers: pattern, 3: real,
   * 4: complex) and holds every line to the first: hold the first to the
   * banner. And count the entries: CHOLMOD ignores lines past the count, and
   * leaks its matrix on a file that ends short. */
  const int want = b->field == TB_MTX_FIELD_PATTERN ? 2 : 3;
  int64_t entries = 0;
  while ((got = next_data_line(f, path, line, &lineno)) == 1) {
    if (entries++ > 0) {
      if (entries <= h->nnz) TB_TRY(check_entry(path, lineno, line, h));
      continue;
    }
    const int numbers = count_numbers(line);
    if (numbers != want)
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: the banner says %s, so an entry has %d numbers; the first has %d%s", path,
                     b->field == TB_MTX_FIELD_PATTERN ? "pattern" : "a real field", want, numbers,
                     numbers == 4 ? " (complex matrices are not supported)" : "");
    TB_TRY(check_entry(path, lineno, line, h));
  }
  if (got < 0) return TB_ERR_INVALID_ARGUMENT;
  if (entries != h->nnz)
    return tb_fail(
        TB_ERR_INVALID_ARGUMENT, "%s: %s: the size line says %lld entries, the file has %lld", path,
        entries < h->nnz ? "truncated" : "too many entries", (long long)h->nnz, (long long)entries);
  return TB_OK;
}

/* ---- CHOLMOD -------------------------------------------------------------- */

/* CHOLMOD reports errors through a handler without a context pointer. */
static _Thread_local char g_cholmod_error[256];

static void on_cholmod_error(int status, const char *file, int line, const char *message) {
  (void)file, (void)line;
  snprintf(g_cholmod_error, sizeof g_cholmod_error, "%s (CHOLMOD status %d)",
           message ? message : "no message", status);
}

static tb_status read_triplets(FILE *f, const char *path, cholmod_common *cm,
                               cholmod_triplet **out) {
  rewind(f);
  g_cholmod_error[0] = '\0';
  *out = cholmod_l_read_triplet(f, cm);
  if (*out) return TB_OK;
  if (cm->status == CHOLMOD_OUT_OF_MEMORY)
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "%s: CHOLMOD ran out of memory", path);
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: CHOLMOD: %s", path,
                 g_cholmod_error[0] ? g_cholmod_error : "cannot read the file");
}

/* ---- triplets -> CSR -------------------------------------------------------
 * Two stable counting sorts, by column then by row, leave each row sorted by
 * column with duplicates side by side; they are then summed in place. Linear
 * in the entries, and the same result for any order of the file. */

typedef struct {
  int32_t *ptr; /* cols + 1: each column's start in row/val */
  int32_t *row;
  double *val;
} by_column;

static void by_column_free(by_column *c) {
  free(c->ptr), free(c->row), free(c->val);
  *c = (by_column){0};
}

/* prefix[0..n] from counts in prefix[1..n]. */
static void prefix_sum(int32_t *prefix, int64_t n) {
  for (int64_t i = 0; i < n; ++i) prefix[i + 1] += prefix[i];
}

/* After a scatter that advanced ptr[k] over bucket k, ptr[k] is bucket k+1's
 * start: shift back. */
static void unshift(int32_t *ptr, int64_t n) {
  for (int64_t i = n; i > 0; --i) ptr[i] = ptr[i - 1];
  ptr[0] = 0;
}

static tb_status bucket_by_column(const cholmod_triplet *t, bool mirror, int64_t n,
                                  by_column *out) {
  const int64_t cols = (int64_t)t->ncol, nt = (int64_t)t->nnz;
  const SuiteSparse_long *ti = t->i, *tj = t->j;
  const double *tx = t->x;
  out->ptr = calloc((size_t)cols + 1, sizeof *out->ptr);
  out->row = malloc(sizeof *out->row * (size_t)(n > 0 ? n : 1));
  out->val = malloc(sizeof *out->val * (size_t)(n > 0 ? n : 1));
  if (!out->ptr || !out->row || !out->val) return TB_ERR_OUT_OF_MEMORY;
  for (int64_t k = 0; k < nt; ++k) {
    ++out->ptr[tj[k] + 1];
    if (mirror && ti[k] != tj[k]) ++out->ptr[ti[k] + 1];
  }
  prefix_sum(out->ptr, cols);
  for (int64_t k = 0; k < nt; ++k) {
    const int32_t i = (int32_t)ti[k], j = (int32_t)tj[k];
    const int32_t p = out->ptr[j]++;
    out->row[p] = i, out->val[p] = tx[k];
    if (mirror && i != j) {
      const int32_t q = out->ptr[i]++;
      out->row[q] = j, out->val[q] = tx[k]; /* CHOLMOD negated a skew file's mirror already */
    }
  }
  unshift(out->ptr, cols);
  return TB_OK;
}

static tb_status to_rows(const by_column *c, int32_t rows, int32_t cols, int64_t n, tb_mtx *m) {
  tb_csr_matrix *a = &m->csr;
  a->rows = rows, a->cols = cols;
  a->row_offsets = calloc((size_t)rows + 1, sizeof *a->row_offsets);
  a->col = malloc(sizeof *a->col * (size_t)(n > 0 ? n : 1));
  m->values = malloc(sizeof *m->values * (size_t)(n > 0 ? n : 1));
  if (!a->row_offsets || !a->col || !m->values) return TB_ERR_OUT_OF_MEMORY;
  int32_t *ro = a->row_offsets;
  for (int64_t k = 0; k < n; ++k) ++ro[c->row[k] + 1];
  prefix_sum(ro, rows);
  for (int32_t j = 0; j < cols; ++j)
    for (int32_t k = c->ptr[j]; k < c->ptr[j + 1]; ++k) {
      const int32_t p = ro[c->row[k]]++;
      a->col[p] = j, m->values[p] = c->val[k];
    }
  unshift(ro, rows);
  /* Sum duplicates: w is the write position, each row starts afresh. */
  int32_t w = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t begin = ro[r], end = ro[r + 1];
    ro[r] = w;
    for (int32_t k = begin; k < end; ++k) {
      if (w > ro[r] && a->col[w - 1] == a->col[k]) {
        m->values[w - 1] += m->values[k];
      } else {
        a->col[w] = a->col[k], m->values[w] = m->values[k];
        ++w;
      }
    }
  }
  ro[rows] = w;
  a->nnz = w;
  return TB_OK;
}

void tb_mtx_free(tb_mtx *m) {
  if (!m) return;
  tb_csr_matrix_free(&m->csr);
  free(m->values);
  *m = (tb_mtx){0};
}

static tb_status read_open(FILE *f, const char *path, tb_mtx *out) {
  header h;
  TB_TRY(read_header(f, path, &h));
  cholmod_common cm;
  if (!cholmod_l_start(&cm))
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "%s: CHOLMOD did not start", path);
  cm.print = 0; /* errors come back through the handler, not on stdout */
  cm.error_handler = on_cholmod_error;
  cm.prefer_binary = 1; /* a symmetric pattern as ones (its values are ours anyway) */
  cholmod_triplet *t = NULL;
  by_column bc = {0};
  tb_status s = read_triplets(f, path, &cm, &t);
  if (s == TB_OK && ((int64_t)t->nrow != h.rows || (int64_t)t->ncol != h.cols))
    s = tb_fail(TB_ERR_INVALID_ARGUMENT,
                "%s: CHOLMOD read %lld x %lld, the size line says %lld x %lld", path,
                (long long)t->nrow, (long long)t->ncol, (long long)h.rows, (long long)h.cols);
  if (s == TB_OK && t->nnz > 0 && t->xtype != CHOLMOD_REAL)
    s = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: complex matrices are not supported", path);
  if (s == TB_OK) {
    /* CHOLMOD returns a symmetric file as its stored triangle (stype != 0)
     * and expands a skew-symmetric one itself (stype 0, mirror negated). */
    const bool mirror = t->stype != 0;
    const SuiteSparse_long *ti = t->i, *tj = t->j;
    int64_t n = (int64_t)t->nnz;
    if (mirror)
      for (size_t k = 0; k < t->nnz; ++k) n += ti[k] != tj[k];
    if (n > INT32_MAX)
      s = tb_fail(TB_ERR_INVALID_ARGUMENT,
                  "%s: %lld entries once expanded: int32 indices address at most %d", path,
                  (long long)n, INT32_MAX);
    if (s == TB_OK) s = bucket_by_column(t, mirror, n, &bc);
    cholmod_l_free_triplet(&t, &cm); /* before the row pass: the peak is lower */
    if (s == TB_OK) s = to_rows(&bc, (int32_t)h.rows, (int32_t)h.cols, n, out);
    if (s == TB_ERR_OUT_OF_MEMORY)
      tb_fail(s, "%s: out of memory for %lld entries", path, (long long)n);
  }
  by_column_free(&bc);
  cholmod_l_free_triplet(&t, &cm);
  cholmod_l_finish(&cm);
  if (s != TB_OK) return s;

  const tb_mtx_banner *b = &h.banner;
  out->file_nnz = h.nnz;
  out->flags = (b->field == TB_MTX_FIELD_PATTERN ? TB_MTX_PATTERN : 0) |
               (b->field == TB_MTX_FIELD_INTEGER ? TB_MTX_INTEGER : 0) |
               (b->symmetry == TB_MTX_STORE_SKEW ? TB_MTX_SKEW : 0) |
               (b->symmetry == TB_MTX_STORE_SYMMETRIC || b->symmetry == TB_MTX_STORE_HERMITIAN
                    ? TB_MTX_SYMMETRIC
                    : 0);
  if (out->flags & TB_MTX_PATTERN) /* duplicates summed to 2: a pattern has ones */
    for (int64_t k = 0; k < out->csr.nnz; ++k) out->values[k] = 1.0;
  return TB_OK;
}

tb_status tb_mtx_read(const char *path, tb_mtx *out) {
  if (out) *out = (tb_mtx){0};
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_read: NULL argument");
  FILE *f;
  TB_TRY(open_file(path, &f));
  const tb_status s = read_open(f, path, out);
  fclose(f);
  if (s != TB_OK) tb_mtx_free(out);
  return s;
}

void tb_mtx_name(const char *path, char *out, size_t cap) {
  if (!out || cap == 0) return;
  const char *base = path ? strrchr(path, '/') : NULL;
  base = base ? base + 1 : (path ? path : "");
  size_t len = strlen(base);
  if (len >= 4 && strcmp(base + len - 4, ".mtx") == 0) len -= 4;
  const size_t max = cap - 1 < TB_MTX_NAME_MAX ? cap - 1 : TB_MTX_NAME_MAX;
  size_t w = 0;
  for (size_t i = 0; i < len && w < max; ++i) {
    const int c = tolower((unsigned char)base[i]);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out[w++] = (char)c;
    else if (w == 0 || out[w - 1] != '_') out[w++] = '_';
  }
  out[w] = '\0';
  if (w == 0) snprintf(out, cap, "%s", "matrix");
}
