/* A sweep that needs no GPU, for the tests of the sweep runtime
 * (sweep_test.sh): the same tb_sweep_main_with, result writing and flags as
 * the real sweeps, over rows that "measure" a fixed time on the CPU.
 *
 *   sweep_fake [--fake_fail] [--fake_sleep=S] [SWEEP FLAGS...]
 *
 * --fake_fail makes one row fail (as a failed validation does);
 * --fake_sleep=S makes the last row take S seconds, to interrupt a run. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sweep.h"

static bool g_fail;
static double g_sleep;

typedef struct { double seconds; bool fails, sleeps; } fake_row;

static void run(tb_bench_state *st, void *arg) {
  const fake_row *r = arg;
  if (r->fails && g_fail) {
    tb_bench_skip_with_error(st, "fake validation failed");
    return;
  }
  if (r->sleeps && g_sleep > 0) {
    const struct timespec t = {(time_t)g_sleep, 0};
    nanosleep(&t, NULL);
  }
  while (tb_bench_keep_running(st)) tb_bench_set_iteration_time(st, r->seconds);
  tb_bench_set_items_processed(st, tb_bench_iterations(st) * 1024);
  tb_bench_set_counter(st, "copy_bw_pct", 50.0, TB_COUNTER_VALUE);
}

static void add(const char *name, double seconds, bool fails, bool sleeps) {
  fake_row *r = malloc(sizeof *r);
  if (!r) return;
  *r = (fake_row){seconds, fails, sleeps};
  if (tb_bench_register(name, run, r, free) == 0) tb_bench_set_iterations(3);
}

static void register_all(void) {
  add("fake/tb/int32/n:1024", 1e-6, false, false);
  add("fake/cub/int32/n:1024", 2e-6, false, false);
  add("fake/tb/int32/n:1024/nt:128/vt:4", 3e-6, true, false);
  add("fake/tb/int32/n:4096", 4e-6, false, true);
}

int main(int argc, char **argv) {
  char **args = calloc((size_t)argc + 1, sizeof *args);
  int n = 0;
  if (!args) return 1;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && strcmp(argv[i], "--fake_fail") == 0) g_fail = true;
    else if (i > 0 && strncmp(argv[i], "--fake_sleep=", 13) == 0) g_sleep = atof(argv[i] + 13);
    else args[n++] = argv[i];
  }
  tb_run_meta meta;
  memset(&meta, 0, sizeof meta);
  snprintf(meta.device.name, sizeof meta.device.name, "Fake GPU");
  snprintf(meta.arch, sizeof meta.arch, "sm_00");
  snprintf(meta.gpu_slug, sizeof meta.gpu_slug, "fake-gpu");
  snprintf(meta.commit, sizeof meta.commit, "%s", getenv("TB_COMMIT") ? getenv("TB_COMMIT") : "fake");
  meta.copy_gbps = 100.0;
  const int rc = tb_sweep_main_with(n, args, "fake", register_all, &meta);
  free(args);
  return rc;
}
