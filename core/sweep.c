#define _POSIX_C_SOURCE 200809L
#include "core/sweep.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cuda.h"
#include "core/results.h"
#include "core/timing.h"
#include "core/trace.h"

tb_sweep_config tb_sweep;

static const char kHelp[] =
    "tilebench sweep flags:\n"
    "          [--tb_results=DIR]  write DIR/<arch>/<gpu>/<suite>.json (replaced only when the\n"
    "                              run completes; a partial run replaces only its own rows; a\n"
    "                              SIGINT or SIGTERM stops it after the row under way, as a\n"
    "                              partial run, a second one at once, writing nothing)\n"
    "          [--tb_repetitions=N]  run every row N times (default 5): median and spread\n"
    "          [--tb_boxes={all|none}]  none: tuned-default and baseline rows only\n"
    "          [--tb_flush_l2]     flush L2 before every timed launch\n"
    "          [--tb_quick]        the small grid, for a smoke run\n"
    "          [--tb_trace]        one more launch of every row, outside its timed loop, traced\n"
    "                              with CUPTI: trace_* counters and a timeline per row\n"
    "                              (<suite>_trace.txt beside the result, else stderr)\n"
    "          [--tb_list]         list the rows (no GPU needed; writes nothing)\n";

/* The sweep's own flags (tb_sweep_declare_flags) and the values given. */
enum { kMaxOwnFlags = 8 };
static const tb_sweep_flag_def *g_own;
static int g_num_own;
static const char *g_own_value[kMaxOwnFlags];

void tb_sweep_declare_flags(const tb_sweep_flag_def *defs, int n) {
  g_own = defs;
  g_num_own = n < 0 ? 0 : n > kMaxOwnFlags ? kMaxOwnFlags : n;
  if (n > kMaxOwnFlags)
    fprintf(stderr, "tb_sweep_declare_flags: %d flags, only %d kept\n", n, kMaxOwnFlags);
  for (int i = 0; i < kMaxOwnFlags; ++i) g_own_value[i] = NULL;
}

const char *tb_sweep_flag(const char *name) {
  for (int i = 0; name && i < g_num_own; ++i)
    if (strcmp(g_own[i].name, name) == 0) return g_own_value[i];
  return NULL;
}

/* kHelp and a line per flag of the sweep's own. */
static char *help_text(const char *suite) {
  size_t len = sizeof kHelp + strlen(suite) + 64;
  for (int i = 0; i < g_num_own; ++i)
    len += strlen(g_own[i].name) + strlen(g_own[i].value) + strlen(g_own[i].help) + 48;
  char *text = malloc(len);
  if (!text) return NULL;
  size_t n = (size_t)snprintf(text, len, "%s", kHelp);
  if (g_num_own > 0) n += (size_t)snprintf(text + n, len - n, "%s sweep flags:\n", suite);
  for (int i = 0; i < g_num_own; ++i) {
    char flag[256];
    snprintf(flag, sizeof flag, "[%s=%s]", g_own[i].name, g_own[i].value);
    n += (size_t)snprintf(text + n, len - n, "          %-18s  %s\n", flag, g_own[i].help);
  }
  return text;
}

/* -1: arg is none of the sweep's own flags; else its index. */
static int own_flag(const char *arg) {
  for (int i = 0; i < g_num_own; ++i) {
    const size_t len = strlen(g_own[i].name);
    if (strncmp(arg, g_own[i].name, len) == 0 && (arg[len] == '\0' || arg[len] == '=')) return i;
  }
  return -1;
}

/* The board's NVML session while the sweep runs; NULL without NVML. */
static tb_nvml *g_nvml;

/* The library versions the sweep noted, for its run's entry in "runs". */
enum { kMaxLibraries = 16 };
static struct {
  char name[32], version[64];
} g_libraries[kMaxLibraries];
static int g_library_count;

void tb_sweep_note_version(const char *library, const char *version) {
  if (!library || !library[0] || !version || !version[0]) return;
  int i = 0;
  while (i < g_library_count && strcmp(g_libraries[i].name, library) != 0) ++i;
  if (i == kMaxLibraries) {
    fprintf(stderr, "tb_sweep_note_version: more than %d libraries: %s not recorded\n",
            kMaxLibraries, library);
    return;
  }
  g_library_count += i == g_library_count;
  snprintf(g_libraries[i].name, sizeof g_libraries[i].name, "%s", library);
  snprintf(g_libraries[i].version, sizeof g_libraries[i].version, "%s", version);
}

/* The context carries what a result's "runs" entry is built from
 * (core/results.c): the libraries as "library:<name>" keys. */
static void add_library_context(void) {
  for (int i = 0; i < g_library_count; ++i) {
    char key[48];
    snprintf(key, sizeof key, "library:%.31s", g_libraries[i].name);
    tb_bench_add_context(key, g_libraries[i].version);
  }
}

void tb_sweep_sample_gpu(tb_gpu_sample *out) { tb_nvml_sample(g_nvml, out); }

void tb_sweep_set_gpu_counters(tb_bench_state *st, const tb_gpu_sample *before,
                               const tb_gpu_sample *after) {
  static const struct {
    unsigned field;
    const char *name;
    size_t offset;
  } kGauges[] = {
      {TB_GPU_SM_CLOCK, "sm_clock_mhz", offsetof(tb_gpu_sample, sm_clock_mhz)},
      {TB_GPU_MEM_CLOCK, "mem_clock_mhz", offsetof(tb_gpu_sample, mem_clock_mhz)},
      {TB_GPU_TEMP, "temp_c", offsetof(tb_gpu_sample, temp_c)},
      {TB_GPU_POWER, "power_w", offsetof(tb_gpu_sample, power_w)},
  };
  /* Only the fields the board gave at the start: every repetition of a row
   * must carry the same counters. A reading that failed since is NaN,
   * written as null. */
  const unsigned fields = tb_nvml_fields(g_nvml);
  char key[48];
  for (size_t i = 0; i < sizeof kGauges / sizeof *kGauges; ++i) {
    if (!(fields & kGauges[i].field)) continue;
    const double *a = (const double *)((const char *)after + kGauges[i].offset);
    tb_bench_set_counter(st, kGauges[i].name, *a, TB_COUNTER_VALUE);
    if (!before) continue;
    const double *b = (const double *)((const char *)before + kGauges[i].offset);
    snprintf(key, sizeof key, "%s_before", kGauges[i].name);
    tb_bench_set_counter(st, key, *b, TB_COUNTER_VALUE);
  }
  if (fields & TB_GPU_THROTTLE) {
    tb_bench_set_counter(st, "throttle_reasons",
                         after->has_throttle_reasons ? (double)after->throttle_reasons : NAN,
                         TB_COUNTER_VALUE);
    if (before)
      tb_bench_set_counter(st, "throttle_reasons_before",
                           before->has_throttle_reasons ? (double)before->throttle_reasons : NAN,
                           TB_COUNTER_VALUE);
  }
}

static int is_box_row(const char *name) { return strstr(name, "/nt:") != NULL; }
static int keep_default_rows(const char *name) { return !is_box_row(name); }

/* The first SIGINT or SIGTERM stops the run after the row under way (a time
 * limit that sends SIGTERM costs none of the rows measured): those rows are
 * committed as a partial run. A second one ends the run at once, removing
 * its output; the result stays as it was. */
static char g_running[4096];
static volatile sig_atomic_t g_stop_signal;
static void on_interrupt(int sig) {
  if (!g_stop_signal) {
    g_stop_signal = sig;
    tb_bench_request_stop();
    static const char note[] =
        "\nstopping after the row under way; its rows and those before it will be written "
        "(again to stop at once, writing nothing)\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
    (void)ignored;
    return;
  }
  if (g_running[0]) unlink(g_running);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* arg is flag, bare or with a value. */
static bool is_flag(const char *arg, const char *flag) {
  const size_t len = strlen(flag);
  return strncmp(arg, flag, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static bool has_flag(int argc, char **argv, const char *flag) {
  for (int i = 1; i < argc; ++i)
    if (is_flag(argv[i], flag)) return true;
  return false;
}

/* Moves the run's output into place; a failed run leaves the result as it was. */
static int commit_results(const char *suite, const char *written, const char *result, int rc,
                          bool partial) {
  if (rc != 0) {
    remove(written);
    fprintf(stderr, "%s: run failed: %s left as it was\n", suite, result);
    return rc;
  }
  if (tb_results_commit(written, result, partial) != TB_OK) {
    fprintf(stderr, "%s: %s\n", suite, tb_last_error());
    return 1;
  }
  fprintf(stderr, "%s: wrote %s%s\n", suite, result, partial ? " (measured rows updated)" : "");
  return 0;
}

/* A stopped run: the rows it did not start are dropped, the rest committed
 * as a partial run; then the signal ends the process as it would have. */
static int commit_stopped(const char *suite, const char *written, const char *result, int rc,
                          int sig) {
  int unmeasured = 0;
  if (tb_results_drop_failed(written, TB_BENCH_NOT_MEASURED, &unmeasured) != TB_OK) {
    fprintf(stderr, "%s: %s; %s left as it was\n", suite, tb_last_error(), result);
    remove(written);
  } else {
    fprintf(stderr, "%s: stopped by a signal: %d row(s) not measured\n", suite, unmeasured);
    rc = commit_results(suite, written, result, rc, true);
  }
  fflush(NULL);
  raise(sig);
  return rc;
}

/* ---- --tb_trace ------------------------------------------------------------
 * Each row's counters come from every repetition's traced launch; its
 * timeline is written once, from the first. */
static char g_trace_path[4096]; /* "": stderr */
static FILE *g_trace_out;
static const char **g_traced; /* the rows whose timeline is written (tb_bench_name) */
static size_t g_traced_count, g_traced_cap;

static tb_status trace_open(const char *suite) {
  TB_TRY(tb_trace_load(NULL));
  /* CUPTI attaches to the context on its first activity: paid here, not by
   * the first row's call. */
  TB_TRY(tb_trace_begin());
  TB_TRY(tb_trace_end(NULL));
  fprintf(stderr, "%s: tracing one launch per row outside its timed loop (CUPTI)\n", suite);
  return TB_OK;
}

static void trace_close(const char *suite) {
  if (g_trace_out && g_trace_out != stderr) {
    if (fclose(g_trace_out) != 0)
      fprintf(stderr, "%s: --tb_trace: writing %s failed: %s\n", suite, g_trace_path, strerror(errno));
    else
      fprintf(stderr, "%s: wrote %s\n", suite, g_trace_path);
  }
  g_trace_out = NULL;
  free(g_traced);
  g_traced = NULL;
  g_traced_count = g_traced_cap = 0;
}

/* Whether row `name` has its timeline written yet; marks it written. */
static bool first_trace_of(const char *name) {
  for (size_t i = 0; i < g_traced_count; ++i)
    if (g_traced[i] == name) return false;
  if (g_traced_count == g_traced_cap) {
    const size_t cap = g_traced_cap ? 2 * g_traced_cap : 256;
    const char **grown = realloc(g_traced, cap * sizeof *grown);
    if (!grown) return false; /* a timeline missing rather than the run */
    g_traced = grown, g_traced_cap = cap;
  }
  g_traced[g_traced_count++] = name;
  return true;
}

static tb_status device_wait(void *ctx) {
  (void)ctx;
  TB_CUDA_TRY(cudaDeviceSynchronize());
  return TB_OK;
}

tb_status tb_sweep_trace(tb_bench_state *st, tb_sweep_launch launch, void *ctx,
                         tb_sweep_launch wait) {
  if (!tb_sweep.trace) return TB_OK;
  if (!wait) wait = device_wait;
  /* Nothing of the warm-up left queued: the call's first GPU work waits for
   * its own launch only. */
  TB_TRY(wait(ctx));
  TB_TRY(tb_trace_begin());
  tb_status s = launch(ctx);
  if (s == TB_OK) s = tb_trace_returned();
  if (s == TB_OK) s = wait(ctx); /* every record has its end */
  tb_trace_summary sum;
  const tb_status end = tb_trace_end(&sum); /* whatever happened: activity off */
  if (s != TB_OK) return s;
  TB_TRY(end);
  const struct {
    const char *name;
    double value;
  } counters[] = {
      {"trace_kernels", sum.kernels},     {"trace_memsets", sum.memsets},
      {"trace_memcpys", sum.memcpys},     {"trace_api_calls", sum.api_calls},
      {"trace_syncs", sum.syncs},         {"trace_first_us", sum.first_us},
      {"trace_span_us", sum.span_us},     {"trace_kernel_us", sum.kernel_us},
      {"trace_gap_us", sum.gap_us},       {"trace_api_us", sum.api_us},
      {"trace_host_us", sum.host_us},
  };
  for (size_t i = 0; i < sizeof counters / sizeof *counters; ++i)
    tb_bench_set_counter(st, counters[i].name, counters[i].value, TB_COUNTER_VALUE);
  const char *name = tb_bench_name(st);
  if (sum.dropped > 0)
    fprintf(stderr, "%s: --tb_trace: CUPTI dropped %d records: its sums are short\n", name,
            sum.dropped);
  if (g_trace_out && first_trace_of(name)) {
    size_t n = 0;
    uint64_t begin = 0, returned = 0;
    const tb_trace_record *r = tb_trace_records(&n, &begin, &returned);
    tb_trace_write(g_trace_out, name, r, n, begin, returned, &sum);
    fflush(g_trace_out);
  }
  return TB_OK;
}

int tb_sweep_main(int argc, char **argv, const char *suite, void (*register_all)(void)) {
  return tb_sweep_main_with(argc, argv, suite, register_all, NULL);
}

int tb_sweep_main_with(int argc, char **argv, const char *suite, void (*register_all)(void),
                       const tb_run_meta *meta) {
  const char *results = NULL;
  char **args = calloc((size_t)argc + 3, sizeof *args);
  int nargs = 0;
  if (!args) return 1;
  tb_sweep.repetitions = 5;
  bool own_partial = false;
  int own;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && strncmp(argv[i], "--tb_results=", 13) == 0) results = argv[i] + 13;
    else if (i > 0 && strcmp(argv[i], "--tb_flush_l2") == 0) tb_sweep.flush_l2 = true;
    else if (i > 0 && strcmp(argv[i], "--tb_quick") == 0) tb_sweep.quick = true;
    else if (i > 0 && strcmp(argv[i], "--tb_trace") == 0) tb_sweep.trace = true;
    else if (i > 0 && strcmp(argv[i], "--tb_boxes=none") == 0) tb_sweep.no_boxes = true;
    else if (i > 0 && strcmp(argv[i], "--tb_boxes=all") == 0) tb_sweep.no_boxes = false;
    else if (i > 0 && strncmp(argv[i], "--tb_repetitions=", 17) == 0) {
      char *end = NULL;
      const long r = strtol(argv[i] + 17, &end, 10);
      if (*end != '\0' || r < 1 || r > 1000) {
        fprintf(stderr, "%s: --tb_repetitions takes 1..1000, not '%s'\n", suite, argv[i] + 17);
        free(args);
        return 2;
      }
      tb_sweep.repetitions = (int)r;
    } else if (i > 0 && (own = own_flag(argv[i])) >= 0) {
      const tb_sweep_flag_def *d = &g_own[own];
      const char *eq = strchr(argv[i], '='), *value = eq ? eq + 1 : NULL;
      if (!value || !*value) {
        fprintf(stderr, "%s: %s takes a value (%s=%s)\n", suite, d->name, d->name, d->value);
        free(args);
        return 2;
      }
      if (d->parse && d->parse(value) != TB_OK) {
        fprintf(stderr, "%s: %s: %s\n", suite, d->name, tb_last_error());
        free(args);
        return 2;
      }
      g_own_value[own] = value;
      own_partial = own_partial || d->partial;
    } else if (i > 0 && strncmp(argv[i], "--tb_", 5) == 0 && !is_flag(argv[i], "--tb_list") &&
               !is_flag(argv[i], "--tb_progress")) {
      /* --tb_list and --tb_progress are the bindings' (core/bench.cc). */
      char *help = help_text(suite);
      fprintf(stderr, "%s: unknown flag %s\n%s", suite, argv[i], help ? help : kHelp);
      free(help);
      free(args);
      return 2;
    } else {
      args[nargs++] = argv[i];
    }
  }
  /* The result file is the sweep's own: a --benchmark_out beside it would be
   * overridden without a word. */
  if (results && (has_flag(argc, argv, "--benchmark_out") || has_flag(argc, argv, "--benchmark_out_format"))) {
    fprintf(stderr,
            "%s: --tb_results writes the JSON result itself; leave out --benchmark_out and "
            "--benchmark_out_format (CSV: --benchmark_format=csv, on stdout)\n",
            suite);
    free(args);
    return 2;
  }
  char *help = help_text(suite);
  tb_bench_set_help(help ? help : kHelp); /* copied */
  free(help);
  tb_bench_set_repetitions(tb_sweep.repetitions);
  if (tb_sweep.no_boxes) tb_bench_set_register_filter(keep_default_rows);
  /* Box-sweep rows outnumber the others tenfold: their files keep the
   * aggregates (median, spread) and leave out the single repetitions. */
  tb_bench_set_aggregates_only_for(is_box_row);

  /* Listing and help touch no GPU and write nothing. */
  const bool list_only = has_flag(argc, argv, "--tb_list") ||
                         has_flag(argc, argv, "--benchmark_list_tests") ||
                         has_flag(argc, argv, "--help");
  if (list_only) {
    args[nargs] = NULL;
    register_all();
    const int rc = tb_bench_main(nargs, args);
    free(args);
    return rc;
  }

  if (meta) tb_sweep.meta = *meta;
  else if (tb_run_meta_collect(&tb_sweep.meta) != TB_OK) {
    fprintf(stderr, "%s: %s: %s\n", suite, tb_status_string(TB_ERR_NO_DEVICE), tb_last_error());
    free(args);
    return 1;
  }
  if (!tb_sweep.meta.run_id[0]) tb_run_meta_set_run(&tb_sweep.meta, time(NULL));
  g_nvml = tb_nvml_open(NULL, tb_sweep.meta.device.pci_bus_id);
  if (!g_nvml)
    fprintf(stderr, "%s: %s: rows record no clocks, temperature, power or throttle reasons\n",
            suite, tb_last_error());
  else if (!tb_sweep.meta.driver[0])
    snprintf(tb_sweep.meta.driver, sizeof tb_sweep.meta.driver, "%s", tb_nvml_driver_version(g_nvml));
  if (tb_sweep.trace && trace_open(suite) != TB_OK) {
    fprintf(stderr, "%s: --tb_trace: %s\n", suite, tb_last_error());
    tb_nvml_close(g_nvml);
    g_nvml = NULL;
    free(args);
    return 1;
  }
  const tb_run_meta *m = &tb_sweep.meta;
  char copy[32], reps[16];
  snprintf(copy, sizeof copy, "%.1f", m->copy_gbps);
  snprintf(reps, sizeof reps, "%d", tb_sweep.repetitions);
  tb_bench_add_context("suite", suite);
  tb_bench_add_context("gpu", m->device.name);
  tb_bench_add_context("arch", m->arch);
  if (m->driver[0]) tb_bench_add_context("driver", m->driver); /* none rather than a guess */
  tb_bench_add_context("cuda_driver_api", m->cuda_driver_api);
  tb_bench_add_context("runtime", m->runtime);
  tb_bench_add_context("commit", m->commit);
  tb_bench_add_context("run_id", m->run_id);
  tb_bench_add_context("run_date", m->run_date);
  tb_bench_add_context("copy_gbps", copy);
  tb_bench_add_context("device", m->device_id);
  tb_bench_add_context("l2_flush", tb_sweep.flush_l2 ? "yes" : "no");
  tb_bench_add_context("repetitions", reps);
  if (tb_sweep.trace) tb_bench_add_context("trace", "cupti");
  fprintf(stderr, "%s on %s (%s), driver %s (CUDA %s), runtime %s, copy %.1f GB/s, commit %s, run %s\n",
          suite, m->device.name, m->arch, m->driver[0] ? m->driver : "unknown",
          m->cuda_driver_api, m->runtime, m->copy_gbps, m->commit, m->run_id);

  static char out_flag[4200], written[4096], result[4096];
  const bool partial = tb_sweep.no_boxes || tb_sweep.quick || own_partial ||
                       has_flag(argc, argv, "--benchmark_filter");
  if (results) {
    char dir[4000];
    snprintf(dir, sizeof dir, "%s/%s/%s", results, m->arch, m->gpu_slug);
    if (tb_mkdirs(dir) != 0) {
      fprintf(stderr, "%s: cannot create %s: %s\n", suite, dir, strerror(errno));
      free(args);
      return 1;
    }
    snprintf(result, sizeof result, "%s/%s.json", dir, suite);
    if (tb_sweep.trace) snprintf(g_trace_path, sizeof g_trace_path, "%s/%s_trace.txt", dir, suite);
    snprintf(written, sizeof written, "%s/.%s.json.%ld.running", dir, suite, (long)getpid());
    snprintf(out_flag, sizeof out_flag, "--benchmark_out=%s", written);
    snprintf(g_running, sizeof g_running, "%s", written);
    /* sigaction, not signal(): under _POSIX_C_SOURCE, signal() resets the
     * handler after one signal, and the second must find it. */
    struct sigaction stop = {0};
    stop.sa_handler = on_interrupt;
    stop.sa_flags = SA_RESTART;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);
    args[nargs++] = out_flag;
    args[nargs++] = "--benchmark_out_format=json";
    fprintf(stderr, "%s: measuring into %s%s\n", suite, result,
            partial ? " (a partial run: only the rows it measures are replaced)" : "");
  }
  args[nargs] = NULL;
  if (tb_sweep.trace) {
    g_trace_out = g_trace_path[0] ? fopen(g_trace_path, "w") : stderr;
    if (!g_trace_out) {
      fprintf(stderr, "%s: --tb_trace: cannot write %s: %s\n", suite, g_trace_path, strerror(errno));
      if (results) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
      }
      tb_nvml_close(g_nvml);
      g_nvml = NULL;
      free(args);
      return 1;
    }
  }
  register_all();
  add_library_context();
  int rc = tb_bench_main(nargs, args);
  trace_close(suite);
  tb_nvml_close(g_nvml);
  g_nvml = NULL;
  tb_l2_flush_release();
  tb_sweep_inputs_release();
  free(args);
  if (tb_bench_failures() > 0)
    fprintf(stderr, "%s: %d benchmark(s) failed\n", suite, tb_bench_failures());
  if (results) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (g_stop_signal) return commit_stopped(suite, written, result, rc, g_stop_signal);
    rc = commit_results(suite, written, result, rc, partial);
  }
  return rc;
}

int tb_sweep_reps(int64_t bytes) {
  if (tb_sweep.flush_l2) return 1;
  const int64_t target = 64ll << 20; /* about 20 us of traffic per timed iteration */
  const int64_t reps = bytes > 0 ? target / bytes : 64;
  return reps < 1 ? 1 : reps > 64 ? 64 : (int)reps;
}

int64_t tb_sweep_iterations(int64_t bytes) {
  /* The budget of one row, 5 to 200 timed iterations, is shared by its
   * repetitions: more repetitions give a better spread, not a longer run. */
  const int64_t per_iteration = bytes * tb_sweep_reps(bytes);
  int64_t total = per_iteration > 0 ? (1ll << 30) / per_iteration : 200;
  total = total < 5 ? 5 : total > 200 ? 200 : total;
  const int reps = tb_sweep.repetitions > 1 ? tb_sweep.repetitions : 1;
  return total / reps < 3 ? 3 : total / reps;
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
  if (status == TB_OK && tb_sweep.trace) status = tb_sweep_trace(st, launch, ctx, NULL);
  double total_seconds = 0;
  tb_gpu_sample before, after;
  tb_sweep_sample_gpu(&before);
  while (status == TB_OK && tb_bench_keep_running(st)) {
    if (tb_sweep.flush_l2 && (status = tb_l2_flush(0)) != TB_OK) break;
    double seconds = 0;
    status = tb_timer_start(&timer);
    for (int r = 0; r < reps && status == TB_OK; ++r) status = launch(ctx);
    if (status == TB_OK) status = tb_timer_stop(&timer, &seconds);
    if (status == TB_OK) tb_bench_set_iteration_time(st, seconds / reps);
    total_seconds += seconds / reps;
  }
  tb_sweep_sample_gpu(&after); /* the timer's stop waited for the last launch */
  tb_timer_destroy(&timer);
  if (status != TB_OK) {
    tb_bench_skip_with_error(st, tb_last_error());
    return;
  }
  const int64_t iters = tb_bench_iterations(st);
  tb_bench_set_items_processed(st, iters * items);
  tb_bench_set_bytes_processed(st, iters * bytes);
  if (tb_sweep.meta.copy_gbps > 0 && total_seconds > 0) {
    const double gbps = (double)bytes * (double)iters / total_seconds / 1e9;
    tb_bench_set_counter(st, "copy_bw_pct", 100.0 * gbps / tb_sweep.meta.copy_gbps,
                         TB_COUNTER_VALUE);
  }
  /* Repeated launches over data that fits L2 measure a warm cache. */
  const bool l2_resident =
      !tb_sweep.flush_l2 && bytes <= (int64_t)tb_sweep.meta.device.l2_bytes;
  /* Only where it is 1: a counter that is 0 in every repetition would give
   * its cv aggregate 0/0. */
  if (l2_resident) {
    tb_bench_set_counter(st, "l2_resident", 1.0, TB_COUNTER_VALUE);
    tb_bench_set_label(st, "L2-resident");
  }
  tb_sweep_set_gpu_counters(st, &before, &after);
}

void tb_sweep_name(char *out, size_t cap, const char *algorithm, const char *impl,
                   const char *type, int64_t n, int seg, int nt, int vt) {
  int len = snprintf(out, cap, "%s/%s/%s/n:%lld", algorithm, impl, type, (long long)n);
  if (seg > 0 && len > 0 && (size_t)len < cap)
    len += snprintf(out + len, cap - len, "/seg:%d", seg);
  if (nt > 0 && len > 0 && (size_t)len < cap) snprintf(out + len, cap - len, "/nt:%d/vt:%d", nt, vt);
}

int64_t tb_sweep_max(int64_t full, int64_t quick) { return tb_sweep.quick ? quick : full; }

/* The checked cases, in the order they passed (a few thousand at most). */
static const void **checked;
static size_t checked_count, checked_cap;

bool tb_sweep_checked(const void *key) {
  for (size_t i = checked_count; i-- > 0;)
    if (checked[i] == key) return true;
  return false;
}

static void checked_release(void) {
  free(checked);
  checked = NULL;
  checked_count = checked_cap = 0;
}

void tb_sweep_checked_pass(const void *key) {
  if (tb_sweep_checked(key)) return;
  if (checked_count == checked_cap) {
    const size_t cap = checked_cap ? 2 * checked_cap : 256;
    const void **grown = realloc(checked, cap * sizeof *grown);
    if (!grown) return; /* unrecorded: the case is checked again */
    if (!checked) atexit(checked_release);
    checked = grown, checked_cap = cap;
  }
  checked[checked_count++] = key;
}

static void *host_buffer;
static size_t host_buffer_bytes;

static void host_buffer_release(void) {
  free(host_buffer);
  host_buffer = NULL;
  host_buffer_bytes = 0;
}

void *tb_sweep_host_buffer(size_t bytes) {
  static bool registered;
  if (host_buffer_bytes >= bytes && host_buffer) return host_buffer;
  if (!registered) registered = atexit(host_buffer_release) == 0;
  free(host_buffer);
  host_buffer = malloc(bytes ? bytes : 1);
  host_buffer_bytes = host_buffer ? bytes : 0;
  if (!host_buffer) tb_fail(TB_ERR_OUT_OF_MEMORY, "sweep: %zu bytes of host memory", bytes);
  return host_buffer;
}
