/* libFuzzer harness of the Matrix Market reader (core/mtx.h, tb_mtx_parse):
 * any bytes, read as a file. Beside ASan's and LSan's checks (no crash, no
 * leak), a plain second reading of the format (the oracle below, written from
 * the rules in mtx.h and docs/sweeps.md, not from mtx.c) must agree with the
 * reader on every input: refused by both, or the same matrix, value for
 * value. So a file the reader takes silently wrong (an entry cut short, text
 * ignored) stops the run, and so does a sound file refused. Built and run by
 * core/fuzz/fuzz_test.sh. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/mtx.h"

/* Rows and columns cost memory before any entry is read (row offsets, and
 * CHOLMOD's workspace): a size line of 2^31 rows is a valid matrix, but not
 * one to allocate on every input. The reader refuses more than this as it
 * refuses more than INT32_MAX. */
enum { kMaxDim = 1 << 16, kLineMax = 1024 };

/* ---- the oracle ------------------------------------------------------------ */

typedef struct {
  int64_t i, j, seq; /* 0-based; seq: the order the reader sums duplicates in */
  double v;
} entry;

typedef struct {
  bool ok;
  int64_t rows, cols;
  entry *e;
  int64_t n;
} oracle;

static int by_place(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Splits s at white space into at most 6 tokens; returns how many there are. */
static int tokens(char *s, char **tok) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(s, " \t\n\v\f\r", &save); t;
       t = strtok_r(NULL, " \t\n\v\f\r", &save))
    if (n < 6) tok[n++] = t;
    else return 7;
  return n;
}

static bool digits(const char *s, int64_t *v) {
  if (!*s) return false;
  *v = 0;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9') return false;
    if (*v < INT64_MAX / 16) *v = *v * 10 + (*s - '0');
  }
  return true;
}

static bool blank_or_comment(const char *s) {
  if (s[0] == '%') return true;
  for (; *s; ++s)
    if (!isspace((unsigned char)*s)) return false;
  return true;
}

/* The matrix the rules make of text[0..size), or !ok. */
static oracle read_oracle(const char *data, size_t size) {
  oracle o = {0};
  if (memchr(data, '\0', size)) return o;
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  int64_t nlines = 0, cap = 16;
  char **line = malloc(sizeof *line * (size_t)cap);
  for (char *s = text; *s;) {
    char *nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    size_t len = strlen(s);
    if (len > 0 && s[len - 1] == '\r') --len;
    if (len > kLineMax) goto done;
    if (nlines == cap) line = realloc(line, sizeof *line * (size_t)(cap *= 2));
    line[nlines++] = s;
    s = nl ? nl + 1 : s + strlen(s);
  }
  char *tok[6];
  if (nlines == 0 || strncmp(line[0], "%%MatrixMarket", 14) != 0 ||
      !isspace((unsigned char)line[0][14]) || tokens(line[0] + 14, tok) != 4 ||
      strcasecmp(tok[0], "matrix") != 0 || strcasecmp(tok[1], "coordinate") != 0)
    goto done;
  const bool pattern = strcasecmp(tok[2], "pattern") == 0,
             integer = strcasecmp(tok[2], "integer") == 0,
             skew = strcasecmp(tok[3], "skew-symmetric") == 0,
             general = strcasecmp(tok[3], "general") == 0;
  if (!(pattern || integer || strcasecmp(tok[2], "real") == 0)) goto done;
  if (!(general || skew || strcasecmp(tok[3], "symmetric") == 0 ||
        strcasecmp(tok[3], "hermitian") == 0))
    goto done;
  if (pattern && skew) goto done;
  int64_t k = 1;
  while (k < nlines && blank_or_comment(line[k])) ++k;
  int64_t nnz;
  if (k == nlines || tokens(line[k], tok) != 3 || !digits(tok[0], &o.rows) ||
      !digits(tok[1], &o.cols) || !digits(tok[2], &nnz))
    goto done;
  if (o.rows > kMaxDim || o.cols > kMaxDim || nnz > INT32_MAX) goto done;
  if (!general && o.rows != o.cols) goto done;
  o.e = malloc(sizeof *o.e * (size_t)(2 * nlines)); /* an entry a line, and its mirror */
  bool lower = false, upper = false;
  int64_t listed = 0;
  for (++k; k < nlines; ++k) {
    if (blank_or_comment(line[k])) continue;
    if (++listed > nnz) goto done;
    int64_t i, j;
    if (tokens(line[k], tok) != (pattern ? 2 : 3) || !digits(tok[0], &i) || !digits(tok[1], &j))
      goto done;
    if (i < 1 || j < 1 || i > o.rows || j > o.cols) goto done;
    double v = 1.0;
    if (!pattern) {
      const char *s = tok[2] + (tok[2][0] == '+' || tok[2][0] == '-');
      if (integer && (!*s || strspn(s, "0123456789") != strlen(s))) goto done;
      char *end;
      v = strtod(tok[2], &end);
      if (*end != '\0' || !(fabs(v) < 1e308)) goto done;
    }
    if (!general && i == j && skew && v != 0.0) goto done;
    lower |= i > j, upper |= i < j;
    if (lower && upper && !general) goto done;
    o.e[o.n] = (entry){i - 1, j - 1, o.n, v};
    ++o.n;
    if (!general && i != j) {
      o.e[o.n] = (entry){j - 1, i - 1, o.n, skew ? -v : v};
      ++o.n;
    }
  }
  if (listed != nnz) goto done;
  qsort(o.e, (size_t)o.n, sizeof *o.e, by_place);
  int64_t w = 0;
  for (int64_t r = 0; r < o.n; ++r) {
    if (w > 0 && o.e[w - 1].i == o.e[r].i && o.e[w - 1].j == o.e[r].j) {
      o.e[w - 1].v = pattern ? 1.0 : o.e[w - 1].v + o.e[r].v;
      if (!isfinite(o.e[w - 1].v)) goto done;
    } else {
      o.e[w++] = o.e[r];
    }
  }
  o.n = w;
  o.ok = true;
done:
  free(line);
  free(text);
  if (!o.ok) free(o.e), o.e = NULL;
  return o;
}

/* ---- the reader against it ------------------------------------------------- */

static bool same(const tb_mtx *m, const oracle *o) {
  const tb_csr_matrix *a = &m->csr;
  if (a->rows != o->rows || a->cols != o->cols || a->nnz != o->n || a->row_offsets[0] != 0)
    return false;
  int64_t k = 0;
  for (int32_t r = 0; r < a->rows; ++r)
    for (int32_t p = a->row_offsets[r]; p < a->row_offsets[r + 1]; ++p, ++k)
      if (k >= o->n || o->e[k].i != r || o->e[k].j != a->col[p] || o->e[k].v != m->values[p])
        return false;
  return k == o->n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char empty[1]; /* an empty input may come without a buffer */
  FILE *f = fmemopen(size > 0 ? (void *)data : empty, size, "r");
  if (!f) return 0;
  tb_mtx m;
  const tb_status s = tb_mtx_parse(f, "fuzz.mtx", kMaxDim, &m);
  fclose(f);
  oracle o = read_oracle((const char *)data, size);
  if (s == TB_OK && !o.ok) {
    fprintf(stderr, "mtx_fuzz: the reader took a file the rules refuse\n");
    abort();
  }
  if (s != TB_OK && o.ok) {
    fprintf(stderr, "mtx_fuzz: the reader refused a sound file: %s\n", tb_last_error());
    abort();
  }
  if (s == TB_OK && !same(&m, &o)) {
    fprintf(stderr, "mtx_fuzz: the reader's matrix is not the file's\n");
    abort();
  }
  if (s != TB_OK && strncmp(tb_last_error(), "fuzz.mtx", 8) != 0) {
    fprintf(stderr, "mtx_fuzz: a message that does not name the file: %s\n", tb_last_error());
    abort();
  }
  tb_mtx_free(&m);
  free(o.e);
  return 0;
}
