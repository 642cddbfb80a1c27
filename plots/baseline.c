/* The best-baseline rule (baseline.h) and what is built on it: ratios, their noise, summaries. */
#include "plots/baseline.h"
#include "plots/tool.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The first record not ordered before (alg, type, seg, n) with an empty impl: the start of that
 * configuration's rows (records are sorted by rows_order). */
static const rec *first_at(const suite *s, const char *alg, const char *type, long long seg,
                           long long n) {
  rec key;
  memset(&key, 0, sizeof key);
  snprintf(key.alg, sizeof key.alg, "%s", alg);
  snprintf(key.type, sizeof key.type, "%s", type);
  key.seg = seg, key.n = n;
  size_t lo = 0, hi = s->nr;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (rows_order(&s->r[mid], &key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return s->r + lo;
}

static const rec *fastest_baseline(const suite *s, const char *alg, const rec *r) {
  const rec *best = NULL, *end = s->r + s->nr;
  for (const rec *b = first_at(s, alg, r->type, r->seg, r->n);
       b < end && b->n == r->n && b->seg == r->seg && strcmp(b->alg, alg) == 0 &&
       strcmp(b->type, r->type) == 0;
       b++)
    if (tool_is_baseline(b->impl) && b->nt == 0 && (best == NULL || b->gips > best->gips)) best = b;
  return best;
}

static int has_baselines(const suite *s, const char *alg) {
  const rec *end = s->r + s->nr;
  for (const rec *b = first_at(s, alg, "", LLONG_MIN, 0); b < end && strcmp(b->alg, alg) == 0; b++)
    if (tool_is_baseline(b->impl)) return 1;
  return 0;
}

best_baseline best_baseline_of(const suite *s, const rec *r) {
  best_baseline b = {fastest_baseline(s, r->alg, r), r->alg};
  if (b.base != NULL || has_baselines(s, r->alg)) return b;
  static const char *const forms[] = {"_apply", "_indirect"};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    const size_t len = strlen(r->alg), lf = strlen(forms[i]);
    if (len <= lf || strcmp(r->alg + len - lf, forms[i]) != 0) continue;
    /* The plain form's name, kept in a record of the suite so that b.alg outlives this call. */
    char plain[sizeof r->alg];
    snprintf(plain, sizeof plain, "%.*s", (int)(len - lf), r->alg);
    b.base = fastest_baseline(s, plain, r);
    if (b.base != NULL) b.alg = b.base->alg;
  }
  return b;
}

const char *baseline_name(const rec *tb, const best_baseline *b, char *buf, size_t size) {
  if (b->base == NULL)
    snprintf(buf, size, "-");
  else if (strcmp(b->alg, tb->alg) == 0)
    snprintf(buf, size, "%s", b->base->impl);
  else
    snprintf(buf, size, "%s (%s)", b->base->impl, b->alg);
  return buf;
}

int ratio_of(const suite *s, const rec *r, ratio *out) {
  memset(out, 0, sizeof *out);
  out->tb = r;
  out->best = best_baseline_of(s, r);
  const rec *b = out->best.base;
  if (b == NULL || !(b->gips > 0)) return -1;
  out->ratio = r->gips / b->gips;
  out->cv = sqrt(r->cv * r->cv + b->cv * b->cv); /* NAN when either was measured once */
  return 0;
}

int ratio_tie(const ratio *q) { return !isnan(q->cv) && fabs(q->ratio - 1.0) <= q->cv; }

/* ---- summaries ------------------------------------------------------------------------------ */

typedef struct {
  char name[96];
  int count;
} tally;

enum { MAX_WINNERS = 8 };

static void add_winner(tally *t, const char *name) {
  int i = 0;
  while (i < MAX_WINNERS && t[i].count > 0 && strcmp(t[i].name, name) != 0) i++;
  if (i == MAX_WINNERS) return;
  snprintf(t[i].name, sizeof t[i].name, "%s", name);
  t[i].count++;
}

int summarize(const suite *s, int by_alg, ratio_summary *out, int cap) {
  int count = 0;
  tally(*wins)[MAX_WINNERS] = calloc((size_t)(cap > 0 ? cap : 1), sizeof *wins);
  double *logs = calloc((size_t)(cap > 0 ? cap : 1), sizeof *logs);
  if (wins == NULL || logs == NULL) {
    free(wins), free(logs);
    return 0;
  }
  for (size_t i = 0; i < s->nr; i++) {
    const rec *r = &s->r[i];
    ratio q;
    if (!is_tb(r) || r->nt != 0 || ratio_of(s, r, &q) != 0) continue;
    const char *alg = by_alg ? r->alg : "";
    int k = 0;
    while (k < count && (strcmp(out[k].alg, alg) != 0 || strcmp(out[k].type, r->type) != 0)) k++;
    if (k == count) {
      if (count == cap) continue;
      memset(&out[k], 0, sizeof out[k]);
      snprintf(out[k].alg, sizeof out[k].alg, "%s", alg);
      snprintf(out[k].type, sizeof out[k].type, "%s", r->type);
      out[k].min = out[k].max = q;
      count++;
    }
    ratio_summary *m = &out[k];
    m->count++;
    m->ties += ratio_tie(&q);
    m->repeated += !isnan(q.cv);
    logs[k] += log(q.ratio);
    if (q.ratio < m->min.ratio) m->min = q;
    if (q.ratio > m->max.ratio) m->max = q;
    char name[96];
    add_winner(wins[k], baseline_name(r, &q.best, name, sizeof name));
  }
  for (int k = 0; k < count; k++) {
    out[k].geomean = exp(logs[k] / out[k].count);
    size_t len = 0;
    for (int w = 0; w < MAX_WINNERS && wins[k][w].count > 0; w++)
      len += (size_t)snprintf(out[k].winners + len, len < sizeof out[k].winners
                                                      ? sizeof out[k].winners - len : 0,
                              "%s%s %d", w ? ", " : "", wins[k][w].name, wins[k][w].count);
  }
  free(wins), free(logs);
  return count;
}

/* "2^26" or "2^26, L = 16": where a ratio was measured. */
static const char *where(const rec *r, char *buf, size_t size) {
  char sz[32];
  if (r->seg >= 0)
    snprintf(buf, size, "%s, L = %lld", size_str(r->n, sz, sizeof sz), r->seg);
  else
    snprintf(buf, size, "%s", size_str(r->n, sz, sizeof sz));
  return buf;
}

void write_summary_md(FILE *f, const ratio_summary *sum, int count, int by_alg) {
  fprintf(f, "| %stype | sizes | geomean | min (where, against) | max (where, against) | ties "
             "| best baselines (sizes won) |\n",
          by_alg ? "algorithm | " : "");
  fprintf(f, "|%s---|---|---|---|---|---|---|\n", by_alg ? "---|" : "");
  for (int k = 0; k < count; k++) {
    const ratio_summary *m = &sum[k];
    char w1[96], w2[96], b1[96], b2[96], ties[32];
    if (m->repeated == 0)
      snprintf(ties, sizeof ties, "? (not repeated)");
    else
      snprintf(ties, sizeof ties, "%d of %d", m->ties, m->repeated);
    if (by_alg) fprintf(f, "| %s ", m->alg);
    fprintf(f, "| %s | %d | %.2f | %.2f (%s%s%s, %s) | %.2f (%s%s%s, %s) | %s | %s |\n", m->type,
            m->count, m->geomean, m->min.ratio, by_alg ? "" : m->min.tb->alg, by_alg ? "" : " ",
            where(m->min.tb, w1, sizeof w1), baseline_name(m->min.tb, &m->min.best, b1, sizeof b1),
            m->max.ratio, by_alg ? "" : m->max.tb->alg, by_alg ? "" : " ",
            where(m->max.tb, w2, sizeof w2), baseline_name(m->max.tb, &m->max.best, b2, sizeof b2),
            ties, m->winners);
  }
}
