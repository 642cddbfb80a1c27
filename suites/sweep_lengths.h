/* The segment lengths of the segmented sweeps (segreduce, interval): their
 * own flags (core/sweep.h, tb_sweep_declare_flags)
 *   --tb_lengths=uniform|lognormal:SIGMA|zipf:S   the model of the default
 *                 rows' lengths (core/geometry.h: TB_GEOM_UNIFORM, as ever,
 *                 TB_GEOM_LOGNORMAL, TB_GEOM_ZIPF)
 *   --tb_segments=FILE   a segment file's lengths (tb_segments_read)
 * one or the other, and what the rows make of them: the spec of a length L,
 * the tag their algorithm names carry, the run's context and each row's
 * counters. docs/sweeps.md, "Segment lengths: models and files". */
#ifndef TB_SUITES_SWEEP_LENGTHS_H
#define TB_SUITES_SWEEP_LENGTHS_H

#include <stddef.h>

#include "core/bench.h"
#include "core/geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declares the two flags for the sweep; call before tb_sweep_main. Any of
 * them makes the run partial: its rows replace only themselves. */
void tb_lengths_declare(void);

/* The segment file's lengths, NULL without --tb_segments. */
const tb_segments *tb_lengths_file(void);

/* The model at mean length L: UNIFORM unless --tb_lengths says otherwise. */
tb_geometry_spec tb_lengths_spec(double avg);

/* What the rows' algorithm names carry: "" for uniform (today's names), else
 * "_lognormal", "_zipf" or "_file". */
const char *tb_lengths_tag(void);

/* alg with the tag before a trailing "_apply" or "_indirect", else after it
 * ("segreduce_zipf_apply", "interval_expand_zipf"): the charts meet such rows
 * with their plain form's baseline by that suffix, as for uniform. */
void tb_lengths_name(const char *alg, char *out, size_t cap);

/* How many of the ascending lengths segs[0..n) the model reaches (Zipf's
 * mean stops at tb_geometry_max_avg); says on stderr which it leaves out. */
int tb_lengths_reach(const char *suite, const int *segs, int n);

/* The run's context: "lengths" or "segments" as given (call from
 * register_all). */
void tb_lengths_context(void);

/* A row's counters, what its name leaves out: "lengths_sigma" or
 * "lengths_s" (the model's parameter), "empty_segments" (a file's). */
void tb_lengths_counters(tb_bench_state *st);

/* Frees the file's lengths. */
void tb_lengths_release(void);

#ifdef __cplusplus
}
#endif
#endif
