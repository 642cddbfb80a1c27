/* The plot driver's chart of the real-matrix rows (<family>_mtx_<matrix>[_apply], see
 * docs/matrices.md: SpMV on the matrices; segmented reduction, reduce-by-key, LBS and interval
 * expand on their rows' lengths): per family and type, one group of bars per matrix, sorted by
 * nonzeros, holding tb's tuned default over its best baseline (baseline.h) for the plain form and
 * the _apply form, on a linear axis with 1 marked (matrices_ratio.gp). In the ratio map each
 * matrix is a row of one cell, at its own n: nothing there reads across matrices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/baseline.h"
#include "plots/plot.h"
#include "plots/style.h"
#include "plots/tool.h"

/* The families with matrix rows, by the names' start. */
static const char *const kFamilies[] = {"spmv", "segreduce", "reduce_by_key", "lbs",
                                        "interval_expand"};
enum { NUM_FAMILIES = sizeof kFamilies / sizeof kFamilies[0], MAX_MATRICES = 256 };

/* "<family>_mtx_", the start of the family's matrix rows. */
static void prefix_of(const char *family, char *out, size_t cap) {
  snprintf(out, cap, "%s_mtx_", family);
}

/* One matrix: its name, nonzeros, and tb's ratios (plain product, _apply form); ok: has one. */
typedef struct {
  char name[64];
  long long nnz;
  ratio form[2];
  int ok[2];
} matrix_bars;

static int by_nnz(const void *pa, const void *pb) {
  const matrix_bars *a = pa, *b = pb;
  if (a->nnz != b->nnz) return a->nnz < b->nnz ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* The family's matrices of type with a tb ratio in either form (the _indirect rows are not
 * one), sorted by nonzeros; their number. */
static int collect(const suite *s, const char *family, const char *type, matrix_bars *m,
                   int cap) {
  char start[64];
  prefix_of(family, start, sizeof start);
  const size_t prefix = strlen(start);
  int count = 0;
  for (size_t i = 0; i < s->nr; i++) {
    const rec *r = &s->r[i];
    ratio q;
    if (!is_tb(r) || r->nt != 0 || strcmp(r->type, type) != 0 ||
        strncmp(r->alg, start, prefix) != 0 || ends_with(r->alg, "_indirect") ||
        ratio_of(s, r, &q) != 0)
      continue;
    const int apply = ends_with(r->alg, "_apply");
    char name[sizeof m->name];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(r->alg) - prefix - (apply ? 6 : 0)),
             r->alg + prefix);
    int k = 0;
    while (k < count && strcmp(m[k].name, name) != 0) k++;
    if (k == count) {
      if (count == cap) continue;
      memset(&m[count], 0, sizeof m[0]);
      snprintf(m[count].name, sizeof m[0].name, "%s", name);
      m[count++].nnz = r->n;
    }
    m[k].form[apply] = q, m[k].ok[apply] = 1;
  }
  qsort(m, (size_t)count, sizeof m[0], by_nnz);
  return count;
}

/* The chart of one family and type; 0 also when it has no matrix rows. Named
 * S_matrices_ratio_<type> for the suite's own family (spmv), else
 * S_<family>_matrices_ratio_<type>. */
static int write_type(const suite *s, const char *family, const char *type) {
  matrix_bars *m = calloc(MAX_MATRICES, sizeof *m);
  if (m == NULL) return -1;
  const int count = collect(s, family, type, m, MAX_MATRICES);
  char dat[PATH_LEN], png[PATH_LEN], stem[PATH_LEN];
  if (strcmp(family, s->name) == 0) snprintf(stem, sizeof stem, "%s", s->name);
  else snprintf(stem, sizeof stem, "%s_%s", s->name, family);
  if (count == 0 || chart_paths(dat, png, "%s/%s_matrices_ratio_%s", s->dir, stem, type) != 0) {
    free(m);
    return count == 0 ? 0 : -1;
  }
  commit_set commits = {0};
  double ymax = 1.1; /* the line at 1 stays in view */
  int losses[2] = {0, 0}, shown[2] = {0, 0};
  for (int k = 0; k < count; k++)
    for (int f = 0; f < 2; f++) {
      const ratio *q = &m[k].form[f];
      if (!m[k].ok[f]) continue;
      commits_add(&commits, q->tb->commit);
      commits_add(&commits, q->best.base->commit);
      const double top = q->ratio * (isnan(q->cv) ? 1 : 1 + q->cv);
      ymax = top > ymax ? top : ymax;
      shown[f]++, losses[f] += q->ratio < 1 && !ratio_tie(q);
    }
  char what[384], title[768], note[256];
  snprintf(what, sizeof what, "%s %s per matrix: tb / best baseline", family, type);
  chart_title(title, sizeof title, s, what, &commits);
  snprintf(note, sizeof note,
           "ratio of medians (best baseline time / tb time), > 1: tb faster; line at 1.0; tb "
           "loses on %d of %d (plain), %d of %d (apply)",
           losses[0], shown[0], losses[1], shown[1]);
  FILE *f = fopen(dat, "w");
  if (f == NULL) {
    tool_warn("cannot write %s", dat);
    free(m);
    return -1;
  }
  fprintf(f, "# %s\n# %s\n", title, note);
  fputs("matrix\tnnz\tplain: tb / best baseline\t+-\tapply: tb / best baseline (preprocessed "
        "where it has one)\t+-\tbest baseline\tbest baseline (apply)\n", f);
  for (int k = 0; k < count; k++) {
    char names[2][96];
    fprintf(f, "%s\t%lld", m[k].name, m[k].nnz);
    for (int i = 0; i < 2; i++) {
      const ratio *q = &m[k].form[i];
      write_value(f, m[k].ok[i] ? q->ratio : NAN);
      write_value(f, !m[k].ok[i] ? NAN : isnan(q->cv) ? 0 : q->ratio * q->cv);
      if (m[k].ok[i])
        baseline_name(q->tb, &q->best, names[i], sizeof names[i]);
      else
        snprintf(names[i], sizeof names[i], "-");
    }
    fprintf(f, "\t%s\t%s\n", names[0], names[1]);
  }
  free(m);
  if (fclose(f) != 0) {
    tool_warn("cannot write %s", dat);
    return -1;
  }
  if (!opt.render) return 0;
  char vars[3 * PATH_LEN], colours[32];
  snprintf(colours, sizeof colours, "%s %s", STYLE_TB, STYLE_TB_LIGHT);
  if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
      tool_gp_var(vars, sizeof vars, "note", note) != 0 ||
      tool_gp_var(vars, sizeof vars, "colours", colours) != 0 ||
      tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars), "nmatrices=%d; ymax=%g; ", count,
               ymax * 1.08) != 0)
    return -1;
  return render_chart("matrices_ratio.gp", vars, png);
}

int write_matrix_ratios(const suite *s) {
  int rc = 0;
  for (int fam = 0; fam < NUM_FAMILIES; fam++) {
    char start[64];
    prefix_of(kFamilies[fam], start, sizeof start);
    char done[16][16];
    int ndone = 0;
    for (size_t i = 0; i < s->nr && ndone < 16; i++) {
      const rec *r = &s->r[i];
      int seen = strncmp(r->alg, start, strlen(start)) != 0;
      for (int k = 0; k < ndone && !seen; k++) seen = strcmp(done[k], r->type) == 0;
      if (seen) continue;
      snprintf(done[ndone++], sizeof done[0], "%s", r->type);
      if (write_type(s, kFamilies[fam], r->type) != 0) rc = -1;
    }
  }
  return rc;
}
