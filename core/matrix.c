#include "core/matrix.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/geometry.h"

static const char *const matrix_names[TB_MATRIX_KIND_COUNT] = {
    "uniform_rows", "power_law_rows", "stencil_2d5", "stencil_3d7"};

const char *tb_matrix_name(tb_matrix_kind k) {
  return tb_enum_name(matrix_names, TB_MATRIX_KIND_COUNT, k);
}

bool tb_matrix_parse(const char *s, tb_matrix_kind *out) {
  const int i = tb_enum_index(matrix_names, TB_MATRIX_KIND_COUNT, s);
  if (i >= 0 && out) *out = (tb_matrix_kind)i;
  return i >= 0;
}

void tb_csr_matrix_free(tb_csr_matrix *m) {
  if (m == NULL) return;
  free(m->row_offsets);
  free(m->col);
  memset(m, 0, sizeof *m);
}

/* ---- Column sampling: len distinct sorted columns out of [0, n). ----------- */

/* Uniform in [0, n), n >= 1: a multiply instead of tb_rng_range's divisions
 * (as core/geometry.c does); the bias is below n / 2^53. */
static int64_t draw_below(tb_rng *r, int64_t n) {
  int64_t k = (int64_t)(tb_rng_unit(r) * (double)n);
  return k < n ? k : n - 1;
}

/* Rows at most this long (and sparse, see below) draw by rejection and
 * insertion sort: O(len^2) compares, fewer than the alternatives' overheads
 * at this length. */
#define SHORT_ROW 32
/* A row is dense when len * DENSE_RATIO >= n: a bitmap of n bits then costs
 * at most O(len) words to clear and scan. */
#define DENSE_RATIO 64

/* Exactly uniform: draws until len distinct values are held, kept sorted by
 * insertion (a repeat is found where it would be inserted). Only used with
 * n > DENSE_RATIO * len, so repeats are rare. */
static void sample_short(tb_rng *r, int64_t n, int32_t len, int32_t *out) {
  int32_t have = 0;
  while (have < len) {
    int32_t v = (int32_t)draw_below(r, n);
    int32_t j = have;
    while (j > 0 && out[j - 1] > v) --j;
    if (j > 0 && out[j - 1] == v) continue; /* a repeat: draw again */
    memmove(out + j + 1, out + j, (size_t)(have - j) * sizeof *out);
    out[j] = v;
    ++have;
  }
}

/* Exactly uniform: Floyd's algorithm (for j = n - len .. n - 1 draw t in
 * [0, j] and take t, or j when t is already taken: len draws, no retries)
 * into a bitmap of n bits, read back in order; the read clears the bitmap for
 * the next row. O(len + n / 64). */
static void sample_dense(tb_rng *r, int64_t n, int32_t len, int32_t *out, uint64_t *bits) {
  for (int64_t j = n - len; j < n; ++j) {
    int64_t t = draw_below(r, j + 1);
    uint64_t tbit = 1ull << (t & 63);
    if (bits[t >> 6] & tbit)
      bits[j >> 6] |= 1ull << (j & 63);
    else
      bits[t >> 6] |= tbit;
  }
  int32_t k = 0;
  for (int64_t w = 0; w < (n + 63) / 64; ++w) {
    uint64_t b = bits[w];
    bits[w] = 0;
    while (b) {
      out[k++] = (int32_t)(w * 64 + __builtin_ctzll(b));
      b &= b - 1;
    }
  }
}

/* Long sparse rows (len > SHORT_ROW, n > DENSE_RATIO * len), linear in len
 * and integer-only (so the same on every machine): len uniform draws y in
 * [0, m), m = n - len + 1, sorted by a counting sort on y * len / m (about one
 * draw per bucket) finished by an insertion sort (only draws sharing a bucket
 * are out of order); x_i = y_i + i then makes them distinct and keeps them in
 * [0, n). Each column is taken with probability close to len / n; the subset
 * differs from a uniformly random one only where two draws collide (about
 * len / n of adjacent pairs, under 1/64). s holds 2 len + 1 ints. */
static void sample_spread(tb_rng *r, int64_t n, int32_t len, int32_t *out, int32_t *s) {
  int64_t m = n - len + 1;
  int32_t *y = s, *start = s + len; /* start[0..len] */
  memset(start, 0, ((size_t)len + 1) * sizeof *start);
  for (int32_t i = 0; i < len; ++i) {
    y[i] = (int32_t)draw_below(r, m);
    ++start[(int64_t)y[i] * len / m + 1];
  }
  for (int32_t b = 0; b < len; ++b) start[b + 1] += start[b];
  for (int32_t i = 0; i < len; ++i) out[start[(int64_t)y[i] * len / m]++] = y[i];
  for (int32_t i = 1; i < len; ++i) {
    int32_t v = out[i], j = i;
    while (j > 0 && out[j - 1] > v) {
      out[j] = out[j - 1];
      --j;
    }
    out[j] = v;
  }
  for (int32_t i = 0; i < len; ++i) out[i] += i;
}

typedef enum { ROW_FULL, ROW_DENSE, ROW_SHORT, ROW_SPREAD } row_method;

static row_method method_for(int64_t n, int32_t len) {
  if (len == 0 || len >= n) return ROW_FULL; /* len 0: nothing to draw */
  if ((int64_t)len * DENSE_RATIO >= n) return ROW_DENSE;
  if (len <= SHORT_ROW) return ROW_SHORT;
  return ROW_SPREAD;
}

/* ---- Row lengths. ------------------------------------------------------------ */

/* Cuts every count at cols and spreads what was cut over the rows with room:
 * single units to random rows while they are few, else passes that split
 * what is left evenly (q or q + 1 each, Bresenham) over the rows with room,
 * each taking at most its room. Every pass either finishes or fills a row,
 * and the caller checked total <= rows * cols, so it ends. */
static void cap_rows(int32_t *c, int64_t rows, int32_t cols, tb_rng *r) {
  int64_t excess = 0;
  for (int64_t i = 0; i < rows; ++i)
    if (c[i] > cols) {
      excess += c[i] - cols;
      c[i] = cols;
    }
  for (int64_t misses = 0; excess > 0 && excess <= rows / 8 && misses <= rows / 8;) {
    int64_t i = draw_below(r, rows);
    if (c[i] < cols) {
      ++c[i];
      --excess;
    } else {
      ++misses;
    }
  }
  while (excess > 0) {
    int64_t with_room = 0;
    for (int64_t i = 0; i < rows; ++i) with_room += c[i] < cols;
    int64_t q = excess / with_room, rem = excess % with_room, acc = 0;
    for (int64_t i = 0; i < rows; ++i) {
      if (c[i] >= cols) continue;
      acc += rem;
      int64_t share = q;
      if (acc >= with_room) {
        acc -= with_room;
        ++share;
      }
      if (share > cols - c[i]) share = cols - c[i];
      c[i] = (int32_t)(c[i] + share);
      excess -= share;
    }
  }
}

/* ---- The kinds. -------------------------------------------------------------- */

static tb_status no_memory(const char *name, const char *what, int64_t n) {
  return tb_fail(TB_ERR_OUT_OF_MEMORY, "tb_matrix_generate: %s: cannot allocate %s (%lld entries)",
                 name, what, (long long)n);
}

static tb_status gen_random(const tb_matrix_spec *spec, tb_rng *r, tb_csr_matrix *out) {
  const char *name = matrix_names[spec->kind];
  int64_t nnz = spec->target_nnz;
  tb_geometry_spec gs = tb_geometry_spec_default(
      spec->kind == TB_MATRIX_UNIFORM_ROWS ? TB_GEOM_UNIFORM : TB_GEOM_POWER_LAW, spec->avg_row);
  int64_t rows = tb_geometry_num_objects(&gs, nnz);
  if (rows < 1 || rows > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_matrix_generate: %s: %lld nnz at avg_row %g give %lld rows (1..INT32_MAX)",
                   name, (long long)nnz, spec->avg_row, (long long)rows);
  if (nnz > rows * rows)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_matrix_generate: %s: %lld nnz do not fit %lld x %lld (avg_row %g is above "
                   "the row count: lower it or raise target_nnz)",
                   name, (long long)nnz, (long long)rows, (long long)rows, spec->avg_row);
  int32_t n = (int32_t)rows;

  int32_t *off = malloc(((size_t)rows + 1) * sizeof *off);
  if (off == NULL) return no_memory(name, "row offsets", rows + 1);
  off[0] = 0;
  tb_status st = tb_geometry_counts(&gs, nnz, off + 1, rows, r);
  if (st != TB_OK) {
    free(off);
    return tb_fail(st, "tb_matrix_generate: %s: %s", name, tb_last_error());
  }
  cap_rows(off + 1, rows, n, r);

  /* Scratch for the methods that need it, sized by the longest row using it. */
  int32_t max_spread = 0;
  bool any_dense = false;
  for (int64_t i = 0; i < rows; ++i) {
    int32_t len = off[i + 1];
    row_method m = method_for(n, len);
    if (m == ROW_SPREAD && len > max_spread) max_spread = len;
    any_dense |= m == ROW_DENSE;
    off[i + 1] = off[i] + len; /* sum <= nnz <= INT32_MAX */
  }
  int32_t *col = malloc((size_t)nnz * sizeof *col);
  int32_t *spread = max_spread > 0 ? malloc((2 * (size_t)max_spread + 1) * sizeof *spread) : NULL;
  uint64_t *bits = any_dense ? calloc(((size_t)n + 63) / 64, sizeof *bits) : NULL;
  if (col == NULL || (max_spread > 0 && spread == NULL) || (any_dense && bits == NULL)) {
    free(off);
    free(col);
    free(spread);
    free(bits);
    return no_memory(name, "columns and scratch", nnz);
  }

  for (int64_t i = 0; i < rows; ++i) {
    int32_t len = off[i + 1] - off[i];
    int32_t *c = col + off[i];
    switch (method_for(n, len)) {
      case ROW_FULL:
        for (int32_t k = 0; k < len; ++k) c[k] = k;
        break;
      case ROW_DENSE: sample_dense(r, n, len, c, bits); break;
      case ROW_SHORT: sample_short(r, n, len, c); break;
      case ROW_SPREAD: sample_spread(r, n, len, c, spread); break;
    }
  }
  free(spread);
  free(bits);
  out->rows = out->cols = n;
  out->nnz = nnz;
  out->row_offsets = off;
  out->col = col;
  return TB_OK;
}

/* nnz of a stencil on a grid of side g. */
static int64_t stencil_nnz(tb_matrix_kind k, int64_t g) {
  return k == TB_MATRIX_STENCIL_2D5 ? 5 * g * g - 4 * g : 7 * g * g * g - 6 * g * g;
}

static tb_status gen_stencil(const tb_matrix_spec *spec, tb_csr_matrix *out) {
  const char *name = matrix_names[spec->kind];
  tb_matrix_kind kind = spec->kind;
  bool is3d = kind == TB_MATRIX_STENCIL_3D7;
  int64_t t = spec->target_nnz;
  /* The largest g with nnz(g) <= t, at least 2: start near the root, step. */
  int64_t g = (int64_t)(is3d ? cbrt((double)t / 7.0) : sqrt((double)t / 5.0));
  if (g < 2) g = 2;
  while (g > 2 && stencil_nnz(kind, g) > t) --g;
  while (stencil_nnz(kind, g + 1) <= t) ++g;
  int64_t rows = is3d ? g * g * g : g * g, nnz = stencil_nnz(kind, g);
  /* t <= INT32_MAX bounds rows and nnz by it, except the minimum grid (g = 2). */

  int32_t *off = malloc(((size_t)rows + 1) * sizeof *off);
  int32_t *col = malloc((size_t)nnz * sizeof *col);
  if (off == NULL || col == NULL) {
    free(off);
    free(col);
    return no_memory(name, "the stencil", nnz);
  }
  int32_t gi = (int32_t)g, plane = gi * gi, k = 0;
  off[0] = 0;
  for (int32_t z = 0, row = 0; z < (is3d ? gi : 1); ++z)
    for (int32_t y = 0; y < gi; ++y)
      for (int32_t x = 0; x < gi; ++x, ++row) {
        if (is3d && z > 0) col[k++] = row - plane;
        if (y > 0) col[k++] = row - gi;
        if (x > 0) col[k++] = row - 1;
        col[k++] = row;
        if (x < gi - 1) col[k++] = row + 1;
        if (y < gi - 1) col[k++] = row + gi;
        if (is3d && z < gi - 1) col[k++] = row + plane;
        off[row + 1] = k;
      }
  out->rows = out->cols = (int32_t)rows;
  out->nnz = nnz;
  out->row_offsets = off;
  out->col = col;
  return TB_OK;
}

tb_status tb_matrix_generate(const tb_matrix_spec *spec, tb_rng *r, tb_csr_matrix *out) {
  static const char fn[] = "tb_matrix_generate";
  if (out != NULL) memset(out, 0, sizeof *out);
  if (spec == NULL || out == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: spec or out is NULL", fn);
  if ((int)spec->kind < 0 || spec->kind >= TB_MATRIX_KIND_COUNT)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: invalid matrix kind %d", fn, (int)spec->kind);
  const char *name = matrix_names[spec->kind];
  if (spec->target_nnz < 1 || spec->target_nnz > INT32_MAX)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: target_nnz %lld out of range (1..INT32_MAX)",
                   fn, name, (long long)spec->target_nnz);
  if (spec->kind == TB_MATRIX_STENCIL_2D5 || spec->kind == TB_MATRIX_STENCIL_3D7)
    return gen_stencil(spec, out);
  /* !(x > 0) also catches NaN. */
  if (!(spec->avg_row > 0.0) || isinf(spec->avg_row))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: avg_row must be finite and > 0 (%g)", fn,
                   name, spec->avg_row);
  if (r == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s: rng is NULL", fn, name);
  return gen_random(spec, r, out);
}
