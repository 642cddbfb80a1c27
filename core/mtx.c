/* Matrix Market -> CSR (core/mtx.h). Every line is read and checked here
 * first, the rules of the format held to (CHOLMOD is lenient: it infers the
 * field from the count of numbers on a line, takes any banner it can
 * half-read, reads "1 2.5 3" as (1, 2), ignores text after a number and what
 * follows a NUL byte); the entries are then CHOLMOD's to parse. */
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
#include <sys/types.h>

#include <suitesparse/cholmod.h>

/* The format's longest line, without its "\n" or "\r\n". */
enum { kLineMax = 1024 };

/* CHOLMOD reads a value of magnitude 1e308 or more as infinite (its
 * HUGE_DOUBLE): such a value is no finite number here either. */
static const double kHugeValue = 1e308;

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

/* A file read a line at a time, each numbered for messages. */
typedef struct {
  FILE *f;
  const char *path;
  char *text; /* the line, NUL-terminated, its end of line kept */
  size_t cap;
  int64_t number; /* of the line in text, from 1 */
} lines;

static void lines_free(lines *r) {
  free(r->text);
  r->text = NULL, r->cap = 0;
}

/* The next line into r->text: 1, 0 at the end of the file, -1 (a message
 * set) for a read error, a NUL byte (no text file has one, and the parsers
 * would stop at it) or a line longer than the format allows. */
static int next_line(lines *r) {
  errno = 0;
  const ssize_t n = getline(&r->text, &r->cap, r->f);
  if (n < 0) {
    if (feof(r->f)) return 0;
    return tb_fail(TB_ERR_IO, "%s: after line %lld: %s", r->path, (long long)r->number,
                   strerror(errno ? errno : EIO)), -1;
  }
  ++r->number;
  if (memchr(r->text, '\0', (size_t)n))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: a NUL byte: not a text file", r->path,
                   (long long)r->number), -1;
  size_t len = (size_t)n;
  if (len > 0 && r->text[len - 1] == '\n') --len;
  if (len > 0 && r->text[len - 1] == '\r') --len;
  if (len > kLineMax)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: a line longer than %d characters", r->path,
                   (long long)r->number, kLineMax), -1;
  return 1;
}

static bool is_blank(const char *s) {
  while (isspace((unsigned char)*s)) ++s;
  return *s == '\0';
}

static tb_status parse_banner(const char *path, const char *line, tb_mtx_banner *out) {
  /* At the very start of the line, as CHOLMOD looks for it. */
  if (strncmp(line, "%%MatrixMarket", 14) != 0 || !isspace((unsigned char)line[14]))
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:1: not a Matrix Market file (its first line is no %%%%MatrixMarket banner)",
                   path);
  char object[32], format[32], field[32], symmetry[32], extra[2];
  const int n = sscanf(line + 14, "%31s %31s %31s %31s %1s", object, format, field, symmetry,
                       extra);
  if (n != 4 || strcasecmp(object, "matrix") != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:1: a banner other than '%%%%MatrixMarket matrix <format> <field> <symmetry>'",
                   path);
  if (strcasecmp(format, "coordinate") == 0) out->format = TB_MTX_FORMAT_COORDINATE;
  else if (strcasecmp(format, "array") == 0) out->format = TB_MTX_FORMAT_ARRAY;
  else return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:1: unknown format '%s'", path, format);
  if (strcasecmp(field, "real") == 0) out->field = TB_MTX_FIELD_REAL;
  else if (strcasecmp(field, "integer") == 0) out->field = TB_MTX_FIELD_INTEGER;
  else if (strcasecmp(field, "complex") == 0) out->field = TB_MTX_FIELD_COMPLEX;
  else if (strcasecmp(field, "pattern") == 0) out->field = TB_MTX_FIELD_PATTERN;
  else return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:1: unknown field '%s'", path, field);
  if (strcasecmp(symmetry, "general") == 0) out->symmetry = TB_MTX_STORE_GENERAL;
  else if (strcasecmp(symmetry, "symmetric") == 0) out->symmetry = TB_MTX_STORE_SYMMETRIC;
  else if (strcasecmp(symmetry, "skew-symmetric") == 0) out->symmetry = TB_MTX_STORE_SKEW;
  else if (strcasecmp(symmetry, "hermitian") == 0) out->symmetry = TB_MTX_STORE_HERMITIAN;
  else return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:1: unknown symmetry '%s'", path, symmetry);
  return TB_OK;
}

static tb_status read_banner(lines *r, tb_mtx_banner *out) {
  const int got = next_line(r);
  if (got < 0) return TB_ERR_INVALID_ARGUMENT;
  if (got == 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: an empty file", r->path);
  return parse_banner(r->path, r->text, out);
}

tb_status tb_mtx_read_banner(const char *path, tb_mtx_banner *out) {
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_read_banner: NULL argument");
  FILE *f;
  TB_TRY(open_file(path, &f));
  lines r = {.f = f, .path = path};
  const tb_status s = read_banner(&r, out);
  lines_free(&r);
  fclose(f);
  return s;
}

/* ---- every line before CHOLMOD's turn -------------------------------------- */

typedef struct {
  tb_mtx_banner banner;
  int64_t rows, cols, nnz;
  int64_t size_line;
  /* A symmetric file's first entry off the diagonal in each triangle (its
   * line, 0 for none): the format stores one triangle, not both. */
  int64_t first_lower, first_upper;
} header;

/* The next line that is not a comment or blank; 0 at the end of the file. */
static int next_data_line(lines *r) {
  int got;
  while ((got = next_line(r)) == 1)
    if (r->text[0] != '%' && !is_blank(r->text)) break;
  return got;
}

/* Splits line in place into at most cap white-space separated tokens;
 * returns how many it has (may be more than cap). */
static int split(char *line, char **tok, int cap) {
  int n = 0;
  char *s = line;
  for (;;) {
    while (isspace((unsigned char)*s)) ++s;
    if (*s == '\0') return n;
    if (n < cap) tok[n] = s;
    ++n;
    while (*s && !isspace((unsigned char)*s)) ++s;
    if (*s) *s++ = '\0';
  }
}

/* A count or index: decimal digits only. *v is INT64_MAX past it. */
static bool parse_count(const char *s, int64_t *v) {
  if (!isdigit((unsigned char)*s)) return false;
  int64_t x = 0;
  for (; *s; ++s) {
    if (!isdigit((unsigned char)*s)) return false;
    x = x > (INT64_MAX - 9) / 10 ? INT64_MAX : x * 10 + (*s - '0');
  }
  *v = x;
  return true;
}

static const char *field_name(tb_mtx_field f) {
  switch (f) {
    case TB_MTX_FIELD_REAL: return "real";
    case TB_MTX_FIELD_INTEGER: return "integer";
    case TB_MTX_FIELD_COMPLEX: return "complex";
    case TB_MTX_FIELD_PATTERN: return "pattern";
  }
  return "?";
}

/* An integer field's value: an optional sign, then digits. */
static bool is_integer(const char *s) {
  if (*s == '+' || *s == '-') ++s;
  if (!*s) return false;
  for (; *s; ++s)
    if (!isdigit((unsigned char)*s)) return false;
  return true;
}

/* One entry, held to the rules the format states and CHOLMOD does not: as
 * many numbers as the field has (CHOLMOD holds every line to the first, and
 * takes the field from it), 1-based indices (CHOLMOD reads a file with a 0
 * index anywhere as 0-based throughout) within the size line's shape, a
 * finite value of the banner's field, and one triangle of a symmetric file. */
static tb_status check_entry(lines *r, bool first, header *h) {
  const char *path = r->path;
  const long long line = (long long)r->number;
  const tb_mtx_banner *b = &h->banner;
  const int want = b->field == TB_MTX_FIELD_PATTERN ? 2 : 3;
  char *tok[3];
  const int n = split(r->text, tok, 3);
  if (n != want)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:%lld: the banner says %s, so an entry has %d numbers (row, column%s); "
                   "this one has %d%s",
                   path, line, field_name(b->field), want, want == 3 ? ", value" : "", n,
                   first && n == 4 ? " (complex matrices are not supported)" : "");
  int64_t i, j;
  for (int k = 0; k < 2; ++k)
    if (!parse_count(tok[k], k == 0 ? &i : &j))
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: an entry starts with its row and column (positive integers), "
                     "not '%s'",
                     path, line, tok[k]);
  if (i < 1 || j < 1)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: index 0: Matrix Market indices start at 1",
                   path, line);
  if (i > h->rows || j > h->cols)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: entry (%s, %s) outside %lld x %lld", path,
                   line, tok[0], tok[1], (long long)h->rows, (long long)h->cols);
  double v = 1.0;
  if (want == 3) {
    if (b->field == TB_MTX_FIELD_INTEGER && !is_integer(tok[2]))
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: '%s' is not an integer, and the banner says integer", path, line,
                     tok[2]);
    char *end;
    v = strtod(tok[2], &end);
    if (end == tok[2] || *end != '\0')
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: the value '%s' is not a number", path,
                     line, tok[2]);
    if (!(fabs(v) < kHugeValue))
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: the value is not a finite number ('%s'; magnitudes from 1e308 "
                     "read as infinite)",
                     path, line, tok[2]);
  }
  if (b->symmetry == TB_MTX_STORE_GENERAL) return TB_OK;
  if (i == j) {
    if (b->symmetry == TB_MTX_STORE_SKEW && v != 0.0)
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: (%lld, %lld) = %s: a skew-symmetric matrix has a zero diagonal",
                     path, line, (long long)i, (long long)j, tok[2]);
    return TB_OK;
  }
  int64_t *mine = i > j ? &h->first_lower : &h->first_upper;
  const int64_t other = i > j ? h->first_upper : h->first_lower;
  if (*mine == 0) *mine = r->number;
  if (other != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:%lld: entry (%lld, %lld) is %s the diagonal and line %lld's %s it: a %s "
                   "file stores one triangle (the lower), not both",
                   path, line, (long long)i, (long long)j, i > j ? "below" : "above",
                   (long long)other, i > j ? "above" : "below",
                   b->symmetry == TB_MTX_STORE_SKEW ? "skew-symmetric" : "symmetric");
  return TB_OK;
}

static tb_status read_header(lines *r, int64_t max_dim, header *h) {
  const char *path = r->path;
  TB_TRY(read_banner(r, &h->banner));
  const tb_mtx_banner *b = &h->banner;
  if (b->format == TB_MTX_FORMAT_ARRAY)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:1: array (dense) format: only coordinate (sparse) files are read", path);
  if (b->field == TB_MTX_FIELD_COMPLEX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:1: complex matrices are not supported", path);
  if (b->field == TB_MTX_FIELD_PATTERN && b->symmetry == TB_MTX_STORE_SKEW)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:1: a pattern cannot be skew-symmetric", path);

  int got = next_data_line(r);
  if (got < 0) return TB_ERR_INVALID_ARGUMENT;
  h->size_line = r->number;
  char *tok[3];
  if (got == 0 || split(r->text, tok, 3) != 3 || !parse_count(tok[0], &h->rows) ||
      !parse_count(tok[1], &h->cols) || !parse_count(tok[2], &h->nnz))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: no size line '<rows> <columns> <entries>'",
                   path, (long long)r->number + (got == 0));
  if (h->rows > max_dim || h->cols > max_dim || h->nnz > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:%lld: %lld x %lld with %lld entries: at most %lld rows and columns and %d "
                   "entries are read (int32 indices)",
                   path, (long long)h->size_line, (long long)h->rows, (long long)h->cols,
                   (long long)h->nnz, (long long)max_dim, INT32_MAX);
  if (b->symmetry != TB_MTX_STORE_GENERAL && h->rows != h->cols)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s:%lld: symmetric storage of a %lld x %lld matrix",
                   path, (long long)h->size_line, (long long)h->rows, (long long)h->cols);

  /* Count the entries too: CHOLMOD ignores lines past the count, and leaks
   * its matrix on a file that ends short. */
  int64_t entries = 0;
  while ((got = next_data_line(r)) == 1) {
    if (++entries > h->nnz)
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s:%lld: too many entries: the size line (line %lld) says %lld", path,
                     (long long)r->number, (long long)h->size_line, (long long)h->nnz);
    TB_TRY(check_entry(r, entries == 1, h));
  }
  if (got < 0) return TB_ERR_INVALID_ARGUMENT;
  if (entries < h->nnz)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s:%lld: truncated: the size line says %lld entries, the file has %lld", path,
                   (long long)h->size_line, (long long)h->nnz, (long long)entries);
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

/* Duplicates are summed: their sum may overflow where no value does. */
static tb_status check_sums(const char *path, const tb_mtx *m) {
  const tb_csr_matrix *a = &m->csr;
  for (int32_t r = 0; r < a->rows; ++r)
    for (int32_t k = a->row_offsets[r]; k < a->row_offsets[r + 1]; ++k)
      if (!isfinite(m->values[k]))
        return tb_fail(TB_ERR_INVALID_ARGUMENT,
                       "%s: the entries at (%d, %d) sum to a value that is not a finite number",
                       path, r + 1, a->col[k] + 1);
  return TB_OK;
}

static tb_status read_open(FILE *f, const char *path, int64_t max_dim, tb_mtx *out) {
  header h = {0};
  rewind(f); /* CHOLMOD reads from the start too */
  lines r = {.f = f, .path = path};
  const tb_status checked = read_header(&r, max_dim, &h);
  lines_free(&r);
  if (checked != TB_OK) return checked;
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
    if (s == TB_OK && h.banner.field != TB_MTX_FIELD_PATTERN) s = check_sums(path, out);
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

tb_status tb_mtx_parse(FILE *f, const char *name, int64_t max_dim, tb_mtx *out) {
  if (out) *out = (tb_mtx){0};
  if (!f || !name || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_parse: NULL argument");
  if (max_dim > INT32_MAX) max_dim = INT32_MAX;
  const tb_status s = read_open(f, name, max_dim, out);
  if (s != TB_OK) tb_mtx_free(out);
  return s;
}

tb_status tb_mtx_read(const char *path, tb_mtx *out) {
  if (out) *out = (tb_mtx){0};
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_read: NULL argument");
  FILE *f;
  TB_TRY(open_file(path, &f));
  const tb_status s = tb_mtx_parse(f, path, INT32_MAX, out);
  fclose(f);
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
