/* The plot driver's charts across a suite's groups: throughput against the number of variables
 * (types <base>_x<k>, by_vars.gp) and against the average segment length (by_seg.gp, one chart
 * per n, with tb / best baseline below). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/baseline.h"
#include "plots/plot.h"
#include "plots/style.h"
#include "plots/tool.h"

/* ---- charts against the number of variables ---------------------------------------------- */

int vars_of(const char *type, char *base, size_t size) {
  const char *x = strrchr(type, '_');
  char *end;
  snprintf(base, size, "%s", type);
  if (x == NULL || x[1] != 'x' || x[2] < '1' || x[2] > '9') return 0;
  long k = strtol(x + 2, &end, 10);
  if (*end != '\0' || k < 1 || k > 64) return 0;
  snprintf(base, size, "%.*s", (int)(x - type), type);
  return (int)k;
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* One chart per (algorithm, base type): rows k, a column per (implementation, size) holding
 * that implementation's throughput over the reference baseline's, at the smallest, a middle
 * and the largest n. */
int write_by_vars(const suite *s) {
  int rc = 0;
  for (size_t i = 0; i < s->nr; i++) {
    char base[16], other[16], dat[PATH_LEN], png[PATH_LEN], vars[3 * PATH_LEN], title[512];
    const rec *first = &s->r[i];
    if (vars_of(first->type, base, sizeof base) == 0) continue;
    /* Handle each (alg, base) once: at its first record. */
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++)
      seen = strcmp(s->r[j].alg, first->alg) == 0 &&
             vars_of(s->r[j].type, other, sizeof other) && strcmp(other, base) == 0;
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
    if (chart_paths(dat, png, "%s/%s_%s_%s_by_vars", s->dir, s->name, first->alg, base) != 0) {
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
          const rec *a = find_rec(s, first->alg, impls[m], type, -1, chosen[p]);
          const rec *b = find_rec(s, first->alg, ref, type, -1, chosen[p]);
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
    char nc[16], ylabel[64], what[128];
    commit_set commits = {0};
    for (size_t j = i; j < s->nr; j++)
      if (s->r[j].nt == 0 && strcmp(s->r[j].alg, first->alg) == 0 &&
          vars_of(s->r[j].type, other, sizeof other) && strcmp(other, base) == 0)
        commits_add(&commits, s->r[j].commit);
    snprintf(what, sizeof what, "%s %s", first->alg, base);
    chart_title(title, sizeof title, s, what, &commits);
    snprintf(nc, sizeof nc, "%d", ncols);
    snprintf(ylabel, sizeof ylabel, "throughput / %s", ref);
    if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
        tool_gp_var(vars, sizeof vars, "ylabel", ylabel) != 0 ||
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "ncols=%s; kmax=%d; ", nc,
                 kmax) != 0 ||
        render_chart("by_vars.gp", vars, png) != 0)
      rc = -1;
  }
  return rc;
}

/* ---- charts against the average segment length ------------------------------------------- */

/* The implementations of one by-length chart: tb, then the baselines it is compared to (its
 * algorithm's, or its plain form's: baseline.h), under base_alg. */
typedef struct {
  const char *alg, *type, *base_alg;
  const char *impls[MAX_BASELINES + 1];
  int nimpl;
} seg_series;

static seg_series series_of(const suite *s, const rec *lo, const rec *hi) {
  seg_series ss = {lo->alg, lo->type, lo->alg, {"tb"}, 1};
  for (const rec *r = lo; r < hi; r++) {
    const best_baseline b = is_tb(r) && r->nt == 0 ? best_baseline_of(s, r) : (best_baseline){0};
    if (b.base != NULL) ss.base_alg = b.alg;
  }
  for (size_t j = 0; j < s->nr; j++) {
    const rec *r = &s->r[j];
    if (is_tb(r) || r->seg < 0 || strcmp(r->alg, ss.base_alg) || strcmp(r->type, ss.type)) continue;
    int known = 0;
    for (int m = 0; m < ss.nimpl; m++) known |= strcmp(ss.impls[m], r->impl) == 0;
    if (!known && ss.nimpl < MAX_BASELINES + 1) ss.impls[ss.nimpl++] = r->impl;
  }
  qsort(ss.impls + 1, (size_t)ss.nimpl - 1, sizeof ss.impls[0], cmp_str);
  return ss;
}

/* One by-length chart: rows L at n, a column per implementation's tuned default, then
 * tb / best baseline, its spread and the winner. */
static int write_seg_chart(const suite *s, const rec *lo, const rec *hi, const seg_series *ss,
                           long long n, int largest) {
  char dat[PATH_LEN], png[PATH_LEN], vars[3 * PATH_LEN], title[768], what[160], sz[32];
  char name[96], winners[512] = "";
  int nwinners = 0;
  if ((largest ? chart_paths(dat, png, "%s/%s_%s_%s_by_seg", s->dir, s->name, ss->alg, ss->type)
               : chart_paths(dat, png, "%s/%s_%s_%s_by_seg_n%lld", s->dir, s->name, ss->alg,
                             ss->type, n)) != 0)
    return -1;
  commit_set commits = {0};
  long long segs[256];
  int nseg = 0;
  for (const rec *r = lo; r < hi && nseg < 256; r++)
    if (r->n == n && (nseg == 0 || segs[nseg - 1] != r->seg)) segs[nseg++] = r->seg;
  FILE *f = fopen(dat, "w");
  if (f == NULL) {
    tool_warn("cannot write %s", dat);
    return -1;
  }
  snprintf(what, sizeof what, "%s %s, n = %s", ss->alg, ss->type, size_str(n, sz, sizeof sz));
  for (int k = 0; k < nseg; k++)
    for (int m = 0; m < ss->nimpl; m++) {
      const rec *r = find_rec(s, m ? ss->base_alg : ss->alg, ss->impls[m], ss->type, segs[k], n);
      if (r) commits_add(&commits, r->commit);
    }
  chart_title(title, sizeof title, s, what, &commits);
  fprintf(f, "# %s\n# G items/s of each implementation's tuned default; \"-\" = not measured\n",
          title);
  fputs("seg", f);
  for (int m = 0; m < ss->nimpl; m++)
    if (m > 0 && strcmp(ss->base_alg, ss->alg) != 0)
      fprintf(f, "\t%s (%s)", ss->impls[m], ss->base_alg);
    else
      fprintf(f, "\t%s", ss->impls[m]);
  fputs("\ttb / best baseline\tratio +-\tbest baseline\n", f);
  for (int k = 0; k < nseg; k++) {
    fprintf(f, "%lld", segs[k]);
    for (int m = 0; m < ss->nimpl; m++)
      write_value(f, metric_value(find_rec(s, m ? ss->base_alg : ss->alg, ss->impls[m], ss->type,
                                           segs[k], n),
                                  GIPS));
    const rec *t = find_rec(s, ss->alg, "tb", ss->type, segs[k], n);
    ratio q;
    if (t != NULL && ratio_of(s, t, &q) == 0) {
      write_value(f, q.ratio);
      write_value(f, isnan(q.cv) ? 0 : q.ratio * q.cv);
      baseline_name(t, &q.best, name, sizeof name);
      fprintf(f, "\t%s", name);
      if (strstr(winners, name) == NULL && strlen(winners) + strlen(name) + 3 < sizeof winners)
        snprintf(winners + strlen(winners), sizeof winners - strlen(winners), "%s%s",
                 nwinners++ ? ", " : "", name);
    } else {
      fputs("\t-\t-\t-", f);
    }
    fputc('\n', f);
  }
  if (fclose(f) != 0) {
    tool_warn("cannot write %s", dat);
    return -1;
  }
  if (!opt.render || nseg == 0) return 0;
  char colours[512];
  style_colours(ss->impls, ss->nimpl, colours, sizeof colours);
  if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
      tool_gp_var(vars, sizeof vars, "colours", colours) != 0 ||
      tool_gp_var(vars, sizeof vars, "winners", winners) != 0 ||
      tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars),
               "ncols=%d; ratiocol=%d; nwinners=%d; ", ss->nimpl + 1,
               nwinners ? ss->nimpl + 2 : 0, nwinners) != 0)
    return -1;
  return render_chart("by_seg.gp", vars, png);
}

static int cmp_ll_desc(const void *a, const void *b) { return -cmp_ll(a, b); }

/* Per segmented (algorithm, type), one chart at each n measured: at the largest n under the name
 * without a size (_by_seg), at the others with it (_by_seg_n<n>). A matrix's rows (<alg>_mtx_...)
 * are one point, which its chart of matrices shows instead (plot_matrices.c). */
int write_by_seg(const suite *s) {
  int rc = 0;
  for (const rec *lo = s->r, *end = s->r + s->nr, *hi; lo < end; lo = hi) {
    hi = lo;
    while (hi < end && strcmp(hi->alg, lo->alg) == 0 && strcmp(hi->type, lo->type) == 0) hi++;
    while (lo < hi && lo->seg < 0) lo++; /* records sort by seg: the segmented ones last */
    if (lo == hi || is_matrix_alg(lo->alg)) continue;
    const seg_series ss = series_of(s, lo, hi);
    long long ns[64];
    int nn = 0;
    for (const rec *r = lo; r < hi; r++) {
      int known = r->nt != 0;
      for (int k = 0; k < nn && !known; k++) known = ns[k] == r->n;
      if (!known && nn < 64) ns[nn++] = r->n;
    }
    qsort(ns, (size_t)nn, sizeof ns[0], cmp_ll_desc);
    for (int k = 0; k < nn; k++)
      if (write_seg_chart(s, lo, hi, &ss, ns[k], k == 0) != 0) rc = -1;
  }
  return rc;
}
