/* gen_defaults: derives the tuned default launch boxes of every family from
 * a committed box sweep and prints the generated table the library compiles
 * in (kernels/tuned/<arch>.inc), or with FAMILY names only those families'
 * rows, a GPU's own table (kernels/tuned/<arch>_<gpu>.inc), which the
 * library prefers on that GPU for those families.
 *
 *   gen_defaults [--mixed-runs] RESULTS_DIR [FAMILY...]
 *   gen_defaults RESULTS_DIR > kernels/tuned/sm_90.inc
 *   gen_defaults results/sm_90/h200 SEGREDUCE SPMV > kernels/tuned/sm_90_h200.inc
 *
 * RESULTS_DIR is one GPU's folder (results/sm_90/h100-80gb-hbm3). The rules,
 * each over the swept boxes at the largest size that has them, by median
 * throughput (G items/s):
 *   reduce, scan    per type: the fastest box (reduce; scan_exclusive, the
 *                   look-back scan);
 *   segreduce      per type: the best geometric mean over every average
 *                   segment length among the boxes a plan takes (VT up to
 *                   15), as the row of any length (average 0), which plans
 *                   and the indirect form take; then per average length
 *                   the fastest box, which a direct call of the nearest
 *                   mean takes (a GPU's own table: only these, plans
 *                   keep the architecture's box); then, at each smaller
 *                   size with box rows (the tuned set's boxes, 2^16 to
 *                   2^22), largest first, per average length the fastest
 *                   box where it beats by more than kBandGain there the
 *                   box a call of that size would get without it (the
 *                   next band up's, else the length's): a size band,
 *                   which a direct call of up to that size takes (the
 *                   smallest band at or above its size);
 *   reduce_by_key   per type: the best geometric mean over every length;
 *   omp_reduce      one box: the best geometric mean over the clauses swept;
 *   lbs, expand,    per average count (seg): the fastest box; the library
 *   move            takes the row of the nearest swept count (gather and
 *                   scatter use move's);
 *   spmv            float and double: the best geometric mean of the
 *                   preprocess + apply rows (spmv*_apply) over every matrix
 *                   (random rows of each mean length, power-law rows,
 *                   stencils), each at its own largest nonzero count,
 *                   among the boxes a plan takes (VT up to 15), as the row
 *                   of any length (average 0), which a plan takes;
 *                   then, of the plain rows, per mean row
 *                   length L of the uniform matrices, the best geometric
 *                   mean over the uniform and power-law matrices of that L
 *                   (the stencils, 5 and 7 nonzeros a row, with the
 *                   smallest L). A call takes the row of the nearest mean.
 * Each row names the size it was chosen at (items; the largest swept for
 * most rows). The boxes one rule compares must come from one run (the rows' run_id,
 * core/results.h): a partial run merged into a result leaves rows of
 * several commits, drivers and machine states side by side, and a best box
 * picked across them may be picked by the difference between runs. Rules
 * whose rows span runs are refused, naming the commits, unless
 * --mixed-runs, which compares them anyway and says so beside the box.
 * Exit status 1, with a message naming the file, when a family's result is
 * missing, unreadable or has no box sweep, or a rule's rows span runs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/result_file.h"

/* One swept box row: its parameters, median throughput and run. */
typedef struct {
  tb_row_params p;
  double gips;
  tb_run_ref run;
} row;

/* The box rows of one result file, <family>.json. */
typedef struct {
  const char *family;
  row *rows;
  int count, cap;
  char gpu[128];
} sweep;

/* Adds the box rows of s's result file in dir: a median aggregate stands for
 * its row; files without repetitions give one measured row each. */
static bool load(const char *dir, sweep *s) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.json", dir, s->family);
  tb_result_file f;
  if (tb_result_file_load(path, &f) != TB_OK) {
    fprintf(stderr, "gen_defaults: %s\n", tb_last_error());
    tb_result_file_free(&f);
    return false;
  }
  const char *gpu = tb_result_context(&f, "gpu");
  snprintf(s->gpu, sizeof s->gpu, "%s", gpu ? gpu : "unknown");
  bool ok = true;
  for (size_t i = 0; ok && i < f.count; ++i) {
    const tb_result_row *b = &f.rows[i];
    if (!b->params_ok || b->p.nt == 0 || b->failed) continue;
    const bool median = b->kind == TB_ROW_AGGREGATE && strcmp(b->p.aggregate, "median") == 0;
    if (b->kind == TB_ROW_AGGREGATE && !median) continue;
    const row r = {b->p, b->items_per_second / 1e9, b->run};
    if (!(r.gips > 0)) continue;
    int at = -1;
    for (int k = 0; k < s->count && at < 0; ++k)
      if (strcmp(s->rows[k].p.canonical, r.p.canonical) == 0) at = k;
    if (at >= 0) {
      if (median) s->rows[at] = r; /* else: a repetition; its median follows */
      continue;
    }
    if (s->count == s->cap) {
      const int cap = s->cap ? 2 * s->cap : 1024;
      row *grown = realloc(s->rows, sizeof *grown * (size_t)cap);
      if (!grown) {
        fprintf(stderr, "gen_defaults: %s: out of memory\n", path);
        ok = false;
        break;
      }
      s->rows = grown, s->cap = cap;
    }
    s->rows[s->count++] = r;
  }
  tb_result_file_free(&f);
  return ok;
}

/* Which rows a rule looks at. */
typedef struct {
  const char *algorithms[4];
  const char *type; /* NULL: any */
  int64_t seg;      /* -2: any */
  bool unsized;     /* with seg: rows without one (-1) too */
  int max_vt;       /* 0: any box */
  int64_t n;        /* 0: the algorithm's largest size with box rows */
} selection;

static bool selected(const row *r, const selection *q) {
  bool alg = false;
  for (int i = 0; i < 4; ++i)
    alg |= q->algorithms[i] && strcmp(r->p.algorithm, q->algorithms[i]) == 0;
  const bool seg = q->seg == -2 || r->p.seg == q->seg || (q->unsized && r->p.seg == -1);
  const bool box = q->max_vt == 0 || r->p.vt <= q->max_vt;
  return alg && (!q->type || strcmp(r->p.type, q->type) == 0) && seg && box;
}

/* The largest n swept for r's algorithm among the selected rows (the
 * stencils' n is their grid's nonzero count, below the random kinds'). */
static int64_t largest_n(const sweep *s, const selection *q, const char *algorithm) {
  int64_t n = 0;
  for (int i = 0; i < s->count; ++i)
    if (selected(&s->rows[i], q) && strcmp(s->rows[i].p.algorithm, algorithm) == 0 &&
        s->rows[i].p.n > n)
      n = s->rows[i].p.n;
  return n;
}

/* Whether r is selected and at the selection's size (its algorithm's
 * largest n by default). */
static bool at_size(const sweep *s, const selection *q, const row *r) {
  return selected(r, q) && r->p.n == (q->n ? q->n : largest_n(s, q, r->p.algorithm));
}

/* The box with the best geometric mean over the configurations (algorithm,
 * type, seg) of the rows in[] (a rule's, at_size), among the boxes
 * measured in every one of them; false when there are none. */
static bool best_box(const sweep *s, const bool *in, int *nt, int *vt, double *gm) {
  *gm = 0;
  for (int i = 0; i < s->count; ++i) {
    const row *c = &s->rows[i];
    if (!in[i]) continue;
    int configs = 0, found = 0;
    double logs = 0;
    for (int j = 0; j < s->count; ++j) {
      const row *o = &s->rows[j];
      if (!in[j]) continue;
      /* One configuration per (algorithm, type, seg): count it at its first box. */
      bool first = true;
      for (int k = 0; k < j && first; ++k) {
        const row *e = &s->rows[k];
        first = !(in[k] && strcmp(e->p.algorithm, o->p.algorithm) == 0 &&
                  strcmp(e->p.type, o->p.type) == 0 && e->p.seg == o->p.seg);
      }
      configs += first;
      if (o->p.nt == c->p.nt && o->p.vt == c->p.vt) ++found, logs += log(o->gips);
    }
    const double g = exp(logs / found);
    if (found == configs && (g > *gm || (g == *gm && (c->p.nt < *nt || (c->p.nt == *nt && c->p.vt < *vt)))))
      *gm = g, *nt = c->p.nt, *vt = c->p.vt;
  }
  return *gm > 0;
}

/* --mixed-runs: compare boxes measured in different runs. */
static bool mixed_runs_allowed;

/* Into text, the commits of the runs the rows in[] come from; how many runs. */
static int runs_of(const sweep *s, const bool *in, char *text, size_t cap) {
  tb_run_ref *refs = malloc(sizeof *refs * (s->count > 0 ? (size_t)s->count : 1));
  int count = 0;
  for (int i = 0; refs && i < s->count; ++i)
    if (in[i]) refs[count++] = s->rows[i].run;
  const int runs = refs ? tb_run_refs_summary(refs, count, text, cap) : -1;
  free(refs);
  return runs;
}

static const char *const kTypes[] = {"int32", "int64", "float", "double"};
static const char *const kTypeEnums[] = {"TB_INT32", "TB_INT64", "TB_FLOAT", "TB_DOUBLE"};

/* The widest box a plan takes (TB_SEG_PLAN_MAX_VT in kernels/tilebench.h,
 * which this tool does not link): the rows of any length, which plans take,
 * are chosen among boxes up to it. */
enum { kPlanMaxVt = 15 };

/* The families to emit (argv after RESULTS_DIR); none: every family. */
static char *const *only_families;
static int only_count;

static bool wanted(const char *family) {
  for (int i = 0; i < only_count; ++i)
    if (strcmp(only_families[i], family) == 0) return true;
  return only_count == 0;
}

/* A rule's rows: in[i] for those it compares. The commits of their runs go
 * into commits; false (said why) when they span runs and --mixed-runs is
 * off. */
static bool rule_rows(const sweep *s, const char *family, const selection *q, bool *in,
                      char *commits, size_t cap, int *runs) {
  for (int i = 0; i < s->count; ++i) in[i] = at_size(s, q, &s->rows[i]);
  *runs = runs_of(s, in, commits, cap);
  if (*runs > 1 && !mixed_runs_allowed) {
    char count[48] = "", size[48] = "";
    if (q->seg > 0) snprintf(count, sizeof count, " at average count %lld", (long long)q->seg);
    if (q->n > 0) snprintf(size, sizeof size, " at n = %lld", (long long)q->n);
    fprintf(stderr,
            "gen_defaults: %s %s%s%s: the boxes to compare come from more than one run, commits "
            "%s; measure them in one run, or pass --mixed-runs to compare them anyway\n",
            family, q->type ? q->type : "", count, size, commits);
    return false;
  }
  return *runs >= 0;
}

static void print_row(const char *family, const char *type_enum, int64_t seg, int64_t n, int nt,
                      int vt, double gm, int runs, const char *commits) {
  printf("TB_TUNED(%s, %s, %lld, %lld, %d, %d)  // %.1f G items/s%s%s\n", family, type_enum,
         (long long)seg, (long long)n, nt, vt, gm, runs > 1 ? ", across runs of commits " : "",
         runs > 1 ? commits : "");
}

/* The best box of a rule (q at its largest size), as a row; *box, when not
 * NULL, gets it. */
static bool emit(const sweep *s, const char *family, const selection *q, const char *type_enum,
                 int64_t seg, int box[2]) {
  if (!wanted(family)) return true;
  bool *in = malloc(sizeof *in * (size_t)(s->count ? s->count : 1));
  if (!in) return false;
  char commits[512];
  int runs = 0, nt = 0, vt = 0;
  double gm = 0;
  const bool ok = rule_rows(s, family, q, in, commits, sizeof commits, &runs);
  const bool found = ok && best_box(s, in, &nt, &vt, &gm);
  int64_t n = 0;
  for (int i = 0; i < s->count; ++i)
    if (in[i]) n = s->rows[i].p.n;
  free(in);
  if (!ok) return false;
  if (!found) {
    fprintf(stderr, "gen_defaults: no box sweep for %s %s\n", family, q->type ? q->type : "");
    return false;
  }
  print_row(family, type_enum, seg, n, nt, vt, gm, runs, commits);
  if (box) box[0] = nt, box[1] = vt;
  return true;
}

/* A size band beats the box it replaces by more than this at its size:
 * closer races are within the noise of a small call's few microseconds
 * (the medians of one row in two runs: 2% apart typically, 6% at the 90th
 * percentile, H100). */
static const double kBandGain = 1.05;

/* At size n, the row of q's configuration whose box is the fastest, where
 * it beats base (the box a call of that size gets without the band) there
 * by more than kBandGain, and then base becomes that box; nothing where
 * base is not measured at n or wins. */
static bool emit_band(const sweep *s, const char *family, const selection *q,
                      const char *type_enum, int base[2]) {
  if (!wanted(family)) return true;
  bool *in = malloc(sizeof *in * (size_t)(s->count ? s->count : 1));
  if (!in) return false;
  char commits[512];
  int runs = 0, nt = 0, vt = 0;
  double gm = 0, base_gips = 0;
  const bool ok = rule_rows(s, family, q, in, commits, sizeof commits, &runs);
  if (ok && best_box(s, in, &nt, &vt, &gm))
    for (int i = 0; i < s->count; ++i)
      if (in[i] && s->rows[i].p.nt == base[0] && s->rows[i].p.vt == base[1])
        base_gips = s->rows[i].gips;
  free(in);
  if (ok && base_gips > 0 && gm > kBandGain * base_gips) {
    print_row(family, type_enum, q->seg, q->n, nt, vt, gm, runs, commits);
    base[0] = nt, base[1] = vt;
  }
  return ok;
}

/* The sizes below the largest at which an algorithm has box rows,
 * ascending. */
static int band_sizes(const sweep *s, const char *algorithm, int64_t *sizes, int cap) {
  const selection all = {.algorithms = {algorithm, NULL}, .type = NULL, .seg = -2};
  const int64_t largest = largest_n(s, &all, algorithm);
  int count = 0;
  for (int i = 0; i < s->count; ++i) {
    const int64_t n = s->rows[i].p.n;
    if (strcmp(s->rows[i].p.algorithm, algorithm) != 0 || n >= largest) continue;
    bool known = false;
    for (int k = 0; k < count; ++k) known |= sizes[k] == n;
    if (!known && count < cap) sizes[count++] = n;
  }
  for (int i = 1; i < count; ++i)
    for (int j = i; j > 0 && sizes[j - 1] > sizes[j]; --j) {
      const int64_t t = sizes[j];
      sizes[j] = sizes[j - 1], sizes[j - 1] = t;
    }
  return count;
}

/* The average counts (seg) an algorithm has box rows for, ascending. */
static int sweep_segs(const sweep *s, const char *algorithm, int64_t *segs, int cap) {
  int count = 0;
  for (int i = 0; i < s->count; ++i) {
    if (strcmp(s->rows[i].p.algorithm, algorithm) != 0) continue;
    bool known = false;
    for (int k = 0; k < count; ++k) known |= segs[k] == s->rows[i].p.seg;
    if (!known && count < cap) segs[count++] = s->rows[i].p.seg;
  }
  for (int i = 1; i < count; ++i)
    for (int j = i; j > 0 && segs[j - 1] > segs[j]; --j) {
      const int64_t t = segs[j];
      segs[j] = segs[j - 1], segs[j - 1] = t;
    }
  return count;
}

int main(int argc, char **argv) {
  static const char *const known[] = {"REDUCE", "SCAN", "SEGREDUCE", "REDUCE_BY_KEY", "SPMV",
                                      "OMP",    "LBS",  "EXPAND",    "MOVE"};
  /* --mixed-runs may come anywhere; the rest are RESULTS_DIR [FAMILY...]. */
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--mixed-runs") == 0) mixed_runs_allowed = true;
    else argv[kept++] = argv[i];
  }
  argc = kept;
  if (argc < 2) {
    fprintf(stderr,
            "usage: gen_defaults [--mixed-runs] RESULTS_DIR [FAMILY...] (one GPU's folder of "
            "sweep results; FAMILY: only its rows; --mixed-runs: compare boxes measured in "
            "different runs)\n");
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    bool ok = false;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
      ok |= strcmp(argv[i], known[k]) == 0;
    if (!ok) {
      fprintf(stderr, "gen_defaults: unknown family %s\n", argv[i]);
      return 2;
    }
  }
  only_families = argv + 2, only_count = argc - 2;
  /* The result file each rule reads, loaded in this order. */
  sweep reduce = {.family = "reduce"}, scan = {.family = "scan"},
        segreduce = {.family = "segreduce"}, omp_reduce = {.family = "omp_reduce"},
        interval = {.family = "interval"}, spmv = {.family = "spmv"};
  sweep *const sweeps[] = {&reduce, &scan, &segreduce, &omp_reduce, &interval, &spmv};
  enum { kSweeps = sizeof sweeps / sizeof sweeps[0] };
  for (int f = 0; f < kSweeps; ++f)
    if (!load(argv[1], sweeps[f])) return 1;
  const char *dir = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
  printf(
      "// Generated by tools/gen_defaults from the box sweeps on %s (results/.../%s)%s.\n"
      "// Do not edit: regenerate with ./tilebench defaults. TB_TUNED(family, type, "
      "average count, n, NT, VT);\n// the figure is the box's (geometric mean) median "
      "throughput at n items, the size it was chosen at.\n",
      reduce.gpu, dir, only_count ? ", that GPU's own rows" : "");
  bool ok = true;
  for (int t = 0; t < 4; ++t) {
    const selection q = {.algorithms = {"reduce", NULL}, .type = kTypes[t], .seg = -2};
    ok &= emit(&reduce, "REDUCE", &q, kTypeEnums[t], 0, NULL);
  }
  for (int t = 0; t < 4; ++t) {
    const selection q = {.algorithms = {"scan_exclusive", NULL}, .type = kTypes[t], .seg = -2};
    ok &= emit(&scan, "SCAN", &q, kTypeEnums[t], 0, NULL);
  }
  int64_t seg_lengths[64];
  const int seg_count = sweep_segs(&segreduce, "segreduce", seg_lengths, 64);
  int64_t bands[16];
  const int band_count = band_sizes(&segreduce, "segreduce", bands, 16);
  for (int t = 0; t < 4; ++t) {
    /* A GPU's own rows leave plans the architecture's box (no apply sweep
     * chose it there). */
    const selection any = {.algorithms = {"segreduce", NULL},
                           .type = kTypes[t],
                           .seg = -2,
                           .unsized = false,
                           .max_vt = kPlanMaxVt};
    if (only_count == 0) ok &= emit(&segreduce, "SEGREDUCE", &any, kTypeEnums[t], 0, NULL);
    for (int i = 0; i < seg_count; ++i) {
      selection at = {.algorithms = {"segreduce", NULL}, .type = kTypes[t], .seg = seg_lengths[i]};
      int box[2];
      if (!emit(&segreduce, "SEGREDUCE", &at, kTypeEnums[t], seg_lengths[i], box)) {
        ok = false;
        continue;
      }
      for (int b = band_count - 1; b >= 0 && wanted("SEGREDUCE"); --b) {
        at.n = bands[b];
        ok &= emit_band(&segreduce, "SEGREDUCE", &at, kTypeEnums[t], box);
      }
    }
  }
  for (int t = 0; t < 4; ++t) {
    const selection q = {.algorithms = {"reduce_by_key", NULL}, .type = kTypes[t], .seg = -2};
    ok &= emit(&segreduce, "REDUCE_BY_KEY", &q, kTypeEnums[t], 0, NULL);
  }
  int64_t spmv_segs[64];
  const int spmv_lengths = sweep_segs(&spmv, "spmv", spmv_segs, 64);
  for (int t = 2; t < 4; ++t) { /* float and double: the types cuSPARSE has */
    const selection plans = {
        .algorithms = {"spmv_apply", "spmv_power_law_apply", "spmv_stencil_2d5_apply",
                       "spmv_stencil_3d7_apply"},
        .type = kTypes[t],
        .seg = -2,
        .max_vt = kPlanMaxVt}; /* a result from before the limit may hold wider apply rows */
    ok &= emit(&spmv, "SPMV", &plans, kTypeEnums[t], 0, NULL);
    const selection q = {
        .algorithms = {"spmv", "spmv_power_law", "spmv_stencil_2d5", "spmv_stencil_3d7"},
        .type = kTypes[t],
        .seg = -2};
    for (int i = 0; i < spmv_lengths; ++i) {
      selection at = q; /* the stencils with the smallest length */
      at.seg = spmv_segs[i], at.unsized = i == 0;
      ok &= emit(&spmv, "SPMV", &at, kTypeEnums[t], spmv_segs[i], NULL);
    }
  }
  const selection omp = {.algorithms = {"omp_reduce", NULL}, .type = NULL, .seg = -2};
  ok &= emit(&omp_reduce, "OMP", &omp, "TB_TYPE_ANY", 0, NULL);
  static const struct { const char *name, *algorithm; } kInterval[] = {
      {"LBS", "lbs"}, {"EXPAND", "interval_expand"}, {"MOVE", "interval_move"}};
  for (size_t f = 0; f < sizeof kInterval / sizeof kInterval[0]; ++f) {
    int64_t segs[64];
    const int count = sweep_segs(&interval, kInterval[f].algorithm, segs, 64);
    if (count == 0 && wanted(kInterval[f].name))
      ok = false, fprintf(stderr, "gen_defaults: no box sweep for %s\n", kInterval[f].algorithm);
    for (int i = 0; i < count; ++i) {
      const selection q = {
          .algorithms = {kInterval[f].algorithm, NULL}, .type = "int32", .seg = segs[i]};
      ok &= emit(&interval, kInterval[f].name, &q, "TB_TYPE_ANY", segs[i], NULL);
    }
  }
  for (int f = 0; f < kSweeps; ++f) free(sweeps[f]->rows);
  return ok ? 0 : 1;
}
