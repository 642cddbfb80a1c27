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
#include <unistd.h>

/* ---- row names ---------------------------------------------------------------------- */

bool tb_gbench_segment(const char *seg, size_t len) {
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
    if (tb_gbench_segment(seg, strlen(seg))) continue;
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

char *tb_read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t len = 0, cap = 1 << 16;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
    len += got;
    if (cap - len > 1) continue;
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
  if (buf) buf[len] = '\0';
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

static tb_status load_json(const char *path, cJSON **out) {
  char *raw = tb_read_text(path);
  if (!raw) return tb_fail(TB_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  char *text = null_non_finite(raw);
  free(raw);
  if (!text) return tb_fail(TB_ERR_OUT_OF_MEMORY, "cannot read %s: out of memory", path);
  *out = cJSON_Parse(text);
  free(text);
  if (!*out || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(*out, "benchmarks"))) {
    cJSON_Delete(*out);
    *out = NULL;
    return tb_fail(TB_ERR_IO, "%s is not a sweep result (Google Benchmark JSON)", path);
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
  bool ok = fprintf(f, "{\n\"context\": %s,\n\"benchmarks\": [\n", ctx ? ctx : "{}") > 0;
  free(ctx);
  cJSON *row;
  bool first = true;
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

tb_status tb_results_commit(const char *written, const char *result, bool partial) {
  cJSON *root = NULL, *old = NULL;
  tb_status st = load_json(written, &root);
  if (st != TB_OK) return st;
  cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  cJSON *row;
  tb_row_params p;
  /* Each row names the board that measured it (the run's context says it
   * once): a merge of several GPUs' runs keeps that per row. */
  const cJSON *device = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "context"), "device");
  cJSON_ArrayForEach(row, rows) {
    if (row_key(row, &p)) set_params(row, &p);
    if (cJSON_IsString(device) && !cJSON_HasObjectItem(row, "device"))
      cJSON_AddStringToObject(row, "device", device->valuestring);
  }
  if (partial && access(result, F_OK) == 0) {
    /* A partial run must not cost the rows it did not measure: an unreadable
     * existing file is left alone, and so is the new one. */
    st = load_json(result, &old);
    if (st != TB_OK) {
      cJSON_Delete(root);
      return tb_fail(st, "%s; the new rows stay in %s", tb_last_error(), written);
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
  st = write_atomically(root, result);
  if (st == TB_OK) remove(written);
  cJSON_Delete(root);
  cJSON_Delete(old);
  return st;
}
