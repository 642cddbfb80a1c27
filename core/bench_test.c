/* Tests of the Google Benchmark bindings (bench.h).
 *
 * Google Benchmark is initialised and run once per process, so main() registers
 * every benchmark, calls tb_bench_main() once, and the CUnit tests then check
 * what it returned and the JSON it wrote. */
#include "core/bench.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cunit.h"

/* Per-benchmark argument: counts calls and frees. */
typedef struct {
  int freed;
  int calls;
  char name[64]; /* tb_bench_name on the last call */
} counter_arg;

enum { N_ARGS = 4 };
static counter_arg g_args[N_ARGS];
static int g_main_rc = -1;
static int g_failures_after = -1;
static int g_register_rc[N_ARGS];
static int g_register_bad_name = 0, g_register_null_name = 0, g_register_null_fn = 0;
static char g_json_path[4096];
static cJSON *g_json = NULL;

static void free_counter_arg(void *p) { ((counter_arg *)p)->freed++; }

/* 1 ms of "device" time per iteration, 1000 items / 4000 bytes per iteration. */
static void bm_manual(tb_bench_state *st, void *arg) {
  ((counter_arg *)arg)->calls++;
  snprintf(((counter_arg *)arg)->name, sizeof ((counter_arg *)arg)->name, "%s", tb_bench_name(st));
  while (tb_bench_keep_running(st)) tb_bench_set_iteration_time(st, 1e-3);
  tb_bench_set_items_processed(st, tb_bench_iterations(st) * 1000);
  tb_bench_set_bytes_processed(st, tb_bench_iterations(st) * 4000);
  tb_bench_set_counter(st, "value", 42.0, TB_COUNTER_VALUE);
  tb_bench_set_counter(st, "rate", 5.0, TB_COUNTER_RATE_PER_ITER);
}

/* Fails before entering the loop, as a suite does when a setup step fails. */
static void bm_fail(tb_bench_state *st, void *arg) {
  ((counter_arg *)arg)->calls++;
  tb_bench_skip_with_error(st, "setup failed: out of memory");
}

static void bm_plain(tb_bench_state *st, void *arg) {
  ((counter_arg *)arg)->calls++;
  while (tb_bench_keep_running(st)) tb_bench_set_iteration_time(st, 1e-3);
}

/* The benchmark object in the JSON whose name starts with prefix + "/"
 * (Google Benchmark appends /iterations:N, /min_time:T and /manual_time). */
static const cJSON *find_run(const char *prefix) {
  const cJSON *benchmarks = cJSON_GetObjectItemCaseSensitive(g_json, "benchmarks");
  const cJSON *b;
  size_t n = strlen(prefix);
  cJSON_ArrayForEach(b, benchmarks) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    if (cJSON_IsString(name) && strncmp(name->valuestring, prefix, n) == 0 &&
        (name->valuestring[n] == '/' || name->valuestring[n] == '\0'))
      return b;
  }
  return NULL;
}

static double number(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Per-iteration real time in seconds, whatever time_unit was used. */
static double real_time_seconds(const cJSON *run) {
  const cJSON *unit = cJSON_GetObjectItemCaseSensitive(run, "time_unit");
  double t = number(run, "real_time");
  if (!cJSON_IsString(unit)) return NAN;
  if (strcmp(unit->valuestring, "ns") == 0) return t * 1e-9;
  if (strcmp(unit->valuestring, "us") == 0) return t * 1e-6;
  if (strcmp(unit->valuestring, "ms") == 0) return t * 1e-3;
  if (strcmp(unit->valuestring, "s") == 0) return t;
  return NAN;
}

static int close_to(double got, double want) { return fabs(got - want) <= 1e-6 * fabs(want); }

TB_TEST(test_register_rejects, "register rejects bad input") {
  for (int i = 0; i < N_ARGS; i++) CU_ASSERT_EQUAL(g_register_rc[i], 0);
  CU_ASSERT_EQUAL(g_register_bad_name, -1);
  CU_ASSERT_EQUAL(g_register_null_name, -1);
  CU_ASSERT_EQUAL(g_register_null_fn, -1);
}

TB_TEST(test_return_code, "return code and failures") {
  CU_ASSERT_EQUAL(g_main_rc, 1); /* test/fail failed */
  CU_ASSERT_EQUAL(g_failures_after, 1);
  CU_ASSERT_EQUAL(tb_bench_failures(), 1);
}

TB_TEST(test_name, "name as registered") {
  CU_ASSERT_STRING_EQUAL(g_args[0].name, "test/manual/n:1000");
}

TB_TEST(test_args_freed_once, "args freed once") {
  for (int i = 0; i < N_ARGS; i++) {
    CU_ASSERT_EQUAL(g_args[i].freed, 1);
    CU_ASSERT(g_args[i].calls >= 1);
  }
}

TB_TEST(test_json_parsed, "json written") { CU_ASSERT_PTR_NOT_NULL_FATAL(g_json); }

TB_TEST(test_manual_time_and_rates, "manual time and rates") {
  const cJSON *run = find_run("test/manual/n:1000");
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT_EQUAL(number(run, "iterations"), 10.0);
  CU_ASSERT(close_to(real_time_seconds(run), 1e-3));
  CU_ASSERT(close_to(number(run, "items_per_second"), 1e6));
  CU_ASSERT(close_to(number(run, "bytes_per_second"), 4e6));
  CU_ASSERT(close_to(number(run, "value"), 42.0));
  CU_ASSERT(close_to(number(run, "rate"), 5.0 / 1e-3));
  CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(run, "error_occurred"));
}

TB_TEST(test_error_in_json, "error in json") {
  const cJSON *run = find_run("test/fail");
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "error_occurred")));
  const cJSON *msg = cJSON_GetObjectItemCaseSensitive(run, "error_message");
  CU_ASSERT_FATAL(cJSON_IsString(msg));
  CU_ASSERT_STRING_EQUAL(msg->valuestring, "setup failed: out of memory");
}

/* set_min_time then set_iterations on the same benchmark: the later one wins
 * (Google Benchmark itself refuses both). */
TB_TEST(test_later_setting_wins, "later setting wins") {
  const cJSON *run = find_run("test/min_then_iters");
  CU_ASSERT_PTR_NOT_NULL_FATAL(run);
  CU_ASSERT_EQUAL(number(run, "iterations"), 3.0);
  CU_ASSERT_PTR_NOT_NULL(find_run("test/min_time"));
}

TB_TEST(test_context, "custom context") {
  const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(g_json, "context");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(ctx, "tb_test_key");
  CU_ASSERT_FATAL(cJSON_IsString(v));
  CU_ASSERT_STRING_EQUAL(v->valuestring, "tb_test_value");
}

/* Debian's library, built without NDEBUG, writes "library_build_type":
 * "debug"; the context then says what that means here. */
TB_TEST(test_library_build_note, "library build note") {
  const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(g_json, "context");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(ctx, "library_build_type");
  const cJSON *note = cJSON_GetObjectItemCaseSensitive(ctx, "benchmark_library_build");
  if (cJSON_IsString(type) && strcmp(type->valuestring, "debug") == 0) {
    CU_ASSERT_FATAL(cJSON_IsString(note));
    CU_ASSERT_EQUAL(strncmp(note->valuestring, "debug (assertions on", 20), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(note->valuestring, "manual"));
  } else {
    CU_ASSERT_PTR_NULL(note);
  }
}

static cJSON *read_json(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (cap - len - 1 == 0) {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL) return NULL;
  buf[len] = '\0';
  cJSON *json = cJSON_Parse(buf);
  free(buf);
  return json;
}

int main(void) {
  /* Everything Google Benchmark does happens here, once. */
  g_register_rc[0] = tb_bench_register("test/manual/n:1000", bm_manual, &g_args[0], free_counter_arg);
  tb_bench_set_iterations(10);
  g_register_rc[1] = tb_bench_register("test/fail", bm_fail, &g_args[1], free_counter_arg);
  g_register_rc[2] = tb_bench_register("test/min_then_iters", bm_plain, &g_args[2], free_counter_arg);
  tb_bench_set_min_time(0.01);
  tb_bench_set_iterations(3);
  g_register_rc[3] = tb_bench_register("test/min_time", bm_plain, &g_args[3], free_counter_arg);
  tb_bench_set_min_time(0.01);
  g_register_bad_name = tb_bench_register("", bm_plain, NULL, NULL);
  g_register_null_name = tb_bench_register(NULL, bm_plain, NULL, NULL);
  g_register_null_fn = tb_bench_register("test/null_fn", NULL, NULL, NULL);
  tb_bench_add_context("tb_test_key", "tb_test_value");

  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(g_json_path, sizeof g_json_path, "%s/bench_test.json", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
  char out_flag[4200];
  snprintf(out_flag, sizeof out_flag, "--benchmark_out=%s", g_json_path);
  char *argv[] = {"bench_test", out_flag, "--benchmark_out_format=json", NULL};
  g_main_rc = tb_bench_main(3, argv);
  g_failures_after = tb_bench_failures();
  g_json = read_json(g_json_path);

  const int rc = tb_test_run("bench", NULL);
  cJSON_Delete(g_json);
  return rc;
}
