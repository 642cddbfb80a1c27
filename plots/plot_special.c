/* The plot driver's charts across a suite's groups: throughput against the number of variables
 * (types <base>_x<k>, by_vars.gp) and against the average segment length (by_seg.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot.h"
#include "plots/style.h"
#include "plots/tool.h"

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
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "ncols=%s; kmax=%d; ", nc,
                 kmax) != 0 ||
        render_chart("by_vars.gp", vars, png) != 0)
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
int write_by_seg(const suite *s) {
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
    if (chart_paths(dat, png, "%s/%s_%s_%s_by_seg", s->dir, s->name, first->alg, first->type) !=
        0) {
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
      for (int m = 0; m < nimpl; m++) {
        const rec *r = tuned(s, first->alg, first->type, rows[k]->seg, impls[m], n);
        write_value(f, metric_value(r, GIPS));
      }
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
    char colours[512];
    style_colours(impls, nimpl, colours, sizeof colours);
    if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
        tool_gp_var(vars, sizeof vars, "colours", colours) != 0 ||
        tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "ncols=%s; ", nc) != 0 ||
        render_chart("by_seg.gp", vars, png) != 0)
      rc = -1;
  }
  return rc;
}
