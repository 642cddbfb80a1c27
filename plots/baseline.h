/* The best baseline of a tilebench row, and tb's ratio to it: the one rule every chart, table
 * and index page of the chart tools compares by. */
#ifndef TB_PLOTS_BASELINE_H
#define TB_PLOTS_BASELINE_H

#include <stdio.h>

#include "plots/rows.h"

/* A tb row's best baseline: the fastest (median items/s) row of any other implementation with the
 * same algorithm, type, n and seg. When the algorithm has no baseline rows at all and is an
 * _apply or _indirect form, its plain form's rows stand in (segreduce_apply -> segreduce).
 * base is NULL when there is none; alg is the algorithm the winner was measured under. */
typedef struct {
  const rec *base;
  const char *alg;
} best_baseline;

best_baseline best_baseline_of(const suite *s, const rec *r);

/* The winner's name: "cub", or "cub (segreduce)" when it is the plain form's. */
const char *baseline_name(const rec *tb, const best_baseline *b, char *buf, size_t size);

/* tb ÷ best baseline of one tb row (the tuned default or a box). */
typedef struct {
  const rec *tb;
  best_baseline best;
  double ratio; /* of the median items/s; > 1: tb is faster */
  double cv;    /* the ratio's relative spread, sqrt(cv_tb^2 + cv_base^2); NAN: not repeated */
} ratio;

/* 0, or -1 when r has no best baseline. */
int ratio_of(const suite *s, const rec *r, ratio *out);
/* Whether the two differ by no more than their combined spread (a tie, not a win or loss). */
int ratio_tie(const ratio *q);

/* tb ÷ best baseline over every size swept (every n and seg of its tuned default rows) for one
 * algorithm and type, or for every algorithm of a type (alg ""). */
typedef struct {
  char alg[64], type[16];
  int count, ties, repeated; /* rows; ties among them; rows with a spread */
  double geomean;
  ratio min, max;
  char winners[160]; /* "cub 28, cub (segreduce) 28": the baselines that won, with counts */
} ratio_summary;

/* The summaries of s, per (alg, type) when by_alg, else per type, in the records' order; their
 * number (at most cap). */
int summarize(const suite *s, int by_alg, ratio_summary *out, int cap);

/* A markdown table of summaries (heading row included). */
void write_summary_md(FILE *f, const ratio_summary *sum, int count, int by_alg);

#endif
