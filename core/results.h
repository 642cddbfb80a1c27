/* Sweep result files: row names, their parameters, and writing a result
 * file so that no measurement is ever lost.
 *
 * A row is named <algorithm>/<impl>/<type>/n:<n>[/seg:<L>][/nt:<NT>/vt:<VT>]
 * [/<key>:<value>...]; tb_row_params_parse reads those fields from the name
 * (Google Benchmark's own segments, such as /iterations:N or /manual_time in
 * files written before names were stable, are skipped) when a sweep's
 * result is committed, and every row of a finished file carries them as a
 * "params" object, which readers take (core/result_file.h). Aggregate rows
 * are named <row>_<aggregate> (mean, median, stddev, cv).
 *
 * A sweep writes to a temporary file beside the result; tb_results_commit
 * then replaces the result only once the run has completed. A partial run
 * (filtered, or one kind of row only) replaces just the rows it measured and
 * keeps every other row of the existing file.
 *
 * So a result holds rows of several runs: every row names its own
 * ("commit", "run_id", "run_date") and the file's "runs" object describes
 * each run a row names (docs/sweeps.md, "What each row records"). A
 * comparison of rows from several runs compares commits, drivers and
 * machine states as well as code: tb_results_runs_of says whether rows span
 * runs, and which. */
#ifndef TB_CORE_RESULTS_H
#define TB_CORE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON; /* <cjson/cJSON.h> */

typedef struct tb_row_params {
  char algorithm[64], impl[32], type[32];
  char canonical[256];   /* the row's key: its name without Google Benchmark's segments */
  char aggregate[16];    /* "median" for "<row>_median", "" for a measured row */
  int64_t n, seg;        /* seg -1: not segmented */
  int nt, vt;            /* 0: no swept box (tuned default, baselines) */
  char variant[64];      /* any other key:value segments, "/"-joined, or "" */
} tb_row_params;

/* The whole file at path, NUL-terminated (free it), its length in *len
 * when len is not NULL, or NULL with errno set (EISDIR for a folder). */
char *tb_read_text(const char *path, size_t *len);

/* mkdir -p: 0, or -1 with errno set. */
int tb_mkdirs(const char *path);

/* The result file at path parsed (cJSON_Delete it), Google Benchmark's bare
 * NaN and inf read as null: what tb_results_commit and the reader
 * (core/result_file.h) start from. TB_ERR_IO, naming the path, when it
 * cannot be read, is not a regular file, is empty, holds NUL bytes or
 * anything but one JSON object, or has no "benchmarks" array. */
tb_status tb_results_parse(const char *path, struct cJSON **out);

/* Members of a parsed result, as the writer and the reader take them: o's
 * member key when it is a string (tb_json_text: other than ""), else NULL;
 * when it is a number, else NAN. NULL and NAN also when o is no object. */
const char *tb_json_string(const struct cJSON *o, const char *key);
const char *tb_json_text(const struct cJSON *o, const char *key);
double tb_json_number(const struct cJSON *o, const char *key);

/* TB_ERR_INVALID_ARGUMENT (with a message naming `name`) when the name does
 * not follow the pattern above. */
tb_status tb_row_params_parse(const char *name, tb_row_params *out);

/* Finishes a sweep's result: annotates the rows of `written` (a Google
 * Benchmark JSON file) with their params and, where a row has none yet, the
 * "device" its context names (<host>:<PCI bus id>) and the run its context
 * names (commit, run_id, run_date), describes that run in the file's "runs"
 * object, and moves it to `result`. With partial, the rows of an existing
 * `result` that `written` does not have are kept (matched by canonical
 * name) with their run, rows from before rows named theirs taking the old
 * file's (as tb_results_row_run reads it); "runs" then describes every run
 * a row of the result names, and the context records the merge. The
 * result is replaced by a rename: a reader sees the old file or the new
 * one, never a mix. `written` is removed on success. */
tb_status tb_results_commit(const char *written, const char *result, bool partial);

/* Removes from `written` (a Google Benchmark JSON file, rewritten by a
 * rename) every row of each row name that has a row failed with exactly
 * `message`, its other repetitions and aggregates included: rows a stopped
 * run never measured, which a partial commit then keeps from the result.
 * *dropped (when not NULL) counts the row names removed. */
tb_status tb_results_drop_failed(const char *written, const char *message, int *dropped);

/* ---- which runs rows come from ------------------------------------------------------ */

typedef struct tb_run_ref {
  char run_id[320]; /* the key of the run's entry in the file's "runs" */
  char commit[64];
  char date[32];    /* ISO 8601, UTC: "2026-11-24T01:45:49Z" */
} tb_run_ref;

/* The run that measured `row`, a row of the parsed result `root`: its
 * "run_id" and "run_date" (else its run's "date" in the file's "runs"); for
 * a row from before rows named their run, the file context's commit and
 * date (converted to UTC) and the run_id "<commit>@<date>" derived from
 * them, as a merge stamps such rows. The commit is the row's own, else its
 * run's in "runs", else the context's. */
void tb_results_row_run(const struct cJSON *root, const struct cJSON *row, tb_run_ref *out);

/* The distinct runs (by run_id) of rows[0..count) of `root`, or with rows
 * NULL of every row of root, in the order the rows first name them, into
 * runs[0..cap). Returns how many there are, which may exceed cap (the first
 * cap are written), or -1 when out of memory. More than 1: the rows are "mixed", a comparison among
 * them crosses runs (tb_run_refs_summary says which commits). */
int tb_results_runs_of(const struct cJSON *root, const struct cJSON *const *rows, int count,
                       tb_run_ref *runs, int cap);

/* For refs[0..count) (repeats allowed), writes into out their distinct
 * commits, with the number of runs when more than one ("1042e81, f55275f
 * (3 runs)"; "1042e81"), for a message or a chart's note, and returns the
 * number of distinct runs. */
int tb_run_refs_summary(const tb_run_ref *refs, int count, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
