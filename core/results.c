#define _POSIX_C_SOURCE 200809L
#include "core/results.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- JSON members ------------------------------------------------------------------- */

const char *tb_json_string(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *tb_json_text(const cJSON *o, const char *key) {
  const char *v = tb_json_string(o, key);
  return v && v[0] ? v : NULL;
}

double tb_json_number(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ---- row names ---------------------------------------------------------------------- */

/* Whether the len bytes at seg are a segment Google Benchmark appends to a
 * name (manual_time, iterations:N, repeats:N, ...), not one of the row's. */
static bool gbench_segment(const char *seg, size_t len) {
  static const char *const known[] = {"manual_time", "real_time",  "process_time",
                                      "iterations:", "repeats:",   "threads:",
                                      "min_time:",   "min_warmup_time:"};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) {
    const size_t k = strlen(known[i]);
    if (len >= k && strncmp(seg, known[i], k) == 0) return true;
  }
  return false;
}

static const char *const kAggregates[] = {"mean", "median", "stddev", "cv"};

/* Splits "<row>_<aggregate>" off the end of buf (in place). */
static void strip_aggregate(char *buf, char *aggregate, size_t cap) {
  aggregate[0] = '\0';
  for (size_t i = 0; i < sizeof kAggregates / sizeof kAggregates[0]; ++i) {
    const size_t len = strlen(buf), alen = strlen(kAggregates[i]);
    if (len > alen + 1 && buf[len - alen - 1] == '_' && strcmp(buf + len - alen, kAggregates[i]) == 0) {
      buf[len - alen - 1] = '\0';
      snprintf(aggregate, cap, "%s", kAggregates[i]);
      return;
    }
  }
}

static bool parse_count(const char *text, int64_t *out) {
  char *end = NULL;
  errno = 0;
  const long long v = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 0) return false;
  *out = v;
  return true;
}

tb_status tb_row_params_parse(const char *name, tb_row_params *out) {
  memset(out, 0, sizeof *out);
  out->n = -1, out->seg = -1;
  char buf[512];
  if (!name || snprintf(buf, sizeof buf, "%s", name) >= (int)sizeof buf)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_row_params_parse: name is NULL or too long");
  strip_aggregate(buf, out->aggregate, sizeof out->aggregate);
  int field = 0;
  size_t clen = 0;
  char *save = NULL;
  for (char *seg = strtok_r(buf, "/", &save); seg; seg = strtok_r(NULL, "/", &save), ++field) {
    if (gbench_segment(seg, strlen(seg))) continue;
    clen += (size_t)snprintf(out->canonical + clen, sizeof out->canonical - clen, "%s%s",
                             clen ? "/" : "", seg);
    if (clen >= sizeof out->canonical) break;
    int64_t v = 0;
    if (field == 0) snprintf(out->algorithm, sizeof out->algorithm, "%s", seg);
    else if (field == 1) snprintf(out->impl, sizeof out->impl, "%s", seg);
    else if (field == 2) snprintf(out->type, sizeof out->type, "%s", seg);
    else if (strncmp(seg, "n:", 2) == 0 && parse_count(seg + 2, &v)) out->n = v;
    else if (strncmp(seg, "seg:", 4) == 0 && parse_count(seg + 4, &v)) out->seg = v;
    else if (strncmp(seg, "nt:", 3) == 0 && parse_count(seg + 3, &v) && v <= 4096) out->nt = (int)v;
    else if (strncmp(seg, "vt:", 3) == 0 && parse_count(seg + 3, &v) && v <= 4096) out->vt = (int)v;
    else if (strchr(seg, ':')) {
      const size_t len = strlen(out->variant);
      snprintf(out->variant + len, sizeof out->variant - len, "%s%s", len ? "/" : "", seg);
    } else {
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "row '%s': segment '%s' is not key:value", name, seg);
    }
  }
  if (field < 4 || out->n <= 0 || clen >= sizeof out->canonical || (out->nt > 0) != (out->vt > 0))
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "row '%s' is not <algorithm>/<impl>/<type>/n:<n>[/seg:<L>][/nt:<NT>/vt:<VT>]",
                   name);
  return TB_OK;
}

/* ---- result files ------------------------------------------------------------------- */

char *tb_read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t got_len = 0, cap = 1 << 16;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + got_len, 1, cap - got_len - 1, f)) > 0;) {
    got_len += got;
    if (cap - got_len > 1) continue;
    char *p = realloc(buf, cap *= 2);
    if (!p) free(buf);
    buf = p;
  }
  const int err = ferror(f) ? errno : 0; /* e.g. EISDIR */
  fclose(f);
  if (buf && err) {
    free(buf);
    errno = err;
    return NULL;
  }
  if (buf) buf[got_len] = '\0';
  if (buf && len) *len = got_len;
  return buf;
}

int tb_mkdirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = buf + 1;; ++p) {
    if (*p != '/' && *p != '\0') continue;
    const char c = *p;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    if (c == '\0') return 0;
    *p = c;
  }
}

/* Google Benchmark writes a NaN or infinite value (the cv of a counter whose
 * mean is 0, say) as a bare NaN / -nan / inf, which is not JSON: such
 * tokens outside strings become null. */
static char *null_non_finite(const char *text) {
  /* Longest first; any case (Google Benchmark 1.7 writes NaN). */
  static const char *const tokens[] = {"-infinity", "infinity", "-nan", "nan", "-inf", "inf"};
  char *out = malloc(2 * strlen(text) + 1), *o = out; /* "nan" -> "null" grows by one */
  if (!out) return NULL;
  bool in_string = false;
  for (const char *p = text; *p;) {
    if (*p == '"' && (p == text || p[-1] != '\\')) in_string = !in_string;
    const bool starts_word = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    size_t hit = 0;
    for (size_t i = 0; !in_string && starts_word && !hit && i < sizeof tokens / sizeof *tokens; ++i) {
      const size_t len = strlen(tokens[i]);
      if (strncasecmp(p, tokens[i], len) == 0 && !isalnum((unsigned char)p[len])) hit = len;
    }
    if (hit) {
      memcpy(o, "null", 4), o += 4, p += hit;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

/* Larger files are refused rather than read: no sweep writes one. */
enum { kMaxResultBytes = 1 << 30 };

tb_status tb_results_parse(const char *path, cJSON **out) {
  *out = NULL;
  /* A folder, a FIFO or a device is no result, and reading one could block. */
  struct stat sb;
  if (stat(path, &sb) != 0) return tb_fail(TB_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return tb_fail(TB_ERR_IO, "%s: not a regular file", path);
  if (sb.st_size > kMaxResultBytes) return tb_fail(TB_ERR_IO, "%s: too large", path);
  size_t len = 0;
  char *raw = tb_read_text(path, &len);
  if (!raw) return tb_fail(TB_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  if (len == 0 || memchr(raw, '\0', len)) {
    free(raw);
    return tb_fail(TB_ERR_IO, "%s: %s", path,
                   len == 0 ? "empty file" : "contains NUL bytes: not a JSON text");
  }
  char *text = null_non_finite(raw);
  free(raw);
  if (!text) return tb_fail(TB_ERR_OUT_OF_MEMORY, "cannot read %s: out of memory", path);
  const char *end = NULL;
  *out = cJSON_ParseWithOpts(text, &end, true); /* nothing may follow the object */
  const long at = end ? (long)(end - text) : 0L;
  free(text);
  if (!*out) return tb_fail(TB_ERR_IO, "%s: not valid JSON (near byte %ld)", path, at);
  const char *problem = NULL;
  if (!cJSON_IsObject(*out))
    problem = "not a JSON object: a Google Benchmark result is "
              "{\"context\": ..., \"benchmarks\": [...]}";
  else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(*out, "benchmarks")))
    problem = "no \"benchmarks\" array: not a sweep result (Google Benchmark JSON)";
  if (problem) {
    cJSON_Delete(*out);
    *out = NULL;
    return tb_fail(TB_ERR_IO, "%s: %s", path, problem);
  }
  return TB_OK;
}

/* The row's canonical name (aggregates share their row's), or NULL. */
static const char *row_key(const cJSON *row, tb_row_params *p) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(row, "name");
  if (!cJSON_IsString(name) || tb_row_params_parse(name->valuestring, p) != TB_OK) return NULL;
  return p->canonical;
}

static cJSON *params_object(const tb_row_params *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "algorithm", p->algorithm);
  cJSON_AddStringToObject(o, "impl", p->impl);
  cJSON_AddStringToObject(o, "type", p->type);
  cJSON_AddNumberToObject(o, "n", (double)p->n);
  if (p->seg >= 0) cJSON_AddNumberToObject(o, "seg", (double)p->seg);
  if (p->nt > 0) cJSON_AddNumberToObject(o, "nt", p->nt), cJSON_AddNumberToObject(o, "vt", p->vt);
  if (p->variant[0]) cJSON_AddStringToObject(o, "variant", p->variant);
  return o;
}

/* Sets a row's one "params" object: rows read back from a committed file
 * already carry one, and JSON objects must not repeat a key. */
static void set_params(cJSON *row, const tb_row_params *p) {
  while (cJSON_HasObjectItem(row, "params")) cJSON_DeleteItemFromObjectCaseSensitive(row, "params");
  cJSON_AddItemToObject(row, "params", params_object(p));
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Moves the rows of old that new_rows does not measure to the end of new_rows;
 * returns how many. */
static int keep_unmeasured(cJSON *new_rows, cJSON *old_rows) {
  const int count = cJSON_GetArraySize(new_rows);
  char **measured = calloc((size_t)count + 1, sizeof *measured);
  int m = 0, kept = 0;
  const cJSON *row;
  tb_row_params p;
  cJSON_ArrayForEach(row, new_rows) {
    const char *key = row_key(row, &p);
    if (key && measured) measured[m++] = strdup(key);
  }
  if (measured) qsort(measured, (size_t)m, sizeof *measured, cmp_str);
  while (measured && cJSON_GetArraySize(old_rows) > 0) {
    cJSON *old = cJSON_DetachItemFromArray(old_rows, 0);
    const char *key = row_key(old, &p);
    if (key && !bsearch(&key, measured, (size_t)m, sizeof *measured, cmp_str)) {
      set_params(old, &p);
      cJSON_AddItemToArray(new_rows, old);
      ++kept;
    } else {
      cJSON_Delete(old);
    }
  }
  for (int i = 0; i < m; ++i) free(measured[i]);
  free(measured);
  return kept;
}

/* ---- provenance: which run measured a row ------------------------------------------ */

/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian). */
static long long days_from_civil(long long y, int m, int d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* Google Benchmark's date ("2026-11-24T01:45:49+01:00") as UTC
 * ("2026-11-24T00:45:49Z"); anything else is copied as it is. */
static void utc_date(const char *date, char *out, size_t cap) {
  int y, mo, d, h, mi, sec, zh = 0, zm = 0, consumed = 0;
  if (sscanf(date, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &consumed) != 6) {
    snprintf(out, cap, "%s", date);
    return;
  }
  const char *zone = date + consumed;
  int sign = 0;
  if (strcmp(zone, "Z") == 0 || zone[0] == '\0') sign = 1;
  else if ((zone[0] == '+' || zone[0] == '-') && sscanf(zone + 1, "%2d:%2d", &zh, &zm) == 2)
    sign = zone[0] == '+' ? 1 : -1;
  const time_t at = (time_t)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
                             sign * (zh * 3600 + zm * 60));
  struct tm utc;
  if (sign == 0 || !gmtime_r(&at, &utc) || strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
    snprintf(out, cap, "%s", date);
}

/* The run a file's context names; for a file from before runs had ids, one
 * derived from its commit and date. */
static void context_run(const cJSON *ctx, tb_run_ref *out) {
  const char *commit = tb_json_string(ctx, "commit"), *id = tb_json_string(ctx, "run_id");
  const char *run_date = tb_json_string(ctx, "run_date"), *date = tb_json_string(ctx, "date");
  snprintf(out->commit, sizeof out->commit, "%s", commit ? commit : "unknown");
  if (run_date) snprintf(out->date, sizeof out->date, "%s", run_date);
  else utc_date(date ? date : "unknown", out->date, sizeof out->date);
  if (id) snprintf(out->run_id, sizeof out->run_id, "%s", id);
  else snprintf(out->run_id, sizeof out->run_id, "%s@%s", out->commit, out->date);
}

void tb_results_row_run(const cJSON *root, const cJSON *row, tb_run_ref *out) {
  context_run(cJSON_GetObjectItemCaseSensitive(root, "context"), out);
  const char *id = tb_json_string(row, "run_id");
  const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
  const cJSON *run = id ? cJSON_GetObjectItemCaseSensitive(runs, id) : NULL;
  const char *commit = tb_json_text(row, "commit");
  if (!commit) commit = tb_json_text(run, "commit");
  if (commit) snprintf(out->commit, sizeof out->commit, "%s", commit);
  if (!id) return;
  const char *date = tb_json_string(row, "run_date");
  if (!date) date = tb_json_string(run, "date");
  snprintf(out->run_id, sizeof out->run_id, "%s", id);
  snprintf(out->date, sizeof out->date, "%s", date ? date : "unknown");
}

/* The distinct runs seen so far: all of them, so that a cap on the
 * caller's array does not make one run count twice. */
typedef struct {
  tb_run_ref *runs;
  int count, cap;
  bool failed;
} run_set;

static void run_set_add(run_set *set, const tb_run_ref *r) {
  for (int i = 0; i < set->count; ++i)
    if (strcmp(set->runs[i].run_id, r->run_id) == 0) return;
  if (set->count == set->cap) {
    const int cap = set->cap ? 2 * set->cap : 8;
    tb_run_ref *grown = realloc(set->runs, sizeof *grown * (size_t)cap);
    if (!grown) {
      set->failed = true;
      return;
    }
    set->runs = grown, set->cap = cap;
  }
  set->runs[set->count++] = *r;
}

int tb_results_runs_of(const cJSON *root, const cJSON *const *rows, int count, tb_run_ref *runs,
                       int cap) {
  run_set set = {0};
  tb_run_ref r;
  const cJSON *row = rows ? NULL : cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  row = row ? row->child : NULL;
  for (int i = 0; rows ? i < count : row != NULL; ++i) {
    tb_results_row_run(root, rows ? rows[i] : row, &r);
    run_set_add(&set, &r);
    if (!rows) row = row->next;
  }
  for (int i = 0; i < set.count && i < cap; ++i) runs[i] = set.runs[i];
  free(set.runs);
  if (set.failed) {
    tb_fail(TB_ERR_OUT_OF_MEMORY, "tb_results_runs_of: out of memory");
    return -1;
  }
  return set.count;
}

int tb_run_refs_summary(const tb_run_ref *refs, int count, char *out, size_t cap) {
  int runs = 0;
  size_t len = 0;
  if (cap) out[0] = '\0';
  for (int i = 0; i < count; ++i) {
    bool seen_run = false, seen_commit = false;
    for (int j = 0; j < i; ++j) {
      seen_run |= strcmp(refs[j].run_id, refs[i].run_id) == 0;
      seen_commit |= strcmp(refs[j].commit, refs[i].commit) == 0;
    }
    runs += !seen_run;
    if (!seen_commit && len < cap)
      len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", refs[i].commit);
  }
  if (runs > 1 && len < cap) snprintf(out + len, cap - len, " (%d runs)", runs);
  return runs;
}

/* The "runs" entry of the run a context describes. Files from before the
 * driver's version was known hold the CUDA driver API version as "driver". */
static cJSON *run_entry(const cJSON *ctx, const tb_run_ref *run) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "commit", run->commit);
  cJSON_AddStringToObject(e, "date", run->date);
  const bool old = !tb_json_string(ctx, "cuda_driver_api");
  const char *driver = tb_json_text(ctx, "driver"), *api = tb_json_text(ctx, "cuda_driver_api");
  const char *const fields[][2] = {{"gpu", tb_json_text(ctx, "gpu")},
                                   {"device", tb_json_text(ctx, "device")},
                                   {"driver", old ? NULL : driver},
                                   {"cuda_driver_api", old ? driver : api},
                                   {"runtime", tb_json_text(ctx, "runtime")}};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; ++i)
    if (fields[i][1]) cJSON_AddStringToObject(e, fields[i][0], fields[i][1]);
  const char *copy = tb_json_text(ctx, "copy_gbps");
  if (copy) cJSON_AddNumberToObject(e, "copy_gbps", strtod(copy, NULL));
  cJSON *libraries = cJSON_AddObjectToObject(e, "libraries");
  for (const cJSON *c = ctx ? ctx->child : NULL; c; c = c->next)
    if (cJSON_IsString(c) && c->string && strncmp(c->string, "library:", 8) == 0)
      cJSON_AddStringToObject(libraries, c->string + 8, c->valuestring);
  return e;
}

/* Gives each row of rows that names no run the run of its file's context
 * (and its board), and makes runs describe that run if any row took it. */
static void stamp_rows(cJSON *rows, const cJSON *ctx, cJSON *runs) {
  tb_run_ref run;
  context_run(ctx, &run);
  const char *device = tb_json_string(ctx, "device");
  bool used = false;
  cJSON *row;
  cJSON_ArrayForEach(row, rows) {
    /* Each row names the board that measured it (the run's context says it
     * once): a merge of several GPUs' runs keeps that per row. */
    if (device && !cJSON_HasObjectItem(row, "device")) cJSON_AddStringToObject(row, "device", device);
    if (tb_json_string(row, "run_id")) continue;
    static const char *const keys[] = {"commit", "run_id", "run_date"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i)
      cJSON_DeleteItemFromObjectCaseSensitive(row, keys[i]);
    cJSON_AddStringToObject(row, "commit", run.commit);
    cJSON_AddStringToObject(row, "run_id", run.run_id);
    cJSON_AddStringToObject(row, "run_date", run.date);
    used = true;
  }
  if (used && !cJSON_HasObjectItem(runs, run.run_id))
    cJSON_AddItemToObject(runs, run.run_id, run_entry(ctx, &run));
}

/* The file's "runs" object (created if it has none). */
static cJSON *runs_of(cJSON *root) {
  cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
  if (cJSON_IsObject(runs)) return runs;
  cJSON_DeleteItemFromObjectCaseSensitive(root, "runs");
  return cJSON_AddObjectToObject(root, "runs");
}

/* Rebuilds root's runs to hold exactly the runs its rows name, in the
 * order the rows first name them, from `described` (entries of every run
 * known; a run named without one gets an empty entry, not a made-up one). */
static void keep_named_runs(cJSON *root, cJSON *described) {
  cJSON *runs = cJSON_CreateObject();
  const cJSON *row;
  cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(root, "benchmarks")) {
    const char *id = tb_json_string(row, "run_id");
    if (!id || cJSON_HasObjectItem(runs, id)) continue;
    cJSON *e = cJSON_DetachItemFromObjectCaseSensitive(described, id);
    cJSON_AddItemToObject(runs, id, e ? e : cJSON_CreateObject());
  }
  cJSON_DeleteItemFromObjectCaseSensitive(root, "runs");
  cJSON_AddItemToObject(root, "runs", runs);
}

/* Seven significant digits: finer than any measurement's noise, and half
 * the file of the 17 a double round-trips with. */
static void round_numbers(cJSON *item) {
  for (cJSON *c = item; c; c = c->next) {
    if (cJSON_IsNumber(c) && isfinite(c->valuedouble) && c->valuedouble != (double)(int64_t)c->valuedouble) {
      char text[32];
      snprintf(text, sizeof text, "%.7g", c->valuedouble);
      cJSON_SetNumberValue(c, strtod(text, NULL));
    }
    if (c->child) round_numbers(c->child);
  }
}

/* What a row carries that the results do not use: Google Benchmark's
 * internal indices and the thread count (always 1 here). */
static void slim_row(cJSON *row) {
  static const char *const unused[] = {"family_index", "per_family_instance_index", "threads"};
  for (size_t i = 0; i < sizeof unused / sizeof *unused; ++i)
    cJSON_DeleteItemFromObjectCaseSensitive(row, unused[i]);
  round_numbers(row->child);
}

/* The context formatted, then one line per row: compact, and a diff of two
 * runs shows the rows that changed. */
static bool write_rows(FILE *f, cJSON *root) {
  char *ctx = cJSON_Print(cJSON_GetObjectItemCaseSensitive(root, "context"));
  bool ok = fprintf(f, "{\n\"context\": %s,\n\"runs\": {", ctx ? ctx : "{}") > 0;
  free(ctx);
  bool first = true;
  const cJSON *run;
  cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(root, "runs")) {
    cJSON *name = cJSON_CreateString(run->string);
    char *key = cJSON_PrintUnformatted(name), *text = cJSON_PrintUnformatted(run);
    cJSON_Delete(name);
    ok = ok && key && text && fprintf(f, "%s\n%s: %s", first ? "" : ",", key, text) > 0;
    free(key);
    free(text);
    first = false;
  }
  ok = ok && fprintf(f, "%s},\n\"benchmarks\": [\n", first ? "" : "\n") > 0;
  cJSON *row;
  first = true;
  cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(root, "benchmarks")) {
    slim_row(row);
    char *text = cJSON_PrintUnformatted(row);
    ok = ok && text && fprintf(f, "%s%s", first ? "" : ",\n", text) > 0;
    free(text);
    first = false;
  }
  return ok && fputs("\n]\n}\n", f) >= 0;
}

static tb_status write_atomically(cJSON *root, const char *path) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && write_rows(f, root);
  ok = f && fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    const int err = errno;
    remove(tmp);
    return tb_fail(TB_ERR_IO, "cannot write %s: %s", path, strerror(err));
  }
  return TB_OK;
}

tb_status tb_results_drop_failed(const char *written, const char *message, int *dropped) {
  if (dropped) *dropped = 0;
  cJSON *root = NULL;
  tb_status st = tb_results_parse(written, &root);
  if (st != TB_OK) return st;
  cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  const int count = cJSON_GetArraySize(rows);
  char **failed = calloc((size_t)count + 1, sizeof *failed);
  if (!failed) {
    cJSON_Delete(root);
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "reading %s: out of memory", written);
  }
  int m = 0;
  const cJSON *row;
  tb_row_params p;
  cJSON_ArrayForEach(row, rows) {
    const char *text = tb_json_string(row, "error_message");
    const char *key = row_key(row, &p);
    if (!key || !text || strcmp(text, message) != 0 ||
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "error_occurred")))
      continue;
    if (!(failed[m] = strdup(key))) {
      st = tb_fail(TB_ERR_OUT_OF_MEMORY, "reading %s: out of memory", written);
      break;
    }
    ++m;
  }
  qsort(failed, (size_t)m, sizeof *failed, cmp_str);
  int names = 0;
  for (int i = 0; i < m; ++i) names += i == 0 || strcmp(failed[i], failed[i - 1]) != 0;
  for (int i = cJSON_GetArraySize(rows) - 1; st == TB_OK && m > 0 && i >= 0; --i) {
    const char *key = row_key(cJSON_GetArrayItem(rows, i), &p);
    if (key && bsearch(&key, failed, (size_t)m, sizeof *failed, cmp_str))
      cJSON_DeleteItemFromArray(rows, i);
  }
  if (st == TB_OK && m > 0) st = write_atomically(root, written);
  for (int i = 0; i < m; ++i) free(failed[i]);
  free(failed);
  cJSON_Delete(root);
  if (st == TB_OK && dropped) *dropped = names;
  return st;
}

tb_status tb_results_commit(const char *written, const char *result, bool partial) {
  cJSON *root = NULL, *old = NULL;
  tb_status st = tb_results_parse(written, &root);
  if (st != TB_OK) return st;
  cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  cJSON *row;
  tb_row_params p;
  cJSON_ArrayForEach(row, rows) {
    if (row_key(row, &p)) set_params(row, &p);
  }
  /* Every run described: the new one, and those of rows already naming
   * theirs (a merged file merged again). */
  cJSON *described = cJSON_Duplicate(runs_of(root), true);
  stamp_rows(rows, cJSON_GetObjectItemCaseSensitive(root, "context"), described);
  if (partial && access(result, F_OK) == 0) {
    /* A partial run must not cost the rows it did not measure: an unreadable
     * existing file is left alone, and so is the new one. */
    st = tb_results_parse(result, &old);
    if (st != TB_OK) {
      cJSON_Delete(root);
      cJSON_Delete(described);
      return tb_fail(st, "%s; the new rows stay in %s", tb_last_error(), written);
    }
    /* Kept rows keep their run: rows from before rows named one take their
     * file's (its context's commit and date). */
    cJSON *old_runs = runs_of(old);
    stamp_rows(cJSON_GetObjectItemCaseSensitive(old, "benchmarks"),
               cJSON_GetObjectItemCaseSensitive(old, "context"), old_runs);
    cJSON *entry;
    cJSON_ArrayForEach(entry, old_runs) {
      if (entry->string && !cJSON_HasObjectItem(described, entry->string))
        cJSON_AddItemToObject(described, entry->string, cJSON_Duplicate(entry, true));
    }
    const int kept = keep_unmeasured(rows, cJSON_GetObjectItemCaseSensitive(old, "benchmarks"));
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(old, "context");
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(ctx, "commit");
    const cJSON *date = cJSON_GetObjectItemCaseSensitive(ctx, "date");
    char note[256];
    snprintf(note, sizeof note, "%d rows kept from the run of commit %s on %s", kept,
             cJSON_IsString(commit) ? commit->valuestring : "unknown",
             cJSON_IsString(date) ? date->valuestring : "unknown");
    cJSON *new_ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
    if (cJSON_IsObject(new_ctx) && kept > 0) cJSON_AddStringToObject(new_ctx, "partial_update", note);
  }
  keep_named_runs(root, described);
  cJSON_Delete(described);
  st = write_atomically(root, result);
  if (st == TB_OK) remove(written);
  cJSON_Delete(root);
  cJSON_Delete(old);
  return st;
}
