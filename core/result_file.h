/* Reading a sweep result file: the one reader every tool uses (plot,
 * index, cross_gpu, compare, gen_defaults).
 *
 * A result file (docs/sweeps.md, "What each row records") is Google
 * Benchmark's JSON with tilebench's additions: each row's "params" object,
 * its provenance (commit, run_id, run_date) and NVML readings, and the
 * file's "runs" object. tb_result_file_load turns it into typed rows whose
 * parameters come from "params". Only rows without one (hand-written test
 * fixtures, and Google Benchmark output that tb_results_commit has not
 * finished) have theirs read from the row's name, with tb_row_params_parse:
 * every committed result carries "params" on every row.
 *
 * The reader judges no row: a row may lack a name, a time or valid params,
 * and each tool decides what it does with such a row (compare refuses the
 * file, plot skips the row with a warning). */
#ifndef TB_CORE_RESULT_FILE_H
#define TB_CORE_RESULT_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/results.h"
#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TB_ROW_ITERATION, /* one measured repetition ("run_type" "iteration", or none) */
  TB_ROW_AGGREGATE, /* Google Benchmark's aggregate of them: p.aggregate names it */
  TB_ROW_UNKNOWN    /* a "run_type" that is neither */
} tb_row_kind;

/* One row of "benchmarks". Numbers are NAN where the row has none (or a
 * value that is not a number). */
typedef struct tb_result_row {
  char *name;          /* as written (Google Benchmark's segments and all); NULL: none */
  tb_row_kind kind;
  bool params_ok;      /* false: neither "params" nor the name gave the row's parameters */
  tb_row_params p;     /* p.canonical is the row's key, shared by its aggregates; p.aggregate is
                          "aggregate_name" ("" for a measured row or an aggregate without one) */
  bool failed;         /* "error_occurred" */
  char *error_message; /* NULL: none given */
  double real_time;    /* in time_unit; for a cv aggregate, the coefficient of variation */
  char time_unit[8];   /* "" when absent */
  double items_per_second, copy_bw_pct, l2_resident, repetitions;
  double box_nt, box_vt; /* the counters "nt" and "vt": the box a tuned default ran with */
  double sm_clock_mhz, mem_clock_mhz;
  bool throttled;      /* "throttle_reasons" other than 0, "", "0" or "none" */
  char *device;        /* "<host>:<PCI bus id>"; NULL: not recorded */
  tb_run_ref run;      /* the run that measured it (tb_results_row_run) */
} tb_result_row;

/* One entry of the file's "runs" object. Strings are "" where the entry has
 * none; copy_gbps is NAN. */
typedef struct tb_result_run {
  tb_run_ref ref;
  char gpu[128], device[128], driver[64], cuda_driver_api[32], runtime[32];
  double copy_gbps;
} tb_result_run;

/* One context entry, its value as text (a number as %g). */
typedef struct tb_result_context_entry {
  char *key, *value;
} tb_result_context_entry;

typedef struct tb_result_file {
  char path[4096];
  tb_result_context_entry *context; /* the string and number entries of "context" */
  size_t context_count;
  tb_result_run *runs;
  size_t run_count;
  tb_result_row *rows; /* in the file's order */
  size_t count;
} tb_result_file;

/* Reads the result at path into out (free it with tb_result_file_free,
 * also after a failure). TB_ERR_IO, with a message naming the path, when the
 * file cannot be read, is not a regular file, is empty, holds NUL bytes or
 * anything but one JSON object, or has no "benchmarks" array; an empty
 * array is no error. Google Benchmark's bare NaN and inf read as null. */
tb_status tb_result_file_load(const char *path, tb_result_file *out);

void tb_result_file_free(tb_result_file *f);

/* The context's value of key as text, NULL when it has none. */
const char *tb_result_context(const tb_result_file *f, const char *key);

/* Nanoseconds per Google Benchmark time unit ("ns", "us", "ms", "s"); NAN
 * for any other. */
double tb_time_unit_ns(const char *unit);

#ifdef __cplusplus
}
#endif
#endif
