/* What every benchmark sweep shares, on top of core/bench.h:
 *
 * - tb_sweep_main: collects the run metadata into the JSON context, writes
 *   --tb_results=DIR/<sm_XY>/<gpu>/<suite>.json through a temporary file
 *   that replaces the result only when the run completes (core/results.h),
 *   then runs Google Benchmark (whose own flags all work);
 * - tb_sweep_measure: the timing loop (CUDA events, warm-up, optional L2
 *   flush, several launches per timed iteration for small sizes) and the
 *   counters every benchmark reports, the GPU's clocks, temperature, power
 *   and throttle reasons around the loop among them (core/nvml.h);
 * - provenance: every row of a result names the run that measured it
 *   (commit, run_id, run_date), and the file's "runs" object describes each
 *   run: GPU, board, driver, toolkit and the libraries a sweep noted with
 *   tb_sweep_note_version (docs/sweeps.md, "What each row records").
 *
 * Sweep flags (--help lists them; --help and --tb_list need no GPU):
 *   --tb_results=DIR    write DIR/<arch>/<gpu>/<suite>.json
 *   --tb_repetitions=N  run every row N times (default 5): median and spread
 *   --tb_boxes=none     the tuned-default and baseline rows only (no box sweep)
 *   --tb_flush_l2       flush L2 before every timed launch
 *   --tb_quick          the sweep's small grid, for a smoke run
 *   --tb_trace          one more launch of every row, outside its timed loop,
 *                       traced with CUPTI (tb_sweep_trace, core/trace.h)
 * and the sweep's own, if it declares any (tb_sweep_declare_flags).
 * A run given --benchmark_filter or --tb_boxes=none is partial: it replaces
 * only the rows it measured in an existing result. */
#ifndef TB_CORE_SWEEP_H
#define TB_CORE_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/bench.h"
#include "core/meta.h"
#include "core/nvml.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_sweep_config {
  tb_run_meta meta;
  bool flush_l2;
  bool quick;
  bool no_boxes;
  bool trace;
  int repetitions;
} tb_sweep_config;

extern tb_sweep_config tb_sweep;

/* A flag of one sweep's own (the SpMV sweep's --tb_matrix=PATH, say):
 * declared with tb_sweep_declare_flags before tb_sweep_main, listed in that
 * sweep's --help, accepted by it alone (every other sweep refuses it as
 * unknown). */
typedef struct tb_sweep_flag_def {
  const char *name;  /* "--tb_matrix" */
  const char *value; /* what its value is, for --help ("PATH"); every such flag takes one */
  const char *help;  /* one line for --help */
  /* Takes the value as the flags are parsed, before anything touches a GPU
   * (NULL: any value): a failure refuses the run, exit 2, with
   * tb_last_error(). */
  tb_status (*parse)(const char *value);
  /* Whether a run given it measures rows other than the family's full set:
   * then it is partial (its rows replace only themselves in a result). */
  bool partial;
} tb_sweep_flag_def;

/* Declares the sweep's own flags (defs must outlive the run); at most 8. */
void tb_sweep_declare_flags(const tb_sweep_flag_def *defs, int n);

/* The value a declared flag was given (the last, if given twice), or NULL. */
const char *tb_sweep_flag(const char *name);

/* Parses the sweep flags, collects metadata (failing clearly without a GPU),
 * calls register_all, and runs. Returns the process exit code: non-zero if
 * any benchmark failed (its validation included). */
int tb_sweep_main(int argc, char **argv, const char *suite, void (*register_all)(void));

/* tb_sweep_main with the metadata given instead of measured (NULL: measure
 * it), for sweeps that need no GPU: the tests of the sweep runtime. */
int tb_sweep_main_with(int argc, char **argv, const char *suite, void (*register_all)(void),
                       const tb_run_meta *meta);

/* One launch of the code under test; returns its status. */
typedef tb_status (*tb_sweep_launch)(void *ctx);

/* Times launch() in st's loop: one warm-up (with --tb_trace, then one traced
 * launch: tb_sweep_trace), then per iteration `reps`
 * launches between two CUDA events (reps = 1 with --tb_flush_l2) and the
 * mean as the iteration's manual time. items and bytes are per launch;
 * bytes are the bytes that must move, from which copy_bw_pct (a plain
 * value) is the share of the copy bandwidth measured at start-up. Rows
 * whose bytes fit in L2 without --tb_flush_l2 measure a warm cache: they
 * get l2_resident = 1 and the label "L2-resident". A failing launch ends
 * the benchmark with its message. */
void tb_sweep_measure(tb_bench_state *st, tb_sweep_launch launch, void *ctx, int64_t items,
                      int64_t bytes);

/* With --tb_trace: waits for the GPU (wait(ctx); NULL: the whole device),
 * then traces one launch(ctx) (core/trace.h) and sets the row's counters
 *   trace_kernels, trace_memsets, trace_memcpys  GPU work the call ran
 *   trace_api_calls, trace_api_us   CUDA API calls it made, host time in them
 *   trace_syncs                     waits of the host for the GPU inside it
 *   trace_host_us                   its start to its return, on the host
 *   trace_first_us                  its start to its first GPU work's start
 *   trace_span_us, trace_gap_us     first start to last end of its GPU work,
 *                                   and the idle time within
 *   trace_kernel_us                 its kernels' durations, summed
 * and writes the row's timeline the first time it is traced. CUPTI's
 * activity is off again before it returns, so a timing loop after it runs
 * untraced. Without --tb_trace it does nothing and returns TB_OK;
 * tb_sweep_measure calls it after its warm-up, a benchmark with its own
 * loop calls it before its loop. */
tb_status tb_sweep_trace(tb_bench_state *st, tb_sweep_launch launch, void *ctx,
                         tb_sweep_launch wait);

/* Records the version of a library the sweep measures against (a baseline
 * such as "cub", "thrust", "cusparse"), for the run's entry in the result's
 * "runs" object; call it from register_all. The last version noted for a
 * library is the one recorded; the CUDA runtime's is recorded anyway. */
void tb_sweep_note_version(const char *library, const char *version);

/* The GPU's state now (tb_nvml_sample of the board being measured; every
 * field absent when NVML is not available). */
void tb_sweep_sample_gpu(tb_gpu_sample *out);

/* Sets the counters sm_clock_mhz, mem_clock_mhz, temp_c, power_w and
 * throttle_reasons from `after` (sampled right after the timing loop) and
 * the same with the suffix _before from `before` (right before it; NULL:
 * none), for each field the board gives: tb_sweep_measure does this, a
 * benchmark with its own loop calls it. A field NVML does not give is left
 * out of every row, never guessed. */
void tb_sweep_set_gpu_counters(tb_bench_state *st, const tb_gpu_sample *before,
                               const tb_gpu_sample *after);

/* Launches per timed iteration for a kernel over `bytes`: enough that
 * event overhead does not dominate small sizes. */
int tb_sweep_reps(int64_t bytes);

/* Timed iterations per repetition for a benchmark over `bytes`: about
 * 1 GiB of traffic, 5 to 200 iterations in all, shared by the repetitions
 * (at least 3 each; pass it to tb_bench_set_iterations). */
int64_t tb_sweep_iterations(int64_t bytes);

/* "<algorithm>/<impl>/<type>/n:<n>[/seg:<seg>][/nt:<nt>/vt:<vt>]" into out
 * (seg <= 0: no segment axis; nt = 0: no box). Every sweep names its rows
 * with it, so results match across families and runs. */
void tb_sweep_name(char *out, size_t cap, const char *algorithm, const char *impl,
                   const char *type, int64_t n, int seg, int nt, int vt);

/* The largest size of a sweep's size axis: full, or quick under --tb_quick. */
int64_t tb_sweep_max(int64_t full, int64_t quick);

/* Whether the case `key` (its registered argument) has had its output
 * checked against the CPU in this process: a sweep checks a case on its
 * first repetition only, since the repetitions launch the same kernel on
 * the same inputs (five downloads and comparisons of 2^26 elements would
 * otherwise take most of a row's time). tb_sweep_checked_pass(key) records
 * a check that passed; a failing case is checked, and fails, again. */
bool tb_sweep_checked(const void *key);
void tb_sweep_checked_pass(const void *key);

/* A host buffer of at least `bytes`, kept for the process and shared by a
 * sweep's validations (the output they download); NULL, with a message,
 * when it cannot be had. */
void *tb_sweep_host_buffer(size_t bytes);

/* ---- inputs ---------------------------------------------------------------
 * Random arrays on the host and the device, drawn once and shared by every
 * benchmark of a sweep that needs them: a prefix serves smaller sizes. Kept
 * per (type, op, draw, slot) until they would take more than a quarter of
 * the device's memory, then the least recently used go first; the sweep
 * runtime releases them when the run ends. */

typedef enum tb_sweep_draw {
  TB_DRAW_EXACT, /* tb_fill_random for op (core/rng.h): every reference exact */
  TB_DRAW_UNIT,  /* uniform reals in [-1, 1), float types; op unused */
} tb_sweep_draw;

typedef struct tb_sweep_input {
  const void *host, *dev;
  int64_t cap; /* elements */
} tb_sweep_input;

/* Array `slot` (0, 1, ...: several arrays of one kind live at once) of
 * (t, op, draw) with at least cap elements, into *out. */
tb_status tb_sweep_input_get(tb_type t, tb_op op, tb_sweep_draw draw, int slot, int64_t cap,
                             tb_sweep_input *out);
void tb_sweep_inputs_release(void);

#ifdef __cplusplus
}
#endif
#endif
