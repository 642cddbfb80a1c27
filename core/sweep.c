#include "core/sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cuda.h"
#include "core/timing.h"

tb_sweep_config tb_sweep;

static int mkdir_p(char *path) {
  for (char *p = path + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    const int rc = mkdir(path, 0755);
    *p = '/';
    if (rc != 0 && errno != EEXIST) return -1;
  }
  return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int tb_sweep_main(int argc, char **argv, const char *suite, void (*register_all)(void)) {
  const char *results = NULL;
  char **args = calloc((size_t)argc + 3, sizeof *args);
  int nargs = 0;
  if (!args) return 1;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && strncmp(argv[i], "--tb_results=", 13) == 0) results = argv[i] + 13;
    else if (i > 0 && strcmp(argv[i], "--tb_flush_l2") == 0) tb_sweep.flush_l2 = true;
    else if (i > 0 && strcmp(argv[i], "--tb_quick") == 0) tb_sweep.quick = true;
    else args[nargs++] = argv[i];
  }

  if (tb_run_meta_collect(&tb_sweep.meta) != TB_OK) {
    fprintf(stderr, "%s: %s: %s\n", suite, tb_status_string(TB_ERR_NO_DEVICE), tb_last_error());
    free(args);
    return 1;
  }
  const tb_run_meta *m = &tb_sweep.meta;
  char copy[32];
  snprintf(copy, sizeof copy, "%.1f", m->copy_gbps);
  tb_bench_add_context("suite", suite);
  tb_bench_add_context("gpu", m->device.name);
  tb_bench_add_context("arch", m->arch);
  tb_bench_add_context("driver", m->driver);
  tb_bench_add_context("runtime", m->runtime);
  tb_bench_add_context("commit", m->commit);
  tb_bench_add_context("copy_gbps", copy);
  tb_bench_add_context("l2_flush", tb_sweep.flush_l2 ? "yes" : "no");
  fprintf(stderr, "%s on %s (%s), driver %s, runtime %s, copy %.1f GB/s, commit %s\n", suite,
          m->device.name, m->arch, m->driver, m->runtime, m->copy_gbps, m->commit);

  static char out_flag[4096];
  if (results) {
    char dir[4000];
    snprintf(dir, sizeof dir, "%s/%s/%s", results, m->arch, m->gpu_slug);
    if (mkdir_p(dir) != 0) {
      fprintf(stderr, "%s: cannot create %s: %s\n", suite, dir, strerror(errno));
      free(args);
      return 1;
    }
    snprintf(out_flag, sizeof out_flag, "--benchmark_out=%s/%s.json", dir, suite);
    args[nargs++] = out_flag;
    args[nargs++] = "--benchmark_out_format=json";
    fprintf(stderr, "%s: writing %s\n", suite, out_flag + 16);
  }
  args[nargs] = NULL;
  register_all();
  const int rc = tb_bench_main(nargs, args);
  tb_l2_flush_release();
  free(args);
  if (tb_bench_failures() > 0)
    fprintf(stderr, "%s: %d benchmark(s) failed\n", suite, tb_bench_failures());
  return rc;
}

int tb_sweep_reps(int64_t bytes) {
  if (tb_sweep.flush_l2) return 1;
  const int64_t target = 64ll << 20; /* about 20 us of traffic per timed iteration */
  const int64_t reps = bytes > 0 ? target / bytes : 64;
  return reps < 1 ? 1 : reps > 64 ? 64 : (int)reps;
}

int64_t tb_sweep_iterations(int64_t bytes) {
  const int64_t per_iteration = bytes * tb_sweep_reps(bytes);
  const int64_t iters = per_iteration > 0 ? (1ll << 30) / per_iteration : 200;
  return iters < 5 ? 5 : iters > 200 ? 200 : iters;
}

void tb_sweep_measure(tb_bench_state *st, tb_sweep_launch launch, void *ctx, int64_t items,
                      int64_t bytes) {
  tb_timer timer;
  if (tb_timer_create(&timer, 0) != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  const int reps = tb_sweep_reps(bytes);
  tb_status status = launch(ctx); /* warm-up */
  while (status == TB_OK && tb_bench_keep_running(st)) {
    if (tb_sweep.flush_l2 && (status = tb_l2_flush(0)) != TB_OK) break;
    double seconds = 0;
    status = tb_timer_start(&timer);
    for (int r = 0; r < reps && status == TB_OK; ++r) status = launch(ctx);
    if (status == TB_OK) status = tb_timer_stop(&timer, &seconds);
    if (status == TB_OK) tb_bench_set_iteration_time(st, seconds / reps);
  }
  tb_timer_destroy(&timer);
  if (status != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  const int64_t iters = tb_bench_iterations(st);
  tb_bench_set_items_processed(st, iters * items);
  tb_bench_set_bytes_processed(st, iters * bytes);
  if (tb_sweep.meta.copy_gbps > 0)
    tb_bench_set_counter(st, "copy_bw_pct", (double)bytes * 100.0 / (tb_sweep.meta.copy_gbps * 1e9),
                         TB_COUNTER_RATE_PER_ITER);
}

void tb_sweep_name(char *out, size_t cap, const char *algorithm, const char *impl,
                   const char *type, int64_t n, int nt, int vt) {
  int len = snprintf(out, cap, "%s/%s/%s/n:%lld", algorithm, impl, type, (long long)n);
  if (nt > 0 && len > 0 && (size_t)len < cap) snprintf(out + len, cap - len, "/nt:%d/vt:%d", nt, vt);
}
