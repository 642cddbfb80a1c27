/* C bindings over Google Benchmark (1.7).
 *
 * A benchmark is a C callback plus an opaque argument, registered by name:
 *
 *   static void run(tb_bench_state *st, void *arg) {
 *     while (tb_bench_keep_running(st)) {
 *       ... time one iteration with CUDA events ...
 *       tb_bench_set_iteration_time(st, seconds);
 *     }
 *     tb_bench_set_items_processed(st, tb_bench_iterations(st) * n);
 *   }
 *   tb_bench_register("reduce/tb/int32/n:1024", run, &args, NULL);
 *   return tb_bench_main(argc, argv);
 *
 * Every benchmark uses manual time. Google Benchmark's own flags
 * (--benchmark_filter, --benchmark_out, --benchmark_min_time, ...) are honoured.
 * Rows are named exactly as registered, whatever the flags: the segments
 * Google Benchmark appends (/iterations:N, /repeats:N, /manual_time, ...) are
 * left out of the console and file output, so runs match by name. */
#ifndef TB_CORE_BENCH_H
#define TB_CORE_BENCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_bench_state tb_bench_state;
typedef void (*tb_bench_fn)(tb_bench_state *st, void *arg);

/* Registers fn under name; arg is passed through untouched and, when
 * free_arg is not NULL, released with it at exit. Returns 0, 1 if the
 * registration filter left it out (arg is then released at once), or -1 if
 * name is empty or fn NULL. */
int tb_bench_register(const char *name, tb_bench_fn fn, void *arg, void (*free_arg)(void *));

/* Fixed iteration count / minimum time (seconds) for the benchmark most
 * recently registered: sweeps bound their run time with these. */
void tb_bench_set_iterations(int64_t iterations);
void tb_bench_set_min_time(double seconds);

/* Repetitions of every benchmark (default 1). With R > 1 each benchmark runs
 * R times and the output holds the R rows and their mean, median, stddev
 * and cv (relative standard deviation) aggregates; Google Benchmark's
 * compare.py runs its U-test on such rows. aggregates_only: only the
 * aggregates are written, for the most recently registered benchmark. */
void tb_bench_set_repetitions(int repetitions);
void tb_bench_set_aggregates_only(void);
/* The same for every benchmark whose name pred accepts (NULL: none). */
void tb_bench_set_aggregates_only_for(int (*pred)(const char *name));

/* Registration filter: benchmarks whose name keep() rejects are not
 * registered (tb_bench_register returns 1; the set_* calls after it do
 * nothing). NULL keeps everything. */
void tb_bench_set_register_filter(int (*keep)(const char *name));

/* Extra lines printed after Google Benchmark's own --help text (the
 * caller's flags). */
void tb_bench_set_help(const char *text);

int tb_bench_keep_running(tb_bench_state *st);
int64_t tb_bench_iterations(const tb_bench_state *st);
/* The benchmark's name as registered: one pointer per benchmark, the same
 * on every call (a key across its repetitions) while tb_bench_main runs. */
const char *tb_bench_name(const tb_bench_state *st);
void tb_bench_set_iteration_time(tb_bench_state *st, double seconds);
void tb_bench_set_items_processed(tb_bench_state *st, int64_t items);
void tb_bench_set_bytes_processed(tb_bench_state *st, int64_t bytes);
/* A short label shown beside the row and written as "label". */
void tb_bench_set_label(tb_bench_state *st, const char *label);

typedef enum tb_counter_kind {
  TB_COUNTER_VALUE,          /* shown as given */
  TB_COUNTER_RATE_PER_ITER,  /* value per iteration, shown per second of manual time */
} tb_counter_kind;
void tb_bench_set_counter(tb_bench_state *st, const char *name, double value, tb_counter_kind kind);

/* Marks the benchmark failed with a message; the caller must leave its loop
 * (or not enter it). Any failure makes tb_bench_main return non-zero. */
void tb_bench_skip_with_error(tb_bench_state *st, const char *message);

/* Key/value pair added to the "context" block of the output. */
void tb_bench_add_context(const char *key, const char *value);

/* Initialises Google Benchmark from argv (its flags), rejects unknown flags,
 * runs the selected benchmarks and returns 0, or 1 if any failed or a flag
 * was not recognised. Besides Google Benchmark's flags it takes
 * --tb_list (print names only) and --tb_progress=0|1: after each row,
 * "[i/N] name  elapsed, ~left" on stderr (default 1; N counts the rows the
 * filter keeps). --benchmark_format and --benchmark_out_format csv write
 * every row under one header, at the end (the library's own CSV reporter
 * aborts on a counter that only a later row has). A library built without
 * NDEBUG (Debian's) gets a note in place of its DEBUG warning and a
 * "benchmark_library_build" context key: the times are manual. */
int tb_bench_main(int argc, char **argv);

/* Number of benchmarks that failed so far (for the caller's own summary). */
int tb_bench_failures(void);

/* Asks a running tb_bench_main to stop: the row in progress finishes all its
 * repetitions, every later row is skipped with TB_BENCH_NOT_MEASURED (not a
 * failure), and tb_bench_main returns as usual. Async-signal-safe. */
#define TB_BENCH_NOT_MEASURED "not measured: the run was stopped"
void tb_bench_request_stop(void);

/* Whether tb_bench_request_stop was called. */
int tb_bench_stop_requested(void);

#ifdef __cplusplus
}
#endif
#endif
