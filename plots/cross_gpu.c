/* cross_gpu: whether tb's standing against the libraries carries from one GPU to another.
 *
 *   cross_gpu [--templates DIR] A_DIR B_DIR OUT_DIR
 *
 * A_DIR and B_DIR are two GPUs' result folders (results/<arch>/<gpu>/). For every family file
 * both hold, every tuned-default tb row measured on both (each algorithm, type, n and L) is
 * compared to its best baseline on each GPU (baseline.h), into
 *   OUT_DIR/<family>_cross_gpu.dat, .png   tb / best baseline on A against the same on B, one
 *                                          point per row, coloured by algorithm (cross_gpu.gp)
 *   OUT_DIR/cross_gpu.md                   per family and type, the geometric mean and the
 *                                          minimum of the ratio on each GPU, over every size
 * A point on the diagonal keeps its standing; above it, tb gains on B. Ratios, unlike shares of
 * the copy bandwidth, need no byte count, so the _apply rows (effective bytes) compare as the
 * others do. Exit status 1, naming the file, when a folder or file cannot be read or a chart not
 * drawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plots/baseline.h"
#include "plots/style.h"
#include "plots/tool.h"

static const char *const kFamilies[] = {"reduce", "scan", "omp_reduce", "interval", "segreduce",
                                        "spmv"};

/* The family's result in dir: 1 loaded, 0 absent, -1 unreadable (after a message). */
static int load_side(const char *dir, const char *family, suite *s) {
  char path[TOOL_PATH_LEN];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", family);
  if (tool_fmt(path, sizeof path, "%s/%s.json", dir, family) != 0) return -1;
  if (access(path, F_OK) != 0) return 0; /* this GPU has no such family: nothing to compare */
  return load(path, s) == 0 ? 1 : -1;
}

/* The scatter's data: one line per row measured on both; its algorithms, space-separated, in
 * algs. Returns the number of points. */
static int write_points(FILE *d, const suite *a, const suite *b, char *algs, size_t size) {
  int points = 0, nalg = 0;
  const char *last = NULL;
  fprintf(d, "# tb / best baseline of each tuned-default row measured on both GPUs\n"
             "config\tn\talgorithm_index\t%s\t%s\tbest baseline %s\tbest baseline %s\n",
          a->gpu, b->gpu, a->gpu, b->gpu);
  algs[0] = '\0';
  for (size_t i = 0; i < a->nr; i++) {
    const rec *r = &a->r[i];
    ratio qa, qb;
    if (!is_tb(r) || r->nt != 0 || ratio_of(a, r, &qa) != 0) continue;
    const rec *o = find_rec(b, r->alg, "tb", r->type, r->seg, r->n);
    if (o == NULL || ratio_of(b, o, &qb) != 0) continue;
    if (last == NULL || strcmp(last, r->alg) != 0) {
      last = r->alg, nalg++;
      if (strlen(algs) + strlen(r->alg) + 2 < size)
        snprintf(algs + strlen(algs), size - strlen(algs), "%s%s", nalg > 1 ? " " : "", r->alg);
    }
    char sz[32], na[96], nb[96];
    fprintf(d, "%s/%s", r->alg, r->type);
    if (r->seg >= 0) fprintf(d, "/L%lld", r->seg);
    fprintf(d, "\t%s\t%d\t%.4f\t%.4f\t%s\t%s\n", size_str(r->n, sz, sizeof sz), nalg - 1,
            qa.ratio, qb.ratio, baseline_name(r, &qa.best, na, sizeof na),
            baseline_name(o, &qb.best, nb, sizeof nb));
    points++;
  }
  return points;
}

/* "segreduce 2^20, L = 1024, cub": where a ratio was measured and against what. */
static const char *where(const ratio *q, char *buf, size_t size) {
  char sz[32], name[96];
  const int len = snprintf(buf, size, "%s %s", q->tb->alg, size_str(q->tb->n, sz, sizeof sz));
  if (q->tb->seg >= 0 && len >= 0 && (size_t)len < size)
    snprintf(buf + len, size - (size_t)len, ", L = %lld", q->tb->seg);
  snprintf(buf + strlen(buf), size - strlen(buf), ", %s",
           baseline_name(q->tb, &q->best, name, sizeof name));
  return buf;
}

/* Per type: geometric mean and minimum of tb / best baseline on each GPU, over every size. */
static void write_table(FILE *md, const char *family, const suite *a, const suite *b) {
  enum { CAP = 64 };
  ratio_summary sa[CAP], sb[CAP];
  const int na = summarize(a, 0, sa, CAP), nb = summarize(b, 0, sb, CAP);
  for (int i = 0; i < na; i++) {
    const ratio_summary *y = NULL;
    for (int j = 0; j < nb; j++)
      if (strcmp(sb[j].type, sa[i].type) == 0) y = &sb[j];
    char w[256];
    fprintf(md, "| %s | %s | %.2f | %.2f (%s) | ", family, sa[i].type, sa[i].geomean,
            sa[i].min.ratio, where(&sa[i].min, w, sizeof w));
    if (y == NULL)
      fputs("- | - |\n", md);
    else
      fprintf(md, "%.2f | %.2f (%s) |\n", y->geomean, y->min.ratio, where(&y->min, w, sizeof w));
  }
}

int main(int argc, char **argv) {
  tool_set_program("cross_gpu");
  const char *given = NULL;
  int i = 1;
  if (argc > 2 && strcmp(argv[1], "--templates") == 0) given = argv[2], i = 3;
  if (argc - i != 3) {
    fprintf(stderr, "usage: cross_gpu [--templates DIR] A_DIR B_DIR OUT_DIR\n");
    return 2;
  }
  char templates[TOOL_PATH_LEN], path[TOOL_PATH_LEN];
  if (tool_find_templates(given, "cross_gpu.gp", templates, sizeof templates) != 0) return 1;
  const char *a_dir = argv[i], *b_dir = argv[i + 1], *out = argv[i + 2];
  if (tool_fmt(path, sizeof path, "%s/cross_gpu.md", out) != 0) return 1;
  FILE *md = fopen(path, "w");
  if (md == NULL) {
    tool_warn("cannot write %s: %s", path, strerror(errno));
    return 1;
  }
  int rc = 0, rows = 0;
  for (size_t f = 0; f < sizeof kFamilies / sizeof *kFamilies; ++f) {
    suite a, b;
    const int la = load_side(a_dir, kFamilies[f], &a), lb = load_side(b_dir, kFamilies[f], &b);
    if (la < 0 || lb < 0) rc = 1;
    if (la > 0 && lb > 0) {
      if (rows++ == 0)
        fprintf(md,
                "# tb against the best baseline, %s and %s\n\n"
                "tb's tuned default / its best baseline (baseline.h: the fastest other "
                "implementation of the same configuration, _apply and _indirect rows without "
                "their own against their plain form's) over every n and L each GPU measured. "
                "Decides whether a win or a loss on one GPU carries to the other. Charts: "
                "`<family>_cross_gpu.png`, one point per row measured on both.\n\n"
                "| family | type | geomean %s | min %s (where, against) | geomean %s "
                "| min %s (where, against) |\n|---|---|---|---|---|---|\n",
                a.gpu, b.gpu, a.gpu, a.gpu, b.gpu, b.gpu);
      write_table(md, kFamilies[f], &a, &b);
      char dat[TOOL_PATH_LEN], png[TOOL_PATH_LEN], title[512], algs[1024];
      if (tool_fmt(dat, sizeof dat, "%s/%s_cross_gpu.dat", out, kFamilies[f]) != 0 ||
          tool_fmt(png, sizeof png, "%s/%s_cross_gpu.png", out, kFamilies[f]) != 0)
        rc = 1;
      FILE *d = rc ? NULL : fopen(dat, "w");
      if (d == NULL) {
        tool_warn("cannot write %s: %s", dat, strerror(errno));
        rc = 1;
      } else {
        const int points = write_points(d, &a, &b, algs, sizeof algs);
        if (fclose(d) != 0) rc = 1;
        snprintf(title, sizeof title,
                 "%s: tb / best baseline, %s (x) and %s (y)",
                 kFamilies[f], a.gpu, b.gpu);
        char vars[3 * TOOL_PATH_LEN];
        if (points > 0 &&
            (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
             tool_gp_var(vars, sizeof vars, "algs", algs) != 0 ||
             tool_render(templates, "cross_gpu.gp", vars, png) != 0))
          rc = 1;
      }
    }
    free(a.r), free(b.r);
  }
  if (fclose(md) != 0) {
    tool_warn("cannot write %s", path);
    rc = 1;
  }
  return rc;
}
