/* What the parts of the plot driver share: the records of a sweep result, their groups (one per
 * chart), the options, and the functions each part (plot_*.c) offers the others. */
#ifndef TB_PLOTS_PLOT_H
#define TB_PLOTS_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "plots/rows.h"

/* One chart's worth of records: same algorithm, type and segment length, sorted by n. */
typedef struct {
  const suite *s;
  const rec *lo, *hi;
  const char *base_alg; /* the algorithm whose baselines the rows are compared to (baseline.h) */
  const char *baselines[MAX_BASELINES]; /* base_alg's implementations other than tb */
  int nbaselines;
  long long box_n; /* largest n with swept boxes, 0 if none */
} group;

typedef enum { GIPS, PCT } metric;

typedef struct {
  int render;
  const char *out, *templates;
  char tdir[PATH_LEN]; /* where the templates were found */
} options;

extern options opt; /* set by main (plot.c) */

/* ---- plot_group.c: sorting, grouping and lookups ---- */

int cmp_str(const void *a, const void *b);
/* The group starting at lo, a record of s. */
group make_group(const suite *s, const rec *lo);
/* impl's record without a box at n (a baseline's under the group's base_alg); NULL if absent. */
const rec *find_impl(const group *g, const char *impl, long long n);
/* The fastest swept box at n; NULL if none. */
const rec *best_box(const group *g, long long n);

/* ---- plot_charts.c: data files and gnuplot ---- */

/* r's value of metric m; NAN for no record. */
double metric_value(const rec *r, metric m);
/* A tab, then v or "-" for NAN. */
void write_value(FILE *f, double v);
/* Draws one chart with a template; a gnuplot that cannot be started is reported once. */
int render_chart(const char *tmpl, const char *vars, const char *png);
/* A chart's two files, <stem>.dat and <stem>.png, the stem formatted from fmt (each PATH_LEN);
 * 0, or -1 when a path would not fit. */
int chart_paths(char *dat, char *png, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "<what> on <gpu> (<arch>), commit <c>, <date>", or with "commits mixed (<c1>, <c2>, ...)" when
 * the rows drawn span several commits (rows.h). */
void chart_title(char *buf, size_t size, const suite *s, const char *what,
                 const commit_set *commits);
/* Writes (and renders) the charts of one group; prefix = DIR/S_<alg>_<type>[_seg<L>]. */
int write_charts(const suite *s, const group *g, const char *prefix);

/* ---- plot_table.c: the markdown tuning table ---- */

void write_table_header(FILE *f, const suite *s);
/* One row per n with swept boxes. */
void write_table_rows(FILE *f, const group *g);

/* ---- plot_special.c: charts across types (by_vars) and segment lengths (by_seg) ---- */

int write_by_vars(const suite *s);
int write_by_seg(const suite *s);

/* ---- plot_ratio.c: the ratio maps ---- */

/* Splits "double_x3" into "double" and 3; 0 (base = type) if the type has no _x<k> suffix. */
int vars_of(const char *type, char *base, size_t size);
int write_ratio_maps(const suite *s);

/* ---- plot_matrices.c: the real-matrix rows, per family and type ---- */

/* S[_<family>]_matrices_ratio_<type>: tb / best baseline per matrix (<family>_mtx_<matrix>[_apply]
 * rows); none without such rows. */
int write_matrix_ratios(const suite *s);

#endif
