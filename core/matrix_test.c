/* CPU tests of the SpMV matrix generators (core/matrix.h). */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cunit.h"
#include "core/matrix.h"
#include "core/rng.h"
#include "core/status.h"

static const tb_matrix_kind all_kinds[] = {TB_MATRIX_UNIFORM_ROWS, TB_MATRIX_POWER_LAW_ROWS,
                                           TB_MATRIX_STENCIL_2D5, TB_MATRIX_STENCIL_3D7};

static bool is_zeroed(const tb_csr_matrix *m) {
  return m->rows == 0 && m->cols == 0 && m->nnz == 0 && m->row_offsets == NULL && m->col == NULL;
}

/* The CSR invariants every kind keeps; prints the first broken one. */
static bool csr_ok(const tb_csr_matrix *m, const char *what) {
  if (m->rows < 1 || m->cols < 1 || m->nnz < 1 || m->row_offsets == NULL || m->col == NULL) {
    fprintf(stderr, "\n  %s: empty or half-made matrix (%d x %d, nnz %lld)\n", what, m->rows,
            m->cols, (long long)m->nnz);
    return false;
  }
  if (m->row_offsets[0] != 0 || m->row_offsets[m->rows] != m->nnz) {
    fprintf(stderr, "\n  %s: offsets run %d..%d, nnz %lld\n", what, m->row_offsets[0],
            m->row_offsets[m->rows], (long long)m->nnz);
    return false;
  }
  for (int32_t i = 0; i < m->rows; ++i) {
    int32_t b = m->row_offsets[i], e = m->row_offsets[i + 1];
    if (e < b || e - b > m->cols) {
      fprintf(stderr, "\n  %s: row %d spans [%d, %d) with %d columns\n", what, i, b, e, m->cols);
      return false;
    }
    for (int32_t k = b; k < e; ++k) {
      int32_t c = m->col[k];
      if (c < 0 || c >= m->cols || (k > b && c <= m->col[k - 1])) {
        fprintf(stderr, "\n  %s: row %d entry %d: column %d (previous %d, cols %d)\n", what, i,
                k - b, c, k > b ? m->col[k - 1] : -1, m->cols);
        return false;
      }
    }
  }
  return true;
}

static int32_t row_len(const tb_csr_matrix *m, int32_t i) {
  return m->row_offsets[i + 1] - m->row_offsets[i];
}

static tb_status gen(tb_matrix_kind kind, double avg, int64_t nnz, uint64_t seed,
                     tb_csr_matrix *out) {
  tb_matrix_spec spec = {kind, avg, nnz};
  tb_rng r;
  tb_rng_seed(&r, seed);
  return tb_matrix_generate(&spec, &r, out);
}

/* ---- names ----------------------------------------------------------------- */

TB_TEST(test_names, "names") {
  ASSERT_NAMES_ROUND_TRIP(tb_matrix_kind, TB_MATRIX_KIND_COUNT, tb_matrix_name, tb_matrix_parse);
  CU_ASSERT_STRING_EQUAL(tb_matrix_name(TB_MATRIX_UNIFORM_ROWS), "uniform_rows");
  CU_ASSERT_STRING_EQUAL(tb_matrix_name(TB_MATRIX_POWER_LAW_ROWS), "power_law_rows");
  CU_ASSERT_STRING_EQUAL(tb_matrix_name(TB_MATRIX_STENCIL_2D5), "stencil_2d5");
  CU_ASSERT_STRING_EQUAL(tb_matrix_name(TB_MATRIX_STENCIL_3D7), "stencil_3d7");
  CU_ASSERT_STRING_EQUAL(tb_matrix_name(TB_MATRIX_KIND_COUNT), "invalid");
  CU_ASSERT_STRING_EQUAL(tb_matrix_name((tb_matrix_kind)-1), "invalid");
  tb_matrix_kind k = TB_MATRIX_STENCIL_3D7;
  CU_ASSERT_FALSE(tb_matrix_parse("uniform", &k));
  CU_ASSERT_FALSE(tb_matrix_parse("", &k));
  CU_ASSERT_FALSE(tb_matrix_parse("invalid", &k));
  CU_ASSERT_FALSE(tb_matrix_parse("Stencil_2d5", &k));
  CU_ASSERT_FALSE(tb_matrix_parse(NULL, &k));
  CU_ASSERT_EQUAL(k, TB_MATRIX_STENCIL_3D7); /* untouched */
  CU_ASSERT(tb_matrix_parse("stencil_2d5", NULL));
}

/* ---- random kinds ------------------------------------------------------------ */

/* Every (avg, nnz) pair with nnz <= rows^2 for rows = ceil(nnz / avg);
 * chosen to reach every way of drawing a row: short, long and sparse, dense
 * (len >= cols / 64), full, and rows cut at cols. */
static const struct { double avg; int64_t nnz; } random_sizes[] = {
    {1.0, 1},      {1.0, 2},       {3.5, 100},    {8.0, 1000},   {8.0, 100000},
    {40.0, 50000}, {100.0, 1000000}, {300.0, 100000}, {30.0, 1000},  {10.0, 100},
    {2.5, 7},      {1.0, 4096},    {17.0, 289},
};

static void check_random(tb_matrix_kind kind) {
  for (size_t s = 0; s < sizeof random_sizes / sizeof random_sizes[0]; ++s) {
    double avg = random_sizes[s].avg;
    int64_t nnz = random_sizes[s].nnz;
    char what[128];
    snprintf(what, sizeof what, "%s avg %g nnz %lld", tb_matrix_name(kind), avg, (long long)nnz);
    tb_csr_matrix m;
    tb_status st = gen(kind, avg, nnz, 1000 + s, &m);
    if (st != TB_OK) fprintf(stderr, "\n  %s: %s\n", what, tb_last_error());
    CU_ASSERT_EQUAL_FATAL(st, TB_OK);
    int64_t rows = (int64_t)ceil((double)nnz / avg);
    CU_ASSERT_EQUAL(m.rows, rows);
    CU_ASSERT_EQUAL(m.cols, rows);
    CU_ASSERT_EQUAL(m.nnz, nnz); /* exact */
    CU_ASSERT(csr_ok(&m, what));
    if (kind == TB_MATRIX_UNIFORM_ROWS) {
      /* [1, 2L - 1] (the upper end rounded up), cut at cols. */
      int64_t hi = (int64_t)ceil(2.0 * avg - 1.0);
      if (hi > m.cols) hi = m.cols;
      bool in_range = true;
      for (int32_t i = 0; i < m.rows; ++i)
        in_range &= row_len(&m, i) >= 1 && row_len(&m, i) <= hi;
      if (!in_range) fprintf(stderr, "\n  %s: a row outside [1, %lld]\n", what, (long long)hi);
      CU_ASSERT(in_range);
    }
    if (nnz == rows * rows) /* every row full: 0..cols-1 */
      for (int32_t i = 0; i < m.rows; ++i) {
        CU_ASSERT_EQUAL(row_len(&m, i), m.cols);
        CU_ASSERT_EQUAL(m.col[m.row_offsets[i] + m.cols - 1], m.cols - 1);
      }
    tb_csr_matrix_free(&m);
    CU_ASSERT(is_zeroed(&m));
  }
}

TB_TEST(test_uniform_rows, "uniform_rows") { check_random(TB_MATRIX_UNIFORM_ROWS); }
TB_TEST(test_power_law_rows, "power_law_rows") { check_random(TB_MATRIX_POWER_LAW_ROWS); }

/* Power law: empty rows and a heavy tail; uniform: neither. */
TB_TEST(test_row_shapes, "row_shapes") {
  tb_csr_matrix p, u;
  CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_POWER_LAW_ROWS, 8.0, 1 << 20, 5, &p), TB_OK);
  CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_UNIFORM_ROWS, 8.0, 1 << 20, 5, &u), TB_OK);
  int32_t p_empty = 0, p_max = 0, u_max = 0, u_min = INT32_MAX;
  for (int32_t i = 0; i < p.rows; ++i) {
    p_empty += row_len(&p, i) == 0;
    if (row_len(&p, i) > p_max) p_max = row_len(&p, i);
  }
  for (int32_t i = 0; i < u.rows; ++i) {
    if (row_len(&u, i) > u_max) u_max = row_len(&u, i);
    if (row_len(&u, i) < u_min) u_min = row_len(&u, i);
  }
  CU_ASSERT(p_empty > p.rows / 20);
  CU_ASSERT(p_max > 100); /* P(len > 100) ~ (8 / 108)^2 per row, 131072 rows */
  CU_ASSERT_EQUAL(u_min, 1);
  CU_ASSERT_EQUAL(u_max, 15);
  /* avg below 1: mostly empty rows, still exact. */
  tb_csr_matrix s;
  CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_POWER_LAW_ROWS, 0.25, 1000, 6, &s), TB_OK);
  CU_ASSERT_EQUAL(s.rows, 4000);
  CU_ASSERT_EQUAL(s.nnz, 1000);
  CU_ASSERT(csr_ok(&s, "power_law_rows avg 0.25"));
  tb_csr_matrix_free(&p);
  tb_csr_matrix_free(&u);
  tb_csr_matrix_free(&s);
}

/* Columns spread evenly over [0, cols): hits per block of columns within 6
 * standard deviations of the mean, and the first and last columns taken about
 * as often as any. One case per way of drawing a row. */
static void check_spread(tb_matrix_kind kind, double avg, int64_t nnz, const char *what) {
  tb_csr_matrix m;
  CU_ASSERT_EQUAL_FATAL(gen(kind, avg, nnz, 77, &m), TB_OK);
  enum { BLOCKS = 50 };
  int64_t hits[BLOCKS] = {0}, first = 0, last = 0;
  for (int64_t k = 0; k < m.nnz; ++k) {
    hits[(int64_t)m.col[k] * BLOCKS / m.cols]++;
    first += m.col[k] == 0;
    last += m.col[k] == m.cols - 1;
  }
  bool ok = true;
  for (int b = 0; b < BLOCKS; ++b) {
    /* Block b holds the columns c with floor(c B / cols) = b. */
    int64_t width = ((int64_t)(b + 1) * m.cols + BLOCKS - 1) / BLOCKS -
                    ((int64_t)b * m.cols + BLOCKS - 1) / BLOCKS;
    double want = (double)m.nnz * (double)width / m.cols;
    if (fabs((double)hits[b] - want) > 6.0 * sqrt(want)) {
      fprintf(stderr, "\n  %s: block %d has %lld hits, want %.0f\n", what, b, (long long)hits[b],
              want);
      ok = false;
    }
  }
  double per_col = (double)m.nnz / m.cols;
  if (fabs(first - per_col) > 6.0 * sqrt(per_col) + 1 || fabs(last - per_col) > 6.0 * sqrt(per_col) + 1) {
    fprintf(stderr, "\n  %s: first column %lld, last %lld hits, want %.1f\n", what,
            (long long)first, (long long)last, per_col);
    ok = false;
  }
  CU_ASSERT(ok);
  tb_csr_matrix_free(&m);
}

TB_TEST(test_column_spread, "column_spread") {
  /* Short rows (len <= 32), by rejection. */
  check_spread(TB_MATRIX_UNIFORM_ROWS, 4.0, 1000000, "short rows");
  /* Long sparse rows (33..199 of 10000 columns), exponential spacings. */
  check_spread(TB_MATRIX_UNIFORM_ROWS, 100.0, 1000000, "long sparse rows");
  /* Dense rows (>= 1/64 of 4000 columns), Floyd into a bitmap. */
  check_spread(TB_MATRIX_UNIFORM_ROWS, 250.0, 1000000, "dense rows");
  check_spread(TB_MATRIX_POWER_LAW_ROWS, 16.0, 1000000, "power-law rows");
}

/* ---- stencils ------------------------------------------------------------------ */

static int64_t nnz_2d(int64_t g) { return 5 * g * g - 4 * g; }
static int64_t nnz_3d(int64_t g) { return 7 * g * g * g - 6 * g * g; }

/* The pattern from grid coordinates: column c is in row r iff their points
 * are equal or one step apart along one axis. */
static bool stencil_ok(const tb_csr_matrix *m, int64_t g, int dims) {
  int64_t n = dims == 2 ? g * g : g * g * g;
  if (m->rows != n || m->cols != n) return false;
  int64_t k = 0;
  for (int64_t r = 0; r < n; ++r) {
    int64_t rx = r % g, ry = r / g % g, rz = r / (g * g);
    /* Walk every candidate column in order and match it to the row. */
    for (int64_t c = 0; c < n; ++c) {
      int64_t cx = c % g, cy = c / g % g, cz = c / (g * g);
      int64_t d = llabs(cx - rx) + llabs(cy - ry) + llabs(cz - rz);
      if (d > 1) continue;
      if (k >= m->row_offsets[r + 1] || m->col[k] != c) {
        fprintf(stderr, "\n  %dD g=%lld: row %lld lacks column %lld\n", dims, (long long)g,
                (long long)r, (long long)c);
        return false;
      }
      ++k;
    }
    if (k != m->row_offsets[r + 1]) {
      fprintf(stderr, "\n  %dD g=%lld: row %lld has extra entries\n", dims, (long long)g,
              (long long)r);
      return false;
    }
  }
  return true;
}

TB_TEST(test_stencil_exact, "stencil_exact") {
  /* 3 x 3 grid, 5-point: hand-written. */
  static const int32_t off2[] = {0, 3, 7, 10, 14, 19, 23, 26, 30, 33};
  static const int32_t col2[] = {0, 1, 3,    0, 1, 2, 4,    1, 2, 5,    0, 3, 4, 6,
                                 1, 3, 4, 5, 7, 2, 4, 5, 8, 3, 6, 7,    4, 6, 7, 8,
                                 5, 7, 8};
  tb_csr_matrix m;
  CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_STENCIL_2D5, 0.0, 40, 1, &m), TB_OK);
  CU_ASSERT_EQUAL_FATAL(m.rows, 9);
  CU_ASSERT_EQUAL(m.cols, 9);
  CU_ASSERT_EQUAL_FATAL(m.nnz, 33);
  CU_ASSERT(memcmp(m.row_offsets, off2, sizeof off2) == 0);
  CU_ASSERT(memcmp(m.col, col2, sizeof col2) == 0);
  tb_csr_matrix_free(&m);

  /* 2 x 2 x 2 grid, 7-point: index (z * 2 + y) * 2 + x, 3 neighbours each. */
  static const int32_t col3[] = {0, 1, 2, 4, 0, 1, 3, 5, 0, 2, 3, 6, 1, 2, 3, 7,
                                 0, 4, 5, 6, 1, 4, 5, 7, 2, 4, 6, 7, 3, 5, 6, 7};
  CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_STENCIL_3D7, 0.0, 100, 1, &m), TB_OK);
  CU_ASSERT_EQUAL_FATAL(m.rows, 8);
  CU_ASSERT_EQUAL(m.cols, 8);
  CU_ASSERT_EQUAL_FATAL(m.nnz, 32);
  for (int i = 0; i <= 8; ++i) CU_ASSERT_EQUAL(m.row_offsets[i], 4 * i);
  CU_ASSERT(memcmp(m.col, col3, sizeof col3) == 0);
  tb_csr_matrix_free(&m);

  /* Larger grids against the coordinate rule. */
  for (int64_t g = 2; g <= 7; ++g) {
    CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_STENCIL_2D5, 1.0, nnz_2d(g), 1, &m), TB_OK);
    CU_ASSERT(csr_ok(&m, "stencil_2d5"));
    CU_ASSERT(stencil_ok(&m, g, 2));
    tb_csr_matrix_free(&m);
    CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_STENCIL_3D7, 1.0, nnz_3d(g), 1, &m), TB_OK);
    CU_ASSERT(csr_ok(&m, "stencil_3d7"));
    CU_ASSERT(stencil_ok(&m, g, 3));
    tb_csr_matrix_free(&m);
  }
}

/* g is the largest with nnz(g) <= target (2 when even that is above). */
TB_TEST(test_stencil_sizes, "stencil_sizes") {
  static const int64_t targets[] = {1,     11,    12,     13,      32,       33,       63,
                                    64,    134,   135,    1000,    4095,     65536,    1 << 20,
                                    3000000, 1 << 22};
  for (size_t t = 0; t < sizeof targets / sizeof targets[0]; ++t)
    for (int dims = 2; dims <= 3; ++dims) {
      tb_matrix_kind kind = dims == 2 ? TB_MATRIX_STENCIL_2D5 : TB_MATRIX_STENCIL_3D7;
      int64_t (*nnz_of)(int64_t) = dims == 2 ? nnz_2d : nnz_3d;
      int64_t g = 2;
      while (nnz_of(g + 1) <= targets[t]) ++g;
      char what[64];
      snprintf(what, sizeof what, "%s target %lld", tb_matrix_name(kind), (long long)targets[t]);
      tb_csr_matrix m;
      /* No rng, and avg_row is not looked at. */
      tb_matrix_spec spec = {kind, NAN, targets[t]};
      tb_status st = tb_matrix_generate(&spec, NULL, &m);
      if (st != TB_OK) fprintf(stderr, "\n  %s: %s\n", what, tb_last_error());
      CU_ASSERT_EQUAL_FATAL(st, TB_OK);
      CU_ASSERT_EQUAL(m.rows, dims == 2 ? g * g : g * g * g);
      CU_ASSERT_EQUAL(m.nnz, nnz_of(g));
      CU_ASSERT(m.nnz <= targets[t] || g == 2);
      CU_ASSERT(csr_ok(&m, what));
      tb_csr_matrix_free(&m);
    }
}

/* ---- determinism ---------------------------------------------------------------- */

static bool same_matrix(const tb_csr_matrix *a, const tb_csr_matrix *b) {
  return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
         memcmp(a->row_offsets, b->row_offsets, ((size_t)a->rows + 1) * sizeof(int32_t)) == 0 &&
         memcmp(a->col, b->col, (size_t)a->nnz * sizeof(int32_t)) == 0;
}

/* FNV-1a over the values (not their bytes: the same on any endianness). */
static uint64_t hash_values(uint64_t h, const int32_t *v, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int b = 0; b < 32; b += 8) {
      h ^= ((uint32_t)v[i] >> b) & 0xffu;
      h *= 0x100000001b3ull;
    }
  return h;
}

static uint64_t hash_matrix(const tb_csr_matrix *m) {
  uint64_t h = hash_values(0xcbf29ce484222325ull, m->row_offsets, (int64_t)m->rows + 1);
  return hash_values(h, m->col, m->nnz);
}

TB_TEST(test_determinism, "determinism") {
  static const double avgs[] = {3.0, 50.0, 400.0};
  for (size_t k = 0; k < sizeof all_kinds / sizeof all_kinds[0]; ++k)
    for (size_t a = 0; a < sizeof avgs / sizeof avgs[0]; ++a) {
      tb_csr_matrix x, y, z;
      CU_ASSERT_EQUAL_FATAL(gen(all_kinds[k], avgs[a], 200000, 42, &x), TB_OK);
      CU_ASSERT_EQUAL_FATAL(gen(all_kinds[k], avgs[a], 200000, 42, &y), TB_OK);
      CU_ASSERT_EQUAL_FATAL(gen(all_kinds[k], avgs[a], 200000, 43, &z), TB_OK);
      CU_ASSERT(same_matrix(&x, &y));
      bool stencil = all_kinds[k] >= TB_MATRIX_STENCIL_2D5;
      CU_ASSERT_EQUAL(same_matrix(&x, &z), stencil); /* another seed, another pattern */
      tb_csr_matrix_free(&x);
      tb_csr_matrix_free(&y);
      tb_csr_matrix_free(&z);
    }
  /* The same pattern on every machine: hashes of two fixed draws (short, long
   * and dense rows). A change of the sampling must change these on purpose. */
  static const struct { tb_matrix_kind kind; double avg; int64_t nnz; uint64_t hash; } golden[] = {
      {TB_MATRIX_UNIFORM_ROWS, 40.0, 200000, 0x17baec1a907fffe7ull},
      {TB_MATRIX_POWER_LAW_ROWS, 16.0, 100000, 0xb75eb91574e1b0feull},
  };
  for (size_t i = 0; i < sizeof golden / sizeof golden[0]; ++i) {
    tb_csr_matrix m;
    CU_ASSERT_EQUAL_FATAL(gen(golden[i].kind, golden[i].avg, golden[i].nnz, 7, &m), TB_OK);
    uint64_t h = hash_matrix(&m);
    if (h != golden[i].hash)
      fprintf(stderr, "\n  %s: hash 0x%016llx, want 0x%016llx\n", tb_matrix_name(golden[i].kind),
              (unsigned long long)h, (unsigned long long)golden[i].hash);
    CU_ASSERT_EQUAL(h, golden[i].hash);
    tb_csr_matrix_free(&m);
  }
}

/* ---- bad input ------------------------------------------------------------------- */

static void expect_invalid(const tb_matrix_spec *spec, tb_rng *r, const char *needle) {
  tb_csr_matrix m;
  memset(&m, 0xab, sizeof m);
  tb_clear_error();
  tb_status st = tb_matrix_generate(spec, r, &m);
  CU_ASSERT_EQUAL(st, TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT(is_zeroed(&m));
  ASSERT_CONTAINS(tb_last_error(), needle);
  if (st == TB_OK) tb_csr_matrix_free(&m);
}

TB_TEST(test_bad_input, "bad_input") {
  tb_rng r;
  tb_rng_seed(&r, 1);
  tb_matrix_spec ok = {TB_MATRIX_UNIFORM_ROWS, 8.0, 1000};
  tb_csr_matrix m;
  memset(&m, 0xab, sizeof m);
  CU_ASSERT_EQUAL(tb_matrix_generate(NULL, &r, &m), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT(is_zeroed(&m));
  ASSERT_CONTAINS(tb_last_error(), "NULL");
  CU_ASSERT_EQUAL(tb_matrix_generate(&ok, &r, NULL), TB_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(tb_last_error(), "NULL");
  expect_invalid(&ok, NULL, "rng is NULL");
  tb_matrix_spec power = {TB_MATRIX_POWER_LAW_ROWS, 8.0, 1000};
  expect_invalid(&power, NULL, "rng is NULL");

  tb_matrix_spec s = ok;
  s.kind = TB_MATRIX_KIND_COUNT;
  expect_invalid(&s, &r, "invalid matrix kind");
  s.kind = (tb_matrix_kind)-1;
  expect_invalid(&s, &r, "invalid matrix kind");

  static const double bad_avgs[] = {0.0, -1.0, -0.0};
  for (size_t i = 0; i < sizeof bad_avgs / sizeof bad_avgs[0]; ++i) {
    s = ok;
    s.avg_row = bad_avgs[i];
    expect_invalid(&s, &r, "avg_row");
    s.kind = TB_MATRIX_POWER_LAW_ROWS;
    expect_invalid(&s, &r, "avg_row");
  }
  s = ok;
  s.avg_row = NAN;
  expect_invalid(&s, &r, "avg_row");
  s.avg_row = INFINITY;
  expect_invalid(&s, &r, "avg_row");
  s.avg_row = -INFINITY;
  expect_invalid(&s, &r, "avg_row");

  static const int64_t bad_nnz[] = {0, -1, (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof bad_nnz / sizeof bad_nnz[0]; ++i)
    for (size_t k = 0; k < sizeof all_kinds / sizeof all_kinds[0]; ++k) {
      s = ok;
      s.kind = all_kinds[k];
      s.target_nnz = bad_nnz[i];
      expect_invalid(&s, &r, "target_nnz");
    }

  /* Rows cannot be cut at cols: 10 rows of 10 columns hold at most 100. */
  s = (tb_matrix_spec){TB_MATRIX_UNIFORM_ROWS, 1000.0, 10000};
  expect_invalid(&s, &r, "do not fit");
  s.kind = TB_MATRIX_POWER_LAW_ROWS;
  expect_invalid(&s, &r, "do not fit");
  s = (tb_matrix_spec){TB_MATRIX_POWER_LAW_ROWS, 11.0, 101}; /* 10 x 10 again */
  expect_invalid(&s, &r, "do not fit");
  s.target_nnz = 100; /* ... while 100 fits (every row full) */
  CU_ASSERT_EQUAL(tb_matrix_generate(&s, &r, &m), TB_OK);
  CU_ASSERT(csr_ok(&m, "power_law_rows 10 x 10 full"));
  tb_csr_matrix_free(&m);

  /* Too many rows for int32 indices. */
  s = (tb_matrix_spec){TB_MATRIX_POWER_LAW_ROWS, 1e-3, 10000000};
  expect_invalid(&s, &r, "rows");
  /* Uniform rows hold at least one entry: avg below 1 cannot be met. */
  s = (tb_matrix_spec){TB_MATRIX_UNIFORM_ROWS, 0.5, 1000};
  expect_invalid(&s, &r, "uniform_rows");

  /* Freeing: NULL, a zeroed matrix, twice. */
  tb_csr_matrix_free(NULL);
  memset(&m, 0, sizeof m);
  tb_csr_matrix_free(&m);
  CU_ASSERT_EQUAL_FATAL(gen(TB_MATRIX_STENCIL_2D5, 1.0, 100, 1, &m), TB_OK);
  tb_csr_matrix_free(&m);
  CU_ASSERT(is_zeroed(&m));
  tb_csr_matrix_free(&m);
}

int main(void) { return tb_test_run("matrix", NULL); }
