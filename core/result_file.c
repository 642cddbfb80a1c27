/* The one reader of result files (result_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/result_file.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double tb_time_unit_ns(const char *unit) {
  static const struct {
    const char *name;
    double ns;
  } units[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; ++i)
    if (strcmp(unit, units[i].name) == 0) return units[i].ns;
  return NAN;
}

/* A copy of the member's string (NULL when it has none): the rows outlive
 * the parsed file. Out of memory sets *oom. */
static char *copy_string(const cJSON *o, const char *key, bool *oom) {
  const char *v = tb_json_string(o, key);
  char *copy = v ? strdup(v) : NULL;
  *oom |= v && !copy;
  return copy;
}

/* Whether v is a whole number in [lo, hi]. */
static bool whole_in(double v, double lo, double hi) {
  return v >= lo && v <= hi && v == floor(v);
}

/* p from the row's "params" object (the writer's params_object, core/results.c);
 * false when a field is missing, of another type or out of range. */
static bool params_from_object(const cJSON *params, tb_row_params *p) {
  const char *algorithm = tb_json_text(params, "algorithm"), *impl = tb_json_text(params, "impl");
  const char *type = tb_json_text(params, "type"), *variant = tb_json_string(params, "variant");
  const double n = tb_json_number(params, "n"), seg = tb_json_number(params, "seg");
  const double nt = tb_json_number(params, "nt"), vt = tb_json_number(params, "vt");
  const bool boxed = !isnan(nt) || !isnan(vt);
  if (!algorithm || !impl || !type || !whole_in(n, 1, 0x1p62) ||
      (!isnan(seg) && !whole_in(seg, 0, 0x1p62)) ||
      (boxed && (!whole_in(nt, 1, 4096) || !whole_in(vt, 1, 4096))))
    return false;
  p->n = (int64_t)n;
  p->seg = isnan(seg) ? -1 : (int64_t)seg;
  p->nt = boxed ? (int)nt : 0, p->vt = boxed ? (int)vt : 0;
  if (strlen(algorithm) >= sizeof p->algorithm || strlen(impl) >= sizeof p->impl ||
      strlen(type) >= sizeof p->type || (variant && strlen(variant) >= sizeof p->variant))
    return false;
  strcpy(p->algorithm, algorithm), strcpy(p->impl, impl), strcpy(p->type, type);
  strcpy(p->variant, variant ? variant : "");
  /* The key its name has, less Google Benchmark's segments. */
  char *key = p->canonical;
  const size_t cap = sizeof p->canonical;
  size_t len =
      (size_t)snprintf(key, cap, "%s/%s/%s/n:%lld", algorithm, impl, type, (long long)p->n);
  if (p->seg >= 0 && len < cap)
    len += (size_t)snprintf(key + len, cap - len, "/seg:%lld", (long long)p->seg);
  if (boxed && len < cap)
    len += (size_t)snprintf(key + len, cap - len, "/nt:%d/vt:%d", p->nt, p->vt);
  if (p->variant[0] && len < cap) len += (size_t)snprintf(key + len, cap - len, "/%s", p->variant);
  return len < cap;
}

/* p from the name of a row without "params": an aggregate's is its row's
 * name with "_<aggregate>" appended, else its "run_name" says it. */
static bool params_from_name(const cJSON *b, tb_row_kind kind, tb_row_params *p) {
  const char *name = tb_json_string(b, "name"), *run_name = tb_json_string(b, "run_name");
  const char *aggregate = tb_json_string(b, "aggregate_name");
  char row_name[512];
  if (name && kind == TB_ROW_AGGREGATE && aggregate) {
    const size_t len = strlen(name), alen = strlen(aggregate);
    const bool suffixed = len > alen + 1 && name[len - alen - 1] == '_' &&
                          strcmp(name + len - alen, aggregate) == 0;
    if (suffixed && len - alen - 1 < sizeof row_name) {
      snprintf(row_name, sizeof row_name, "%.*s", (int)(len - alen - 1), name);
      name = row_name;
    } else if (run_name) {
      name = run_name;
    }
  }
  return name && tb_row_params_parse(name, p) == TB_OK;
}

static tb_row_kind kind_of(const cJSON *b) {
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(b, "run_type");
  if (!type) return TB_ROW_ITERATION;
  if (cJSON_IsString(type) && strcmp(type->valuestring, "iteration") == 0) return TB_ROW_ITERATION;
  if (cJSON_IsString(type) && strcmp(type->valuestring, "aggregate") == 0) return TB_ROW_AGGREGATE;
  return TB_ROW_UNKNOWN;
}

/* throttle_reasons: NVML's bit mask, or a list of names; 0, "", "0" and
 * "none" mean none. */
static bool throttled(const cJSON *b) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "throttle_reasons");
  if (cJSON_IsNumber(t)) return t->valuedouble != 0;
  if (cJSON_IsString(t))
    return t->valuestring[0] && strcmp(t->valuestring, "0") && strcmp(t->valuestring, "none");
  return false;
}

/* Fills r from b, a row of the parsed result root; false when out of memory. */
static bool read_row(const cJSON *root, const cJSON *b, tb_result_row *r) {
  bool oom = false;
  memset(r, 0, sizeof *r);
  r->kind = kind_of(b);
  r->p.n = -1, r->p.seg = -1;
  const cJSON *params = cJSON_IsObject(b) ? cJSON_GetObjectItemCaseSensitive(b, "params") : NULL;
  r->params_ok = params ? params_from_object(params, &r->p) : params_from_name(b, r->kind, &r->p);
  const char *aggregate = tb_json_string(b, "aggregate_name");
  snprintf(r->p.aggregate, sizeof r->p.aggregate, "%s",
           r->kind == TB_ROW_AGGREGATE && aggregate ? aggregate : "");
  r->name = copy_string(b, "name", &oom);
  r->failed =
      cJSON_IsObject(b) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "error_occurred"));
  r->error_message = copy_string(b, "error_message", &oom);
  r->real_time = tb_json_number(b, "real_time");
  const char *unit = tb_json_string(b, "time_unit");
  snprintf(r->time_unit, sizeof r->time_unit, "%s", unit ? unit : "");
  r->items_per_second = tb_json_number(b, "items_per_second");
  r->copy_bw_pct = tb_json_number(b, "copy_bw_pct");
  r->l2_resident = tb_json_number(b, "l2_resident");
  r->repetitions = tb_json_number(b, "repetitions");
  r->box_nt = tb_json_number(b, "nt");
  r->box_vt = tb_json_number(b, "vt");
  r->sm_clock_mhz = tb_json_number(b, "sm_clock_mhz");
  r->mem_clock_mhz = tb_json_number(b, "mem_clock_mhz");
  r->throttled = cJSON_IsObject(b) && throttled(b);
  r->device = copy_string(b, "device", &oom);
  tb_results_row_run(root, b, &r->run);
  return !oom;
}

static bool read_context(const cJSON *ctx, tb_result_file *f) {
  const int size = cJSON_IsObject(ctx) ? cJSON_GetArraySize(ctx) : 0;
  f->context = calloc((size_t)size + 1, sizeof *f->context);
  if (!f->context) return false;
  for (const cJSON *c = size ? ctx->child : NULL; c; c = c->next) {
    char number[32];
    if (cJSON_IsNumber(c)) snprintf(number, sizeof number, "%g", c->valuedouble);
    const char *value = cJSON_IsString(c) ? c->valuestring : cJSON_IsNumber(c) ? number : NULL;
    if (!value || !c->string) continue;
    tb_result_context_entry *e = &f->context[f->context_count++];
    e->key = strdup(c->string), e->value = strdup(value);
    if (!e->key || !e->value) return false;
  }
  return true;
}

static bool read_runs(const cJSON *runs, tb_result_file *f) {
  const int size = cJSON_IsObject(runs) ? cJSON_GetArraySize(runs) : 0;
  f->runs = calloc((size_t)size + 1, sizeof *f->runs);
  if (!f->runs) return false;
  for (const cJSON *e = size ? runs->child : NULL; e; e = e->next) {
    if (!cJSON_IsObject(e) || !e->string) continue;
    tb_result_run *r = &f->runs[f->run_count++];
    const char *commit = tb_json_string(e, "commit"), *date = tb_json_string(e, "date");
    const struct {
      char *out;
      size_t cap;
      const char *value;
    } fields[] = {{r->ref.run_id, sizeof r->ref.run_id, e->string},
                  {r->ref.commit, sizeof r->ref.commit, commit ? commit : "unknown"},
                  {r->ref.date, sizeof r->ref.date, date ? date : "unknown"},
                  {r->gpu, sizeof r->gpu, tb_json_string(e, "gpu")},
                  {r->device, sizeof r->device, tb_json_string(e, "device")},
                  {r->driver, sizeof r->driver, tb_json_string(e, "driver")},
                  {r->cuda_driver_api, sizeof r->cuda_driver_api,
                   tb_json_string(e, "cuda_driver_api")},
                  {r->runtime, sizeof r->runtime, tb_json_string(e, "runtime")}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
      snprintf(fields[i].out, fields[i].cap, "%s", fields[i].value ? fields[i].value : "");
    r->copy_gbps = tb_json_number(e, "copy_gbps");
  }
  return true;
}

tb_status tb_result_file_load(const char *path, tb_result_file *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->path, sizeof out->path, "%s", path);
  cJSON *root = NULL;
  TB_TRY(tb_results_parse(path, &root));
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  const size_t count = (size_t)cJSON_GetArraySize(rows);
  bool ok = read_context(cJSON_GetObjectItemCaseSensitive(root, "context"), out) &&
            read_runs(cJSON_GetObjectItemCaseSensitive(root, "runs"), out) &&
            (out->rows = calloc(count + 1, sizeof *out->rows)) != NULL;
  for (const cJSON *b = ok ? rows->child : NULL; ok && b; b = b->next)
    ok = read_row(root, b, &out->rows[out->count++]);
  cJSON_Delete(root);
  return ok ? TB_OK : tb_fail(TB_ERR_OUT_OF_MEMORY, "cannot read %s: out of memory", path);
}

void tb_result_file_free(tb_result_file *f) {
  for (size_t i = 0; f->rows && i < f->count; ++i)
    free(f->rows[i].name), free(f->rows[i].error_message), free(f->rows[i].device);
  for (size_t i = 0; f->context && i < f->context_count; ++i)
    free(f->context[i].key), free(f->context[i].value);
  free(f->rows), free(f->context), free(f->runs);
  memset(f, 0, sizeof *f);
}

const char *tb_result_context(const tb_result_file *f, const char *key) {
  for (size_t i = 0; i < f->context_count; ++i)
    if (strcmp(f->context[i].key, key) == 0) return f->context[i].value;
  return NULL;
}
