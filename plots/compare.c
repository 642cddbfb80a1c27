/* compare: compares two sweep results (Google Benchmark 1.7 JSON, as tilebench's sweeps write
 * them), e.g. two commits on one GPU, two GPUs, or a run with and without an L2 flush.
 *
 *   compare A B [--out DIR] [--filter RE] [--threshold PCT] [--force] [--title TEXT]
 *               [--templates DIR]        (options anywhere; "--" ends them)
 *
 * A and B are each a result file (.json) or a folder of them. Folders: every *.json directly in
 * the folder, matched to the other side by file name (the family, e.g. reduce.json, scan.json);
 * a family on one side only is listed, not compared. A file against a folder is compared with
 * the folder's file of the same name.
 *
 * Input: {"context": {...}, "benchmarks": [row, ...]}, read by core/result_file.h. A row's
 * parameters are its "params" (in files without them, its name's: <algorithm>/<impl>/<type>/n:<n>
 * [/seg:<L>][/nt:<NT>/vt:<VT>], older names with Google Benchmark's own segments such as
 * /iterations:N/manual_time, which do not count); rows are matched by their canonical name,
 * <algorithm>/<impl>/<type>/n:<n>[/seg:<L>][/nt:<NT>/vt:<VT>], which aggregate rows ("run_type":
 * "aggregate") share with the repetitions they sum up. A row with neither params nor such a name
 * is bad input. Per canonical name:
 *   time  = real_time of the "median" aggregate, else the mean of the iteration rows, else the
 *           "mean" aggregate (time_unit ns, us, ms or s);
 *   noise = real_time of the "cv" aggregate (Google Benchmark 1.7 writes the coefficient of
 *           variation there as a fraction, "aggregate_unit": "percentage"), else the relative
 *           sample standard deviation of the iteration rows when there are at least two, else
 *           unknown;
 *   the counters sm_clock_mhz and mem_clock_mhz (folded as the time is), throttle_reasons
 *           (non-zero in any row: throttled) and the row's "device", where present.
 * A name with any row marked "error_occurred" is failed: it is counted and listed, not matched.
 * Other counters are ignored.
 *
 * The verdict. Impl tb is the code under test; every other impl is a baseline library that did
 * not change between the runs, so the baselines' ratios measure what the runs alone moved
 * (clocks, board, driver, the machine's state). Per family (result file) and size (n in
 * [2^k, 2^(k+1))) the control is the set of ln(A time / B time) of the baseline rows; with
 * fewer than MIN_CONTROL of them, those of the size's band (n below 2^20: launch-bound; 2^20 to
 * 2^24: near the L2 size; from 2^25: DRAM-bound), else the family's, else every baseline of the
 * comparison. Its median is the
 * shift of the run, its Tukey fences (quartiles -/+ 1.5 interquartile ranges) the range of the
 * run-to-run spread: quartiles, unlike the minimum and maximum, do not follow the one baseline
 * row that moved for its own reasons. A row (tb or baseline alike) is called "faster" or
 * "slower" when its ln ratio lies beyond a fence by more than twice its own noise
 * (2 * sqrt(a^2 + b^2), a and b its relative noises, unknown taken as 0) and its change net of
 * the shift, exp(ln ratio - median), differs from 1 by more than --threshold PCT (default 2%);
 * otherwise "same"; "?" with neither a control nor a known noise.
 *
 * Contexts: differing GPU models ("gpu") or L2 flushes ("l2_flush") make the runs incomparable
 * and are refused unless --force; differing repetitions, boards (a row's "device"), SM or
 * memory clocks (by more than 1%) and throttled rows are warned about, on stderr and in the
 * report. A key missing on either side is not compared.
 *
 * Output: a markdown report on stdout, and with --out DIR also DIR/compare.md (the same text),
 * DIR/compare.dat and DIR/compare.png (gnuplot, template compare.gp found in --templates DIR,
 * else ./plots, else the runfiles; gnuplot is $GNUPLOT, else gnuplot on the PATH). Per family
 * one row per matched name (in natural order: n:4096 before n:1048576) with both times, the
 * ratio A time / B time (> 1: B is faster), the ratio net of the control's shift, both noises
 * and the verdict; then a summary per family (matched, only in A, only in B, failed on each
 * side, the geometric mean of the ratio over the matched rows: all, impl tb, the baselines; the
 * verdict counts), the controls, and the rows called changed. --filter RE (POSIX extended
 * regular expression) keeps the rows whose canonical name matches it; the controls take every
 * baseline row all the same. The chart shows each family's geometric mean, tb and baselines.
 *
 * Exit status: 0, no tb row called slower; 1, a tb row called slower (a regression, named on
 * stderr); 2, a usage error, bad input (a missing, empty, unreadable or malformed file, a
 * folder without *.json, nothing in common to compare, no row matching --filter), contexts
 * refused, or an output that cannot be written or rendered. Every input is loaded and checked
 * before anything is written, and the outputs go to temporary names renamed into place at the
 * end: a failure leaves no output.
 *
 * Google Benchmark's own tools/compare.py reads the same files (Debian: apt-get install
 * libbenchmark-tools python3-scipy; it needs the Debian python3 that sees python3-scipy):
 *   /usr/bin/python3 /usr/share/benchmark/compare.py benchmarks A.json B.json
 * It matches rows by their full names (so old /iterations:N/manual_time names do not match new
 * ones), prints relative differences ((B - A) / A) and, for rows with repetitions on both sides,
 * a Mann-Whitney U test p-value (add -a to show the aggregates only). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/result_file.h"
#include "plots/style.h"
#include "plots/tool.h"

enum {
  PATH_LEN = 4096,
  CTX_LEN = 128,
  LIST_MAX = 10,            /* names listed per "only in" / "failed" line */
  MIN_CONTROL = 5,          /* fewer baseline rows give no quartiles worth the name */
};

/* Exit statuses. */
enum { EXIT_SAME = 0, EXIT_REGRESSION = 1, EXIT_ERROR = 2 };

/* Context fields printed at the top; gpu, l2_flush and repetitions are also checked. */
static const char *const ctx_keys[] = {"gpu",      "commit",   "date",
                                       "copy_gbps", "l2_flush", "repetitions"};
enum { CTX_GPU, CTX_COMMIT, CTX_DATE, CTX_COPY, CTX_L2, CTX_REPS, NCTX };
static const char ctx_unknown[] = "unknown";

typedef enum { ROW_ITER, ROW_MEDIAN, ROW_MEAN, ROW_CV, ROW_IGNORED } row_kind;

/* Clock counters a sweep may record per row. */
enum { CLK_SM, CLK_MEM, NCLOCKS };
static const char *const clock_str[NCLOCKS] = {"SM clock", "memory clock"};

/* One row of "benchmarks", reduced to what the comparison needs. */
typedef struct {
  char *name; /* canonical */
  int tb, band; /* tilebench's code (impl tb or atomics, no library's); band_of its n */
  row_kind kind;
  double v;   /* time in ns, or the cv as a fraction */
  double clock[NCLOCKS]; /* MHz, NAN if absent */
  int failed, throttled;
  char *msg;    /* error_message of a failed row */
  char *device; /* "<host>:<PCI bus id>", or NULL */
  size_t index;
} row;

/* All rows of one canonical name. */
typedef struct {
  char *name, *msg, *device;
  int tb, band;
  double time, noise; /* ns; fraction, NAN if unknown */
  double clock[NCLOCKS];
  int failed, throttled;
} entry;

/* One loaded file: its entries sorted by name. */
typedef struct {
  char path[PATH_LEN], family[256];
  char ctx[NCTX][CTX_LEN];
  entry *e;
  size_t n, nfailed;
} result;

/* One side of the comparison: a file, or a folder's files sorted by name. */
typedef struct {
  char path[PATH_LEN];
  result *r;
  size_t n;
  int folder;
} side;

typedef enum { V_FASTER, V_SLOWER, V_SAME, V_UNKNOWN, NVERDICTS } verdict;
static const char *const verdict_str[NVERDICTS] = {"faster", "slower", "same", "?"};

/* Geometric means: 0 = all matched rows, 1 = impl tb, 2 = baselines. */
enum { G_ALL, G_TB, G_BASE, NGROUPS };

typedef struct {
  double sum_log[NGROUPS];
  size_t count[NGROUPS], verdicts[NVERDICTS];
} stats;

/* Controls are kept per size, n in [2^k, 2^(k+1)): rows of a few microseconds (launch-bound,
 * L2-resident) drift from run to run by tens of percent where DRAM-bound rows move by one or two,
 * so a control that mixed them would be too narrow for the first and too wide for the second.
 * A size with too few baselines takes its coarse band: launch-bound rows, rows near the L2 size
 * and DRAM-bound rows. */
enum { NBANDS = 64 };
enum { COARSE_SMALL, COARSE_MID, COARSE_LARGE };
static int coarse_of(int band) { return band < 20 ? COARSE_SMALL : band <= 24 ? COARSE_MID : COARSE_LARGE; }
static const char *const coarse_str[] = {"n < 2^20", "2^20 <= n < 2^25", "n >= 2^25"};

typedef enum { SCOPE_SIZE, SCOPE_BAND, SCOPE_FAMILY, SCOPE_ALL, SCOPE_NONE } scope;
static const char *const scope_str[] = {"family, size", "family, band", "family", "all families",
                                        "none"};

/* The baselines' ln(A/B) a row is judged against: their median and Tukey fences. */
typedef struct {
  double lo, mid, hi;
  size_t n;
  scope sc;
} control;

/* Two entries of one name. */
typedef struct {
  const entry *a, *b;
  double lr; /* ln(A time / B time) */
  int band, tb, shown; /* shown: matches --filter */
  verdict v;
} match;

/* The lists of names not matched: only in A, only in B, failed in A, failed in B. */
enum { L_ONLY_A, L_ONLY_B, L_FAILED_A, L_FAILED_B, NLISTS };

/* One family pair to compare, or a family on one side only (the other NULL). */
typedef struct {
  const result *a, *b;
  match *m;
  size_t nm;
  const entry **list[NLISTS];
  size_t nl[NLISTS];
  control ctl[NBANDS];
  stats st;
} family;

static struct {
  const char *out, *title, *templates;
  double threshold; /* fraction */
  int force, filtered;
  regex_t filter;
} opt = {.threshold = 0.02};

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* ---- names ---------------------------------------------------------------------------------- */

/* Natural order: digit runs compare as numbers, so n:4096 sorts before n:1048576. */
static int natural_cmp(const char *a, const char *b) {
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      while (*a == '0') a++;
      while (*b == '0') b++;
      size_t la = 0, lb = 0;
      while (isdigit((unsigned char)a[la])) la++;
      while (isdigit((unsigned char)b[lb])) lb++;
      if (la != lb) return la < lb ? -1 : 1;
      int c = strncmp(a, b, la);
      if (c != 0) return c;
      a += la, b += lb;
    } else if (*a != *b) {
      return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    } else {
      a++, b++;
    }
  }
  if (*a || *b) return *a ? 1 : -1;
  return 0;
}

/* A total order: natural order, then bytes (for leading zeros). */
static int name_cmp(const char *a, const char *b) {
  int c = natural_cmp(a, b);
  return c != 0 ? c : strcmp(a, b);
}

/* ---- loading -------------------------------------------------------------------------------- */

/* The size band of n items: k for n in [2^k, 2^(k+1)). */
static int band_of(long long n) {
  return n < 1 ? 0 : ilogb((double)n) < NBANDS ? ilogb((double)n) : NBANDS - 1;
}

static void free_rows(row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) free(rows[i].name), free(rows[i].msg), free(rows[i].device);
  free(rows);
}

/* Fills r from b, benchmarks[i] of path; 0, or -1 after a message naming path and the row. */
static int parse_row(const char *path, size_t i, const tb_result_row *b, row *r) {
  memset(r, 0, sizeof *r);
  r->index = i;
  for (int k = 0; k < NCLOCKS; k++) r->clock[k] = NAN;
  if (b->name == NULL || b->name[0] == '\0') {
    tool_warn("%s: benchmarks[%zu]: \"name\" is missing or not a non-empty string", path, i);
    return -1;
  }
  const char *name = b->name;
  if (b->kind == TB_ROW_UNKNOWN) {
    tool_warn("%s: benchmarks[%zu] '%s': \"run_type\" is neither \"iteration\" nor \"aggregate\"",
              path, i, name);
    return -1;
  }
  r->kind = ROW_ITER;
  if (b->kind == TB_ROW_AGGREGATE) {
    const char *a = b->p.aggregate;
    if (a[0] == '\0') {
      tool_warn("%s: benchmarks[%zu] '%s': aggregate without an \"aggregate_name\"", path, i, name);
      return -1;
    }
    r->kind = strcmp(a, "median") == 0 ? ROW_MEDIAN
              : strcmp(a, "mean") == 0 ? ROW_MEAN
              : strcmp(a, "cv") == 0   ? ROW_CV
                                       : ROW_IGNORED; /* stddev, BigO, RMS, user statistics */
  }
  if (!b->params_ok) {
    tool_warn("%s: benchmarks[%zu] '%s': no \"params\", and the name is not "
              "<algorithm>/<impl>/<type>/n:<n>[/seg:<L>][/nt:<NT>/vt:<VT>]", path, i, name);
    return -1;
  }
  r->tb = !tool_is_baseline(b->p.impl);
  r->band = band_of(b->p.n);
  if ((r->name = strdup(b->p.canonical)) == NULL) {
    tool_warn("out of memory");
    return -1;
  }
  if (b->failed) {
    r->failed = 1;
    r->msg = strdup(b->error_message ? b->error_message : "(no message)");
    return 0;
  }
  if (r->kind == ROW_IGNORED) return 0;
  if (r->kind != ROW_CV) {
    for (int k = 0; k < NCLOCKS; k++) {
      const double c = k == CLK_SM ? b->sm_clock_mhz : b->mem_clock_mhz;
      r->clock[k] = c > 0 ? c : NAN;
    }
    r->throttled = b->throttled;
    if (b->device != NULL && (r->device = strdup(b->device)) == NULL) {
      tool_warn("out of memory");
      return -1;
    }
  }
  double v = b->real_time, unit = tb_time_unit_ns(b->time_unit);
  if (!isfinite(v)) {
    tool_warn("%s: benchmarks[%zu] '%s': \"real_time\" is missing or not a finite number", path, i,
              name);
    return -1;
  }
  if (r->kind == ROW_CV) {
    if (v < 0) {
      tool_warn("%s: benchmarks[%zu] '%s': negative cv %g", path, i, name, v);
      return -1;
    }
    r->v = v;
    return 0;
  }
  if (isnan(unit)) {
    tool_warn("%s: benchmarks[%zu] '%s': \"time_unit\" is missing or not ns, us, ms or s", path, i,
              name);
    return -1;
  }
  if (!(v > 0)) {
    tool_warn("%s: benchmarks[%zu] '%s': real_time %g is not positive", path, i, name, v);
    return -1;
  }
  r->v = v * unit;
  if (!isfinite(r->v)) {
    tool_warn("%s: benchmarks[%zu] '%s': real_time %g is too large", path, i, name, v);
    return -1;
  }
  return 0;
}

static int by_row(const void *pa, const void *pb) {
  const row *a = pa, *b = pb;
  int c = name_cmp(a->name, b->name);
  return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* A value over one name's rows: the median aggregate's, else the mean of the iteration rows,
 * else the mean aggregate's. */
typedef struct {
  double median, mean, sum;
  size_t n;
} fold;

static void fold_add(fold *f, row_kind kind, double v) {
  if (isnan(v)) return;
  if (kind == ROW_ITER) f->sum += v, f->n++;
  if (kind == ROW_MEDIAN) f->median = v;
  if (kind == ROW_MEAN) f->mean = v;
}

static double fold_value(const fold *f) {
  return !isnan(f->median) ? f->median : f->n > 0 ? f->sum / (double)f->n : f->mean;
}

/* Folds the rows of one name (rows[lo..hi)) into e; takes their name, message and device. */
static int make_entry(const char *path, row *rows, size_t lo, size_t hi, entry *e) {
  fold t = {NAN, NAN, 0, 0}, clock[NCLOCKS];
  double sum2 = 0, cv = NAN;
  memset(e, 0, sizeof *e);
  for (int k = 0; k < NCLOCKS; k++) clock[k] = t;
  e->name = rows[lo].name, rows[lo].name = NULL;
  e->tb = rows[lo].tb, e->band = rows[lo].band;
  for (size_t i = lo; i < hi; i++) {
    row *r = &rows[i];
    if (r->failed && !e->failed) e->failed = 1, e->msg = r->msg, r->msg = NULL;
    if (r->failed) continue;
    if (r->kind == ROW_CV) cv = r->v;
    fold_add(&t, r->kind, r->v);
    for (int k = 0; k < NCLOCKS; k++) fold_add(&clock[k], r->kind, r->clock[k]);
    e->throttled |= r->throttled;
    if (e->device == NULL) e->device = r->device, r->device = NULL;
  }
  if (e->failed) return 0;
  double avg = t.n > 0 ? t.sum / (double)t.n : NAN;
  for (size_t i = lo; i < hi; i++)
    if (!rows[i].failed && rows[i].kind == ROW_ITER) sum2 += (rows[i].v - avg) * (rows[i].v - avg);
  e->time = fold_value(&t);
  e->noise = !isnan(cv) ? cv : t.n >= 2 ? sqrt(sum2 / (double)(t.n - 1)) / avg : NAN;
  for (int k = 0; k < NCLOCKS; k++) e->clock[k] = fold_value(&clock[k]);
  if (isnan(e->time)) {
    tool_warn("%s: '%s' has no iteration, median or mean row with a time", path, e->name);
    return -1;
  }
  return 0;
}

/* Folds the rows of the result at res->path into res's entries. */
static int parse_result(result *res) {
  const char *path = res->path;
  tb_result_file f;
  if (tb_result_file_load(path, &f) != TB_OK) {
    tool_warn("%s", tb_last_error());
    tb_result_file_free(&f);
    return -1;
  }
  int rc = -1;
  const size_t n = f.count;
  row *rows = NULL;
  if (n == 0)
    tool_warn("%s: \"benchmarks\" is empty", path);
  else if ((rows = calloc(n, sizeof *rows)) == NULL || (res->e = calloc(n, sizeof *res->e)) == NULL)
    tool_warn("out of memory");
  else
    rc = 0;
  for (size_t k = 0; k < NCTX; k++) {
    const char *v = tb_result_context(&f, ctx_keys[k]);
    snprintf(res->ctx[k], CTX_LEN, "%s", v && v[0] ? v : ctx_unknown);
  }
  for (size_t i = 0; rc == 0 && i < n; i++) rc = parse_row(path, i, &f.rows[i], &rows[i]);
  tb_result_file_free(&f);
  if (rc == 0) {
    qsort(rows, n, sizeof *rows, by_row);
    for (size_t lo = 0, hi; rc == 0 && lo < n; lo = hi) {
      for (hi = lo + 1; hi < n && strcmp(rows[hi].name, rows[lo].name) == 0;) hi++;
      rc = make_entry(path, rows, lo, hi, &res->e[res->n++]);
      res->nfailed += res->e[res->n - 1].failed;
    }
  }
  if (rows != NULL) free_rows(rows, n); /* calloc'ed: unparsed rows are NULL */
  return rc;
}

static int load(const char *path, result *res) {
  const char *base = base_name(path);
  size_t blen = strlen(base);
  if (blen > 5 && strcmp(base + blen - 5, ".json") == 0) blen -= 5;
  if (tool_fmt(res->path, sizeof res->path, "%s", path) != 0 ||
      tool_fmt(res->family, sizeof res->family, "%.*s", (int)blen, base) != 0) {
    tool_warn("%s: path too long", path);
    return -1;
  }
  return parse_result(res);
}

static void free_result(result *r) {
  for (size_t i = 0; i < r->n; i++) free(r->e[i].name), free(r->e[i].msg), free(r->e[i].device);
  free(r->e);
}

static void free_side(side *s) {
  for (size_t i = 0; i < s->n; i++) free_result(&s->r[i]);
  free(s->r);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted names of the regular *.json files directly in dir; -1 after a message. */
static int list_json(const char *dir, char ***names, size_t *count) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    tool_warn("%s: cannot open folder: %s", dir, strerror(errno));
    return -1;
  }
  char **v = NULL, path[PATH_LEN];
  size_t n = 0, cap = 0;
  int rc = 0;
  struct stat sb;
  for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
    size_t len = strlen(de->d_name);
    if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0) continue;
    if (tool_fmt(path, sizeof path, "%s/%s", dir, de->d_name) != 0 || stat(path, &sb) != 0 ||
        !S_ISREG(sb.st_mode))
      continue;
    if (n == cap) {
      char **p = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
      if (p == NULL) {
        rc = -1;
        break;
      }
      v = p;
    }
    if ((v[n] = strdup(de->d_name)) == NULL)
      rc = -1;
    else
      n++;
  }
  closedir(d);
  if (rc != 0) tool_warn("out of memory");
  if (rc == 0 && n == 0) {
    tool_warn("%s: no *.json files in the folder", dir);
    rc = -1;
  }
  if (rc != 0) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    return -1;
  }
  qsort(v, n, sizeof *v, cmp_str);
  *names = v, *count = n;
  return 0;
}

/* Loads a file, or a folder's *.json; only = the one file name to take from a folder, or NULL. */
static int load_side(const char *path_, const char *only, side *s) {
  struct stat sb;
  if (tool_fmt(s->path, sizeof s->path, "%s", path_) != 0) return -1;
  if (stat(s->path, &sb) != 0) {
    tool_warn("%s: cannot open: %s", s->path, strerror(errno));
    return -1;
  }
  char **names = NULL, path[PATH_LEN];
  size_t n = 1;
  s->folder = S_ISDIR(sb.st_mode);
  if (!s->folder) {
    if ((s->r = calloc(1, sizeof *s->r)) == NULL) return -1;
    s->n = 1;
    return load(s->path, &s->r[0]);
  }
  if (only != NULL) {
    if (tool_fmt(path, sizeof path, "%s/%s", s->path, only) != 0 || stat(path, &sb) != 0) {
      tool_warn("%s: no %s in the folder to compare with", s->path, only);
      return -1;
    }
  } else if (list_json(s->path, &names, &n) != 0) {
    return -1;
  }
  int rc = (s->r = calloc(n, sizeof *s->r)) == NULL ? -1 : 0;
  for (size_t i = 0; i < n && rc == 0; i++, s->n++)
    rc = (names && tool_fmt(path, sizeof path, "%s/%s", s->path, names[i]) != 0) ||
         load(path, &s->r[i]);
  for (size_t i = 0; names && i < n; i++) free(names[i]);
  free(names);
  return rc;
}

/* ---- markdown ------------------------------------------------------------------------------- */

/* A markdown table cell: '|' escaped, control characters as spaces. */
static void md_cell(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputc('\\', f);
    fputc(iscntrl((unsigned char)*s) ? ' ' : *s, f);
  }
}

/* The family's name, or "a vs b" for two files of different names. */
static const char *family_label(const result *a, const result *b, char *buf, size_t size) {
  if (strcmp(a->family, b->family) == 0)
    snprintf(buf, size, "%s", a->family);
  else
    snprintf(buf, size, "%s vs %s", a->family, b->family);
  return buf;
}

static const char *time_str(double ns, char *buf, size_t size) {
  static const char *const units[] = {"ns", "us", "ms", "s"};
  int u = 0;
  for (; u < 3 && ns >= 999.995; u++) ns /= 1000; /* 999.999 ns prints as 1.00 us */
  snprintf(buf, size, "%.2f %s", ns, units[u]);
  return buf;
}

static const char *noise_str(double noise, char *buf, size_t size) {
  if (isnan(noise))
    snprintf(buf, size, "?");
  else
    snprintf(buf, size, "%.2f%%", 100 * noise);
  return buf;
}

/* ---- matching and the controls -------------------------------------------------------------- */

static int shown(const char *name) {
  return !opt.filtered || regexec(&opt.filter, name, 0, NULL, 0) == 0;
}

/* Pairs fam's entries by name (both files are sorted by it) and lists, of the names --filter
 * shows, those on one side only and the failed ones. */
static int match_family(family *fam) {
  const result *a = fam->a, *b = fam->b;
  int rc = (fam->m = malloc((a->n < b->n ? a->n : b->n) * sizeof *fam->m + 1)) ? 0 : -1;
  for (int k = 0; k < NLISTS; k++)
    if ((fam->list[k] = malloc((a->n + b->n + 1) * sizeof *fam->list[k])) == NULL) rc = -1;
  if (rc != 0) {
    tool_warn("out of memory");
    return -1;
  }
  for (size_t i = 0, j = 0; i < a->n || j < b->n;) {
    int c = i == a->n ? 1 : j == b->n ? -1 : name_cmp(a->e[i].name, b->e[j].name);
    const entry *x = c <= 0 ? &a->e[i++] : NULL, *y = c >= 0 ? &b->e[j++] : NULL;
    int show = shown(x ? x->name : y->name);
    if (x && y && !x->failed && !y->failed) {
      fam->m[fam->nm++] = (match){.a = x, .b = y, .lr = log(x->time / y->time),
                                  .band = x->band, .tb = x->tb, .shown = show};
      continue;
    }
    if (!show) continue;
    if (x && x->failed) fam->list[L_FAILED_A][fam->nl[L_FAILED_A]++] = x;
    if (y && y->failed) fam->list[L_FAILED_B][fam->nl[L_FAILED_B]++] = y;
    if (x && !y && !x->failed) fam->list[L_ONLY_A][fam->nl[L_ONLY_A]++] = x;
    if (y && !x && !y->failed) fam->list[L_ONLY_B][fam->nl[L_ONLY_B]++] = y;
  }
  return 0;
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* The p-quantile of sorted v[0..n), interpolated between order statistics. */
static double quantile(const double *v, size_t n, double p) {
  double x = p * (double)(n - 1);
  size_t i = (size_t)x;
  return i + 1 < n ? v[i] + (x - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* Whether a row of size band `b` belongs to the control of `band` at scope sc. */
static int in_scope(scope sc, int band, int b) {
  return sc == SCOPE_SIZE ? b == band : sc == SCOPE_BAND ? coarse_of(b) == coarse_of(band) : 1;
}

/* The baselines' ln ratios of one family (all when only is NULL) in band's scope sc. */
static size_t gather(const family *fam, size_t nfam, const family *only, scope sc, int band,
                     double *v) {
  size_t n = 0;
  for (size_t i = 0; i < nfam; i++)
    for (size_t k = 0; (only == NULL || only == &fam[i]) && k < fam[i].nm; k++)
      if (!fam[i].m[k].tb && in_scope(sc, band, fam[i].m[k].band)) v[n++] = fam[i].m[k].lr;
  return n;
}

/* Sorts v[0..n) and gives its median and Tukey fences (quartiles -/+ 1.5 IQR). */
static void fences(double *v, size_t n, double *lo, double *mid, double *hi) {
  qsort(v, n, sizeof *v, cmp_double);
  double q1 = quantile(v, n, 0.25), q3 = quantile(v, n, 0.75);
  *lo = q1 - 1.5 * (q3 - q1), *mid = quantile(v, n, 0.5), *hi = q3 + 1.5 * (q3 - q1);
}

/* Each family's control per band: the narrowest scope with MIN_CONTROL baseline rows. The
 * median is the runs' shift; Tukey's fences bound the spread of unchanged code and, being built
 * on quartiles, ignore the odd baseline row that moved for its own reasons. */
static int set_controls(family *fam, size_t nfam) {
  size_t total = 0;
  for (size_t i = 0; i < nfam; i++) total += fam[i].nm;
  double *v = malloc((total + 1) * sizeof *v);
  if (v == NULL) {
    tool_warn("out of memory");
    return -1;
  }
  for (size_t i = 0; i < nfam; i++)
    for (int band = 0; band < NBANDS; band++) {
      control *c = &fam[i].ctl[band];
      for (c->sc = SCOPE_SIZE; c->sc < SCOPE_NONE; c->sc++) {
        const family *only = c->sc == SCOPE_ALL ? NULL : &fam[i];
        if ((c->n = gather(fam, nfam, only, c->sc, band, v)) >= MIN_CONTROL) break;
      }
      if (c->sc == SCOPE_NONE) {
        c->lo = c->mid = c->hi = 0, c->n = 0;
        continue;
      }
      fences(v, c->n, &c->lo, &c->mid, &c->hi);
      /* A size's own control, widened to its band's: the first sizes of a run (the GPU still
       * ramping its clocks) can move tb and the baselines unevenly. */
      size_t nb;
      if (c->sc == SCOPE_SIZE && (nb = gather(fam, nfam, &fam[i], SCOPE_BAND, band, v)) > c->n) {
        double lo, mid, hi;
        fences(v, nb, &lo, &mid, &hi);
        c->lo = lo < c->lo ? lo : c->lo, c->hi = hi > c->hi ? hi : c->hi;
      }
    }
  free(v);
  return 0;
}

/* Beyond a fence of the control by twice the row's own noise, and by more than the threshold
 * net of the control's shift (see the top of the file). */
static verdict judge(const match *m, const control *c) {
  double a = m->a->noise, b = m->b->noise;
  if (c->sc == SCOPE_NONE && isnan(a) && isnan(b)) return V_UNKNOWN;
  double e = 2 * sqrt((isnan(a) ? 0 : a * a) + (isnan(b) ? 0 : b * b));
  double net = m->lr - c->mid, floor = log1p(opt.threshold);
  if (m->lr > c->hi + e && net > floor) return V_FASTER;
  if (m->lr < c->lo - e && net < -floor) return V_SLOWER;
  return V_SAME;
}

/* Judges fam's rows and sums up those --filter shows. */
static void judge_family(family *fam) {
  for (size_t k = 0; k < fam->nm; k++) {
    match *m = &fam->m[k];
    m->v = judge(m, &fam->ctl[m->band]);
    if (!m->shown) continue;
    int g = m->tb ? G_TB : G_BASE;
    fam->st.sum_log[G_ALL] += m->lr, fam->st.count[G_ALL]++;
    fam->st.sum_log[g] += m->lr, fam->st.count[g]++;
    fam->st.verdicts[m->v]++;
  }
}

/* ---- contexts ------------------------------------------------------------------------------- */

/* A warning, on stderr and in the report. */
static void note(FILE *md, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void note(FILE *md, const char *format, ...) {
  char text[2048];
  va_list ap;
  va_start(ap, format);
  vsnprintf(text, sizeof text, format, ap);
  va_end(ap);
  tool_warn("warning: %s", text);
  fputs("> warning: ", md);
  md_cell(md, text);
  fputs("\n\n", md);
}

/* Context keys whose values must agree; -1 when the runs are refused (without --force). */
static int check_contexts(FILE *md, const family *fam, size_t n) {
  static const struct {
    int key, refuse;
  } checked[] = {{CTX_GPU, 1}, {CTX_L2, 1}, {CTX_REPS, 0}};
  int rc = 0;
  for (size_t c = 0; c < sizeof checked / sizeof checked[0]; c++) {
    const int key = checked[c].key;
    const family *first = NULL;
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) {
      if (!fam[i].a || !fam[i].b) continue;
      const char *x = fam[i].a->ctx[key], *y = fam[i].b->ctx[key];
      if (strcmp(x, ctx_unknown) && strcmp(y, ctx_unknown) && strcmp(x, y)) {
        first = first ? first : &fam[i];
        differ++;
      }
    }
    if (differ == 0) continue;
    char label[600], more[64] = "";
    family_label(first->a, first->b, label, sizeof label);
    if (differ > 1) snprintf(more, sizeof more, " and %zu more", differ - 1);
    if (checked[c].refuse && !opt.force) {
      tool_warn("%s differs: A %s, B %s (%s%s): the runs are not comparable; --force compares "
                "them anyway", ctx_keys[key], first->a->ctx[key], first->b->ctx[key], label, more);
      rc = -1;
    } else {
      note(md, "%s differs: A %s, B %s (%s%s)%s", ctx_keys[key], first->a->ctx[key],
           first->b->ctx[key], label, more, checked[c].refuse ? ", compared with --force" : "");
    }
  }
  return rc;
}

/* Boards, clocks and throttling of the matched rows, where the rows record them. */
static void check_rows(FILE *md, const family *fam, size_t n) {
  size_t rows = 0, boards = 0, throttled[2] = {0, 0}, clocked[NCLOCKS] = {0};
  double clock_lr[NCLOCKS] = {0};
  const match *board = NULL;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < fam[i].nm; k++) {
      const match *m = &fam[i].m[k];
      rows++;
      if (m->a->device && m->b->device && strcmp(m->a->device, m->b->device) != 0)
        board = board ? board : m, boards++;
      throttled[0] += (size_t)m->a->throttled, throttled[1] += (size_t)m->b->throttled;
      for (int c = 0; c < NCLOCKS; c++)
        if (!isnan(m->a->clock[c]) && !isnan(m->b->clock[c]))
          clock_lr[c] += log(m->b->clock[c] / m->a->clock[c]), clocked[c]++;
    }
  if (boards > 0)
    note(md, "%zu of %zu matched rows ran on different boards (%s: A %s, B %s)", boards, rows,
         board->a->name, board->a->device, board->b->device);
  for (int c = 0; c < NCLOCKS; c++) {
    double ratio = clocked[c] ? exp(clock_lr[c] / (double)clocked[c]) : 1;
    if (fabs(ratio - 1) > 0.01)
      note(md, "%s differs: B's is %.3f times A's (geometric mean over %zu matched rows)",
           clock_str[c], ratio, clocked[c]);
  }
  if (throttled[0] + throttled[1] > 0)
    note(md, "throttled rows (throttle_reasons): %zu in A, %zu in B of %zu matched", throttled[0],
         throttled[1], rows);
}

/* ---- the report ----------------------------------------------------------------------------- */

static double geomean(const stats *st, int g) {
  return st->count[g] ? exp(st->sum_log[g] / (double)st->count[g]) : NAN;
}

/* "1.0523 (12)", or "-" without rows. */
static void print_geomean(FILE *f, const stats *st, int g, int with_count) {
  if (st->count[g] == 0)
    fputs(" -", f);
  else if (with_count)
    fprintf(f, " %.4f (%zu)", geomean(st, g), st->count[g]);
  else
    fprintf(f, " %.4f", geomean(st, g));
}

/* "- only in A (3): x, y, z" listing at most LIST_MAX names. */
static void print_list(FILE *f, const char *what, const entry *const *v, size_t n) {
  if (n == 0) return;
  fprintf(f, "- %s (%zu): ", what, n);
  for (size_t i = 0; i < n && i < LIST_MAX; i++) {
    fprintf(f, "%s%s", i ? ", " : "", v[i]->name);
    if (v[i]->msg) fprintf(f, " (%s)", v[i]->msg);
  }
  if (n > LIST_MAX) fprintf(f, ", ... and %zu more", n - LIST_MAX);
  fputc('\n', f);
}

static void print_match(FILE *f, const match *m, const control *c) {
  char ta[32], tb[32], na[32], nb[32];
  fputs("| ", f);
  md_cell(f, m->a->name);
  fprintf(f, " | %s | %s | %.3f | %.3f | %s | %s | %s |\n", time_str(m->a->time, ta, sizeof ta),
          time_str(m->b->time, tb, sizeof tb), exp(m->lr), exp(m->lr - c->mid),
          noise_str(m->a->noise, na, sizeof na), noise_str(m->b->noise, nb, sizeof nb),
          verdict_str[m->v]);
}

/* Whether the family has anything --filter shows. */
static int family_shown(const family *fam) {
  size_t listed = 0;
  for (int k = 0; k < NLISTS; k++) listed += fam->nl[k];
  return fam->a && fam->b && (!opt.filtered || fam->st.count[G_ALL] + listed > 0);
}

/* The table of one family, then the names it could not match. */
static void print_family(FILE *f, const family *fam) {
  static const char *const what[NLISTS] = {"only in A", "only in B", "failed in A", "failed in B"};
  char label[600];
  fputs("## ", f);
  md_cell(f, family_label(fam->a, fam->b, label, sizeof label));
  fputs("\n\n| name | A | B | A/B | net | noise A | noise B | verdict |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n", f);
  for (size_t k = 0; k < fam->nm; k++)
    if (fam->m[k].shown) print_match(f, &fam->m[k], &fam->ctl[fam->m[k].band]);
  if (fam->st.count[G_ALL] == 0) fputs("| (no benchmark in common) | | | | | | | |\n", f);
  fputc('\n', f);
  size_t listed = 0;
  for (int k = 0; k < NLISTS; k++) {
    print_list(f, what[k], fam->list[k], fam->nl[k]);
    listed += fam->nl[k];
  }
  if (listed > 0) fputc('\n', f);
}

static void print_context(FILE *f, const char *label, const side *s) {
  fprintf(f, "| %s | ", label);
  md_cell(f, s->path);
  for (size_t k = 0; k < NCTX; k++) {
    int varies = 0;
    for (size_t i = 1; i < s->n; i++) varies |= strcmp(s->r[i].ctx[k], s->r[0].ctx[k]) != 0;
    fputs(" | ", f);
    md_cell(f, s->r[0].ctx[k]);
    if (varies) fputs(" (varies)", f);
  }
  fputs(" |\n", f);
}

static void print_header(FILE *f, const side *a, const side *b) {
  fputs("# ", f);
  if (opt.title)
    md_cell(f, opt.title);
  else
    fprintf(f, "%s vs %s", base_name(a->path), base_name(b->path));
  fputs("\n\n| | path | gpu | commit | date | copy GB/s | L2 flush | repetitions |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n", f);
  print_context(f, "A", a);
  print_context(f, "B", b);
  fputs("\nA/B = A time / B time: above 1, B is faster. Times are the median of the repetitions "
        "(else their mean); noise is their coefficient of variation. net = A/B over the median "
        "A/B of the row's control (the baseline rows, see the end).\n\n", f);
  if (opt.filtered) fputs("Rows shown: those whose name matches --filter.\n\n", f);
}

/* Pairs the files of both sides by name; a file against a folder took the file's name. */
static family *pair_families(const side *a, const side *b, size_t *n) {
  family *v = calloc(a->n + b->n, sizeof *v);
  *n = 0;
  if (v == NULL) return NULL;
  if (!a->folder || !b->folder) { /* two files, whatever their names */
    v[(*n)++] = (family){.a = &a->r[0], .b = &b->r[0]};
    return v;
  }
  for (size_t i = 0, j = 0; i < a->n || j < b->n;) {
    int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->r[i].family, b->r[j].family);
    v[(*n)++] = (family){.a = c <= 0 ? &a->r[i++] : NULL, .b = c >= 0 ? &b->r[j++] : NULL};
  }
  return v;
}

static void free_families(family *fam, size_t n) {
  for (size_t i = 0; fam && i < n; i++) {
    free(fam[i].m);
    for (int k = 0; k < NLISTS; k++) free(fam[i].list[k]);
  }
  free(fam);
}

static void print_summary(FILE *f, const family *fam, size_t n) {
  stats all;
  memset(&all, 0, sizeof all);
  fputs("## Summary\n\n"
        "| family | matched | only A | only B | failed A | failed B | geomean A/B | tb | baselines "
        "| faster | slower | same | ? |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "|\n", f);
  for (size_t i = 0; i < n; i++) {
    const stats *st = &fam[i].st;
    if (!family_shown(&fam[i])) continue;
    char label[600];
    fputs("| ", f);
    md_cell(f, family_label(fam[i].a, fam[i].b, label, sizeof label));
    fprintf(f, " | %zu", st->count[G_ALL]);
    for (int k = 0; k < NLISTS; k++) fprintf(f, " | %zu", fam[i].nl[k]);
    fputs(" |", f);
    print_geomean(f, st, G_ALL, 0);
    fputs(" |", f);
    print_geomean(f, st, G_TB, 1);
    fputs(" |", f);
    print_geomean(f, st, G_BASE, 1);
    for (int v = 0; v < NVERDICTS; v++) fprintf(f, " | %zu", st->verdicts[v]);
    fputs(" |\n", f);
    for (int g = 0; g < NGROUPS; g++) {
      all.sum_log[g] += st->sum_log[g];
      all.count[g] += st->count[g];
    }
  }
  fputc('\n', f);
  int listed = 0;
  for (size_t i = 0; i < n; i++) {
    const result *r = fam[i].a ? fam[i].a : fam[i].b;
    if (fam[i].a && fam[i].b) continue;
    fprintf(f, "- family only in %s: %s (%zu benchmarks)\n", fam[i].a ? "A" : "B", r->family, r->n);
    listed = 1;
  }
  if (listed) fputc('\n', f);
  fprintf(f, "Overall geomean A/B over %zu matched rows: %.4f (tb", all.count[G_ALL],
          geomean(&all, G_ALL));
  print_geomean(f, &all, G_TB, 1);
  fputs(", baselines", f);
  print_geomean(f, &all, G_BASE, 1);
  fputs(")\n\n", f);
}

/* The control each family and band's rows were judged against. */
static void print_controls(FILE *f, const family *fam, size_t n) {
  fputs("## Controls\n\n"
        "| family | band | rows | control | baselines | median A/B | fences A/B |\n"
        "| --- | --- | ---: | --- | ---: | ---: | --- |\n", f);
  for (size_t i = 0; i < n; i++)
    for (int band = 0; band < NBANDS && family_shown(&fam[i]); band++) {
      const control *c = &fam[i].ctl[band];
      size_t rows = 0;
      for (size_t k = 0; k < fam[i].nm; k++) rows += fam[i].m[k].shown && fam[i].m[k].band == band;
      if (rows == 0) continue;
      char label[600];
      fputs("| ", f);
      md_cell(f, family_label(fam[i].a, fam[i].b, label, sizeof label));
      fprintf(f, " | 2^%d <= n < 2^%d (%s) | %zu | %s | %zu |", band, band + 1,
              coarse_str[coarse_of(band)], rows, scope_str[c->sc], c->n);
      if (c->sc == SCOPE_NONE)
        fputs(" - | - |\n", f);
      else
        fprintf(f, " %.4f | %.4f - %.4f |\n", exp(c->mid), exp(c->lo), exp(c->hi));
    }
  fprintf(f, "\nVerdict (B against A): a row is \"faster\" (A/B > 1) or \"slower\" when its A/B "
          "lies beyond the fences of its control, widened by twice its own noise "
          "(2*sqrt(a^2 + b^2), a and b the relative noises of A and B), and its net differs from "
          "1 by more than %g%%; otherwise \"same\"; \"?\" with neither a control nor a noise. "
          "The control of a family and size (n in [2^k, 2^(k+1))) is the A/B of its baseline rows "
          "(impls other than tb, whose code did not change), or with fewer than %d of them those "
          "of the size's band, else the family's, else every family's: their median is the shift of the runs, their fences (quartiles -/+ "
          "1.5 interquartile ranges, on ln A/B) the spread of unchanged code. Geometric means "
          "are over the matched rows only; tb = impl tb, baselines = the other impls (count in "
          "parentheses). Failed rows (error_occurred) are left out.\n\n",
          100 * opt.threshold, MIN_CONTROL);
}

/* The rows called changed; returns how many tb rows are slower (regressions). */
static size_t print_changes(FILE *f, const family *fam, size_t n) {
  size_t changed = 0, slower = 0;
  fputs("## Changes\n\n", f);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < fam[i].nm; k++) {
      const match *m = &fam[i].m[k];
      if (!m->shown || (m->v != V_FASTER && m->v != V_SLOWER)) continue;
      if (changed++ == 0)
        fputs("| name | A/B | net | verdict |\n| --- | ---: | ---: | --- |\n", f);
      fputs("| ", f);
      md_cell(f, m->a->name);
      fprintf(f, " | %.3f | %.3f | %s |\n", exp(m->lr), exp(m->lr - fam[i].ctl[m->band].mid),
              verdict_str[m->v]);
      slower += m->tb && m->v == V_SLOWER;
    }
  fprintf(f, "%sRows called changed: %zu; tb rows slower (regressions): %zu.\n", changed ? "\n" : "",
          changed, slower);
  return slower;
}

/* ---- chart ---------------------------------------------------------------------------------- */

static void write_value(FILE *f, const stats *st, int g) {
  if (st->count[g])
    fprintf(f, "\t%.6g", geomean(st, g));
  else
    fputs("\t-", f);
}

static int write_dat(const char *path, const family *fam, size_t n) {
  FILE *f = fopen(path, "w");
  if (f == NULL) return -1;
  fputs("# geometric mean of A time / B time per family (> 1: B is faster); \"-\" = no rows\n"
        "# index\tfamily\tall\ttb\tbaselines\tmatched\n", f);
  for (size_t i = 0, k = 0; i < n; i++) {
    if (!family_shown(&fam[i])) continue;
    char label[600];
    fprintf(f, "%zu\t", k++);
    for (const char *s = family_label(fam[i].a, fam[i].b, label, sizeof label); *s; s++)
      fputc(iscntrl((unsigned char)*s) ? ' ' : *s, f);
    for (int g = 0; g < NGROUPS; g++) write_value(f, &fam[i].st, g);
    fprintf(f, "\t%zu\n", fam[i].st.count[G_ALL]);
  }
  return fclose(f);
}

/* Writes DIR/compare.{md,dat,png} under temporary names, then renames them into place. */
static int write_outputs(const char *md, size_t mdlen, const family *fam, size_t n,
                         const char *title) {
  static const char *const names[] = {"compare.md", "compare.dat", "compare.png"};
  char dir[PATH_LEN], tdir[PATH_LEN], tmp[3][PATH_LEN], dst[3][PATH_LEN];
  if (tool_user_path(opt.out, dir, sizeof dir) != 0) {
    tool_warn("%s: path too long", opt.out);
    return -1;
  }
  if (tool_find_templates(opt.templates, "compare.gp", tdir, sizeof tdir) != 0) return -1;
  for (int k = 0; k < 3; k++)
    if (tool_fmt(tmp[k], PATH_LEN, "%s/.%s.%ld.tmp", dir, names[k], (long)getpid()) != 0 ||
        tool_fmt(dst[k], PATH_LEN, "%s/%s", dir, names[k]) != 0) {
      tool_warn("%s: path too long", dir);
      return -1;
    }
  struct stat sb;
  int existed = stat(dir, &sb) == 0;
  if (tb_mkdirs(dir) != 0) {
    tool_warn("cannot create %s: %s", dir, strerror(errno));
    return -1;
  }
  FILE *f = fopen(tmp[0], "w");
  int rc = f == NULL || fwrite(md, 1, mdlen, f) != mdlen;
  if (f != NULL && fclose(f) != 0) rc = 1;
  if (rc != 0 || write_dat(tmp[1], fam, n) != 0) {
    tool_warn("cannot write in %s: %s", dir, strerror(errno));
    rc = 1;
  }
  if (rc == 0)
    rc = tool_render_common(tdir, "compare.gp", tmp[1], tmp[2], title,
                            STYLE_TB " " STYLE_BASELINE);
  for (int k = 0; k < 3 && rc == 0; k++)
    if (rename(tmp[k], dst[k]) != 0) {
      tool_warn("cannot rename %s to %s: %s", tmp[k], dst[k], strerror(errno));
      rc = -1;
    }
  for (int k = 0; k < 3; k++) remove(tmp[k]); /* leftovers of a failure */
  if (rc != 0 && !existed) rmdir(dir);
  return rc ? -1 : 0;
}

/* ---- main ----------------------------------------------------------------------------------- */

/* Sets the option name (one that takes a value) to val; -1 after a message. */
static int set_option(const char *name, const char *val) {
  if (!strcmp(name, "--out")) {
    opt.out = val;
  } else if (!strcmp(name, "--title")) {
    opt.title = val;
  } else if (!strcmp(name, "--templates")) {
    opt.templates = val;
  } else if (!strcmp(name, "--filter")) {
    int err = opt.filtered ? REG_BADPAT : regcomp(&opt.filter, val, REG_EXTENDED | REG_NOSUB);
    if (err != 0) {
      char msg[256] = "given twice";
      if (!opt.filtered) regerror(err, &opt.filter, msg, sizeof msg);
      tool_warn("--filter '%s': %s", val, msg);
      return -1;
    }
    opt.filtered = 1;
  } else {
    char *end;
    double pct = strtod(val, &end);
    if (end == val || (*end && strcmp(end, "%")) || !(pct >= 0 && pct < 100)) {
      tool_warn("--threshold '%s': not a percentage from 0 to 100", val);
      return -1;
    }
    opt.threshold = pct / 100;
  }
  return 0;
}

static int usage(FILE *f, int rc) {
  fputs("usage: compare A B [--out DIR] [--filter RE] [--threshold PCT] [--force]\n"
        "                   [--title TEXT] [--templates DIR]\n"
        "  A, B: a sweep result .json each, or folders of them (matched by file name).\n"
        "  Prints a markdown comparison (A/B = A time / B time, > 1: B is faster) with a verdict\n"
        "  per row against the baseline rows' spread; with --out also writes DIR/compare.md,\n"
        "  compare.dat and compare.png (gnuplot).\n"
        "  --filter RE      only the rows whose name matches RE (POSIX extended regex)\n"
        "  --threshold PCT  the least change, net of the baselines' shift, called (default 2)\n"
        "  --force          compare runs of different GPUs or L2 flushes (with a warning)\n"
        "  Exit status: 0 no tb row slower, 1 a tb row slower, 2 usage or input error.\n", f);
  return rc;
}

/* Options anywhere beside A and B ("--" ends them) into opt and paths; 0, 1 for --help, -1 for a
 * usage error (after a message). */
static int parse_args(int argc, char **argv, const char *paths[2]) {
  int n = 0, options = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int takes_value = !strcmp(a, "--out") || !strcmp(a, "--title") || !strcmp(a, "--templates") ||
                      !strcmp(a, "--filter") || !strcmp(a, "--threshold");
    if (!options || strncmp(a, "--", 2) != 0) {
      if (n == 2) {
        tool_warn("more than two results given: %s", a);
        return -1;
      }
      paths[n++] = a;
    } else if (!strcmp(a, "--")) {
      options = 0;
    } else if (!strcmp(a, "--help")) {
      return 1;
    } else if (!strcmp(a, "--force")) {
      opt.force = 1;
    } else if (!takes_value) {
      tool_warn("unknown option: %s", a);
      return -1;
    } else if (val == NULL) {
      tool_warn("%s needs a value", a);
      return -1;
    } else if (set_option(a, val) != 0) {
      return -1;
    } else {
      i++;
    }
  }
  if (n < 2) tool_warn("two results to compare are needed, %d given", n);
  return n < 2 ? -1 : 0;
}

/* Builds the report in memory so that nothing is printed or written before it is complete;
 * *slower = the tb rows called slower. */
static int report(const side *a, const side *b, char **md, size_t *mdlen, family **fam,
                  size_t *nfam, size_t *slower) {
  FILE *f = open_memstream(md, mdlen);
  if (f == NULL || (*fam = pair_families(a, b, nfam)) == NULL) {
    tool_warn("out of memory");
    if (f) fclose(f);
    return -1;
  }
  size_t matched = 0;
  int rc = 0;
  for (size_t i = 0; i < *nfam && rc == 0; i++)
    if ((*fam)[i].a && (*fam)[i].b) rc = match_family(&(*fam)[i]);
  if (rc == 0) rc = set_controls(*fam, *nfam);
  for (size_t i = 0; i < *nfam && rc == 0; i++) {
    judge_family(&(*fam)[i]);
    matched += (*fam)[i].st.count[G_ALL];
  }
  print_header(f, a, b);
  if (rc == 0) rc = check_contexts(f, *fam, *nfam);
  if (rc == 0) {
    check_rows(f, *fam, *nfam);
    for (size_t i = 0; i < *nfam; i++)
      if (family_shown(&(*fam)[i])) print_family(f, &(*fam)[i]);
    print_summary(f, *fam, *nfam);
    print_controls(f, *fam, *nfam);
    *slower = print_changes(f, *fam, *nfam);
  }
  if (fclose(f) != 0 || rc != 0) return -1;
  if (matched == 0) {
    if (opt.filtered)
      tool_warn("no benchmark in common to %s and %s matches --filter", a->path, b->path);
    else
      tool_warn("nothing to compare: %s and %s have no benchmark in common", a->path, b->path);
    return -1;
  }
  return 0;
}

/* Names the regressions on stderr. */
static void warn_slower(const family *fam, size_t n, size_t slower) {
  char names[1024] = "";
  size_t listed = 0, len = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < fam[i].nm && listed < LIST_MAX; k++) {
      const match *m = &fam[i].m[k];
      if (!m->shown || !m->tb || m->v != V_SLOWER) continue;
      int w = snprintf(names + len, sizeof names - len, "%s%s (net %.3f)", listed ? ", " : "",
                       m->a->name, exp(m->lr - fam[i].ctl[m->band].mid));
      if (w < 0 || (size_t)w >= sizeof names - len) break;
      len += (size_t)w, listed++;
    }
  tool_warn("%zu tb row%s slower in B: %s%s", slower, slower == 1 ? "" : "s", names,
            slower > listed ? ", ..." : "");
}

int main(int argc, char **argv) {
  tool_set_program("compare");
  const char *paths[2];
  int args = parse_args(argc, argv, paths);
  if (args != 0) return usage(args > 0 ? stdout : stderr, args > 0 ? EXIT_SAME : EXIT_ERROR);
  side a, b;
  char pa[PATH_LEN], pb[PATH_LEN];
  struct stat sa, sb;
  memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
  if (tool_user_path(paths[0], pa, sizeof pa) != 0 || tool_user_path(paths[1], pb, sizeof pb) != 0) {
    tool_warn("path too long: %s", strlen(paths[0]) > strlen(paths[1]) ? paths[0] : paths[1]);
    return EXIT_ERROR;
  }
  /* A file against a folder: the folder's file of the same name. */
  int da = stat(pa, &sa) == 0 && S_ISDIR(sa.st_mode);
  int db = stat(pb, &sb) == 0 && S_ISDIR(sb.st_mode);
  int rc = load_side(pa, da && !db ? base_name(pb) : NULL, &a) ||
           load_side(pb, db && !da ? base_name(pa) : NULL, &b);
  char *md = NULL, title[1024];
  size_t mdlen = 0, nfam = 0, slower = 0;
  family *fam = NULL;
  if (rc == 0) rc = report(&a, &b, &md, &mdlen, &fam, &nfam, &slower) != 0;
  if (opt.title)
    snprintf(title, sizeof title, "%s", opt.title);
  else
    snprintf(title, sizeof title, "%s vs %s", base_name(a.path), base_name(b.path));
  if (rc == 0 && opt.out) rc = write_outputs(md, mdlen, fam, nfam, title) != 0;
  if (rc == 0 && (fwrite(md, 1, mdlen, stdout) != mdlen || fflush(stdout) != 0)) {
    tool_warn("cannot write to stdout");
    rc = 1;
  }
  if (rc == 0 && slower > 0) warn_slower(fam, nfam, slower);
  free(md);
  free_families(fam, nfam);
  free_side(&a);
  free_side(&b);
  if (opt.filtered) regfree(&opt.filter);
  return rc != 0 ? EXIT_ERROR : slower > 0 ? EXIT_REGRESSION : EXIT_SAME;
}
