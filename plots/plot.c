/* plot: turns sweep results (Google Benchmark JSON, docs/design.md, "Benchmarks" under the conventions)
 * into gnuplot charts and a markdown tuning table.
 *
 *   plot [--no-render] [--out DIR] [--templates DIR] RESULT.json...
 *
 * For each RESULT.json (suite S = its basename without .json) and each algorithm, type and
 * segment length it writes into DIR (default: the JSON's directory)
 *   S_<alg>_<type>[_seg<L>]_throughput.{dat,png}  G items/s against n, one line per implementation
 *   S_<alg>_<type>[_seg<L>]_bandwidth.{dat,png}   percent of the copy bandwidth against n
 *   S_<alg>_<type>[_seg<L>]_heatmap.{dat,png}     G items/s over NT x VT at the largest swept n
 *   S_tuning.md                                   best box, tuned default and best baseline
 * and, for types named <base>_x<k> (a clause of k variables, as omp_reduce sweeps them),
 *   S_<alg>_<base>_by_vars.{dat,png}             each implementation / the reference baseline
 *                                                 (cub if measured) against k, at three sizes
 * and, for segmented algorithms (names with seg:<L>),
 *   S_<alg>_<type>_by_seg.{dat,png}              G items/s of each implementation against the
 *                                                 average segment length, at the largest n
 * --no-render writes the .dat and .md files only. Exit status 0, or 1 if any input could not be
 * read or any output written or rendered. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/results.h"
#include "plots/tool.h"

enum { PATH_LEN = 4096, MAX_BASELINES = 16 };

/* One measured configuration (repetitions averaged). */
typedef struct {
  char alg[64], impl[32], type[16];
  long long n, seg;   /* seg < 0: not segmented */
  int nt, vt;         /* swept box; 0 for the tuned default and for baselines */
  int def_nt, def_vt; /* the tuned default's box when the sweep reports it (counters "nt", "vt") */
  double gips, pct;   /* G items/s; percent of the copy bandwidth (NAN if not reported) */
  double cv;          /* relative spread of the repetitions (NAN: one measurement) */
  int count;
  int from_median;    /* gips/pct are the median of repetitions */
  int l2;             /* the input fits L2 and was not flushed: a warm-cache figure */
} rec;

typedef struct {
  char name[256], dir[PATH_LEN];
  char gpu[128], arch[32], driver[64], runtime[64], commit[64], copy_gbps[32], date[64];
  rec *r;
  size_t nr, cap;
  int failed;
} suite;

/* One chart's worth of records: same algorithm, type and segment length, sorted by n. */
typedef struct {
  const rec *lo, *hi;
  const char *baselines[MAX_BASELINES];
  int nbaselines;
  long long box_n; /* largest n with swept boxes, 0 if none */
} group;

static struct {
  int render;
  const char *out, *templates;
  char tdir[PATH_LEN]; /* where the templates were found */
} opt = {1, NULL, NULL, ""};

/* "2^k" for powers of two, else the number: sizes in sweeps are mostly powers of two. */
static const char *size_str(long long n, char *buf, size_t size) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((1LL << k) != n) k++;
    snprintf(buf, size, "2^%d", k);
  } else {
    snprintf(buf, size, "%lld", n);
  }
  return buf;
}

/* ---- parsing -------------------------------------------------------------------------------- */

/* 1 if tok is "<key><positive integer>" (stored in *v), 0 if tok is not this key, -1 if the
 * number is malformed. */
static int keyed(const char *tok, const char *key, long long *v) {
  size_t len = strlen(key);
  if (strncmp(tok, key, len) != 0) return 0;
  char *end;
  errno = 0;
  long long x = strtoll(tok + len, &end, 10);
  if (errno != 0 || end == tok + len || *end != '\0' || x <= 0) return -1;
  *v = x;
  return 1;
}

static int copy_str(char *dst, size_t size, const char *src) { return tool_fmt(dst, size, "%s", src); }

/* Fills r from <algorithm>/<impl>/<type>/n:<items>[/seg:<L>][/nt:<NT>/vt:<VT>]; returns 0, or -1
 * (after a warning) if the name does not follow that pattern. */
static int parse_name(const char *name, rec *r) {
  static const char *const keys[] = {"n:", "seg:", "nt:", "vt:"};
  long long v[4] = {-1, -1, 0, 0}; /* n, seg, nt, vt */
  char buf[512];
  memset(r, 0, sizeof *r);
  int i = 0, bad = copy_str(buf, sizeof buf, name);
  char *save = NULL;
  for (char *tok = strtok_r(buf, "/", &save); !bad && tok; tok = strtok_r(NULL, "/", &save), i++) {
    if (i == 0)
      bad = copy_str(r->alg, sizeof r->alg, tok);
    else if (i == 1)
      bad = copy_str(r->impl, sizeof r->impl, tok);
    else if (i == 2)
      bad = copy_str(r->type, sizeof r->type, tok);
    if (i <= 2) continue;
    int j = 0, k = 0;
    while (j < 4 && (k = keyed(tok, keys[j], &v[j])) == 0) j++;
    if (k < 0)
      bad = 1;
    else if (j == 4 && !tb_gbench_segment(tok, strlen(tok)))
      tool_warn("%s: ignoring unknown name segment '%s'", name, tok);
  }
  r->n = v[0], r->seg = v[1];
  r->nt = v[2] <= 1 << 20 ? (int)v[2] : -1, r->vt = v[3] <= 1 << 20 ? (int)v[3] : -1;
  if (bad || i < 4 || r->n <= 0 || r->nt < 0 || r->vt < 0 || (r->nt > 0) != (r->vt > 0) ||
      (r->nt > 0 && strcmp(r->impl, "tb") != 0)) {
    tool_warn(
        "skipping '%s': expected <algorithm>/<impl>/<type>/n:<items>[/seg:<L>][/nt:<NT>/vt:<VT>] "
        "(nt/vt only with impl tb)",
        name);
    return -1;
  }
  return 0;
}

static int same_config(const rec *a, const rec *b) {
  return strcmp(a->alg, b->alg) == 0 && strcmp(a->impl, b->impl) == 0 &&
         strcmp(a->type, b->type) == 0 && a->n == b->n && a->seg == b->seg && a->nt == b->nt &&
         a->vt == b->vt;
}

static double num_field(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void ctx_field(const cJSON *ctx, const char *key, char *buf, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(ctx, key);
  if (cJSON_IsString(v) && v->valuestring[0] != '\0')
    snprintf(buf, size, "%s", v->valuestring);
  else if (cJSON_IsNumber(v))
    snprintf(buf, size, "%g", v->valuedouble);
  else
    snprintf(buf, size, "unknown");
}

static double seconds_per_unit(const char *unit) {
  if (strcmp(unit, "ns") == 0) return 1e-9;
  if (strcmp(unit, "us") == 0) return 1e-6;
  if (strcmp(unit, "ms") == 0) return 1e-3;
  if (strcmp(unit, "s") == 0) return 1.0;
  return NAN;
}

/* Adds one row. Repetitions of a configuration are averaged until its
 * median aggregate arrives, which then stands for it; the cv aggregate gives
 * its spread (agg: "" for a measured row, else the aggregate's name). */
static int add_entry(suite *s, const cJSON *b, const char *name, const char *agg) {
  rec r;
  if (parse_name(name, &r) != 0) return 0;
  r.cv = NAN;
  if (strcmp(agg, "cv") == 0) {
    for (size_t i = 0; i < s->nr; i++)
      if (same_config(&s->r[i], &r)) s->r[i].cv = num_field(b, "real_time");
    return 0;
  }
  r.gips = num_field(b, "items_per_second") / 1e9;
  if (isnan(r.gips)) { /* no items counter: n items per iteration of real_time */
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(b, "time_unit");
    double t = num_field(b, "real_time") *
               seconds_per_unit(cJSON_IsString(unit) ? unit->valuestring : "ns");
    r.gips = t > 0 ? (double)r.n / t / 1e9 : NAN;
  }
  if (!(r.gips >= 0)) {
    tool_warn("%s: skipping '%s': no items_per_second", s->name, name);
    return 0;
  }
  r.pct = num_field(b, "copy_bw_pct");
  r.l2 = num_field(b, "l2_resident") > 0;
  double nt = num_field(b, "nt"), vt = num_field(b, "vt");
  if (r.nt == 0 && nt > 0 && vt > 0) r.def_nt = (int)nt, r.def_vt = (int)vt;
  r.count = 1;
  r.from_median = agg[0] != '\0';
  for (size_t i = 0; i < s->nr; i++) {
    rec *e = &s->r[i];
    if (!same_config(e, &r)) continue;
    if (r.from_median) {
      const double cv = e->cv;
      *e = r;
      e->cv = cv;
      return 0;
    }
    if (e->from_median) return 0;
    if (!(num_field(b, "repetitions") > 1))
      tool_warn("%s: '%s' appears twice; averaging", s->name, name);
    e->count++;
    e->gips += (r.gips - e->gips) / e->count;
    e->pct += (r.pct - e->pct) / e->count;
    return 0;
  }
  if (s->nr == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    rec *p = realloc(s->r, cap * sizeof *p);
    if (p == NULL) return -1;
    s->r = p, s->cap = cap;
  }
  s->r[s->nr++] = r;
  return 0;
}

static int load(const char *path, suite *s) {
  char *text = tb_read_text(path);
  if (text == NULL) {
    tool_warn("cannot read %s: %s", path, strerror(errno));
    return -1;
  }
  cJSON *root = cJSON_Parse(text);
  if (root == NULL) {
    const char *at = cJSON_GetErrorPtr();
    tool_warn("%s: not valid JSON (near byte %ld)", path, at ? (long)(at - text) : 0L);
    free(text);
    return -1;
  }
  free(text);
  const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
  const cJSON *benches = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  if (!cJSON_IsArray(benches)) {
    tool_warn("%s: no \"benchmarks\" array: not a Google Benchmark JSON file", path);
    cJSON_Delete(root);
    return -1;
  }
  int rc = 0;
  ctx_field(ctx, "gpu", s->gpu, sizeof s->gpu);
  ctx_field(ctx, "arch", s->arch, sizeof s->arch);
  ctx_field(ctx, "driver", s->driver, sizeof s->driver);
  ctx_field(ctx, "runtime", s->runtime, sizeof s->runtime);
  ctx_field(ctx, "commit", s->commit, sizeof s->commit);
  ctx_field(ctx, "copy_gbps", s->copy_gbps, sizeof s->copy_gbps);
  ctx_field(ctx, "date", s->date, sizeof s->date);
  if (strlen(s->date) > 10 && s->date[4] == '-') s->date[10] = '\0'; /* the day */
  const cJSON *b;
  cJSON_ArrayForEach(b, benches) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(b, "run_type");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(b, "error_message");
    if (!cJSON_IsString(name)) {
      tool_warn("%s: skipping a benchmark without a name", path);
    } else if (cJSON_IsString(type) && strcmp(type->valuestring, "aggregate") == 0) {
      /* The median stands for its row, the cv gives its spread; mean and
       * stddev add nothing to those. */
      const cJSON *agg = cJSON_GetObjectItemCaseSensitive(b, "aggregate_name");
      const cJSON *run = cJSON_GetObjectItemCaseSensitive(b, "run_name");
      if (!cJSON_IsString(agg) || !cJSON_IsString(run)) continue;
      if (strcmp(agg->valuestring, "median") != 0 && strcmp(agg->valuestring, "cv") != 0) continue;
      if (add_entry(s, b, run->valuestring, agg->valuestring) != 0) {
        tool_warn("out of memory");
        rc = -1;
        break;
      }
    } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "error_occurred"))) {
      s->failed++;
      tool_warn("%s: benchmark failed, left out: %s: %s", s->name, name->valuestring,
           cJSON_IsString(msg) ? msg->valuestring : "(no message)");
    } else if (add_entry(s, b, name->valuestring, "") != 0) {
      tool_warn("out of memory");
      rc = -1;
      break;
    }
  }
  cJSON_Delete(root);
  if (s->failed > 0) tool_warn("%s: %d failed benchmark(s) left out", s->name, s->failed);
  if (rc == 0 && s->nr == 0) {
    tool_warn("%s: no benchmark results to plot", path);
    rc = -1;
  }
  return rc;
}

/* ---- grouping ------------------------------------------------------------------------------- */

static int by_chart(const void *pa, const void *pb) {
  const rec *a = pa, *b = pb;
  int c;
  if ((c = strcmp(a->alg, b->alg)) != 0 || (c = strcmp(a->type, b->type)) != 0) return c;
  if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  if ((c = strcmp(a->impl, b->impl)) != 0) return c;
  return a->nt != b->nt ? a->nt - b->nt : a->vt - b->vt;
}

static int is_tb_name(const char *impl) { return strcmp(impl, "tb") == 0; }
static int is_tb(const rec *r) { return is_tb_name(r->impl); }

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static const rec *find_impl(const group *g, const char *impl, long long n) {
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && r->nt == 0 && strcmp(r->impl, impl) == 0) return r;
  return NULL;
}

static const rec *best_box(const group *g, long long n) {
  const rec *best = NULL;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && r->nt > 0 && (best == NULL || r->gips > best->gips)) best = r;
  return best;
}

static const rec *best_baseline(const group *g, long long n) {
  const rec *best = NULL;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && !is_tb(r) && (best == NULL || r->gips > best->gips)) best = r;
  return best;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The group starting at lo (records sorted by by_chart). */
static group make_group(const rec *lo, const rec *end) {
  group g = {lo, lo, {NULL}, 0, 0};
  while (g.hi < end && strcmp(g.hi->alg, lo->alg) == 0 && strcmp(g.hi->type, lo->type) == 0 &&
         g.hi->seg == lo->seg)
    g.hi++;
  for (const rec *r = g.lo; r < g.hi; r++) {
    if (r->nt > 0) g.box_n = r->n;
    if (is_tb(r)) continue;
    int known = 0;
    for (int i = 0; i < g.nbaselines; i++) known |= strcmp(g.baselines[i], r->impl) == 0;
    if (!known && g.nbaselines < MAX_BASELINES)
      g.baselines[g.nbaselines++] = r->impl;
    else if (!known)
      tool_warn("more than %d baselines for %s %s; leaving out %s", MAX_BASELINES, lo->alg, lo->type,
           r->impl);
  }
  qsort(g.baselines, (size_t)g.nbaselines, sizeof g.baselines[0], cmp_str);
  return g;
}

/* ---- output --------------------------------------------------------------------------------- */

typedef enum { GIPS, PCT } metric;

/* "reduce int32", or "segreduce float seg 32". */
static const char *label(const rec *r, char *buf, size_t size) {
  if (r->seg >= 0)
    snprintf(buf, size, "%s %s seg %lld", r->alg, r->type, r->seg);
  else
    snprintf(buf, size, "%s %s", r->alg, r->type);
  return buf;
}

static double value(const rec *r, metric m) {
  return r == NULL ? NAN : m == GIPS ? r->gips : r->pct;
}

static void write_value(FILE *f, double v) {
  if (isnan(v))
    fputs("\t-", f);
  else
    fprintf(f, "\t%.6g", v);
}

/* Line-chart data: n, the best box's NTxVT, then one column per implementation that has a value
 * for this metric. Sets *ncols and *boxcol (column of "tb (best box)", 0 if absent); returns the
 * number of series. */
/* A line chart's series: 0 = tuned default, 1 = best box, 2.. = baselines;
 * has[s] when series s has a value for the metric. Returns their number. */
static int series_present(const group *g, metric m, int *has) {
  memset(has, 0, sizeof(int) * (size_t)(2 + g->nbaselines));
  for (const rec *r = g->lo; r < g->hi; r++) {
    int s = !is_tb(r) ? -1 : r->nt > 0 ? 1 : 0;
    for (int i = 0; s < 0 && i < g->nbaselines; i++)
      if (strcmp(g->baselines[i], r->impl) == 0) s = 2 + i;
    if (s >= 0 && !isnan(value(r, m))) has[s] = 1;
  }
  return 2 + g->nbaselines;
}

static int write_lines(const group *g, metric m, const char *path, int *ncols, int *boxcol) {
  int has[2 + MAX_BASELINES];
  const int nseries = series_present(g, m, has);
  FILE *f = fopen(path, "w");
  if (f == NULL) return -1;
  char lb[160];
  fprintf(f, "# %s: %s; \"-\" = not measured\n", label(g->lo, lb, sizeof lb),
          m == GIPS ? "G items/s" : "percent of the copy bandwidth");
  fputs("# best_box: NTxVT of the fastest swept box at that n (the \"tb (best box)\" column)\n", f);
  fputs("n\tbest_box", f);
  int shown = 0;
  *ncols = 2, *boxcol = 0;
  for (int s = 0; s < nseries; s++) {
    if (!has[s]) continue;
    shown++, ++*ncols;
    if (s == 1) *boxcol = *ncols;
    fprintf(f, "\t%s",
            s == 0   ? "tb (tuned default)"
            : s == 1 ? "tb (best box)"
                     : g->baselines[s - 2]);
  }
  /* Then each series' spread: value x cv of its repetitions (0: one measurement). */
  for (int s = 0; s < nseries; s++)
    if (has[s]) fputs("\t+-", f);
  fputc('\n', f);
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (r != g->lo && r->n == r[-1].n) continue;
    const rec *box = best_box(g, r->n), *v[2 + MAX_BASELINES] = {NULL};
    fprintf(f, "%lld\t", r->n);
    if (box)
      fprintf(f, "%dx%d", box->nt, box->vt);
    else
      fputc('-', f);
    for (int s = 0; s < nseries; s++) {
      if (!has[s]) continue;
      v[s] = s == 0   ? find_impl(g, "tb", r->n)
             : s == 1 ? box
                      : find_impl(g, g->baselines[s - 2], r->n);
      write_value(f, value(v[s], m));
    }
    for (int s = 0; s < nseries; s++)
      if (has[s]) write_value(f, v[s] && isnan(v[s]->cv) ? 0 : value(v[s], m) * (v[s] ? v[s]->cv : NAN));
    fputc('\n', f);
  }
  return fclose(f) == 0 ? shown : -1;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int index_of(const int *v, int n, int x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return i;
  return -1;
}

/* Heat-map data at the largest swept n: one row per box, placed on a grid of the distinct NT and
 * VT values so that unevenly spaced VTs get equal cells. */
/* The heat map's axes: the distinct NT and VT swept at the group's box n, sorted. */
typedef struct { int nts[64], vts[64], nnt, nvt; } heat_axes;

static heat_axes axes_of(const group *g) {
  heat_axes a = {{0}, {0}, 0, 0};
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (r->n != g->box_n || r->nt == 0) continue;
    if (index_of(a.nts, a.nnt, r->nt) < 0 && a.nnt < 64) a.nts[a.nnt++] = r->nt;
    if (index_of(a.vts, a.nvt, r->vt) < 0 && a.nvt < 64) a.vts[a.nvt++] = r->vt;
  }
  qsort(a.nts, (size_t)a.nnt, sizeof a.nts[0], cmp_int);
  qsort(a.vts, (size_t)a.nvt, sizeof a.vts[0], cmp_int);
  return a;
}

static int write_heatmap(const group *g, const char *path) {
  const heat_axes ax = axes_of(g);
  const int *nts = ax.nts, *vts = ax.vts, nnt = ax.nnt, nvt = ax.nvt;
  FILE *f = fopen(path, "w");
  if (f == NULL) return -1;
  char lb[160];
  fprintf(f, "# %s at n = %lld: G items/s of each swept box (a missing box was not run)\n",
          label(g->lo, lb, sizeof lb), g->box_n);
  fputs("# vt_index\tnt_index\tvt\tnt\tgips\n", f);
  for (const rec *r = g->lo; r < g->hi; r++) {
    int x = index_of(vts, nvt, r->vt), y = index_of(nts, nnt, r->nt);
    if (r->n == g->box_n && r->nt > 0 && x >= 0 && y >= 0)
      fprintf(f, "%d\t%d\t%d\t%d\t%.6g\n", x, y, r->vt, r->nt, r->gips);
  }
  return fclose(f);
}

/* Where the best box and the tuned default sit on the heat map's grid, as
 * gnuplot assignments best_x, best_y, def_x, def_y (-1: not on the grid). */
static int heat_marks(const group *g, const rec *best, const rec *def, char *out, size_t size) {
  const heat_axes ax = axes_of(g);
  const int *nts = ax.nts, *vts = ax.vts, nnt = ax.nnt, nvt = ax.nvt;
  const int dx = def && def->def_nt > 0 ? index_of(vts, nvt, def->def_vt) : -1;
  const int dy = def && def->def_nt > 0 ? index_of(nts, nnt, def->def_nt) : -1;
  return tool_fmt(out, size, "best_x=%d; best_y=%d; def_x=%d; def_y=%d; ",
             best ? index_of(vts, nvt, best->vt) : -1, best ? index_of(nts, nnt, best->nt) : -1,
             dx, dy);
}

/* Draws one chart; a gnuplot that cannot be started is reported once. */
static int render(const char *tmpl, const char *vars, const char *png) {
  const int rc = tool_render(opt.tdir, tmpl, vars, png);
  if (rc == -2) opt.render = 0; /* the exit status already records the failure */
  return rc == 0 ? 0 : -1;
}

/* One colour per implementation in every chart: the tuned default, the best
 * box, then the baselines by name. */
static const char *colour_of(const char *series) {
  static const struct { const char *name, *rgb; } known[] = {
      {"tb (tuned default)", "#1f77b4"}, {"tb", "#1f77b4"}, {"tb (best box)", "#9ecae1"}, {"cub", "#d62728"},
      {"thrust", "#2ca02c"},            {"cub_batched", "#ff7f0e"},  {"cusparse_alg1", "#9467bd"},
      {"cusparse_alg2", "#8c564b"},     {"cub_segmented", "#e377c2"}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(series, known[i].name) == 0) return known[i].rgb;
  return "#7f7f7f";
}

/* The colours of a line chart's series, in column order, space-separated. */
static void series_colours(const group *g, metric m, char *out, size_t size) {
  const char *names[2 + MAX_BASELINES] = {"tb (tuned default)", "tb (best box)"};
  int has[2 + MAX_BASELINES];
  for (int i = 0; i < g->nbaselines; i++) names[2 + i] = g->baselines[i];
  const int nseries = series_present(g, m, has);
  out[0] = '\0';
  for (int k = 0; k < nseries; k++)
    if (has[k] && strlen(out) + 10 < size) strcat(strcat(out, colour_of(names[k])), " ");
}

/* Whether the chart's values span more than two decades (then a log axis). */
static int spans_decades(const group *g, metric m) {
  double lo = INFINITY, hi = 0;
  for (const rec *r = g->lo; r < g->hi; r++) {
    const double v = value(r, m);
    if (v > 0) lo = v < lo ? v : lo, hi = v > hi ? v : hi;
  }
  return hi > 100 * lo;
}

/* The largest n whose input stayed in L2 (0: none). */
static long long l2_edge(const group *g) {
  long long n = 0;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->l2 && r->n > n) n = r->n;
  return n;
}

/* Writes (and renders) the three charts of one group; prefix = DIR/S_<alg>_<type>[_seg<L>]. */
static int write_charts(const suite *s, const group *g, const char *prefix) {
  char dat[PATH_LEN], png[PATH_LEN], title[512], note[512], vars[3 * PATH_LEN], sz[32], lb[160];
  char colours[512];
  int rc = 0, ncols, boxcol;
  snprintf(title, sizeof title, "%s on %s (%s), commit %s, %s", label(g->lo, lb, sizeof lb),
           s->gpu, s->arch, s->commit, s->date);
  static const struct {
    const char *kind, *ylabel;
    metric m;
  } charts[] = {
      {"throughput", "throughput (G items/s)", GIPS},
      {"bandwidth", "percent of copy bandwidth (%)", PCT},
  };
  for (int i = 0; i < 2; i++) {
    if (tool_fmt(dat, sizeof dat, "%s_%s.dat", prefix, charts[i].kind) != 0 ||
        tool_fmt(png, sizeof png, "%s_%s.png", prefix, charts[i].kind) != 0)
      return -1;
    int shown = write_lines(g, charts[i].m, dat, &ncols, &boxcol);
    if (shown < 0) {
      tool_warn("cannot write %s: %s", dat, strerror(errno));
      return -1;
    }
    if (shown == 0) { /* e.g. no copy_bw_pct counters: an empty chart would only mislead */
      tool_warn("%s: nothing to plot, no chart", dat);
      remove(dat);
      continue;
    }
    snprintf(note, sizeof note, "%s",
             charts[i].m == PCT ? "100% = measured device-to-device copy bandwidth" : "");
    if (charts[i].m == PCT && strcmp(s->copy_gbps, "unknown") != 0)
      snprintf(note, sizeof note, "100%% = measured copy bandwidth, %s GB/s", s->copy_gbps);
    series_colours(g, charts[i].m, colours, sizeof colours);
    if (tool_gp_common(vars, sizeof vars, dat, png, title) || tool_gp_var(vars, sizeof vars, "note", note) ||
        tool_gp_var(vars, sizeof vars, "ylabel", charts[i].ylabel) ||
        tool_gp_var(vars, sizeof vars, "colours", colours) ||
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars),
            "ncols=%d; boxcol=%d; nmin=%lld; nmax=%lld; logy=%d; hundred=%d; l2n=%lld", ncols,
            boxcol, g->lo->n, g->hi[-1].n, spans_decades(g, charts[i].m), charts[i].m == PCT,
            l2_edge(g)))
      return -1;
    if (opt.render) rc |= render("lines.gp", vars, png);
  }
  if (g->box_n == 0) return rc;
  if (tool_fmt(dat, sizeof dat, "%s_heatmap.dat", prefix) != 0 ||
      tool_fmt(png, sizeof png, "%s_heatmap.png", prefix) != 0)
    return -1;
  if (write_heatmap(g, dat) != 0) {
    tool_warn("cannot write %s: %s", dat, strerror(errno));
    return -1;
  }
  const rec *best = best_box(g, g->box_n), *def = find_impl(g, "tb", g->box_n);
  int len = snprintf(note, sizeof note, "n = %s: best box %dx%d (%.1f)",
                     size_str(g->box_n, sz, sizeof sz), best->nt, best->vt, best->gips);
  if (def && def->def_nt > 0)
    snprintf(note + len, sizeof note - (size_t)len, ", tuned default %dx%d (%.1f G items/s)",
             def->def_nt, def->def_vt, def->gips);
  else if (def)
    snprintf(note + len, sizeof note - (size_t)len, ", tuned default %.1f G items/s", def->gips);
  char marks[256];
  if (heat_marks(g, best, def, marks, sizeof marks) != 0 ||
      tool_gp_common(vars, sizeof vars, dat, png, title) || tool_gp_var(vars, sizeof vars, "note", note) ||
      tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "%s", marks))
    return -1;
  if (opt.render) rc |= render("heatmap.gp", vars, png);
  return rc;
}

static void write_table_rows(FILE *f, const group *g) {
  char sz[32];
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (r->nt == 0 || (r != g->lo && r->n == r[-1].n && r[-1].nt > 0)) continue; /* one row per n */
    const rec *box = best_box(g, r->n), *def = find_impl(g, "tb", r->n),
              *base = best_baseline(g, r->n);
    fprintf(f, "| %s | %s | ", r->alg, r->type);
    if (r->seg >= 0)
      fprintf(f, "%lld", r->seg);
    else
      fputc('-', f);
    fprintf(f, " | %s | %dx%d | %.1f | ", size_str(r->n, sz, sizeof sz), box->nt, box->vt,
            box->gips);
    if (def && def->def_nt > 0)
      fprintf(f, "%.1f (%dx%d) | ", def->gips, def->def_nt, def->def_vt);
    else if (def)
      fprintf(f, "%.1f | ", def->gips);
    else
      fputs("- | ", f);
    if (base)
      fprintf(f, "%s %.1f | ", base->impl, base->gips);
    else
      fputs("- | ", f);
    if (def && base && base->gips > 0)
      fprintf(f, "%.2f |\n", def->gips / base->gips);
    else
      fputs("- |\n", f);
  }
}

static void write_table_header(FILE *f, const suite *s) {
  int known = strcmp(s->copy_gbps, "unknown") != 0;
  fprintf(f, "# Tuning table: %s\n\n", s->name);
  fputs("| GPU | arch | driver | runtime | commit | copy bandwidth |\n", f);
  fputs("|---|---|---|---|---|---|\n", f);
  fprintf(f, "| %s | %s | %s | %s | %s | %s%s |\n\n", s->gpu, s->arch, s->driver, s->runtime,
          s->commit, s->copy_gbps, known ? " GB/s" : "");
  fputs(
      "Throughput in G items/s at each size that has swept launch boxes. *best box*: the "
      "fastest swept NTxVT box; *ratio*: tuned default / best baseline (> 1: tb is faster).\n\n",
      f);
  fputs(
      "| algorithm | type | seg | n | best box | best box G/s | tuned default G/s "
      "| best baseline G/s | ratio |\n",
      f);
  fputs("|---|---|---|---|---|---|---|---|---|\n", f);
}

static int write_by_vars(const suite *s);
static int write_by_seg(const suite *s);

static int process(const char *json_path) {
  char path[PATH_LEN], md[PATH_LEN], prefix[PATH_LEN];
  suite s;
  memset(&s, 0, sizeof s);
  if (tool_user_path(json_path, path, sizeof path) != 0) {
    tool_warn("path too long: %s", json_path);
    return -1;
  }
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  size_t len = strlen(base);
  if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
  snprintf(s.name, sizeof s.name, "%.*s", (int)len, base);
  if (opt.out != NULL) {
    if (tool_user_path(opt.out, s.dir, sizeof s.dir) != 0) return -1;
  } else {
    snprintf(s.dir, sizeof s.dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  }
  if (s.dir[0] == '\0') strcpy(s.dir, "/");
  if (load(path, &s) != 0) {
    free(s.r);
    return -1;
  }
  if (tb_mkdirs(s.dir) != 0 || tool_fmt(md, sizeof md, "%s/%s_tuning.md", s.dir, s.name) != 0) {
    tool_warn("cannot create output directory %s: %s", s.dir, strerror(errno));
    free(s.r);
    return -1;
  }
  qsort(s.r, s.nr, sizeof s.r[0], by_chart);
  int rc = 0, rows = 0;
  FILE *f = fopen(md, "w");
  if (f == NULL) {
    tool_warn("cannot write %s: %s", md, strerror(errno));
    free(s.r);
    return -1;
  }
  write_table_header(f, &s);
  for (const rec *lo = s.r; lo < s.r + s.nr;) {
    group g = make_group(lo, s.r + s.nr);
    if (tool_fmt(prefix, sizeof prefix, "%s/%s_%s_%s", s.dir, s.name, lo->alg, lo->type) != 0 ||
        (lo->seg >= 0 &&
         tool_fmt(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "_seg%lld", lo->seg) != 0) ||
        write_charts(&s, &g, prefix) != 0)
      rc = -1;
    write_table_rows(f, &g);
    rows += g.box_n > 0;
    lo = g.hi;
  }
  if (write_by_vars(&s) != 0 || write_by_seg(&s) != 0) rc = -1;
  if (rows == 0) fputs("\nNo swept launch boxes in this run.\n", f);
  if (s.failed > 0) fprintf(f, "\n%d benchmark(s) failed and are left out.\n", s.failed);
  if (fclose(f) != 0) {
    tool_warn("cannot write %s", md);
    rc = -1;
  }
  free(s.r);
  return rc;
}

/* ---- charts against the number of variables ---------------------------------------------- */

/* Splits "double_x3" into "double" and 3; 0 if the type has no _x<k> suffix. */
static int vars_of(const char *type, char *base, size_t size) {
  const char *x = strrchr(type, '_');
  char *end;
  if (x == NULL || x[1] != 'x' || x[2] < '1' || x[2] > '9') return 0;
  long k = strtol(x + 2, &end, 10);
  if (*end != '\0' || k < 1 || k > 64) return 0;
  snprintf(base, size, "%.*s", (int)(x - type), type);
  return (int)k;
}

/* The tuned default (or baseline) record of impl for (alg, type, seg) at n; NULL if absent. */
static const rec *tuned(const suite *s, const char *alg, const char *type, long long seg,
                        const char *impl, long long n) {
  for (size_t i = 0; i < s->nr; i++) {
    const rec *r = &s->r[i];
    if (r->nt == 0 && r->n == n && r->seg == seg && strcmp(r->alg, alg) == 0 &&
        strcmp(r->type, type) == 0 && strcmp(r->impl, impl) == 0)
      return r;
  }
  return NULL;
}

/* One chart per (algorithm, base type): rows k, a column per (implementation, size) holding
 * that implementation's throughput over the reference baseline's, at the smallest, a middle
 * and the largest n. */
static int write_by_vars(const suite *s) {
  int rc = 0;
  for (size_t i = 0; i < s->nr; i++) {
    char base[16], other[16], dat[PATH_LEN], png[PATH_LEN], vars[3 * PATH_LEN], title[512];
    const rec *first = &s->r[i];
    if (vars_of(first->type, base, sizeof base) == 0) continue;
    /* Handle each (alg, base) once: at its first record. */
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = strcmp(s->r[j].alg, first->alg) == 0 && vars_of(s->r[j].type, other, sizeof other) &&
             strcmp(other, base) == 0;
    if (seen) continue;
    const char *impls[MAX_BASELINES + 1], *ref = NULL;
    long long ns[64];
    int nimpl = 0, nn = 0, kmax = 0;
    for (size_t j = i; j < s->nr; j++) {
      const rec *r = &s->r[j];
      int k = vars_of(r->type, other, sizeof other);
      if (k == 0 || r->nt != 0 || strcmp(r->alg, first->alg) != 0 || strcmp(other, base) != 0)
        continue;
      kmax = k > kmax ? k : kmax;
      int known = 0;
      for (int m = 0; m < nimpl; m++) known |= strcmp(impls[m], r->impl) == 0;
      if (!known && nimpl < MAX_BASELINES + 1) impls[nimpl++] = r->impl;
      known = 0;
      for (int m = 0; m < nn; m++) known |= ns[m] == r->n;
      if (!known && nn < 64) ns[nn++] = r->n;
    }
    for (int m = 0; m < nimpl; m++)
      if (!is_tb_name(impls[m]) && (ref == NULL || strcmp(impls[m], "cub") == 0)) ref = impls[m];
    if (ref == NULL || nn == 0) continue;
    qsort(ns, (size_t)nn, sizeof ns[0], cmp_ll);
    const long long pick[3] = {ns[0], ns[nn / 2], ns[nn - 1]};
    const int npick = nn >= 3 ? 3 : nn == 2 ? 2 : 1;
    const long long *chosen = nn >= 3 ? pick : ns;
    if (tool_fmt(dat, sizeof dat, "%s/%s_%s_%s_by_vars.dat", s->dir, s->name, first->alg, base) != 0 ||
        tool_fmt(png, sizeof png, "%s/%s_%s_%s_by_vars.png", s->dir, s->name, first->alg, base) != 0) {
      rc = -1;
      continue;
    }
    FILE *f = fopen(dat, "w");
    if (f == NULL) {
      tool_warn("cannot write %s", dat);
      rc = -1;
      continue;
    }
    fputs("k", f);
    int ncols = 1;
    for (int m = 0; m < nimpl; m++)
      for (int p = 0; p < npick && strcmp(impls[m], ref) != 0; p++, ncols++) {
        char sz[32];
        fprintf(f, "\t%s n=%s", impls[m], size_str(chosen[p], sz, sizeof sz));
      }
    fputc('\n', f);
    for (int k = 1; k <= kmax; k++) {
      char type[sizeof base + 16];
      snprintf(type, sizeof type, "%s_x%d", base, k);
      fprintf(f, "%d", k);
      for (int m = 0; m < nimpl; m++)
        for (int p = 0; p < npick && strcmp(impls[m], ref) != 0; p++) {
          const rec *a = tuned(s, first->alg, type, -1, impls[m], chosen[p]);
          const rec *b = tuned(s, first->alg, type, -1, ref, chosen[p]);
          write_value(f, a && b && b->gips > 0 ? a->gips / b->gips : NAN);
        }
      fputc('\n', f);
    }
    if (fclose(f) != 0) {
      tool_warn("cannot write %s", dat);
      rc = -1;
      continue;
    }
    if (!opt.render) continue;
    char nc[16], ylabel[64];
    snprintf(title, sizeof title, "%s %s on %s (%s), commit %s, %s", first->alg, base, s->gpu,
             s->arch, s->commit, s->date);
    snprintf(nc, sizeof nc, "%d", ncols);
    snprintf(ylabel, sizeof ylabel, "throughput / %s", ref);
    if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
        tool_gp_var(vars, sizeof vars, "ylabel", ylabel) != 0 ||
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "ncols=%s; kmax=%d; ", nc, kmax) != 0 ||
        render("by_vars.gp", vars, png) != 0)
      rc = -1;
  }
  return rc;
}

/* ---- charts against the average segment length ------------------------------------------- */

static int cmp_rec_ptr_seg(const void *pa, const void *pb) {
  const rec *a = *(const rec *const *)pa, *b = *(const rec *const *)pb;
  return (a->seg > b->seg) - (a->seg < b->seg);
}

/* One chart per segmented (algorithm, type): rows L, a column per implementation's tuned
 * default at the largest n that every length was measured at. */
static int write_by_seg(const suite *s) {
  int rc = 0;
  for (size_t i = 0; i < s->nr; i++) {
    const rec *first = &s->r[i];
    if (first->seg < 0 || first->nt != 0) continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = s->r[j].seg >= 0 && strcmp(s->r[j].alg, first->alg) == 0 &&
             strcmp(s->r[j].type, first->type) == 0;
    if (seen) continue;
    /* The largest n measured, the implementations and the lengths. */
    long long n = 0;
    const char *impls[MAX_BASELINES + 1];
    int nimpl = 0;
    for (size_t j = i; j < s->nr; j++) {
      const rec *r = &s->r[j];
      if (r->seg < 0 || r->nt != 0 || strcmp(r->alg, first->alg) || strcmp(r->type, first->type))
        continue;
      n = r->n > n ? r->n : n;
      int known = 0;
      for (int m = 0; m < nimpl; m++) known |= strcmp(impls[m], r->impl) == 0;
      if (!known && nimpl < MAX_BASELINES + 1) impls[nimpl++] = r->impl;
    }
    qsort(impls, (size_t)nimpl, sizeof impls[0], cmp_str);
    const rec *rows[256];
    int nrows = 0;
    for (size_t j = i; j < s->nr && nrows < 256; j++) {
      const rec *r = &s->r[j];
      if (r->n != n || r->nt != 0 || strcmp(r->alg, first->alg) || strcmp(r->type, first->type))
        continue;
      int known = 0;
      for (int m = 0; m < nrows; m++) known |= rows[m]->seg == r->seg;
      if (!known) rows[nrows++] = r;
    }
    qsort(rows, (size_t)nrows, sizeof rows[0], cmp_rec_ptr_seg);
    char dat[PATH_LEN], png[PATH_LEN], vars[3 * PATH_LEN], title[512], sz[32], nc[16];
    if (tool_fmt(dat, sizeof dat, "%s/%s_%s_%s_by_seg.dat", s->dir, s->name, first->alg,
            first->type) != 0 ||
        tool_fmt(png, sizeof png, "%s/%s_%s_%s_by_seg.png", s->dir, s->name, first->alg,
            first->type) != 0) {
      rc = -1;
      continue;
    }
    FILE *f = fopen(dat, "w");
    if (f == NULL) {
      tool_warn("cannot write %s", dat);
      rc = -1;
      continue;
    }
    fputs("seg", f);
    for (int m = 0; m < nimpl; m++) fprintf(f, "\t%s", impls[m]);
    fputc('\n', f);
    for (int k = 0; k < nrows; k++) {
      fprintf(f, "%lld", rows[k]->seg);
      for (int m = 0; m < nimpl; m++)
        write_value(f, value(tuned(s, first->alg, first->type, rows[k]->seg, impls[m], n), GIPS));
      fputc('\n', f);
    }
    if (fclose(f) != 0) {
      tool_warn("cannot write %s", dat);
      rc = -1;
      continue;
    }
    if (!opt.render || nrows == 0) continue;
    snprintf(title, sizeof title, "%s %s, n = %s, on %s (%s), commit %s, %s", first->alg,
             first->type, size_str(n, sz, sizeof sz), s->gpu, s->arch, s->commit, s->date);
    snprintf(nc, sizeof nc, "%d", nimpl + 1);
    char colours[512] = "";
    for (int m = 0; m < nimpl && strlen(colours) + 10 < sizeof colours; m++)
      strcat(strcat(colours, colour_of(impls[m])), " ");
    if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
        tool_gp_var(vars, sizeof vars, "colours", colours) != 0 ||
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "ncols=%s; ", nc) != 0 ||
        render("by_seg.gp", vars, png) != 0)
      rc = -1;
  }
  return rc;
}

static int usage(void) {
  fputs(
      "usage: plot [--no-render] [--out DIR] [--templates DIR] RESULT.json...\n"
      "  Writes charts (.png via gnuplot, with their .dat data) and S_tuning.md for each\n"
      "  RESULT.json, into DIR or else beside the JSON.\n",
      stderr);
  return 2;
}

int main(int argc, char **argv) {
  int i = 1, rc = 0;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    } else if (strcmp(argv[i], "--no-render") == 0) {
      opt.render = 0;
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      opt.out = argv[++i];
    } else if (strcmp(argv[i], "--templates") == 0 && i + 1 < argc) {
      opt.templates = argv[++i];
    } else {
      if (strcmp(argv[i], "--help") != 0) tool_warn("unknown option %s", argv[i]);
      return usage();
    }
  }
  if (i == argc) return usage();
  if (opt.render && tool_find_templates(opt.templates, "lines.gp", opt.tdir, sizeof opt.tdir) != 0) return 1;
  for (; i < argc; i++) rc |= process(argv[i]) != 0;
  return rc;
}
