/* compare: compares two sweep results (Google Benchmark 1.7 JSON, as tilebench's sweeps write
 * them), e.g. two commits on one GPU, two GPUs, or a run with and without an L2 flush.
 *
 *   compare [--out DIR] [--title TEXT] [--templates DIR] A B
 *
 * A and B are each a result file (.json) or a folder of them. Folders: every *.json directly in
 * the folder, matched to the other side by file name (the family, e.g. reduce.json, scan.json);
 * a family on one side only is listed, not compared. A file against a folder is compared with
 * the folder's file of the same name.
 *
 * Input: {"context": {...}, "benchmarks": [row, ...]}. A row's name is
 * <algorithm>/<impl>/<type>/n:<n>[/seg:<L>][/nt:<NT>/vt:<VT>]; older files append Google
 * Benchmark's own segments (/iterations:N/manual_time, /repeats:N, /min_time:T, /real_time,
 * /threads:N, ...), which are stripped: what remains is the canonical name rows are matched by.
 * Aggregate rows ("run_type": "aggregate") are named <canonical>_<aggregate_name>. Per canonical
 * name:
 *   time  = real_time of the "median" aggregate, else the mean of the iteration rows, else the
 *           "mean" aggregate (time_unit ns, us, ms or s);
 *   noise = real_time of the "cv" aggregate (Google Benchmark 1.7 writes the coefficient of
 *           variation there as a fraction, "aggregate_unit": "percentage"), else the relative
 *           sample standard deviation of the iteration rows when there are at least two, else
 *           unknown.
 * A name with any row marked "error_occurred" is failed: it is counted and listed, not matched.
 * "params" objects and counters are ignored: the name is authoritative.
 *
 * Output: a markdown report on stdout, and with --out DIR also DIR/compare.md (the same text),
 * DIR/compare.dat and DIR/compare.png (gnuplot, template compare.gp found in --templates DIR,
 * else ./plots, else the runfiles; gnuplot is $GNUPLOT, else gnuplot on the PATH). Per family
 * one row per matched name (in natural order: n:4096 before n:1048576) with both times, the
 * ratio A time / B time (> 1: B is faster) and both noises; then a summary per family: matched,
 * only in A, only in B, failed on each side, the geometric mean of the ratio over the matched
 * rows (all, impl tb, the other impls = baselines) and the verdict counts; then the geometric
 * mean over every matched row. The chart shows each family's geometric mean, tb and baselines.
 *
 * Verdict of a matched row, with relative noises a and b: the difference is real when
 *   |ln(A time / B time)| > 2 * sqrt(a^2 + b^2)  and  |ln(A time / B time)| > 0.005 (0.5%);
 * then "faster" (B is faster, ratio > 1) or "slower"; otherwise "same"; "?" when a or b is
 * unknown (a single repetition and no cv). Two noise widths keep the false alarm rate of one
 * row low; the 0.5% floor ignores differences too small to matter even when both runs are quiet.
 *
 * Exit status: 0; 1 for bad input (a missing, empty, unreadable or malformed file, a folder
 * without *.json, nothing in common to compare) or when an output cannot be written or rendered;
 * 2 for usage errors. Every input is loaded and checked before anything is written, and the
 * outputs go to temporary names renamed into place at the end: a failure leaves no output.
 *
 * Google Benchmark's own tools/compare.py reads the same files (Debian: apt-get install
 * libbenchmark-tools python3-scipy; it needs the Debian python3 that sees python3-scipy):
 *   /usr/bin/python3 /usr/share/benchmark/compare.py benchmarks A.json B.json
 * It matches rows by their full names (so old /iterations:N/manual_time names do not match new
 * ones), prints relative differences ((B - A) / A) and, for rows with repetitions on both sides,
 * a Mann-Whitney U test p-value (add -a to show the aggregates only). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/results.h"
#include "plots/style.h"
#include "plots/tool.h"

enum {
  PATH_LEN = 4096,
  CTX_LEN = 128,
  LIST_MAX = 10,            /* names listed per "only in" / "failed" line */
  MAX_FILE = 1 << 30,       /* larger inputs are refused rather than read */
};

/* Context fields printed at the top. */
static const char *const ctx_keys[] = {"gpu", "commit", "date", "copy_gbps"};
enum { NCTX = sizeof ctx_keys / sizeof ctx_keys[0] };

typedef enum { ROW_ITER, ROW_MEDIAN, ROW_MEAN, ROW_CV, ROW_IGNORED } row_kind;

/* One row of "benchmarks", reduced to what the comparison needs. */
typedef struct {
  char *name; /* canonical */
  row_kind kind;
  double v;   /* time in ns, or the cv as a fraction */
  int failed;
  char *msg;  /* error_message of a failed row */
  size_t index;
} row;

/* All rows of one canonical name. */
typedef struct {
  char *name, *msg;
  double time, noise; /* ns; fraction, NAN if unknown */
  int failed;
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
  size_t count[NGROUPS], only_a, only_b, failed_a, failed_b, verdicts[NVERDICTS];
} stats;

/* One family pair to compare, or a family on one side only (the other NULL). */
typedef struct {
  const result *a, *b;
  stats st;
} family;

static struct {
  const char *out, *title, *templates;
} opt;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* ---- names ---------------------------------------------------------------------------------- */

/* The canonical name: the first len bytes of name without Google Benchmark's segments. */
static char *canonical(const char *name, size_t len) {
  char *out = malloc(len + 1);
  if (out == NULL) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    size_t j = i;
    while (j < len && name[j] != '/') j++;
    if (i == 0 || !tb_gbench_segment(name + i, j - i)) {
      if (i > 0) out[n++] = '/';
      memcpy(out + n, name + i, j - i);
      n += j - i;
    }
    i = j + 1;
  }
  out[n] = '\0';
  return out;
}

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

/* impl = the second segment of the name. */
static int is_tb(const char *name) {
  const char *slash = strchr(name, '/');
  return slash != NULL && strncmp(slash + 1, "tb", 2) == 0 && (slash[3] == '/' || !slash[3]);
}

/* ---- loading -------------------------------------------------------------------------------- */

/* An object's member, or NULL (also when obj is not an object). */
static const cJSON *field(const cJSON *obj, const char *key) {
  return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static double ns_per_unit(const cJSON *unit) {
  static const struct {
    const char *name;
    double ns;
  } units[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (size_t i = 0; cJSON_IsString(unit) && i < sizeof units / sizeof units[0]; i++)
    if (strcmp(unit->valuestring, units[i].name) == 0) return units[i].ns;
  return NAN;
}

/* The whole file, NUL-terminated, in *text; a message naming the problem on failure. Opened
 * non-blocking and checked to be a regular file so that a FIFO or a device cannot hang us. */
static int read_all(const char *path, char **text, size_t *len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    tool_warn("%s: cannot open: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (!S_ISREG(sb.st_mode) || sb.st_size > MAX_FILE) {
    tool_warn("%s: %s", path, S_ISREG(sb.st_mode) ? "too large" : "not a regular file");
    close(fd);
    return -1;
  }
  size_t size = (size_t)sb.st_size, got = 0;
  char *buf = malloc(size + 1);
  ssize_t k = 1;
  while (buf != NULL && got < size && (k = read(fd, buf + got, size - got)) > 0) got += (size_t)k;
  int err = errno;
  close(fd);
  if (buf == NULL || k < 0) {
    tool_warn("%s: cannot read: %s", path, buf ? strerror(err) : "out of memory");
    free(buf);
    return -1;
  }
  buf[got] = '\0';
  *text = buf, *len = got;
  return 0;
}

static void free_rows(row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) free(rows[i].name), free(rows[i].msg);
  free(rows);
}

/* Fills r from benchmarks[i]; 0, or -1 after a message naming path and the row. */
static int parse_row(const char *path, size_t i, const cJSON *b, row *r) {
  const cJSON *name = field(b, "name"), *type = field(b, "run_type");
  const cJSON *agg = field(b, "aggregate_name"), *rn = field(b, "run_name");
  memset(r, 0, sizeof *r);
  r->index = i;
  if (!cJSON_IsObject(b)) {
    tool_warn("%s: benchmarks[%zu] is not an object", path, i);
    return -1;
  }
  if (!cJSON_IsString(name) || name->valuestring[0] == '\0') {
    tool_warn("%s: benchmarks[%zu]: \"name\" is missing or not a non-empty string", path, i);
    return -1;
  }
  const char *s = name->valuestring;
  size_t len = strlen(s);
  r->kind = ROW_ITER;
  if (type != NULL && (!cJSON_IsString(type) || (strcmp(type->valuestring, "iteration") != 0 &&
                                                 strcmp(type->valuestring, "aggregate") != 0))) {
    tool_warn("%s: benchmarks[%zu] '%s': \"run_type\" is neither \"iteration\" nor \"aggregate\"", path,
         i, s);
    return -1;
  }
  if (type != NULL && strcmp(type->valuestring, "aggregate") == 0) {
    if (!cJSON_IsString(agg)) {
      tool_warn("%s: benchmarks[%zu] '%s': aggregate without an \"aggregate_name\"", path, i, s);
      return -1;
    }
    const char *a = agg->valuestring;
    size_t alen = strlen(a);
    r->kind = strcmp(a, "median") == 0 ? ROW_MEDIAN
              : strcmp(a, "mean") == 0 ? ROW_MEAN
              : strcmp(a, "cv") == 0   ? ROW_CV
                                       : ROW_IGNORED; /* stddev, BigO, RMS, user statistics */
    if (len > alen + 1 && s[len - alen - 1] == '_' && strcmp(s + len - alen, a) == 0)
      len -= alen + 1; /* <canonical>_<aggregate> */
    else if (cJSON_IsString(rn))
      s = rn->valuestring, len = strlen(s);
  }
  r->name = canonical(s, len);
  if (r->name == NULL) {
    tool_warn("out of memory");
    return -1;
  }
  if (cJSON_IsTrue(field(b, "error_occurred"))) {
    const cJSON *msg = field(b, "error_message");
    r->failed = 1;
    r->msg = strdup(cJSON_IsString(msg) ? msg->valuestring : "(no message)");
    return 0;
  }
  if (r->kind == ROW_IGNORED) return 0;
  const cJSON *t = field(b, "real_time");
  double v = cJSON_IsNumber(t) ? t->valuedouble : NAN, unit = ns_per_unit(field(b, "time_unit"));
  if (!cJSON_IsNumber(t) || !isfinite(v)) {
    tool_warn("%s: benchmarks[%zu] '%s': \"real_time\" is missing or not a finite number", path, i,
         name->valuestring);
    return -1;
  }
  if (r->kind == ROW_CV) {
    if (v < 0) {
      tool_warn("%s: benchmarks[%zu] '%s': negative cv %g", path, i, name->valuestring, v);
      return -1;
    }
    r->v = v;
    return 0;
  }
  if (isnan(unit)) {
    tool_warn("%s: benchmarks[%zu] '%s': \"time_unit\" is missing or not ns, us, ms or s", path, i,
         name->valuestring);
    return -1;
  }
  if (!(v > 0)) {
    tool_warn("%s: benchmarks[%zu] '%s': real_time %g is not positive", path, i, name->valuestring, v);
    return -1;
  }
  r->v = v * unit;
  if (!isfinite(r->v)) {
    tool_warn("%s: benchmarks[%zu] '%s': real_time %g is too large", path, i, name->valuestring, v);
    return -1;
  }
  return 0;
}

static int by_row(const void *pa, const void *pb) {
  const row *a = pa, *b = pb;
  int c = name_cmp(a->name, b->name);
  return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* Folds the rows of one name (rows[lo..hi)) into e; takes their name and message. */
static int make_entry(const char *path, row *rows, size_t lo, size_t hi, entry *e) {
  double sum = 0, sum2 = 0, median = NAN, mean = NAN, cv = NAN;
  size_t n = 0;
  memset(e, 0, sizeof *e);
  e->name = rows[lo].name, rows[lo].name = NULL;
  for (size_t i = lo; i < hi; i++) {
    row *r = &rows[i];
    if (r->failed && !e->failed) e->failed = 1, e->msg = r->msg, r->msg = NULL;
    if (r->failed) continue;
    if (r->kind == ROW_ITER) sum += r->v, n++;
    if (r->kind == ROW_MEDIAN) median = r->v;
    if (r->kind == ROW_MEAN) mean = r->v;
    if (r->kind == ROW_CV) cv = r->v;
  }
  if (e->failed) return 0;
  double avg = n > 0 ? sum / (double)n : NAN;
  for (size_t i = lo; i < hi; i++)
    if (!rows[i].failed && rows[i].kind == ROW_ITER) sum2 += (rows[i].v - avg) * (rows[i].v - avg);
  e->time = !isnan(median) ? median : n > 0 ? avg : mean;
  e->noise = !isnan(cv) ? cv : n >= 2 ? sqrt(sum2 / (double)(n - 1)) / avg : NAN;
  if (isnan(e->time)) {
    tool_warn("%s: '%s' has no iteration, median or mean row with a time", path, e->name);
    return -1;
  }
  return 0;
}

/* Parses text into res's entries. */
static int parse_result(result *res, const char *text) {
  const char *path = res->path, *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (root == NULL) {
    tool_warn("%s: not valid JSON (near byte %ld)", path, end ? (long)(end - text) : 0L);
    return -1;
  }
  const cJSON *ctx = field(root, "context"), *benches = field(root, "benchmarks");
  int rc = -1;
  size_t n = (size_t)cJSON_GetArraySize(benches), i = 0;
  row *rows = NULL;
  if (!cJSON_IsObject(root))
    tool_warn("%s: not a JSON object: a Google Benchmark result is {\"context\": ..., "
         "\"benchmarks\": [...]}", path);
  else if (!cJSON_IsArray(benches))
    tool_warn("%s: no \"benchmarks\" array: not a Google Benchmark result", path);
  else if (n == 0)
    tool_warn("%s: \"benchmarks\" is empty", path);
  else if ((rows = calloc(n, sizeof *rows)) == NULL || (res->e = calloc(n, sizeof *res->e)) == NULL)
    tool_warn("out of memory");
  else
    rc = 0;
  for (size_t k = 0; k < NCTX; k++) {
    const cJSON *v = field(ctx, ctx_keys[k]);
    if (cJSON_IsString(v) && v->valuestring[0] != '\0')
      snprintf(res->ctx[k], CTX_LEN, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
      snprintf(res->ctx[k], CTX_LEN, "%g", v->valuedouble);
    else
      snprintf(res->ctx[k], CTX_LEN, "unknown");
  }
  const cJSON *b;
  if (rc == 0) {
    cJSON_ArrayForEach(b, benches) {
      if ((rc = parse_row(path, i, b, &rows[i])) != 0) break;
      i++;
    }
  }
  cJSON_Delete(root);
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
  char *text;
  size_t len;
  const char *base = base_name(path);
  size_t blen = strlen(base);
  if (blen > 5 && strcmp(base + blen - 5, ".json") == 0) blen -= 5;
  if (tool_fmt(res->path, sizeof res->path, "%s", path) != 0 ||
      tool_fmt(res->family, sizeof res->family, "%.*s", (int)blen, base) != 0) {
    tool_warn("%s: path too long", path);
    return -1;
  }
  if (read_all(path, &text, &len) != 0) return -1;
  int rc = -1;
  if (len == 0)
    tool_warn("%s: empty file", path);
  else if (memchr(text, '\0', len) != NULL)
    tool_warn("%s: contains NUL bytes: not a JSON text", path);
  else
    rc = parse_result(res, text);
  free(text);
  return rc;
}

static void free_result(result *r) {
  for (size_t i = 0; i < r->n; i++) free(r->e[i].name), free(r->e[i].msg);
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

/* ---- the report ----------------------------------------------------------------------------- */

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

static verdict judge(double ratio, double a, double b) {
  if (isnan(a) || isnan(b)) return V_UNKNOWN;
  double d = fabs(log(ratio));
  if (d <= 2 * sqrt(a * a + b * b) || d <= 0.005) return V_SAME;
  return ratio > 1 ? V_FASTER : V_SLOWER;
}

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

static void add_match(stats *st, const entry *a, const entry *b, FILE *f) {
  double ratio = a->time / b->time, l = log(ratio);
  verdict v = judge(ratio, a->noise, b->noise);
  int g = is_tb(a->name) ? G_TB : G_BASE;
  char ta[32], tb[32], na[32], nb[32];
  st->sum_log[G_ALL] += l, st->count[G_ALL]++;
  st->sum_log[g] += l, st->count[g]++;
  st->verdicts[v]++;
  fputs("| ", f);
  md_cell(f, a->name);
  fprintf(f, " | %s | %s | %.3f | %s | %s | %s |\n", time_str(a->time, ta, sizeof ta),
          time_str(b->time, tb, sizeof tb), ratio, noise_str(a->noise, na, sizeof na),
          noise_str(b->noise, nb, sizeof nb), verdict_str[v]);
}

/* The table of one family, then the names it could not match. */
static int compare_family(FILE *f, const result *a, const result *b, stats *st) {
  const entry **list[4]; /* only A, only B, failed A, failed B */
  size_t nl[4] = {0};
  for (int k = 0; k < 4; k++)
    if ((list[k] = malloc((a->n + b->n + 1) * sizeof *list[k])) == NULL) {
      while (k-- > 0) free(list[k]);
      tool_warn("out of memory");
      return -1;
    }
  char label[600];
  fputs("## ", f);
  md_cell(f, family_label(a, b, label, sizeof label));
  fputs("\n\n| name | A | B | A/B | noise A | noise B | verdict |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n", f);
  for (size_t i = 0, j = 0; i < a->n || j < b->n;) {
    int c = i == a->n ? 1 : j == b->n ? -1 : name_cmp(a->e[i].name, b->e[j].name);
    const entry *x = c <= 0 ? &a->e[i++] : NULL, *y = c >= 0 ? &b->e[j++] : NULL;
    if (x && x->failed) list[2][nl[2]++] = x;
    if (y && y->failed) list[3][nl[3]++] = y;
    if (x && y && !x->failed && !y->failed)
      add_match(st, x, y, f);
    else if (x && !y && !x->failed)
      list[0][nl[0]++] = x;
    else if (y && !x && !y->failed)
      list[1][nl[1]++] = y;
  }
  if (st->count[G_ALL] == 0) fputs("| (no benchmark in common) | | | | | | |\n", f);
  fputc('\n', f);
  print_list(f, "only in A", list[0], nl[0]);
  print_list(f, "only in B", list[1], nl[1]);
  print_list(f, "failed in A", list[2], nl[2]);
  print_list(f, "failed in B", list[3], nl[3]);
  if (nl[0] + nl[1] + nl[2] + nl[3] > 0) fputc('\n', f);
  st->only_a = nl[0], st->only_b = nl[1], st->failed_a = nl[2], st->failed_b = nl[3];
  for (int k = 0; k < 4; k++) free(list[k]);
  return 0;
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
  fputs("\n\n| | path | gpu | commit | date | copy GB/s |\n"
        "| --- | --- | --- | --- | --- | --- |\n", f);
  print_context(f, "A", a);
  print_context(f, "B", b);
  fputs("\nA/B = A time / B time: above 1, B is faster. Times are the median of the repetitions "
        "(else their mean); noise is their coefficient of variation.\n\n", f);
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
    if (!fam[i].a || !fam[i].b) continue;
    char label[600];
    fputs("| ", f);
    md_cell(f, family_label(fam[i].a, fam[i].b, label, sizeof label));
    fprintf(f, " | %zu | %zu | %zu | %zu | %zu |", st->count[G_ALL], st->only_a, st->only_b,
            st->failed_a, st->failed_b);
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
  fputs("Verdict (B against A), with a and b the relative noises of A and B: the difference is "
        "real when |ln(A/B)| > 2*sqrt(a^2 + b^2) and > 0.5%: \"faster\" (A/B > 1, B is faster) or "
        "\"slower\"; otherwise \"same\"; \"?\" when a noise is unknown (one repetition, no cv). "
        "Geometric means are over the matched rows only; tb = impl tb, baselines = the other "
        "impls (count in parentheses). Failed rows (error_occurred) are left out.\n", f);
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
    if (!fam[i].a || !fam[i].b) continue;
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

static int usage(FILE *f, int rc) {
  fputs("usage: compare [--out DIR] [--title TEXT] [--templates DIR] A B\n"
        "  A, B: a sweep result .json each, or folders of them (matched by file name).\n"
        "  Prints a markdown comparison (A/B = A time / B time, > 1: B is faster); with --out\n"
        "  also writes DIR/compare.md, compare.dat and compare.png (gnuplot).\n", f);
  return rc;
}

/* Builds the report in memory so that nothing is printed or written before it is complete. */
static int report(const side *a, const side *b, char **md, size_t *mdlen, family **fam,
                  size_t *nfam) {
  FILE *f = open_memstream(md, mdlen);
  if (f == NULL || (*fam = pair_families(a, b, nfam)) == NULL) {
    tool_warn("out of memory");
    if (f) fclose(f);
    return -1;
  }
  print_header(f, a, b);
  size_t matched = 0;
  int rc = 0;
  for (size_t i = 0; i < *nfam && rc == 0; i++)
    if ((*fam)[i].a && (*fam)[i].b) {
      rc = compare_family(f, (*fam)[i].a, (*fam)[i].b, &(*fam)[i].st);
      matched += (*fam)[i].st.count[G_ALL];
    }
  if (rc == 0) print_summary(f, *fam, *nfam);
  if (fclose(f) != 0 || rc != 0) return -1;
  if (matched == 0) {
    tool_warn("nothing to compare: %s and %s have no benchmark in common", a->path, b->path);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  tool_set_program("compare");
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    } else if (strcmp(argv[i], "--help") == 0) {
      return usage(stdout, 0);
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      opt.out = argv[++i];
    } else if (strcmp(argv[i], "--title") == 0 && i + 1 < argc) {
      opt.title = argv[++i];
    } else if (strcmp(argv[i], "--templates") == 0 && i + 1 < argc) {
      opt.templates = argv[++i];
    } else {
      tool_warn("unknown option or missing value: %s", argv[i]);
      return usage(stderr, 2);
    }
  }
  if (argc - i != 2) return usage(stderr, 2);
  side a, b;
  char pa[PATH_LEN], pb[PATH_LEN];
  struct stat sa, sb;
  memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
  if (tool_user_path(argv[i], pa, sizeof pa) != 0 || tool_user_path(argv[i + 1], pb, sizeof pb) != 0) {
    tool_warn("path too long: %s", strlen(argv[i]) > strlen(argv[i + 1]) ? argv[i] : argv[i + 1]);
    return 1;
  }
  /* A file against a folder: the folder's file of the same name. */
  int da = stat(pa, &sa) == 0 && S_ISDIR(sa.st_mode);
  int db = stat(pb, &sb) == 0 && S_ISDIR(sb.st_mode);
  int rc = load_side(pa, da && !db ? base_name(pb) : NULL, &a) ||
           load_side(pb, db && !da ? base_name(pa) : NULL, &b);
  char *md = NULL, title[1024];
  size_t mdlen = 0, nfam = 0;
  family *fam = NULL;
  if (rc == 0) rc = report(&a, &b, &md, &mdlen, &fam, &nfam) != 0;
  if (opt.title)
    snprintf(title, sizeof title, "%s", opt.title);
  else
    snprintf(title, sizeof title, "%s vs %s", base_name(a.path), base_name(b.path));
  if (rc == 0 && opt.out) rc = write_outputs(md, mdlen, fam, nfam, title) != 0;
  if (rc == 0 && (fwrite(md, 1, mdlen, stdout) != mdlen || fflush(stdout) != 0)) {
    tool_warn("cannot write to stdout");
    rc = 1;
  }
  free(md);
  free(fam);
  free_side(&a);
  free_side(&b);
  return rc;
}
