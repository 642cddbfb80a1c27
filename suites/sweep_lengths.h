/* The segment lengths of the segmented sweeps (segreduce, interval): their
 * own flags (core/sweep.h, tb_sweep_declare_flags)
 *   --tb_lengths=uniform|lognormal:SIGMA|zipf:S   the model of the default
 *                 rows' lengths (core/geometry.h: TB_GEOM_UNIFORM, as ever,
 *                 TB_GEOM_LOGNORMAL, TB_GEOM_ZIPF)
 *   --tb_segments=FILE   a segment file's lengths (tb_segments_read)
 *   --tb_matrix=PATH     the row lengths of Matrix Market files (a .mtx file
 *                 or a folder of them, core/mtx.h, read through its cache)
 * one of them, and what the rows make of them: the spec of a length L, the
 * tag their algorithm names carry, the run's context and each row's
 * counters. A file or a matrix is a set of segments, run at its own size and
 * mean length; the model is set -1. docs/sweeps.md, "Segment lengths: models
 * and files". */
#ifndef TB_SUITES_SWEEP_LENGTHS_H
#define TB_SUITES_SWEEP_LENGTHS_H

#include <stddef.h>

#include "core/bench.h"
#include "core/geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declares the flags for the sweep; call before tb_sweep_main. Any of them
 * makes the run partial: its rows replace only themselves. */
void tb_lengths_declare(void);

/* The sets of segments given (--tb_segments: one; --tb_matrix: one per
 * matrix with nonzeros); 0 without either: the rows then use the model. */
int tb_lengths_sets(void);

/* Set i's segments; NULL for i < 0 (the model). */
const tb_segments *tb_lengths_set(int set);

/* The mean length a set's rows are filed under: its total over its
 * segments, rounded, at least 1 (a mostly empty file still has a seg axis). */
int tb_lengths_set_seg(int set);

/* The model at mean length L: UNIFORM unless --tb_lengths says otherwise. */
tb_geometry_spec tb_lengths_spec(double avg);

/* alg with the tag of set (the model's for -1: "" for uniform, as ever,
 * "_lognormal", "_zipf"; a file's "_file"; a matrix's "_mtx_<name>",
 * tb_mtx_name) before a trailing "_apply" or "_indirect", else after it
 * ("segreduce_zipf_apply", "interval_expand_mtx_cage10"): the charts meet
 * such rows with their plain form's baseline by that suffix. */
void tb_lengths_name(const char *alg, int set, char *out, size_t cap);

/* Whether the model is uniform and no set is given: the rows that exist
 * only for uniform lengths (segreduce's fixed-length rows) run. */
bool tb_lengths_uniform(void);

/* How many of the ascending lengths segs[0..n) the model reaches (Zipf's
 * mean stops at tb_geometry_max_avg); says on stderr which it leaves out. */
int tb_lengths_reach(const char *suite, const int *segs, int n);

/* The run's context: "lengths", "segments" or "matrix" as given (call from
 * register_all). */
void tb_lengths_context(void);

/* A row's counters, what its name leaves out: "lengths_sigma" or
 * "lengths_s" (the model's parameter), "empty_segments" (a set's). */
void tb_lengths_counters(tb_bench_state *st, int set);

/* Frees the sets. */
void tb_lengths_release(void);

#ifdef __cplusplus
}
#endif
#endif
