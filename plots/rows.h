/* The records of a sweep result file (Google Benchmark JSON), as the chart tools (plot, index,
 * cross_gpu) read them: one record per measured configuration, sorted by rows_order. */
#ifndef TB_PLOTS_ROWS_H
#define TB_PLOTS_ROWS_H

#include <stddef.h>

enum { PATH_LEN = 4096, MAX_BASELINES = 16, COMMIT_LEN = 24 };

/* One measured configuration (repetitions averaged). */
typedef struct {
  char alg[64], impl[32], type[16];
  char commit[COMMIT_LEN]; /* the row's own, else its run's (runs[run_id]), else the file's */
  long long n, seg;        /* seg < 0: not segmented */
  int nt, vt;              /* swept box; 0 for the tuned default and for baselines */
  int def_nt, def_vt; /* the tuned default's box when the sweep reports it (counters "nt", "vt") */
  double gips, pct;   /* G items/s; percent of the copy bandwidth (NAN if not reported) */
  double cv;          /* relative spread of the repetitions (NAN: one measurement) */
  int count;
  int from_median; /* gips/pct are the median of repetitions */
  int l2;          /* the input fits L2 and was not flushed: a warm-cache figure */
} rec;

/* One result file: its context and records. */
typedef struct {
  char name[256], dir[PATH_LEN];
  char gpu[128], arch[32], driver[64], runtime[64], commit[64], copy_gbps[32], date[64];
  rec *r;
  size_t nr, cap;
  int failed;
} suite;

/* Fills s (name and dir already set) from the JSON at path, records sorted by rows_order; 0, or
 * -1 after a message. */
int load(const char *path, suite *s);

/* qsort order of records: by chart (alg, type, seg), then n, impl, box (the tuned default, box
 * 0x0, first). */
int rows_order(const void *a, const void *b);

int is_tb_name(const char *impl);
int is_tb(const rec *r);

/* The record of (alg, impl, type, seg, n) without a box; NULL if absent. */
const rec *find_rec(const suite *s, const char *alg, const char *impl, const char *type,
                    long long seg, long long n);

/* Whether s ends with suffix ("spmv_mtx_cage10_apply", "_apply"). */
int ends_with(const char *s, const char *suffix);

/* Whether alg's rows count the bytes of its plain form, not the ones they move: the _apply rows
 * (the plan is made outside the timing, its reads are not counted), so their share of the copy
 * bandwidth is an effective one. */
int effective_bytes(const char *alg);

/* Whether alg names a real matrix's rows (<family>_mtx_<matrix>[_apply]): one point each, which
 * the chart of matrices shows (plot_matrices.c), not the per-algorithm charts. */
int is_matrix_alg(const char *alg);

/* "2^k" for powers of two, else the number: sizes in sweeps are mostly powers of two. */
const char *size_str(long long n, char *buf, size_t size);

/* The commits behind a set of rows, for a chart's title. */
typedef struct {
  char c[6][COMMIT_LEN];
  int n, more;
} commit_set;

void commits_add(commit_set *set, const char *commit);
/* "commit abc1234", or "commits mixed (abc1234, def5678)" when the rows span several. */
const char *commits_label(const commit_set *set, char *buf, size_t size);

#endif
