#include "suites/sweep_lengths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mtx.h"
#include "core/sweep.h"

/* A set of segments and the tag of its rows' names. */
typedef struct {
  tb_segments seg;
  char tag[8 + TB_MTX_NAME_MAX]; /* "_file", "_mtx_<name>" */
} length_set;

static tb_geometry_spec g_model = {TB_GEOM_UNIFORM, 1.0, 0.0, 0.0, 0.0};
static bool g_model_given;
static length_set *g_sets;
static int g_nsets;
static const char *g_source; /* the flag that gave the sets */

static void sets_release(void) {
  for (int i = 0; i < g_nsets; ++i) tb_segments_free(&g_sets[i].seg);
  free(g_sets);
  g_sets = NULL, g_nsets = 0, g_source = NULL;
}

/* The sets' lengths are their own: a model beside them, or the two sources
 * together, is a mistake, whichever flag comes first. */
static tb_status one_source(const char *flag) {
  if (g_model_given && g_source)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "give --tb_lengths or %s, not both (its segments have their own lengths)",
                   g_source);
  if (g_source && strcmp(flag, "--tb_lengths") != 0 && strcmp(g_source, flag) != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "give %s or %s, not both", g_source, flag);
  return TB_OK;
}

static tb_status lengths_parse(const char *value) {
  TB_TRY(tb_geometry_parse_lengths(value, &g_model));
  g_model_given = true;
  return one_source("--tb_lengths");
}

static tb_status sets_new(int count, const char *flag) {
  TB_TRY(one_source(flag));
  sets_release(); /* given twice: the last counts */
  g_source = flag;
  TB_TRY(one_source(flag)); /* beside a model */
  if (count == 0) return TB_OK; /* the matrices: grown one at a time (matrix_add) */
  g_sets = calloc((size_t)count, sizeof *g_sets);
  if (!g_sets) return tb_fail(TB_ERR_OUT_OF_MEMORY, "%s: out of memory", flag);
  return TB_OK;
}

static tb_status segments_parse(const char *value) {
  TB_TRY(sets_new(1, "--tb_segments"));
  TB_TRY(tb_segments_read(value, &g_sets[0].seg));
  snprintf(g_sets[0].tag, sizeof g_sets[0].tag, "_file");
  g_nsets = 1;
  return TB_OK;
}

/* A matrix's rows as segments: row r's length is its nonzeros. */
static tb_status rows_of(const tb_csr_matrix *m, tb_segments *out) {
  *out = (tb_segments){.num = m->rows, .total = m->nnz};
  out->counts = malloc(sizeof(int32_t) * (size_t)(m->rows > 0 ? m->rows : 1));
  if (!out->counts) return tb_fail(TB_ERR_OUT_OF_MEMORY, "out of memory");
  for (int32_t r = 0; r < m->rows; ++r) {
    const int32_t len = m->row_offsets[r + 1] - m->row_offsets[r];
    out->counts[r] = len;
    out->empty += len == 0;
    if (len > out->longest) out->longest = len;
  }
  return TB_OK;
}

/* One matrix of --tb_matrix: its rows as the next set. */
static tb_status matrix_add(void *ctx, const char *path, const char *name, const tb_mtx *m) {
  (void)ctx, (void)path;
  length_set *grown = realloc(g_sets, sizeof *g_sets * (size_t)(g_nsets + 1));
  if (!grown) return tb_fail(TB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  g_sets = grown;
  length_set *set = &g_sets[g_nsets];
  memset(set, 0, sizeof *set);
  snprintf(set->tag, sizeof set->tag, "_mtx_%s", name);
  TB_TRY(rows_of(&m->csr, &set->seg));
  ++g_nsets;
  return TB_OK;
}

/* --tb_matrix's value: every matrix it names with nonzeros (at most
 * INT32_MAX: the reader's own limit), loaded through the cache. */
static tb_status matrix_parse(const char *value) {
  TB_TRY(sets_new(0, "--tb_matrix"));
  const tb_status s = tb_mtx_load_each(value, "lengths", matrix_add, NULL);
  if (s != TB_OK) sets_release();
  return s;
}

static const tb_sweep_flag_def kFlags[] = {
    {"--tb_lengths", "uniform|lognormal:SIGMA|zipf:S",
     "the model of the segment lengths (others than uniform rename the rows)", lengths_parse,
     true},
    {"--tb_segments", "FILE",
     "a segment file's lengths ('# offsets' or '# lengths', one integer a line): its size only",
     segments_parse, true},
    {"--tb_matrix", "PATH",
     "a Matrix Market file or a folder of them: each matrix's row lengths, at its own size",
     matrix_parse, true},
};

void tb_lengths_declare(void) {
  tb_sweep_declare_flags(kFlags, (int)(sizeof kFlags / sizeof kFlags[0]));
}

int tb_lengths_sets(void) { return g_nsets; }

const tb_segments *tb_lengths_set(int set) {
  return set >= 0 && set < g_nsets ? &g_sets[set].seg : NULL;
}

int tb_lengths_set_seg(int set) {
  const tb_segments *s = tb_lengths_set(set);
  const long long avg = s ? llround((double)s->total / (double)s->num) : 1;
  return avg < 1 ? 1 : (int)avg;
}

tb_geometry_spec tb_lengths_spec(double avg) {
  tb_geometry_spec spec = g_model;
  spec.avg = avg;
  return spec;
}

static const char *tag_of(int set) {
  if (set >= 0 && set < g_nsets) return g_sets[set].tag;
  switch (g_model.kind) {
    case TB_GEOM_LOGNORMAL: return "_lognormal";
    case TB_GEOM_ZIPF: return "_zipf";
    default: return "";
  }
}

bool tb_lengths_uniform(void) { return g_nsets == 0 && tag_of(-1)[0] == '\0'; }

void tb_lengths_name(const char *alg, int set, char *out, size_t cap) {
  const char *form = strrchr(alg, '_');
  if (!form || (strcmp(form, "_apply") != 0 && strcmp(form, "_indirect") != 0))
    form = alg + strlen(alg);
  snprintf(out, cap, "%.*s%s%s", (int)(form - alg), alg, tag_of(set), form);
}

int tb_lengths_reach(const char *suite, const int *segs, int n) {
  const double most = tb_geometry_max_avg(&g_model);
  int keep = n;
  while (keep > 0 && segs[keep - 1] > most) --keep;
  if (keep < n)
    fprintf(stderr, "%s: zipf:%g reaches a mean length of %.4g at most: rows of L > %d left out\n",
            suite, g_model.shape, most, keep > 0 ? segs[keep - 1] : 0);
  return keep;
}

void tb_lengths_context(void) {
  static const char *const kNames[] = {"--tb_lengths", "--tb_segments", "--tb_matrix"};
  for (int i = 0; i < 3; ++i) {
    const char *value = tb_sweep_flag(kNames[i]);
    if (value) tb_bench_add_context(kNames[i] + 5, value); /* "lengths", "segments", "matrix" */
  }
}

void tb_lengths_counters(tb_bench_state *st, int set) {
  const tb_segments *s = tb_lengths_set(set);
  if (s) tb_bench_set_counter(st, "empty_segments", (double)s->empty, TB_COUNTER_VALUE);
  else if (g_model.kind == TB_GEOM_LOGNORMAL)
    tb_bench_set_counter(st, "lengths_sigma", g_model.shape, TB_COUNTER_VALUE);
  else if (g_model.kind == TB_GEOM_ZIPF)
    tb_bench_set_counter(st, "lengths_s", g_model.shape, TB_COUNTER_VALUE);
}

void tb_lengths_release(void) { sets_release(); }
