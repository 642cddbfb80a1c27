/* A sweep that needs no GPU, for the tests of the sweep runtime
 * (sweep_test.sh): the same tb_sweep_main_with, result writing and flags as
 * the real sweeps, over rows that "measure" a fixed time on the CPU.
 *
 *   sweep_fake [--fake_fail] [--fake_sleep=S] [SWEEP FLAGS...]
 *
 * --fake_fail makes one row fail (as a failed validation does);
 * --fake_sleep=S makes the last row take S seconds, to interrupt a run.
 * Installed as <family>_bench (a link), it writes <family>.json, which is how
 * the sharded sweep's tests stand it in for every family. The GPU it
 * "measures" on is the one $CUDA_VISIBLE_DEVICES names in $TB_DEVICE_LIST
 * (the pretend GPUs "0, NAME;1, NAME" that tools/shard_sweep.sh reads in
 * place of nvidia-smi), else "Fake GPU"; its board is
 * fake-$CUDA_VISIBLE_DEVICES at PCI bus id 0000:0N:00.0 (N the index), which
 * the stand-in NVML (nvml_fake.c, through $TB_NVML_LIBRARY) answers for;
 * it notes the version of one library, "fakelib" 1.2.3. $TB_FAKE_FAIL_TYPE=T
 * fails the rows of type T. With --tb_trace each row traces a launch that
 * does nothing, through the stand-in CUPTI (cupti_fake.c, through
 * $TB_CUPTI_LIBRARY), whose made-up call its counters and timeline show. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sweep.h"

static bool g_fail;
static double g_sleep;

typedef struct {
  double seconds;
  bool fails, sleeps, fails_by_type;
  int checks; /* how many times the row was "validated" */
} fake_row;

static tb_status nothing(void *ctx) {
  (void)ctx;
  return TB_OK;
}

static void run(tb_bench_state *st, void *arg) {
  fake_row *r = arg;
  if (!tb_sweep_checked(r)) {
    ++r->checks;
    if ((r->fails && g_fail) || r->fails_by_type) {
      tb_bench_skip_with_error(st, "fake validation failed");
      return;
    }
    tb_sweep_checked_pass(r);
  }
  if (r->sleeps && g_sleep > 0) {
    /* The whole time, signals or not: a GPU row is not cut short either. */
    struct timespec t = {(time_t)g_sleep, (long)((g_sleep - (time_t)g_sleep) * 1e9)};
    while (nanosleep(&t, &t) != 0) continue;
  }
  if (tb_sweep_trace(st, nothing, r, nothing) != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  tb_gpu_sample before, after;
  tb_sweep_sample_gpu(&before);
  while (tb_bench_keep_running(st)) tb_bench_set_iteration_time(st, r->seconds);
  tb_sweep_sample_gpu(&after);
  tb_sweep_set_gpu_counters(st, &before, &after);
  tb_bench_set_items_processed(st, tb_bench_iterations(st) * 1024);
  tb_bench_set_counter(st, "copy_bw_pct", 50.0, TB_COUNTER_VALUE);
  tb_bench_set_counter(st, "checks", r->checks, TB_COUNTER_VALUE);
}

static void add(const char *name, double seconds, bool fails, bool sleeps) {
  fake_row *r = malloc(sizeof *r);
  if (!r) return;
  const char *fail_type = getenv("TB_FAKE_FAIL_TYPE");
  char type_segment[64];
  snprintf(type_segment, sizeof type_segment, "/%s/", fail_type ? fail_type : "");
  *r = (fake_row){seconds, fails, sleeps, fail_type && strstr(name, type_segment), 0};
  if (tb_bench_register(name, run, r, free) == 0) tb_bench_set_iterations(3);
}

static void register_all(void) {
  tb_sweep_note_version("fakelib", "1.2.3");
  add("fake/tb/int32/n:1024", 1e-6, false, false);
  add("fake/cub/int32/n:1024", 2e-6, false, false);
  add("fake/tb/int32/n:1024/nt:128/vt:4", 3e-6, true, false);
  add("fake/tb/int32/n:4096", 4e-6, false, true);
  add("fake/tb/float/n:1024", 1e-6, false, false);
  add("fake/cub/float/n:1024", 2e-6, false, false);
}

/* The model of pretend GPU `index` in list ("0, NAME;1, NAME"), else "Fake GPU". */
static void model_of(const char *list, const char *index, char *out, size_t cap) {
  snprintf(out, cap, "Fake GPU");
  for (const char *e = list; e && *e; e = strchr(e, ';') ? strchr(e, ';') + 1 : NULL) {
    const size_t len = strcspn(e, ",;");
    if (e[len] == ',' && strlen(index) == len && strncmp(e, index, len) == 0) {
      const char *name = e + len + 1 + strspn(e + len + 1, " ");
      snprintf(out, cap, "%.*s", (int)strcspn(name, ";"), name);
      return;
    }
  }
}

/* "reduce" for .../reduce_bench, else "fake". */
static void suite_name(const char *argv0, char *out, size_t cap) {
  const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
  const size_t len = strlen(base);
  if (len > 6 && strcmp(base + len - 6, "_bench") == 0) snprintf(out, cap, "%.*s", (int)(len - 6), base);
  else snprintf(out, cap, "fake");
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
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  char board[64], suite[64];
  model_of(getenv("TB_DEVICE_LIST"), visible ? visible : "0", meta.device.name, sizeof meta.device.name);
  snprintf(meta.arch, sizeof meta.arch, "sm_00");
  tb_gpu_slug(meta.device.name, meta.gpu_slug, sizeof meta.gpu_slug);
  snprintf(board, sizeof board, "fake-%s", visible && visible[0] ? visible : "0");
  tb_run_meta_set_device_id(&meta, board);
  snprintf(meta.device.pci_bus_id, sizeof meta.device.pci_bus_id, "0000:%02X:00.0",
           visible ? (unsigned)atoi(visible) & 0xff : 0u);
  suite_name(argv[0], suite, sizeof suite);
  snprintf(meta.commit, sizeof meta.commit, "%s", getenv("TB_COMMIT") ? getenv("TB_COMMIT") : "fake");
  meta.copy_gbps = 100.0;
  const int rc = tb_sweep_main_with(n, args, suite, register_all, &meta);
  free(args);
  return rc;
}
