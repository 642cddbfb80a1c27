/* The plot driver's standard charts of one group: throughput and bandwidth against n (lines.gp),
 * and the heat map of the swept boxes (heatmap.gp); each a .dat file, rendered to a .png. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/baseline.h"
#include "plots/plot.h"
#include "plots/style.h"
#include "plots/tool.h"

/* "reduce int32", or "segreduce float seg 32". */
static const char *label(const rec *r, char *buf, size_t size) {
  if (r->seg >= 0)
    snprintf(buf, size, "%s %s seg %lld", r->alg, r->type, r->seg);
  else
    snprintf(buf, size, "%s %s", r->alg, r->type);
  return buf;
}

double metric_value(const rec *r, metric m) {
  return r == NULL ? NAN : m == GIPS ? r->gips : r->pct;
}

void write_value(FILE *f, double v) {
  if (isnan(v))
    fputs("\t-", f);
  else
    fprintf(f, "\t%.6g", v);
}

/* A line chart's series: 0 = tuned default, 1 = best box, 2.. = baselines;
 * has[s] when series s has a value for the metric. Returns their number. */
static int series_present(const group *g, metric m, int *has) {
  memset(has, 0, sizeof(int) * (size_t)(2 + g->nbaselines));
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (is_tb(r) && !isnan(metric_value(r, m))) has[r->nt > 0] = 1;
    if (r != g->lo && r->n == r[-1].n) continue;
    for (int i = 0; i < g->nbaselines; i++)
      if (!isnan(metric_value(find_impl(g, g->baselines[i], r->n), m))) has[2 + i] = 1;
  }
  return 2 + g->nbaselines;
}

int chart_paths(char *dat, char *png, const char *fmt, ...) {
  char stem[PATH_LEN];
  va_list ap;
  va_start(ap, fmt);
  const int len = vsnprintf(stem, sizeof stem, fmt, ap);
  va_end(ap);
  if (len < 0 || (size_t)len >= sizeof stem) return -1;
  if (tool_fmt(dat, PATH_LEN, "%s.dat", stem) != 0) return -1;
  return tool_fmt(png, PATH_LEN, "%s.png", stem);
}

/* Whether any n of the group has tb's ratio to a best baseline. */
static int has_ratio(const group *g) {
  ratio q;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (is_tb(r) && r->nt == 0 && ratio_of(g->s, r, &q) == 0) return 1;
  return 0;
}

/* Line-chart data: n, the best box's NTxVT, then one column per implementation that has a value
 * for this metric, their spreads, and for throughput tb's ratios to the best baseline (the
 * ratio panel). Sets *ncols, *boxcol (column of "tb (best box)", 0 if absent) and *ratiocol
 * (first ratio column, 0 if none); returns the number of series shown. */
static int write_lines(const group *g, metric m, const char *path, const char *title, int *ncols,
                       int *boxcol, int *ratiocol) {
  int has[2 + MAX_BASELINES];
  const int nseries = series_present(g, m, has);
  FILE *f = fopen(path, "w");
  if (f == NULL) return -1;
  char lb[160];
  fprintf(f, "# %s\n# %s: %s; \"-\" = not measured\n", title, label(g->lo, lb, sizeof lb),
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
  *ratiocol = m == GIPS && has_ratio(g) ? *ncols + shown + 1 : 0;
  if (*ratiocol)
    fputs("\ttb (tuned default) / best baseline\ttb (best box) / best baseline\tratio +-"
          "\tbest baseline", f);
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
      write_value(f, metric_value(v[s], m));
    }
    for (int s = 0; s < nseries; s++)
      if (has[s])
        write_value(f, v[s] && isnan(v[s]->cv) ? 0
                                               : metric_value(v[s], m) * (v[s] ? v[s]->cv : NAN));
    ratio q;
    char name[96];
    if (*ratiocol && v[0] != NULL && ratio_of(g->s, v[0], &q) == 0) {
      write_value(f, q.ratio);
      write_value(f, box ? box->gips / q.best.base->gips : NAN);
      write_value(f, isnan(q.cv) ? 0 : q.ratio * q.cv);
      fprintf(f, "\t%s", baseline_name(v[0], &q.best, name, sizeof name));
    } else if (*ratiocol) {
      fputs("\t-\t-\t-\t-", f);
    }
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

/* Heat-map data at the largest swept n: one row per box, placed on a grid of the distinct NT and
 * VT values so that unevenly spaced VTs get equal cells. */
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
                  best ? index_of(vts, nvt, best->vt) : -1,
                  best ? index_of(nts, nnt, best->nt) : -1, dx, dy);
}

int render_chart(const char *tmpl, const char *vars, const char *png) {
  const int rc = tool_render(opt.tdir, tmpl, vars, png);
  if (rc == -2) opt.render = 0; /* the exit status already records the failure */
  return rc == 0 ? 0 : -1;
}

/* The colours of a line chart's series, in column order, space-separated. */
static void series_colours(const group *g, metric m, char *out, size_t size) {
  const char *names[2 + MAX_BASELINES] = {"tb (tuned default)", "tb (best box)"};
  const char *shown[2 + MAX_BASELINES];
  int has[2 + MAX_BASELINES], nshown = 0;
  for (int i = 0; i < g->nbaselines; i++) names[2 + i] = g->baselines[i];
  const int nseries = series_present(g, m, has);
  for (int k = 0; k < nseries; k++)
    if (has[k]) shown[nshown++] = names[k];
  style_colours(shown, nshown, out, size);
}

/* Whether the chart's values span more than two decades (then a log axis). */
static int spans_decades(const group *g, metric m) {
  double lo = INFINITY, hi = 0;
  for (const rec *r = g->lo; r < g->hi; r++) {
    const double v = metric_value(r, m);
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

void chart_title(char *buf, size_t size, const suite *s, const char *what,
                 const commit_set *commits) {
  char c[256];
  commits_label(commits, c, sizeof c);
  if (commits->n > 1) /* the file's date is only its last run's */
    snprintf(buf, size, "%s on %s (%s), %s", what, s->gpu, s->arch, c);
  else
    snprintf(buf, size, "%s on %s (%s), %s, %s", what, s->gpu, s->arch, c, s->date);
}

/* The commits of the rows a group's charts draw: tb's and its baselines'. */
static commit_set group_commits(const group *g) {
  commit_set set = {0};
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (is_tb(r)) commits_add(&set, r->commit);
    if (r != g->lo && r->n == r[-1].n) continue;
    for (int i = 0; i < g->nbaselines; i++) {
      const rec *b = find_impl(g, g->baselines[i], r->n);
      if (b) commits_add(&set, b->commit);
    }
  }
  return set;
}

/* The best baselines that won at some n, comma-separated ("-": none); how many. */
static int group_winners(const group *g, char *buf, size_t size) {
  char names[8][96];
  int count = 0;
  ratio q;
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (!is_tb(r) || r->nt != 0 || ratio_of(g->s, r, &q) != 0) continue;
    char name[96];
    baseline_name(r, &q.best, name, sizeof name);
    int known = 0;
    for (int i = 0; i < count; i++) known |= strcmp(names[i], name) == 0;
    if (!known && count < 8) snprintf(names[count++], sizeof names[0], "%s", name);
  }
  size_t len = (size_t)snprintf(buf, size, "%s", count ? "" : "-");
  for (int i = 0; i < count && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
  return count;
}

int write_charts(const suite *s, const group *g, const char *prefix) {
  char dat[PATH_LEN], png[PATH_LEN], title[768], note[512], vars[3 * PATH_LEN], sz[32], lb[160];
  char colours[512], winners[512], ylabel[160];
  int rc = 0, ncols, boxcol, ratiocol;
  const commit_set commits = group_commits(g);
  chart_title(title, sizeof title, s, label(g->lo, lb, sizeof lb), &commits);
  const int nwinners = group_winners(g, winners, sizeof winners);
  static const struct {
    const char *kind, *ylabel;
    metric m;
  } charts[] = {
      {"throughput", "throughput (G items/s)", GIPS},
      {"bandwidth", "percent of copy bandwidth (%)", PCT},
  };
  for (int i = 0; i < 2; i++) {
    if (chart_paths(dat, png, "%s_%s", prefix, charts[i].kind) != 0) return -1;
    int shown = write_lines(g, charts[i].m, dat, title, &ncols, &boxcol, &ratiocol);
    if (shown < 0) {
      tool_warn("cannot write %s: %s", dat, strerror(errno));
      return -1;
    }
    if (shown == 0) { /* e.g. no copy_bw_pct counters: an empty chart would only mislead */
      tool_warn("%s: nothing to plot, no chart", dat);
      remove(dat);
      continue;
    }
    snprintf(ylabel, sizeof ylabel, "%s", charts[i].ylabel);
    snprintf(note, sizeof note, "%s",
             charts[i].m == PCT ? "100% = measured device-to-device copy bandwidth" : "");
    if (charts[i].m == PCT && strcmp(s->copy_gbps, "unknown") != 0)
      snprintf(note, sizeof note, "100%% = measured copy bandwidth, %s GB/s", s->copy_gbps);
    if (charts[i].m == PCT && effective_bytes(g->lo->alg)) {
      snprintf(ylabel, sizeof ylabel, "percent of copy bandwidth, effective bytes (%%)");
      snprintf(note + strlen(note), sizeof note - strlen(note),
               "; effective bytes: the plain form's count, the plan's reads not counted");
    }
    series_colours(g, charts[i].m, colours, sizeof colours);
    if (tool_gp_common(vars, sizeof vars, dat, png, title) ||
        tool_gp_var(vars, sizeof vars, "note", note) ||
        tool_gp_var(vars, sizeof vars, "ylabel", ylabel) ||
        tool_gp_var(vars, sizeof vars, "colours", colours) ||
        tool_gp_var(vars, sizeof vars, "winners", winners) ||
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars),
                 "ncols=%d; boxcol=%d; ratiocol=%d; nwinners=%d; nmin=%lld; nmax=%lld; logy=%d; "
                 "hundred=%d; l2n=%lld",
                 ncols, boxcol, ratiocol, nwinners, g->lo->n, g->hi[-1].n,
                 spans_decades(g, charts[i].m), charts[i].m == PCT, l2_edge(g)))
      return -1;
    if (opt.render) rc |= render_chart("lines.gp", vars, png);
  }
  if (g->box_n == 0) return rc;
  if (chart_paths(dat, png, "%s_heatmap", prefix) != 0) return -1;
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
  ratio q;
  char name[96];
  if (def && ratio_of(s, def, &q) == 0)
    snprintf(note + strlen(note), sizeof note - strlen(note), "; best baseline %s %.1f",
             baseline_name(def, &q.best, name, sizeof name), q.best.base->gips);
  char marks[256];
  if (heat_marks(g, best, def, marks, sizeof marks) != 0 ||
      tool_gp_common(vars, sizeof vars, dat, png, title) ||
      tool_gp_var(vars, sizeof vars, "note", note) ||
      tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "%s", marks))
    return -1;
  if (opt.render) rc |= render_chart("heatmap.gp", vars, png);
  return rc;
}
