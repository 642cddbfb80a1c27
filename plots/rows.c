/* The chart tools' input: a sweep result's rows (core/result_file.h) folded into records. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/result_file.h"
#include "plots/rows.h"
#include "plots/tool.h"

static int copy_str(char *dst, size_t size, const char *src) {
  return tool_fmt(dst, size, "%s", src);
}

/* Fills r's configuration from the row's params; returns 0, or -1 (after a warning) when it has
 * none the charts can take. Parameters the charts do not draw (p.variant) are named and ignored. */
static int config_of(const tb_result_row *row, rec *r) {
  const tb_row_params *p = &row->p;
  memset(r, 0, sizeof *r);
  if (!row->params_ok || copy_str(r->alg, sizeof r->alg, p->algorithm) ||
      copy_str(r->impl, sizeof r->impl, p->impl) || copy_str(r->type, sizeof r->type, p->type) ||
      (p->nt > 0 && !is_tb_name(p->impl))) {
    tool_warn(
        "skipping '%s': expected <algorithm>/<impl>/<type>/n:<items>[/seg:<L>][/nt:<NT>/vt:<VT>] "
        "(nt/vt only with impl tb)",
        row->name);
    return -1;
  }
  char variant[sizeof p->variant];
  snprintf(variant, sizeof variant, "%s", p->variant);
  char *save = NULL;
  for (char *seg = strtok_r(variant, "/", &save); seg; seg = strtok_r(NULL, "/", &save))
    tool_warn("%s: ignoring unknown name segment '%s'", row->name, seg);
  r->n = p->n, r->seg = p->seg, r->nt = p->nt, r->vt = p->vt;
  return 0;
}

static int same_config(const rec *a, const rec *b) {
  return strcmp(a->alg, b->alg) == 0 && strcmp(a->impl, b->impl) == 0 &&
         strcmp(a->type, b->type) == 0 && a->n == b->n && a->seg == b->seg && a->nt == b->nt &&
         a->vt == b->vt;
}

static void ctx_field(const tb_result_file *f, const char *key, char *buf, size_t size) {
  const char *v = tb_result_context(f, key);
  snprintf(buf, size, "%s", v && v[0] ? v : "unknown");
}

/* Adds one row. Repetitions of a configuration are averaged until its
 * median aggregate arrives, which then stands for it; the cv aggregate gives
 * its spread (agg: "" for a measured row, else the aggregate's name). */
static int add_entry(suite *s, const tb_result_row *b, const char *agg) {
  rec r;
  if (config_of(b, &r) != 0) return 0;
  r.cv = NAN;
  /* The row's commit, else its run's, else the file's (tb_results_row_run). */
  snprintf(r.commit, sizeof r.commit, "%.*s", (int)sizeof r.commit - 1, b->run.commit);
  if (strcmp(agg, "cv") == 0) {
    for (size_t i = 0; i < s->nr; i++)
      if (same_config(&s->r[i], &r)) s->r[i].cv = b->real_time;
    return 0;
  }
  r.gips = b->items_per_second / 1e9;
  if (isnan(r.gips)) { /* no items counter: n items per iteration of real_time */
    /* Seconds per unit as ns / 1e9, which rounds to the literals 1e-9, 1e-6 and 1e-3. */
    const double unit_s = tb_time_unit_ns(b->time_unit[0] ? b->time_unit : "ns") / 1e9;
    const double t = b->real_time * unit_s;
    r.gips = t > 0 ? (double)r.n / t / 1e9 : NAN;
  }
  if (!(r.gips >= 0)) {
    tool_warn("%s: skipping '%s': no items_per_second", s->name, b->name);
    return 0;
  }
  r.pct = b->copy_bw_pct;
  r.l2 = b->l2_resident > 0;
  if (r.nt == 0 && b->box_nt > 0 && b->box_vt > 0)
    r.def_nt = (int)b->box_nt, r.def_vt = (int)b->box_vt;
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
    if (!(b->repetitions > 1)) tool_warn("%s: '%s' appears twice; averaging", s->name, b->name);
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

int load(const char *path, suite *s) {
  tb_result_file f;
  if (tb_result_file_load(path, &f) != TB_OK) {
    tool_warn("%s", tb_last_error());
    tb_result_file_free(&f);
    return -1;
  }
  int rc = 0;
  ctx_field(&f, "gpu", s->gpu, sizeof s->gpu);
  ctx_field(&f, "arch", s->arch, sizeof s->arch);
  ctx_field(&f, "driver", s->driver, sizeof s->driver);
  ctx_field(&f, "runtime", s->runtime, sizeof s->runtime);
  ctx_field(&f, "commit", s->commit, sizeof s->commit);
  ctx_field(&f, "copy_gbps", s->copy_gbps, sizeof s->copy_gbps);
  ctx_field(&f, "date", s->date, sizeof s->date);
  if (strlen(s->date) > 10 && s->date[4] == '-') s->date[10] = '\0'; /* the day */
  for (size_t i = 0; i < f.count && rc == 0; i++) {
    const tb_result_row *b = &f.rows[i];
    const char *agg = b->p.aggregate;
    if (b->name == NULL) {
      tool_warn("%s: skipping a benchmark without a name", path);
    } else if (b->kind == TB_ROW_AGGREGATE) {
      /* The median stands for its row, the cv gives its spread; mean and
       * stddev add nothing to those. */
      if (strcmp(agg, "median") == 0 || strcmp(agg, "cv") == 0) rc = add_entry(s, b, agg);
    } else if (b->failed) {
      s->failed++;
      tool_warn("%s: benchmark failed, left out: %s: %s", s->name, b->name,
                b->error_message ? b->error_message : "(no message)");
    } else {
      rc = add_entry(s, b, "");
    }
  }
  if (rc != 0) tool_warn("out of memory");
  tb_result_file_free(&f);
  if (s->failed > 0) tool_warn("%s: %d failed benchmark(s) left out", s->name, s->failed);
  if (rc == 0 && s->nr == 0) {
    tool_warn("%s: no benchmark results to plot", path);
    rc = -1;
  }
  if (rc == 0) qsort(s->r, s->nr, sizeof s->r[0], rows_order);
  return rc;
}

int rows_order(const void *pa, const void *pb) {
  const rec *a = pa, *b = pb;
  int c;
  if ((c = strcmp(a->alg, b->alg)) != 0 || (c = strcmp(a->type, b->type)) != 0) return c;
  if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  if ((c = strcmp(a->impl, b->impl)) != 0) return c;
  return a->nt != b->nt ? a->nt - b->nt : a->vt - b->vt;
}

int is_tb_name(const char *impl) { return strcmp(impl, "tb") == 0; }
int is_tb(const rec *r) { return is_tb_name(r->impl); }

const rec *find_rec(const suite *s, const char *alg, const char *impl, const char *type,
                    long long seg, long long n) {
  rec key;
  memset(&key, 0, sizeof key);
  if (copy_str(key.alg, sizeof key.alg, alg) || copy_str(key.impl, sizeof key.impl, impl) ||
      copy_str(key.type, sizeof key.type, type))
    return NULL;
  key.seg = seg, key.n = n;
  return bsearch(&key, s->r, s->nr, sizeof s->r[0], rows_order);
}

int ends_with(const char *s, const char *suffix) {
  const size_t ls = strlen(s), lx = strlen(suffix);
  return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

int effective_bytes(const char *alg) { return ends_with(alg, "_apply"); }

int is_matrix_alg(const char *alg) { return strstr(alg, "_mtx_") != NULL; }

void commits_add(commit_set *set, const char *commit) {
  for (int i = 0; i < set->n; i++)
    if (strcmp(set->c[i], commit) == 0) return;
  if (set->n == (int)(sizeof set->c / sizeof set->c[0])) {
    set->more++;
    return;
  }
  snprintf(set->c[set->n++], sizeof set->c[0], "%s", commit);
}

const char *commits_label(const commit_set *set, char *buf, size_t size) {
  if (set->n <= 1) {
    snprintf(buf, size, "commit %s", set->n ? set->c[0] : "unknown");
    return buf;
  }
  size_t len = (size_t)snprintf(buf, size, "commits mixed (");
  for (int i = 0; i < set->n && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", set->c[i]);
  if (set->more && len < size) len += (size_t)snprintf(buf + len, size - len, ", +%d more", set->more);
  if (len < size) snprintf(buf + len, size - len, ")");
  return buf;
}

const char *size_str(long long n, char *buf, size_t size) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((1LL << k) != n) k++;
    snprintf(buf, size, "2^%d", k);
  } else {
    snprintf(buf, size, "%lld", n);
  }
  return buf;
}
