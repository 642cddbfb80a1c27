/* What the parts of the plot driver share: the records of a sweep result, their groups (one per
 * chart), the options, and the functions each part (plot_*.c) offers the others. */
#ifndef TB_PLOTS_PLOT_H
#define TB_PLOTS_PLOT_H

#include <stddef.h>
#include <stdio.h>

enum { PATH_LEN = 4096, MAX_BASELINES = 16 };

/* One measured configuration (repetitions averaged). */
typedef struct {
  char alg[64], impl[32], type[16];
  long long n, seg;   /* seg < 0: not segmented */
  int nt, vt;         /* swept box; 0 for the tuned default and for baselines */
  int def_nt, def_vt; /* the tuned default's box when the sweep reports it (counters "nt", "vt") */
  double gips, pct;   /* G items/s; percent of the copy bandwidth (NAN if not reported) */
  double cv;          /* relative spread of the repetitions (NAN: one measurement) */
  int count;
  int from_median;    /* gips/pct are the median of repetitions */
  int l2;             /* the input fits L2 and was not flushed: a warm-cache figure */
} rec;

/* One result file: its context and records. */
typedef struct {
  char name[256], dir[PATH_LEN];
  char gpu[128], arch[32], driver[64], runtime[64], commit[64], copy_gbps[32], date[64];
  rec *r;
  size_t nr, cap;
  int failed;
} suite;

/* One chart's worth of records: same algorithm, type and segment length, sorted by n. */
typedef struct {
  const rec *lo, *hi;
  const char *baselines[MAX_BASELINES];
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

/* ---- plot_load.c: the result file ---- */

/* Fills s (name and dir already set) from the JSON at path; 0, or -1 after a message. */
int load(const char *path, suite *s);

/* ---- plot_group.c: sorting, grouping and lookups ---- */

/* qsort order of a suite's records: by chart (alg, type, seg), then n, impl, box. */
int by_chart(const void *pa, const void *pb);
int cmp_str(const void *a, const void *b);
int is_tb_name(const char *impl);
int is_tb(const rec *r);
/* The group starting at lo (records sorted by by_chart). */
group make_group(const rec *lo, const rec *end);
/* impl's record without a box at n; NULL if absent. */
const rec *find_impl(const group *g, const char *impl, long long n);
/* The fastest swept box at n, and the fastest baseline; NULL if none. */
const rec *best_box(const group *g, long long n);
const rec *best_baseline(const group *g, long long n);

/* ---- plot_charts.c: data files and gnuplot ---- */

/* "2^k" for powers of two, else the number: sizes in sweeps are mostly powers of two. */
const char *size_str(long long n, char *buf, size_t size);
/* r's value of metric m; NAN for no record. */
double metric_value(const rec *r, metric m);
/* A tab, then v or "-" for NAN. */
void write_value(FILE *f, double v);
/* Draws one chart with a template; a gnuplot that cannot be started is reported once. */
int render_chart(const char *tmpl, const char *vars, const char *png);
/* A chart's two files, <stem>.dat and <stem>.png, the stem formatted from fmt (each PATH_LEN);
 * 0, or -1 when a path would not fit. */
int chart_paths(char *dat, char *png, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes (and renders) the charts of one group; prefix = DIR/S_<alg>_<type>[_seg<L>]. */
int write_charts(const suite *s, const group *g, const char *prefix);

/* ---- plot_table.c: the markdown tuning table ---- */

void write_table_header(FILE *f, const suite *s);
/* One row per n with swept boxes. */
void write_table_rows(FILE *f, const group *g);

/* ---- plot_special.c: charts across types (by_vars) and segment lengths (by_seg) ---- */

int write_by_vars(const suite *s);
int write_by_seg(const suite *s);

#endif
