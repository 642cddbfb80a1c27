/* CPU tests of the Matrix Market reader and its cache (core/mtx.h). The
 * fixtures are in core/testdata/mtx/; the first argument is one of them. */
#define _POSIX_C_SOURCE 200809L
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cunit.h"
#include "core/mtx.h"
#include "core/rng.h"
#include "core/status.h"

static char g_fixtures[4096]; /* core/testdata/mtx */
static char g_tmp[4096];      /* a fresh folder for this run */

static const char *fixture(const char *name) {
  static char path[8192];
  snprintf(path, sizeof path, "%s/%s", g_fixtures, name);
  return path;
}

static bool is_zeroed(const tb_mtx *m) {
  return m->csr.rows == 0 && m->csr.cols == 0 && m->csr.nnz == 0 && !m->csr.row_offsets &&
         !m->csr.col && !m->values && m->flags == 0 && m->file_nnz == 0;
}

/* ---- fixtures read exactly ------------------------------------------------ */

typedef struct {
  const char *file;
  int32_t rows, cols;
  int64_t nnz, file_nnz;
  unsigned flags;
  int32_t ro[8];
  int32_t col[16];
  double val[16];
} expected;

static const expected kExpected[] = {
    {"general_real.mtx", 4, 5, 6, 6, 0, {0, 3, 4, 4, 6}, {0, 2, 4, 1, 0, 4},
     {2, 0, -0.5, 32.5, 7, -1.5}},
    {"integer.mtx", 3, 3, 4, 4, TB_MTX_INTEGER, {0, 1, 2, 4}, {1, 0, 0, 2}, {7, 100, 1, -4}},
    {"pattern.mtx", 3, 4, 4, 4, TB_MTX_PATTERN, {0, 2, 3, 4}, {0, 3, 2, 1}, {1, 1, 1, 1}},
    {"symmetric.mtx", 4, 4, 7, 5, TB_MTX_SYMMETRIC, {0, 2, 4, 5, 7}, {0, 1, 0, 3, 2, 1, 3},
     {4, -1, -1, 2.5, 5, 2.5, 6}},
    {"skew.mtx", 3, 3, 4, 2, TB_MTX_SKEW, {0, 1, 3, 4}, {1, 0, 2, 1}, {-4, 4, 1.5, -1.5}},
    {"pattern_symmetric.mtx", 3, 3, 5, 3, TB_MTX_PATTERN | TB_MTX_SYMMETRIC, {0, 2, 3, 5},
     {0, 2, 2, 0, 1}, {1, 1, 1, 1, 1}},
    /* Duplicates summed; a sum of zero stays an entry. */
    {"duplicates.mtx", 2, 2, 2, 4, 0, {0, 1, 2}, {0, 1}, {4, 0}},
    {"duplicates_pattern.mtx", 2, 2, 2, 3, TB_MTX_PATTERN, {0, 1, 2}, {1, 0}, {1, 1}},
    {"empty.mtx", 3, 2, 0, 0, 0, {0, 0, 0, 0}, {0}, {0}},
    {"crlf.mtx", 2, 2, 2, 2, 0, {0, 1, 2}, {1, 0}, {-3, 5}},
    {"hermitian_real.mtx", 2, 2, 3, 2, TB_MTX_SYMMETRIC, {0, 2, 3}, {0, 1, 0}, {1, 2, 2}},
    /* Comments and blank lines among the entries, white space around them. */
    {"integer_symmetric.mtx", 3, 3, 6, 4, TB_MTX_INTEGER | TB_MTX_SYMMETRIC, {0, 2, 3, 6},
     {0, 2, 2, 0, 1, 2}, {2, -5, 7, -5, 7, 0}},
    {"integer_skew.mtx", 3, 3, 4, 2, TB_MTX_INTEGER | TB_MTX_SKEW, {0, 2, 3, 4}, {1, 2, 0, 0},
     {2, -6, -2, 6}},
    /* One triangle, the upper: each entry still stands for its mirror. */
    {"symmetric_upper.mtx", 3, 3, 5, 3, TB_MTX_SYMMETRIC, {0, 2, 4, 5}, {1, 2, 0, 1, 0},
     {1.5, -2, 1.5, 4, -2}},
};

static bool same_as(const tb_mtx *m, const expected *e) {
  const tb_csr_matrix *a = &m->csr;
  if (a->rows != e->rows || a->cols != e->cols || a->nnz != e->nnz || m->flags != e->flags ||
      m->file_nnz != e->file_nnz) {
    fprintf(stderr, "\n  %s: %d x %d, nnz %lld (file %lld), flags %u\n", e->file, a->rows, a->cols,
            (long long)a->nnz, (long long)m->file_nnz, m->flags);
    return false;
  }
  for (int32_t r = 0; r <= a->rows; ++r)
    if (a->row_offsets[r] != e->ro[r]) {
      fprintf(stderr, "\n  %s: row_offsets[%d] = %d, not %d\n", e->file, r, a->row_offsets[r],
              e->ro[r]);
      return false;
    }
  for (int64_t k = 0; k < a->nnz; ++k)
    if (a->col[k] != e->col[k] || m->values[k] != e->val[k]) {
      fprintf(stderr, "\n  %s: entry %lld is (col %d, %g), not (%d, %g)\n", e->file, (long long)k,
              a->col[k], m->values[k], e->col[k], e->val[k]);
      return false;
    }
  return true;
}

TB_TEST(test_fixtures, "fixtures read exactly") {
  for (size_t i = 0; i < sizeof kExpected / sizeof kExpected[0]; ++i) {
    tb_mtx m;
    const tb_status s = tb_mtx_read(fixture(kExpected[i].file), &m);
    if (s != TB_OK) fprintf(stderr, "\n  %s: %s\n", kExpected[i].file, tb_last_error());
    CU_ASSERT_EQUAL(s, TB_OK);
    if (s == TB_OK) CU_ASSERT(same_as(&m, &kExpected[i]));
    tb_mtx_free(&m);
    CU_ASSERT(is_zeroed(&m));
  }
}

/* ---- files refused, each with its reason ---------------------------------- */

TB_TEST(test_refused, "files refused with their reason") {
  static const struct {
    const char *file;
    tb_status status;
    const char *says;
  } cases[] = {
      /* Each message names the file, the line, and the rule. */
      {"array.mtx", TB_ERR_INVALID_ARGUMENT, "array.mtx:1: array (dense) format"},
      {"complex.mtx", TB_ERR_INVALID_ARGUMENT, "complex.mtx:1: complex matrices are not supported"},
      {"complex_values.mtx", TB_ERR_INVALID_ARGUMENT,
       "complex_values.mtx:3: the banner says real, so an entry has 3 numbers (row, column, "
       "value); this one has 4 (complex matrices are not supported)"},
      {"truncated.mtx", TB_ERR_INVALID_ARGUMENT,
       "truncated.mtx:2: truncated: the size line says 4 entries, the file has 2"},
      {"extra_entries.mtx", TB_ERR_INVALID_ARGUMENT,
       "extra_entries.mtx:4: too many entries: the size line (line 2) says 1"},
      {"long_line.mtx", TB_ERR_INVALID_ARGUMENT, "long_line.mtx:3: a line longer than 1024"},
      {"no_banner.mtx", TB_ERR_INVALID_ARGUMENT, "no_banner.mtx:1: not a Matrix Market file"},
      {"zero_bytes.mtx", TB_ERR_INVALID_ARGUMENT, "zero_bytes.mtx: an empty file"},
      {"banner_indented.mtx", TB_ERR_INVALID_ARGUMENT,
       "banner_indented.mtx:1: not a Matrix Market file"},
      {"pattern_values.mtx", TB_ERR_INVALID_ARGUMENT,
       "pattern_values.mtx:3: the banner says pattern, so an entry has 2 numbers"},
      {"extra_number.mtx", TB_ERR_INVALID_ARGUMENT,
       "extra_number.mtx:4: the banner says real, so an entry has 3 numbers (row, column, value); "
       "this one has 4"},
      {"out_of_range.mtx", TB_ERR_INVALID_ARGUMENT, "out_of_range.mtx:3: entry (4, 1) outside 3 x 3"},
      {"index_overflow.mtx", TB_ERR_INVALID_ARGUMENT,
       "index_overflow.mtx:3: entry (99999999999999999999, 1) outside 3 x 3"},
      {"bad_entry.mtx", TB_ERR_INVALID_ARGUMENT,
       "bad_entry.mtx:4: an entry starts with its row and column (positive integers), not 'x'"},
      {"fractional_index.mtx", TB_ERR_INVALID_ARGUMENT,
       "fractional_index.mtx:4: an entry starts with its row and column (positive integers), "
       "not '2.5'"},
      {"zero_based.mtx", TB_ERR_INVALID_ARGUMENT, "zero_based.mtx:4: index 0: Matrix Market indices start at 1"},
      {"nonfinite.mtx", TB_ERR_INVALID_ARGUMENT, "nonfinite.mtx:5: the value is not a finite number"},
      {"huge_value.mtx", TB_ERR_INVALID_ARGUMENT, "huge_value.mtx:4: the value is not a finite number"},
      {"sum_overflow.mtx", TB_ERR_INVALID_ARGUMENT,
       "sum_overflow.mtx: the entries at (1, 1) sum to a value that is not a finite number"},
      {"value_suffix.mtx", TB_ERR_INVALID_ARGUMENT, "value_suffix.mtx:4: the value '3abc' is not a number"},
      {"integer_fraction.mtx", TB_ERR_INVALID_ARGUMENT,
       "integer_fraction.mtx:4: '1.5' is not an integer, and the banner says integer"},
      {"nul_byte.mtx", TB_ERR_INVALID_ARGUMENT, "nul_byte.mtx:4: a NUL byte: not a text file"},
      {"bad_size.mtx", TB_ERR_INVALID_ARGUMENT, "bad_size.mtx:2: no size line"},
      {"too_large.mtx", TB_ERR_INVALID_ARGUMENT,
       "too_large.mtx:2: 3000000000 x 1 with 0 entries: at most 2147483647 rows and columns"},
      {"rect_symmetric.mtx", TB_ERR_INVALID_ARGUMENT,
       "rect_symmetric.mtx:2: symmetric storage of a 2 x 3 matrix"},
      {"symmetric_both.mtx", TB_ERR_INVALID_ARGUMENT,
       "symmetric_both.mtx:5: entry (1, 2) is above the diagonal and line 4's below it: a "
       "symmetric file stores one triangle"},
      {"skew_diagonal.mtx", TB_ERR_INVALID_ARGUMENT,
       "skew_diagonal.mtx:4: (2, 2) = 5: a skew-symmetric matrix has a zero diagonal"},
      {"pattern_skew.mtx", TB_ERR_INVALID_ARGUMENT,
       "pattern_skew.mtx:1: a pattern cannot be skew-symmetric"},
      {"bad_field.mtx", TB_ERR_INVALID_ARGUMENT, "bad_field.mtx:1: unknown field 'quaternion'"},
      {"no_such_file.mtx", TB_ERR_IO, "No such file"},
      {".", TB_ERR_IO, "not a regular file"},
      {"general_real.mtx.gz", TB_ERR_INVALID_ARGUMENT, "gunzip it first"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    tb_mtx m;
    const char *path = fixture(cases[i].file);
    const tb_status s = tb_mtx_read(path, &m);
    if (s != cases[i].status)
      fprintf(stderr, "\n  %s: %s, not %s (%s)\n", cases[i].file, tb_status_string(s),
              tb_status_string(cases[i].status), tb_last_error());
    CU_ASSERT_EQUAL(s, cases[i].status);
    CU_ASSERT(is_zeroed(&m));
    ASSERT_CONTAINS(tb_last_error(), cases[i].says);
    ASSERT_CONTAINS(tb_last_error(), cases[i].file); /* the message names the file */
  }
  tb_mtx m;
  CU_ASSERT_EQUAL(tb_mtx_read(NULL, &m), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT(is_zeroed(&m));
  CU_ASSERT_EQUAL(tb_mtx_read(fixture("skew.mtx"), NULL), TB_ERR_INVALID_ARGUMENT);
}

/* From a stream (what the fuzzer reads through), with a smaller limit. */
TB_TEST(test_parse, "parse from a stream") {
  static const char text[] = "%%MatrixMarket matrix coordinate real general\n3 2 1\n3 2 -1\n";
  FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
  CU_ASSERT_FATAL(f != NULL);
  fgetc(f); /* read from the start, wherever the stream is */
  tb_mtx m;
  CU_ASSERT_EQUAL_FATAL(tb_mtx_parse(f, "stream.mtx", INT32_MAX, &m), TB_OK);
  CU_ASSERT(m.csr.rows == 3 && m.csr.cols == 2 && m.csr.nnz == 1 && m.file_nnz == 1);
  CU_ASSERT(m.csr.row_offsets[2] == 0 && m.csr.row_offsets[3] == 1);
  CU_ASSERT(m.csr.col[0] == 1 && m.values[0] == -1);
  tb_mtx_free(&m);
  CU_ASSERT_EQUAL(tb_mtx_parse(f, "stream.mtx", 2, &m), TB_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(tb_last_error(), "stream.mtx:2: 3 x 2 with 1 entries: at most 2 rows and columns");
  CU_ASSERT(is_zeroed(&m));
  fclose(f);
  CU_ASSERT_EQUAL(tb_mtx_parse(NULL, "stream.mtx", INT32_MAX, &m), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT(is_zeroed(&m));
}

TB_TEST(test_banner, "banner") {
  tb_mtx_banner b;
  CU_ASSERT_EQUAL_FATAL(tb_mtx_read_banner(fixture("array.mtx"), &b), TB_OK);
  CU_ASSERT_EQUAL(b.format, TB_MTX_FORMAT_ARRAY);
  CU_ASSERT_EQUAL(b.field, TB_MTX_FIELD_REAL);
  CU_ASSERT_EQUAL_FATAL(tb_mtx_read_banner(fixture("pattern_symmetric.mtx"), &b), TB_OK);
  CU_ASSERT_EQUAL(b.format, TB_MTX_FORMAT_COORDINATE);
  CU_ASSERT_EQUAL(b.field, TB_MTX_FIELD_PATTERN);
  CU_ASSERT_EQUAL(b.symmetry, TB_MTX_STORE_SYMMETRIC);
  CU_ASSERT_EQUAL(tb_mtx_read_banner(fixture("no_banner.mtx"), &b), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tb_mtx_read_banner(fixture("no_such_file.mtx"), &b), TB_ERR_IO);
}

/* ---- random files against a dense reference ------------------------------- */

TB_TEST(test_random_files, "random files against a dense reference") {
  tb_rng r;
  tb_rng_seed(&r, 2024);
  char path[8192];
  snprintf(path, sizeof path, "%s/random.mtx", g_tmp);
  static const char *const kStorage[] = {"general", "symmetric", "skew-symmetric"};
  for (int trial = 0; trial < 60; ++trial) {
    const int storage = (int)tb_rng_range(&r, 0, 2),
              pattern = storage != 2 && tb_rng_range(&r, 0, 3) == 0;
    const int32_t rows = (int32_t)tb_rng_range(&r, 1, 30);
    const int32_t cols = storage == 0 ? (int32_t)tb_rng_range(&r, 1, 30) : rows;
    /* A 1 x 1 skew-symmetric matrix has no strictly lower entry to list. */
    const int64_t entries = storage == 2 && rows == 1 ? 0 : tb_rng_range(&r, 0, 120);
    double *dense = calloc((size_t)rows * cols, sizeof *dense);
    bool *present = calloc((size_t)rows * cols, sizeof *present);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(dense && present && f);
    fprintf(f, "%%%%MatrixMarket matrix coordinate %s %s\n%d %d %lld\n",
            pattern ? "pattern" : "real", kStorage[storage], rows, cols, (long long)entries);
    for (int64_t k = 0; k < entries; ++k) {
      int32_t i = (int32_t)tb_rng_range(&r, 0, rows - 1),
              j = (int32_t)tb_rng_range(&r, 0, cols - 1);
      if (storage != 0 && i < j) { /* the lower triangle, as the format stores it */
        const int32_t t = i;
        i = j, j = t;
      }
      if (storage == 2 && i == j) { /* strictly lower */
        if (i > 0) j = i - 1;
        else i = 1, j = 0;
      }
      const double v = pattern ? 1 : (double)tb_rng_range(&r, -8, 8) / 4;
      fprintf(f, pattern ? "%d %d\n" : "%d %d %.17g\n", i + 1, j + 1, v);
      dense[(size_t)i * cols + j] += v, present[(size_t)i * cols + j] = true;
      if (storage != 0 && i != j)
        dense[(size_t)j * cols + i] += storage == 2 ? -v : v, present[(size_t)j * cols + i] = true;
    }
    fclose(f);
    tb_mtx m;
    const tb_status s = tb_mtx_read(path, &m);
    if (s != TB_OK) fprintf(stderr, "\n  trial %d: %s\n", trial, tb_last_error());
    CU_ASSERT_EQUAL_FATAL(s, TB_OK);
    bool ok = m.csr.rows == rows && m.csr.cols == cols && m.csr.row_offsets[0] == 0;
    int64_t seen = 0;
    for (int32_t i = 0; ok && i < rows; ++i)
      for (int32_t k = m.csr.row_offsets[i]; ok && k < m.csr.row_offsets[i + 1]; ++k, ++seen) {
        const int32_t j = m.csr.col[k];
        const double want = pattern ? 1 : dense[(size_t)i * cols + j];
        ok = j >= 0 && j < cols && (k == m.csr.row_offsets[i] || j > m.csr.col[k - 1]) &&
             present[(size_t)i * cols + j] && m.values[k] == want;
        if (!ok)
          fprintf(stderr, "\n  trial %d: (%d, %d) = %g, not %g\n", trial, i, j, m.values[k], want);
      }
    int64_t listed = 0;
    for (size_t k = 0; k < (size_t)rows * cols; ++k) listed += present[k];
    CU_ASSERT(ok);
    CU_ASSERT_EQUAL(seen, listed);
    CU_ASSERT_EQUAL(m.csr.nnz, listed);
    tb_mtx_free(&m);
    free(dense), free(present);
  }
  remove(path);
}

/* ---- names ---------------------------------------------------------------- */

TB_TEST(test_names, "names") {
  static const struct {
    const char *path, *name;
  } cases[] = {
      {"/data/G3_circuit.mtx", "g3_circuit"},
      {"web-Google.mtx", "web_google"},
      {"a/b/1138_bus.mtx", "1138_bus"},
      {"x/--Odd  Name!!.mtx", "_odd_name_"},
      {"/data/.mtx", "matrix"},
      {"no_suffix", "no_suffix"},
      {"this_is_a_rather_long_matrix_name_beyond_forty_characters.mtx",
       "this_is_a_rather_long_matrix_name_beyond"},
  };
  char out[64];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    tb_mtx_name(cases[i].path, out, sizeof out);
    if (strcmp(out, cases[i].name) != 0) fprintf(stderr, "\n  %s: '%s'\n", cases[i].path, out);
    CU_ASSERT_STRING_EQUAL(out, cases[i].name);
  }
  char small[5];
  tb_mtx_name("abcdefgh.mtx", small, sizeof small);
  CU_ASSERT_STRING_EQUAL(small, "abcd");
}

/* ---- the files under a folder -------------------------------------------- */

static void touch(const char *dir, const char *name, const char *text) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs(text, f);
  fclose(f);
}

TB_TEST(test_find, "the files under a folder") {
  char root[4200], sub[8192];
  snprintf(root, sizeof root, "%s/find", g_tmp);
  CU_ASSERT_EQUAL_FATAL(mkdir(root, 0777), 0);
  snprintf(sub, sizeof sub, "%s/Group", root);
  CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0777), 0);
  snprintf(sub, sizeof sub, "%s/Group/deep", root);
  CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0777), 0);
  touch(root, "b.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 0\n");
  touch(sub, "a.mtx", "%%MatrixMarket matrix coordinate pattern general\n1 1 0\n");
  touch(sub, "a_b.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n");
  touch(sub, "c.mtx.gz", "not really");
  touch(root, "notes.txt", "not a matrix");

  tb_mtx_files f;
  CU_ASSERT_EQUAL_FATAL(tb_mtx_find(root, &f), TB_OK);
  CU_ASSERT_EQUAL_FATAL(f.count, 2);
  ASSERT_CONTAINS(f.paths[0], "/find/Group/deep/a.mtx"); /* sorted by path */
  ASSERT_CONTAINS(f.paths[1], "/find/b.mtx");
  CU_ASSERT_EQUAL_FATAL(f.nskipped, 2);
  const bool gz_first = strstr(f.skipped[0], ".gz") != NULL;
  ASSERT_CONTAINS(f.skipped[gz_first ? 0 : 1], "c.mtx.gz: compressed: gunzip it");
  ASSERT_CONTAINS(f.skipped[gz_first ? 1 : 0], "a_b.mtx: array (dense) format");
  tb_mtx_files_free(&f);
  CU_ASSERT_EQUAL(f.count, 0);
  CU_ASSERT_PTR_NULL(f.paths);

  /* A file named is taken as it is, whatever its name. */
  snprintf(sub, sizeof sub, "%s/notes.txt", root);
  CU_ASSERT_EQUAL_FATAL(tb_mtx_find(sub, &f), TB_OK);
  CU_ASSERT_EQUAL(f.count, 1);
  CU_ASSERT_STRING_EQUAL(f.paths[0], sub);
  tb_mtx_files_free(&f);

  /* The fixtures: every .mtx but the array one. */
  CU_ASSERT_EQUAL_FATAL(tb_mtx_find(g_fixtures, &f), TB_OK);
  CU_ASSERT(f.count >= 20);
  CU_ASSERT_EQUAL(f.nskipped, 1);
  for (int i = 0; i < f.count; ++i) CU_ASSERT_PTR_NULL(strstr(f.paths[i], "/array.mtx"));
  tb_mtx_files_free(&f);

  CU_ASSERT_EQUAL(tb_mtx_find(fixture("nothing_here"), &f), TB_ERR_IO);
  ASSERT_CONTAINS(tb_last_error(), "No such file");
  snprintf(sub, sizeof sub, "%s/Group/empty", root);
  CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0777), 0);
  CU_ASSERT_EQUAL(tb_mtx_find(sub, &f), TB_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(tb_last_error(), "no .mtx file under it");
  CU_ASSERT_EQUAL(f.count, 0);
}

/* ---- the cache ------------------------------------------------------------ */

static void copy_file(const char *from, const char *to) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  CU_ASSERT_FATAL(a && b);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, a)) > 0;) CU_ASSERT(fwrite(buf, 1, n, b) == n);
  fclose(a), fclose(b);
}

static void set_mtime(const char *path, time_t s) {
  const struct timespec t[2] = {{s, 0}, {s, 0}};
  CU_ASSERT_EQUAL(utimensat(AT_FDCWD, path, t, 0), 0);
}

static struct timespec mtime_of(const char *path) {
  struct stat st;
  CU_ASSERT_EQUAL(stat(path, &st), 0);
  return st.st_mtim;
}

static bool same_time(struct timespec a, struct timespec b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Loads path through dir, expects event, and the matrix of kExpected[which]. */
static void load_expect(const char *path, const char *dir, tb_mtx_cache_event event,
                        const char *why, int which) {
  tb_mtx m;
  tb_mtx_cache_info info;
  const tb_status s = tb_mtx_load(path, dir, &m, &info);
  if (s != TB_OK) fprintf(stderr, "\n  %s: %s\n", path, tb_last_error());
  CU_ASSERT_EQUAL_FATAL(s, TB_OK);
  if (info.event != event)
    fprintf(stderr, "\n  event %d, not %d (%s)\n", info.event, event, info.why);
  CU_ASSERT_EQUAL(info.event, event);
  if (why) ASSERT_CONTAINS(info.why, why);
  else CU_ASSERT_STRING_EQUAL(info.why, "");
  CU_ASSERT(same_as(&m, &kExpected[which]));
  tb_mtx_free(&m);
}

/* Overwrites the byte at offset (from the end if negative) of path. */
static void poke(const char *path, long offset) {
  FILE *f = fopen(path, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
  const int c = fgetc(f);
  fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
  fputc(c ^ 0x5a, f);
  fclose(f);
}

TB_TEST(test_cache, "cache: written, reused, rebuilt") {
  char src[8192], dir[8192], entry[8192];
  snprintf(src, sizeof src, "%s/Some-Matrix.mtx", g_tmp);
  snprintf(dir, sizeof dir, "%s/cache/nested", g_tmp);
  copy_file(fixture("symmetric.mtx"), src);
  set_mtime(src, 1700000000);
  const int sym = 3, gen = 0; /* kExpected's symmetric.mtx, general_real.mtx */

  CU_ASSERT_EQUAL_FATAL(tb_mtx_cache_path(src, dir, entry, sizeof entry), TB_OK);
  ASSERT_CONTAINS(entry, "/cache/nested/some_matrix.");
  ASSERT_CONTAINS(entry, ".tbcsr");

  /* Written once (folders made), then reused without being rewritten. */
  load_expect(src, dir, TB_MTX_CACHE_WRITTEN, NULL, sym);
  const struct timespec written = mtime_of(entry);
  load_expect(src, dir, TB_MTX_CACHE_HIT, NULL, sym);
  CU_ASSERT(same_time(mtime_of(entry), written));

  /* The source changed: rebuilt from it. */
  copy_file(fixture("general_real.mtx"), src);
  set_mtime(src, 1700000100);
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "stale", gen);
  load_expect(src, dir, TB_MTX_CACHE_HIT, NULL, gen);
  /* Only the modification time: rebuilt too (the contents are not compared). */
  set_mtime(src, 1700000200);
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "stale", gen);

  /* Damage anywhere is caught: the arrays, the header, the length. */
  poke(entry, -3); /* a value */
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "checksum", gen);
  poke(entry, 40); /* nnz, in the header */
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "header is corrupt", gen);
  poke(entry, 0);
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "not a cache entry", gen);
  CU_ASSERT_EQUAL(truncate(entry, 100), 0);
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "truncated", gen);
  CU_ASSERT_EQUAL(truncate(entry, 10), 0);
  load_expect(src, dir, TB_MTX_CACHE_REBUILT, "truncated", gen);
  load_expect(src, dir, TB_MTX_CACHE_HIT, NULL, gen);

  /* A pattern entry holds no values and gives back ones. */
  char pat[8192];
  snprintf(pat, sizeof pat, "%s/pattern.mtx", g_tmp);
  copy_file(fixture("pattern_symmetric.mtx"), pat);
  load_expect(pat, dir, TB_MTX_CACHE_WRITTEN, NULL, 5);
  load_expect(pat, dir, TB_MTX_CACHE_HIT, NULL, 5);

  /* No usable cache: the matrix all the same, and why. */
  char blocked[8192];
  snprintf(blocked, sizeof blocked, "%s/blocked", g_tmp);
  FILE *f = fopen(blocked, "w");
  CU_ASSERT_FATAL(f != NULL);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/blocked/cache", g_tmp);
  load_expect(src, dir, TB_MTX_CACHE_UNUSABLE, "cannot create its folder: Not a directory", gen);

  /* A file that cannot be read is the reader's error, cache or not. */
  tb_mtx m;
  tb_mtx_cache_info info;
  CU_ASSERT_EQUAL(tb_mtx_load(fixture("truncated.mtx"), g_tmp, &m, &info), TB_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(tb_last_error(), "truncated");
  CU_ASSERT(is_zeroed(&m));
  CU_ASSERT_EQUAL(tb_mtx_load(fixture("no_such_file.mtx"), g_tmp, &m, NULL), TB_ERR_IO);
  CU_ASSERT(is_zeroed(&m));
}

TB_TEST(test_cache_dir, "cache folder") {
  char out[4096];
  const char *home = getenv("HOME"), *env = getenv("TB_MATRIX_CACHE");
  char *saved_home = home ? strdup(home) : NULL, *saved_env = env ? strdup(env) : NULL;
  setenv("TB_MATRIX_CACHE", "/somewhere/matrices", 1);
  CU_ASSERT_EQUAL(tb_mtx_cache_dir(out, sizeof out), TB_OK);
  CU_ASSERT_STRING_EQUAL(out, "/somewhere/matrices");
  unsetenv("TB_MATRIX_CACHE");
  setenv("HOME", "/home/someone", 1);
  CU_ASSERT_EQUAL(tb_mtx_cache_dir(out, sizeof out), TB_OK);
  CU_ASSERT_STRING_EQUAL(out, "/home/someone/.cache/tilebench/matrices");
  setenv("TB_MATRIX_CACHE", "", 1); /* empty: not set */
  CU_ASSERT_EQUAL(tb_mtx_cache_dir(out, sizeof out), TB_OK);
  CU_ASSERT_STRING_EQUAL(out, "/home/someone/.cache/tilebench/matrices");
  unsetenv("HOME");
  CU_ASSERT_EQUAL(tb_mtx_cache_dir(out, sizeof out), TB_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(tb_last_error(), "TB_MATRIX_CACHE");
  CU_ASSERT_EQUAL(tb_mtx_cache_dir(out, 0), TB_ERR_INVALID_ARGUMENT);
  if (saved_home) setenv("HOME", saved_home, 1);
  if (saved_env) setenv("TB_MATRIX_CACHE", saved_env, 1);
  else unsetenv("TB_MATRIX_CACHE");
  free(saved_home), free(saved_env);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mtx_test core/testdata/mtx/<any fixture>\n");
    return 2;
  }
  char arg[sizeof g_fixtures];
  snprintf(arg, sizeof arg, "%s", argv[1]);
  snprintf(g_fixtures, sizeof g_fixtures, "%s", dirname(arg));
  const char *base = getenv("TEST_TMPDIR");
  snprintf(g_tmp, sizeof g_tmp, "%s/mtx_test.XXXXXX", base && base[0] ? base : "/tmp");
  if (!mkdtemp(g_tmp)) {
    fprintf(stderr, "mtx_test: mkdtemp %s: %s\n", g_tmp, strerror(errno));
    return 2;
  }
  return tb_test_run("mtx", NULL);
}
