/* Sweep result files: row names, their parameters, and writing a result
 * file so that no measurement is ever lost.
 *
 * A row is named <algorithm>/<impl>/<type>/n:<n>[/seg:<L>][/nt:<NT>/vt:<VT>]
 * [/<key>:<value>...]; tb_row_params reads those fields back (Google
 * Benchmark's own segments, such as /iterations:N or /manual_time in files
 * written before names were stable, are skipped), and every row of a
 * finished file carries them as a "params" object. Aggregate rows are
 * named <row>_<aggregate> (mean, median, stddev, cv).
 *
 * A sweep writes to a temporary file beside the result; tb_results_commit
 * then replaces the result only once the run has completed. A partial run
 * (filtered, or one kind of row only) replaces just the rows it measured and
 * keeps every other row of the existing file. */
#ifndef TB_CORE_RESULTS_H
#define TB_CORE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_row_params {
  char algorithm[64], impl[32], type[32];
  char canonical[256];   /* the name without Google Benchmark's segments */
  char aggregate[16];    /* "median" for "<row>_median", "" for a measured row */
  int64_t n, seg;        /* seg -1: not segmented */
  int nt, vt;            /* 0: no swept box (tuned default, baselines) */
  char variant[64];      /* any other key:value segments, "/"-joined, or "" */
} tb_row_params;

/* The whole file at path, NUL-terminated (free it), or NULL with errno set
 * (EISDIR for a folder). */
char *tb_read_text(const char *path);

/* mkdir -p: 0, or -1 with errno set. */
int tb_mkdirs(const char *path);

/* Whether the len bytes at seg are a segment Google Benchmark appends to a
 * name (manual_time, iterations:N, repeats:N, ...), not one of the row's. */
bool tb_gbench_segment(const char *seg, size_t len);

/* TB_ERR_INVALID_ARGUMENT (with a message naming `name`) when the name does
 * not follow the pattern above. */
tb_status tb_row_params_parse(const char *name, tb_row_params *out);

/* Finishes a sweep's result: annotates the rows of `written` (a Google
 * Benchmark JSON file) with their params and, where a row has none yet, the
 * "device" its context names (<host>:<PCI bus id>), and moves it to `result`. With
 * partial, the rows of an existing `result` that `written` does not have
 * are kept (matched by canonical name) and the context records that. The
 * result is replaced by a rename: a reader sees the old file or the new
 * one, never a mix. `written` is removed on success. */
tb_status tb_results_commit(const char *written, const char *result, bool partial);

#ifdef __cplusplus
}
#endif
#endif
