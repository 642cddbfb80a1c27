/* Result files (core/results.h): row names read back as parameters, and
 * the commit of a run's output: annotate, replace, merge a partial run,
 * refuse to merge into an unreadable file; every row's run and the "runs"
 * object through merges, and which runs a set of rows spans. The reader
 * (core/result_file.h): rows' parameters from "params", from the name only
 * without it, their timing, readings and run, and what it refuses. */
#define _POSIX_C_SOURCE 200809L
#include "core/results.h"
#include "core/result_file.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cunit.h"

TB_TEST(test_params, "row params") {
  tb_row_params p;
  CU_ASSERT_EQUAL(tb_row_params_parse("reduce/tb/int32/n:1024", &p), TB_OK);
  CU_ASSERT_STRING_EQUAL(p.algorithm, "reduce");
  CU_ASSERT_STRING_EQUAL(p.impl, "tb");
  CU_ASSERT_STRING_EQUAL(p.type, "int32");
  CU_ASSERT_EQUAL(p.n, 1024);
  CU_ASSERT_EQUAL(p.seg, -1);
  CU_ASSERT_EQUAL(p.nt, 0);
  CU_ASSERT_STRING_EQUAL(p.aggregate, "");

  /* Names written before they were stable: Google Benchmark's segments go. */
  CU_ASSERT_EQUAL(
      tb_row_params_parse("segreduce/tb/double/n:67108864/seg:16/nt:256/vt:11/iterations:40/"
                          "manual_time",
                          &p),
      TB_OK);
  CU_ASSERT_STRING_EQUAL(p.canonical, "segreduce/tb/double/n:67108864/seg:16/nt:256/vt:11");
  CU_ASSERT_EQUAL(p.seg, 16);
  CU_ASSERT_EQUAL(p.nt, 256);
  CU_ASSERT_EQUAL(p.vt, 11);

  CU_ASSERT_EQUAL(tb_row_params_parse("scan/cub/float/n:4096/variant:inclusive_median", &p), TB_OK);
  CU_ASSERT_STRING_EQUAL(p.aggregate, "median");
  CU_ASSERT_STRING_EQUAL(p.variant, "variant:inclusive");
  CU_ASSERT_STRING_EQUAL(p.canonical, "scan/cub/float/n:4096/variant:inclusive");

  CU_ASSERT_EQUAL(tb_row_params_parse("reduce/tb/int32/n:4096_cv", &p), TB_OK);
  CU_ASSERT_STRING_EQUAL(p.aggregate, "cv");
  CU_ASSERT_STRING_EQUAL(p.canonical, "reduce/tb/int32/n:4096");

  const char *bad[] = {"", "reduce", "reduce/tb/int32", "reduce/tb/int32/n:0",
                       "reduce/tb/int32/n:-4", "reduce/tb/int32/n:12/nt:128",
                       "reduce/tb/int32/n:12/stray"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    CU_ASSERT_EQUAL(tb_row_params_parse(bad[i], &p), TB_ERR_INVALID_ARGUMENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "row '"));
  }
  CU_ASSERT_EQUAL(tb_row_params_parse(NULL, &p), TB_ERR_INVALID_ARGUMENT);
}

static char g_dir[4096];

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static cJSON *read_json(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 16];
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return cJSON_Parse(buf);
}

/* Write text as a run's output, commit it into result (merging or not), read the result. */
static cJSON *commit_text(const char *written, const char *result, bool merge, const char *text) {
  write_file(written, text);
  CU_ASSERT_EQUAL_FATAL(tb_results_commit(written, result, merge), TB_OK);
  cJSON *r = read_json(result);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  return r;
}

static int count_named(const cJSON *root, const char *name) {
  int c = 0;
  const cJSON *b;
  cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(root, "benchmarks")) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "name");
    c += cJSON_IsString(n) && strcmp(n->valuestring, name) == 0;
  }
  return c;
}

TB_TEST(test_commit, "commit, merge, refuse") {
  char written[4200], result[4200];
  snprintf(written, sizeof written, "%s/run.json", g_dir);
  snprintf(result, sizeof result, "%s/result.json", g_dir);
  remove(result);
  cJSON *r = commit_text(written, result, false,
                         "{\"context\": {\"commit\": \"a\", \"date\": \"d1\"}, \"benchmarks\": ["
                         "{\"name\": \"r/tb/int32/n:8\", \"real_time\": 1},"
                         "{\"name\": \"r/cub/int32/n:8\", \"real_time\": 2},"
                         "{\"name\": \"r/tb/int32/n:8/nt:64/vt:1\", \"real_time\": 3}]}");
  CU_ASSERT_EQUAL(access(written, F_OK), -1); /* moved */
  const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "benchmarks"), 2);
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(first, "params");
  CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(params, "nt")->valueint, 64);
  cJSON_Delete(r);

  /* A partial run in an older name format replaces its row, keeps the rest. */
  r = commit_text(written, result, true,
                  "{\"context\": {\"commit\": \"b\"}, \"benchmarks\": ["
                  "{\"name\": \"r/cub/int32/n:8\", \"real_time\": 5},"
                  "{\"name\": \"r/cub/int32/n:8_median\", \"run_type\": \"aggregate\","
                  " \"real_time\": 5}]}");
  CU_ASSERT_EQUAL(count_named(r, "r/cub/int32/n:8"), 1);
  CU_ASSERT_EQUAL(count_named(r, "r/cub/int32/n:8_median"), 1);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:8"), 1);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:8/nt:64/vt:1"), 1);
  const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(r, "context");
  const cJSON *note = cJSON_GetObjectItemCaseSensitive(ctx, "partial_update");
  CU_ASSERT(cJSON_IsString(note) && strstr(note->valuestring, "2 rows kept from the run of commit a"));
  cJSON_Delete(r);

  /* Rows take the device of their run's context unless they name one. */
  r = commit_text(written, result, false,
                  "{\"context\": {\"device\": \"hostA:0000:1B:00.0\"}, \"benchmarks\": ["
                  "{\"name\": \"r/tb/int32/n:8\", \"real_time\": 1},"
                  "{\"name\": \"r/tb/int32/n:16\", \"device\": \"hostB:0000:2C:00.0\"}]}");
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(r, "benchmarks");
  CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 0), "device")->valuestring,
                         "hostA:0000:1B:00.0");
  CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 1), "device")->valuestring,
                         "hostB:0000:2C:00.0");
  cJSON_Delete(r);

  /* Rows that already carry params (a committed file merged again) keep one. */
  r = commit_text(written, result, true,
                  "{\"context\": {}, \"benchmarks\": ["
                  "{\"name\": \"r/tb/int32/n:8\", \"params\": {\"n\": 1},"
                  " \"params\": {\"n\": 2}}]}");
  const cJSON *row;
  cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(r, "benchmarks")) {
    int params_keys = 0;
    for (const cJSON *c = row->child; c; c = c->next) params_keys += strcmp(c->string, "params") == 0;
    CU_ASSERT_EQUAL(params_keys, 1);
  }
  cJSON_Delete(r);

  /* Google Benchmark's bare nan / -nan / inf become null; strings keep theirs. */
  r = commit_text(written, result, false,
                  "{\"context\": {\"note\": \"nan inf\"}, \"benchmarks\": ["
                  "{\"name\": \"r/tb/int32/n:8_cv\", \"x\": -nan, \"y\": NaN, \"z\": Infinity,"
                  " \"label\": \"nan\"}]}");
  const cJSON *cv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "benchmarks"), 0);
  CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cv, "x")));
  CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cv, "y")));
  CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cv, "z")));
  CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(cv, "label")->valuestring, "nan");
  cJSON_Delete(r);

  /* Merging into an unreadable result changes nothing and keeps the new rows. */
  write_file(result, "{\"benchmarks\": [ trunc");
  write_file(written, "{\"context\": {}, \"benchmarks\": [{\"name\": \"r/tb/int32/n:8\"}]}");
  CU_ASSERT_EQUAL(tb_results_commit(written, result, true), TB_ERR_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "the new rows stay in"));
  CU_ASSERT_EQUAL(access(written, F_OK), 0);

  /* A run's own output that is not a result is refused, the result kept. */
  write_file(written, "[1, 2");
  CU_ASSERT_EQUAL(tb_results_commit(written, result, false), TB_ERR_IO);
  r = read_json(result);
  CU_ASSERT_PTR_NULL(r); /* still the (truncated) old text */
  cJSON_Delete(r);
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "(absent)";
}

static const cJSON *row_named(const cJSON *root, const char *name) {
  const cJSON *b;
  cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(root, "benchmarks"))
    if (strcmp(str(b, "name"), name) == 0) return b;
  return NULL;
}

TB_TEST(test_drop_failed, "rows a stopped run never measured") {
  char written[4200];
  snprintf(written, sizeof written, "%s/stopped.json", g_dir);
  /* b's second repetition was never started: every row of b goes, the
   * measured repetition and the aggregate included; c failed otherwise and
   * stays, as does a. */
  write_file(
      written,
      "{\"context\": {\"commit\": \"a\"}, \"benchmarks\": ["
      "{\"name\": \"r/tb/int32/n:8\", \"real_time\": 1},"
      "{\"name\": \"r/tb/int32/n:8_median\", \"run_type\": \"aggregate\", \"real_time\": 1},"
      "{\"name\": \"r/tb/int32/n:16\", \"real_time\": 2},"
      "{\"name\": \"r/tb/int32/n:16\", \"error_occurred\": true,"
      " \"error_message\": \"stop\"},"
      "{\"name\": \"r/tb/int32/n:16_median\", \"run_type\": \"aggregate\", \"real_time\": 2},"
      "{\"name\": \"r/tb/int32/n:32\", \"error_occurred\": true,"
      " \"error_message\": \"stop, but another\"},"
      "{\"name\": \"r/tb/int32/n:64\", \"error_occurred\": true,"
      " \"error_message\": \"stop\"}]}");
  int dropped = -1;
  CU_ASSERT_EQUAL_FATAL(tb_results_drop_failed(written, "stop", &dropped), TB_OK);
  CU_ASSERT_EQUAL(dropped, 2);
  cJSON *r = read_json(written);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "benchmarks")), 3);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:8"), 1);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:8_median"), 1);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:16"), 0);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:16_median"), 0);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:32"), 1);
  CU_ASSERT_EQUAL(count_named(r, "r/tb/int32/n:64"), 0);
  cJSON_Delete(r);
  /* Nothing to drop: the file is left as it was; a missing one is an error. */
  CU_ASSERT_EQUAL(tb_results_drop_failed(written, "stop", &dropped), TB_OK);
  CU_ASSERT_EQUAL(dropped, 0);
  remove(written);
  CU_ASSERT_EQUAL(tb_results_drop_failed(written, "stop", &dropped), TB_ERR_IO);
}

TB_TEST(test_provenance, "provenance through merges") {
  char written[4200], result[4200];
  snprintf(written, sizeof written, "%s/run.json", g_dir);
  snprintf(result, sizeof result, "%s/provenance.json", g_dir);

  /* A file from before rows named their run: "driver" is the CUDA driver
   * API version, the date Google Benchmark's (local, with its offset). */
  cJSON *r = commit_text(written, result, false,
                         "{\"context\": {\"commit\": \"old1\","
                         " \"date\": \"2026-11-24T01:45:49+01:00\","
                         " \"gpu\": \"G\", \"device\": \"h:0000:1B:00.0\", \"driver\": \"13.0\","
                         " \"runtime\": \"13.0\", \"copy_gbps\": \"2990.5\"}, \"benchmarks\": ["
                         "{\"name\": \"r/tb/int32/n:8\", \"real_time\": 1},"
                         "{\"name\": \"r/cub/int32/n:8\", \"real_time\": 2},"
                         "{\"name\": \"r/tb/int32/n:8/nt:64/vt:1_median\","
                         " \"run_type\": \"aggregate\"}]}");
  const char *old_id = "old1@2026-11-24T00:45:49Z";
  const cJSON *row = row_named(r, "r/tb/int32/n:8/nt:64/vt:1_median");
  CU_ASSERT_STRING_EQUAL(str(row, "commit"), "old1");
  CU_ASSERT_STRING_EQUAL(str(row, "run_id"), old_id);
  CU_ASSERT_STRING_EQUAL(str(row, "run_date"), "2026-11-24T00:45:49Z");
  const cJSON *runs = cJSON_GetObjectItemCaseSensitive(r, "runs");
  CU_ASSERT_EQUAL(cJSON_GetArraySize(runs), 1);
  const cJSON *run = cJSON_GetObjectItemCaseSensitive(runs, old_id);
  CU_ASSERT_STRING_EQUAL(str(run, "cuda_driver_api"), "13.0");
  CU_ASSERT_FALSE(cJSON_HasObjectItem(run, "driver")); /* never known */
  CU_ASSERT_STRING_EQUAL(str(run, "gpu"), "G");
  CU_ASSERT_STRING_EQUAL(str(run, "device"), "h:0000:1B:00.0");
  CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(run, "copy_gbps")->valuedouble, 2990.5, 1e-9);
  cJSON_Delete(r);

  /* A partial run of a sweep that names its run: its rows take it, the
   * kept rows keep theirs, "runs" describes both. */
  r = commit_text(written, result, true,
                  "{\"context\": {\"commit\": \"new2\", \"date\": \"2026-11-26T10:00:00+00:00\","
                  " \"run_id\": \"20261126T100000Z-h-42\", \"run_date\": \"2026-11-26T10:00:00Z\","
                  " \"gpu\": \"G\", \"device\": \"h:0000:1B:00.0\", \"driver\": \"580.95.05\","
                  " \"cuda_driver_api\": \"13.0\", \"runtime\": \"13.0\","
                  " \"library:cub\": \"3.0.1\","
                  " \"library:cusparse\": \"12.6.3\"}, \"benchmarks\": ["
                  "{\"name\": \"r/cub/int32/n:8\", \"real_time\": 3, \"sm_clock_mhz\": 1980}]}");
  row = row_named(r, "r/cub/int32/n:8");
  CU_ASSERT_STRING_EQUAL(str(row, "run_id"), "20261126T100000Z-h-42");
  CU_ASSERT_STRING_EQUAL(str(row, "commit"), "new2");
  CU_ASSERT_STRING_EQUAL(str(row, "run_date"), "2026-11-26T10:00:00Z");
  CU_ASSERT_STRING_EQUAL(str(row_named(r, "r/tb/int32/n:8"), "run_id"), old_id);
  CU_ASSERT_STRING_EQUAL(str(row_named(r, "r/tb/int32/n:8"), "commit"), "old1");
  runs = cJSON_GetObjectItemCaseSensitive(r, "runs");
  CU_ASSERT_EQUAL(cJSON_GetArraySize(runs), 2);
  run = cJSON_GetObjectItemCaseSensitive(runs, "20261126T100000Z-h-42");
  CU_ASSERT_STRING_EQUAL(str(run, "driver"), "580.95.05");
  CU_ASSERT_STRING_EQUAL(str(run, "cuda_driver_api"), "13.0");
  CU_ASSERT_STRING_EQUAL(str(run, "date"), "2026-11-26T10:00:00Z");
  const cJSON *libs = cJSON_GetObjectItemCaseSensitive(run, "libraries");
  CU_ASSERT_STRING_EQUAL(str(libs, "cub"), "3.0.1");
  CU_ASSERT_STRING_EQUAL(str(libs, "cusparse"), "12.6.3");
  CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(runs, old_id));

  /* Which runs a set of rows spans. */
  tb_run_ref refs[4];
  char text[256];
  CU_ASSERT_EQUAL(tb_results_runs_of(r, NULL, 0, refs, 4), 2);
  CU_ASSERT_EQUAL(tb_run_refs_summary(refs, 2, text, sizeof text), 2);
  CU_ASSERT_STRING_EQUAL(text, "new2, old1 (2 runs)");
  const cJSON *pair[] = {row_named(r, "r/tb/int32/n:8"), row_named(r, "r/tb/int32/n:8/nt:64/vt:1_median")};
  CU_ASSERT_EQUAL(tb_results_runs_of(r, pair, 2, refs, 4), 1);
  CU_ASSERT_STRING_EQUAL(refs[0].commit, "old1");
  CU_ASSERT_STRING_EQUAL(refs[0].date, "2026-11-24T00:45:49Z");
  CU_ASSERT_EQUAL(tb_run_refs_summary(refs, 1, text, sizeof text), 1);
  CU_ASSERT_STRING_EQUAL(text, "old1");
  CU_ASSERT_EQUAL(tb_results_runs_of(r, NULL, 0, refs, 1), 2); /* counted past cap */
  cJSON_Delete(r);

  /* The merged file merged again (results_merge of a shard's result):
   * every row keeps its run; a run none of whose rows is left goes. */
  char merged[4200];
  snprintf(merged, sizeof merged, "%s/merged.json", g_dir);
  r = commit_text(merged, result, true,
                  "{\"context\": {\"commit\": \"new3\", \"run_id\": \"R3\","
                  " \"run_date\": \"2026-11-27T00:00:00Z\"},"
                  " \"runs\": {\"R3\": {\"commit\": \"new3\"}, \"R0\": {\"commit\": \"shard0\"}},"
                  " \"benchmarks\": ["
                  "{\"name\": \"r/tb/int32/n:8\", \"real_time\": 4},"
                  "{\"name\": \"r/cub/int32/n:8\", \"real_time\": 5, \"commit\": \"shard0\","
                  " \"run_id\": \"R0\", \"run_date\": \"2026-11-26T23:00:00Z\"}]}");
  CU_ASSERT_STRING_EQUAL(str(row_named(r, "r/tb/int32/n:8"), "run_id"), "R3");
  CU_ASSERT_STRING_EQUAL(str(row_named(r, "r/cub/int32/n:8"), "run_id"), "R0");
  CU_ASSERT_STRING_EQUAL(str(row_named(r, "r/tb/int32/n:8/nt:64/vt:1_median"), "run_id"), old_id);
  runs = cJSON_GetObjectItemCaseSensitive(r, "runs");
  CU_ASSERT_EQUAL(cJSON_GetArraySize(runs), 3); /* R3, R0, old1's; new2's rows all replaced */
  CU_ASSERT_FALSE(cJSON_HasObjectItem(runs, "20261126T100000Z-h-42"));
  CU_ASSERT_STRING_EQUAL(str(cJSON_GetObjectItemCaseSensitive(runs, "R0"), "commit"), "shard0");
  CU_ASSERT_PTR_NOT_NULL(cJSON_GetObjectItemCaseSensitive(runs, old_id));
  cJSON_Delete(r);
}

TB_TEST(test_reader, "the reader") {
  char path[4200];
  snprintf(path, sizeof path, "%s/read.json", g_dir);
  /* "params" decide, not the name (made to disagree here); a row without
   * them is read from its name, Google Benchmark's segments dropped. */
  write_file(path,
             "{\"context\": {\"gpu\": \"G\", \"commit\": \"ctx1\", \"date\": \"2026-11-26T00:00:00Z\","
             " \"num_cpus\": 16, \"caches\": []},"
             " \"runs\": {\"R1\": {\"commit\": \"run1\", \"date\": \"2026-11-27T00:00:00Z\","
             " \"gpu\": \"G\", \"driver\": \"580.95.05\", \"copy_gbps\": 2988.7}},"
             " \"benchmarks\": ["
             "{\"name\": \"not/a/row/name\", \"run_type\": \"iteration\", \"real_time\": 2.5,"
             " \"time_unit\": \"us\", \"items_per_second\": 4e9, \"sm_clock_mhz\": 1980,"
             " \"throttle_reasons\": 4, \"device\": \"h:0000:1B:00.0\", \"run_id\": \"R1\","
             " \"params\": {\"algorithm\": \"segreduce\", \"impl\": \"tb\", \"type\": \"int32\","
             " \"n\": 1024, \"seg\": 16, \"nt\": 128, \"vt\": 7}},"
             "{\"name\": \"x_median\", \"run_type\": \"aggregate\", \"aggregate_name\": \"median\","
             " \"commit\": \"own1\", \"run_id\": \"R1\", \"real_time\": NaN, \"throttle_reasons\": \"none\","
             " \"params\": {\"algorithm\": \"reduce\", \"impl\": \"cub\", \"type\": \"float\", \"n\": 8}},"
             "{\"name\": \"reduce/cub/int32/n:1048576/iterations:200/repeats:3/manual_time_cv\","
             " \"run_type\": \"aggregate\", \"aggregate_name\": \"cv\", \"real_time\": 0.01},"
             "{\"name\": \"scan_agg\", \"run_name\": \"scan/tb/int64/n:4096/variant:x\","
             " \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\"},"
             "{\"name\": \"reduce/tb/int32/n:12/stray\", \"error_occurred\": true,"
             " \"error_message\": \"bad\"},"
             "{\"name\": \"r/tb/int32/n:8\", \"run_type\": \"bogus\","
             " \"params\": {\"algorithm\": \"r\", \"impl\": \"tb\", \"type\": \"int32\", \"n\": 0}},"
             "7]}");
  tb_result_file f;
  CU_ASSERT_EQUAL_FATAL(tb_result_file_load(path, &f), TB_OK);
  CU_ASSERT_EQUAL_FATAL(f.count, 7);
  CU_ASSERT_STRING_EQUAL(tb_result_context(&f, "gpu"), "G");
  CU_ASSERT_STRING_EQUAL(tb_result_context(&f, "num_cpus"), "16");
  CU_ASSERT_PTR_NULL(tb_result_context(&f, "caches"));
  CU_ASSERT_PTR_NULL(tb_result_context(&f, "absent"));
  CU_ASSERT_EQUAL_FATAL(f.run_count, 1);
  CU_ASSERT_STRING_EQUAL(f.runs[0].ref.run_id, "R1");
  CU_ASSERT_STRING_EQUAL(f.runs[0].ref.commit, "run1");
  CU_ASSERT_STRING_EQUAL(f.runs[0].driver, "580.95.05");
  CU_ASSERT_STRING_EQUAL(f.runs[0].runtime, "");
  CU_ASSERT_DOUBLE_EQUAL(f.runs[0].copy_gbps, 2988.7, 1e-9);

  const tb_result_row *r = &f.rows[0];
  CU_ASSERT_TRUE(r->params_ok);
  CU_ASSERT_EQUAL(r->kind, TB_ROW_ITERATION);
  CU_ASSERT_STRING_EQUAL(r->p.algorithm, "segreduce");
  CU_ASSERT_STRING_EQUAL(r->p.canonical, "segreduce/tb/int32/n:1024/seg:16/nt:128/vt:7");
  CU_ASSERT_EQUAL(r->p.seg, 16);
  CU_ASSERT_EQUAL(r->p.nt, 128);
  CU_ASSERT_STRING_EQUAL(r->p.aggregate, "");
  CU_ASSERT_STRING_EQUAL(r->name, "not/a/row/name");
  CU_ASSERT_DOUBLE_EQUAL(r->real_time * tb_time_unit_ns(r->time_unit), 2500, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r->items_per_second, 4e9, 1);
  CU_ASSERT_DOUBLE_EQUAL(r->sm_clock_mhz, 1980, 1e-9);
  CU_ASSERT_TRUE(isnan(r->mem_clock_mhz));
  CU_ASSERT_TRUE(r->throttled);
  CU_ASSERT_STRING_EQUAL(r->device, "h:0000:1B:00.0");
  /* Its commit is its run's: the row names none. */
  CU_ASSERT_STRING_EQUAL(r->run.run_id, "R1");
  CU_ASSERT_STRING_EQUAL(r->run.commit, "run1");
  CU_ASSERT_STRING_EQUAL(r->run.date, "2026-11-27T00:00:00Z");

  r = &f.rows[1];
  CU_ASSERT_EQUAL(r->kind, TB_ROW_AGGREGATE);
  CU_ASSERT_STRING_EQUAL(r->p.canonical, "reduce/cub/float/n:8");
  CU_ASSERT_EQUAL(r->p.seg, -1);
  CU_ASSERT_EQUAL(r->p.nt, 0);
  CU_ASSERT_STRING_EQUAL(r->p.aggregate, "median");
  CU_ASSERT_TRUE(isnan(r->real_time)); /* a bare NaN reads as no value */
  CU_ASSERT_FALSE(r->throttled);
  CU_ASSERT_PTR_NULL(r->device);
  CU_ASSERT_STRING_EQUAL(r->run.commit, "own1");

  /* Without params: the name less its aggregate, Google Benchmark's
   * segments dropped; the run of the file's context. */
  r = &f.rows[2];
  CU_ASSERT_TRUE(r->params_ok);
  CU_ASSERT_STRING_EQUAL(r->p.canonical, "reduce/cub/int32/n:1048576");
  CU_ASSERT_STRING_EQUAL(r->p.aggregate, "cv");
  CU_ASSERT_STRING_EQUAL(r->time_unit, "");
  CU_ASSERT_STRING_EQUAL(r->run.commit, "ctx1");
  CU_ASSERT_STRING_EQUAL(r->run.run_id, "ctx1@2026-11-26T00:00:00Z");
  /* An aggregate whose name is not its row's: its run_name. */
  r = &f.rows[3];
  CU_ASSERT_TRUE(r->params_ok);
  CU_ASSERT_STRING_EQUAL(r->p.canonical, "scan/tb/int64/n:4096/variant:x");
  CU_ASSERT_STRING_EQUAL(r->p.variant, "variant:x");
  CU_ASSERT_STRING_EQUAL(r->p.aggregate, "mean");
  /* Neither params nor a row name: kept, not judged. */
  r = &f.rows[4];
  CU_ASSERT_FALSE(r->params_ok);
  CU_ASSERT_TRUE(r->failed);
  CU_ASSERT_STRING_EQUAL(r->error_message, "bad");
  /* Params out of range are no params, whatever the name says. */
  r = &f.rows[5];
  CU_ASSERT_FALSE(r->params_ok);
  CU_ASSERT_EQUAL(r->kind, TB_ROW_UNKNOWN);
  r = &f.rows[6];
  CU_ASSERT_PTR_NULL(r->name);
  CU_ASSERT_FALSE(r->params_ok);
  tb_result_file_free(&f);

  CU_ASSERT_DOUBLE_EQUAL(tb_time_unit_ns("ms"), 1e6, 0);
  CU_ASSERT_TRUE(isnan(tb_time_unit_ns("days")));
  CU_ASSERT_TRUE(isnan(tb_time_unit_ns("")));

  /* What is no result: each refused with a message naming the file. */
  static const struct {
    const char *text, *says;
    size_t len;
  } bad[] = {{"", "empty file", 0},
             {"{\"benchmarks\": []}\0x", "NUL bytes", 21},
             {"{\"benchmarks\": [] } trailing", "not valid JSON", 0},
             {"[1, 2]", "not a JSON object", 0},
             {"{\"context\": {}}", "no \"benchmarks\" array", 0}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    FILE *out = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    fwrite(bad[i].text, 1, bad[i].len ? bad[i].len : strlen(bad[i].text), out);
    fclose(out);
    CU_ASSERT_EQUAL(tb_result_file_load(path, &f), TB_ERR_IO);
    ASSERT_CONTAINS(tb_last_error(), bad[i].says);
    ASSERT_CONTAINS(tb_last_error(), path);
    tb_result_file_free(&f);
  }
  CU_ASSERT_EQUAL(tb_result_file_load(g_dir, &f), TB_ERR_IO);
  ASSERT_CONTAINS(tb_last_error(), "not a regular file");
  remove(path);
  CU_ASSERT_EQUAL(tb_result_file_load(path, &f), TB_ERR_IO);
  ASSERT_CONTAINS(tb_last_error(), "cannot read");
  /* An empty array is a result without rows. */
  write_file(path, "{\"benchmarks\": []}\n");
  CU_ASSERT_EQUAL(tb_result_file_load(path, &f), TB_OK);
  CU_ASSERT_EQUAL(f.count, 0);
  tb_result_file_free(&f);
}

int main(void) {
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s", tmp ? tmp : "/tmp");
  return tb_test_run("results", NULL);
}
