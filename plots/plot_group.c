/* The plot driver's groups: a suite's records sorted into one group per chart, and the lookups
 * that the charts and the table make in a group. */
#include <stdlib.h>
#include <string.h>

#include "plots/baseline.h"
#include "plots/plot.h"
#include "plots/tool.h"

int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

group make_group(const suite *s, const rec *lo) {
  group g = {s, lo, lo, lo->alg, {NULL}, 0, 0};
  const rec *end = s->r + s->nr;
  while (g.hi < end && strcmp(g.hi->alg, lo->alg) == 0 && strcmp(g.hi->type, lo->type) == 0 &&
         g.hi->seg == lo->seg)
    g.hi++;
  for (const rec *r = g.lo; r < g.hi; r++) {
    if (r->nt > 0) g.box_n = r->n;
    if (!is_tb(r) || r->nt != 0) continue;
    const best_baseline b = best_baseline_of(s, r);
    if (b.base != NULL) g.base_alg = b.alg;
  }
  /* The baselines drawn: those the rule compares the group's rows to (its own, or its plain
   * form's). */
  for (const rec *r = s->r; r < end; r++) {
    if (is_tb(r) || r->seg != lo->seg || strcmp(r->alg, g.base_alg) != 0 ||
        strcmp(r->type, lo->type) != 0)
      continue;
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
  const char *alg = is_tb_name(impl) ? g->lo->alg : g->base_alg;
  return find_rec(g->s, alg, impl, g->lo->type, g->lo->seg, n);
}

const rec *best_box(const group *g, long long n) {
  const rec *best = NULL;
  for (const rec *r = g->lo; r < g->hi; r++)
    if (r->n == n && r->nt > 0 && (best == NULL || r->gips > best->gips)) best = r;
  return best;
}
