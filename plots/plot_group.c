/* The plot driver's groups: a suite's records sorted into one group per chart, and the lookups
 * that the charts and the table make in a group. */
#include <stdlib.h>
#include <string.h>

#include "plots/plot.h"
#include "plots/tool.h"

int by_chart(const void *pa, const void *pb) {
  const rec *a = pa, *b = pb;
  int c;
  if ((c = strcmp(a->alg, b->alg)) != 0 || (c = strcmp(a->type, b->type)) != 0) return c;
  if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  if ((c = strcmp(a->impl, b->impl)) != 0) return c;
  return a->nt != b->nt ? a->nt - b->nt : a->vt - b->vt;
}

int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int is_tb_name(const char *impl) { return strcmp(impl, "tb") == 0; }
int is_tb(const rec *r) { return is_tb_name(r->impl); }

group make_group(const rec *lo, const rec *end) {
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
      tool_warn("more than %d baselines for %s %s; leaving out %s", MAX_BASELINES, lo->alg,
                lo->type, r->impl);
  }
  qsort(g.baselines, (size_t)g.nbaselines, sizeof g.baselines[0], cmp_str);
  return g;
}

const rec *find_impl(const group *g, const char *impl, long long n) {
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && r->nt == 0 && strcmp(r->impl, impl) == 0) return r;
  return NULL;
}

const rec *best_box(const group *g, long long n) {
  const rec *best = NULL;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && r->nt > 0 && (best == NULL || r->gips > best->gips)) best = r;
  return best;
}

const rec *best_baseline(const group *g, long long n) {
  const rec *best = NULL;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && !is_tb(r) && (best == NULL || r->gips > best->gips)) best = r;
  return best;
}
