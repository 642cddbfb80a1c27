/* The chart tools' input: a Google Benchmark JSON file, its rows' names parsed into records. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "plots/rows.h"
#include "plots/tool.h"

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

static int copy_str(char *dst, size_t size, const char *src) {
  return tool_fmt(dst, size, "%s", src);
}

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
static int add_entry(suite *s, const cJSON *b, const char *name, const char *agg,
                     const char *commit) {
  rec r;
  if (parse_name(name, &r) != 0) return 0;
  r.cv = NAN;
  snprintf(r.commit, sizeof r.commit, "%s", commit);
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

/* The commit that measured row b: its own "commit", else that of its run in the file's "runs"
 * object (keyed by the row's "run_id"), else the file's (files written before rows carried
 * their provenance). */
static const char *row_commit(const cJSON *b, const cJSON *runs, const char *file_commit) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "commit");
  if (cJSON_IsString(c) && c->valuestring[0] != '\0') return c->valuestring;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "run_id");
  if (cJSON_IsString(id)) {
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(runs, id->valuestring);
    c = cJSON_GetObjectItemCaseSensitive(run, "commit");
    if (cJSON_IsString(c) && c->valuestring[0] != '\0') return c->valuestring;
  }
  return file_commit;
}

int load(const char *path, suite *s) {
  char *text = tb_read_text(path, NULL);
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
  const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
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
      if (add_entry(s, b, run->valuestring, agg->valuestring, row_commit(b, runs, s->commit)) != 0) {
        tool_warn("out of memory");
        rc = -1;
        break;
      }
    } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "error_occurred"))) {
      s->failed++;
      tool_warn("%s: benchmark failed, left out: %s: %s", s->name, name->valuestring,
                cJSON_IsString(msg) ? msg->valuestring : "(no message)");
    } else if (add_entry(s, b, name->valuestring, "", row_commit(b, runs, s->commit)) != 0) {
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

static int ends_with(const char *s, const char *suffix) {
  const size_t ls = strlen(s), lx = strlen(suffix);
  return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

int effective_bytes(const char *alg) { return ends_with(alg, "_apply"); }

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
