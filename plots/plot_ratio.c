/* The plot driver's ratio maps: per type, tb's tuned default over its best baseline (baseline.h)
 * at every n (columns) and every algorithm and average length (rows), drawn by ratio_map.gp on a
 * diverging scale centred on 1, ties hatched. The chart a go / no-go on a default is read from. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/baseline.h"
#include "plots/plot.h"
#include "plots/tool.h"

enum { MAX_COLS = 64, MAX_ROWS = 512 };

static int cmp_ll(const void *a, const void *b) {
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* A map's column: n rounded to the nearest power of two, so that a matrix of "2^26 nonzeros or
 * the largest stencil that fits" shares the 2^26 column (its row says its n). */
static long long column_of(long long n) { return 1LL << (int)llround(log2((double)n)); }

/* "segreduce L=16", "omp_reduce double_x2" or "spmv_stencil_2d5 (n = 67073193)": a map row's
 * label (the row's records from r on). */
static void row_label(const rec *r, const rec *end, const char *base, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "%s", r->alg);
  if (strcmp(r->type, base) != 0 && len < size)
    len += (size_t)snprintf(buf + len, size - len, " %s", r->type);
  if (r->seg >= 0 && len < size) len += (size_t)snprintf(buf + len, size - len, " L=%lld", r->seg);
  for (const rec *q = r; q < end && len < size && !strcmp(q->alg, r->alg) &&
                         !strcmp(q->type, r->type) && q->seg == r->seg;
       q++)
    if (column_of(q->n) != q->n) {
      snprintf(buf + len, size - len, " (n = %lld)", q->n);
      break;
    }
}

/* A cell's printed value: two decimals where the differences that matter are, fewer beyond. */
static void cell_text(double v, char *buf, size_t size) {
  snprintf(buf, size, v >= 99.5 ? "%.0f" : v >= 9.95 ? "%.1f" : "%.2f", v);
}

typedef struct {
  char name[96];
  int count;
} tally;

static void tally_add(tally *t, int *n, int cap, const char *name) {
  for (int i = 0; i < *n; i++)
    if (strcmp(t[i].name, name) == 0) {
      t[i].count++;
      return;
    }
  if (*n == cap) return;
  snprintf(t[*n].name, sizeof t[0].name, "%s", name);
  t[(*n)++].count = 1;
}

/* The map of one base type: its data file and chart. */
static int write_map(const suite *s, const char *base) {
  char dat[PATH_LEN], png[PATH_LEN], other[16];
  if (chart_paths(dat, png, "%s/%s_ratio_%s", s->dir, s->name, base) != 0) return -1;
  /* Rows: the (alg, type, seg) of tb default rows with a ratio; columns: their n. */
  const rec *rows[MAX_ROWS];
  long long cols[MAX_COLS]; /* powers of two: column_of */
  int nrows = 0, ncols = 0;
  for (size_t i = 0; i < s->nr; i++) {
    const rec *r = &s->r[i];
    ratio q;
    vars_of(r->type, other, sizeof other);
    if (!is_tb(r) || r->nt != 0 || strcmp(other, base) != 0 || ratio_of(s, r, &q) != 0) continue;
    const rec *last = nrows ? rows[nrows - 1] : NULL;
    if ((last == NULL || strcmp(last->alg, r->alg) || strcmp(last->type, r->type) ||
         last->seg != r->seg) &&
        nrows < MAX_ROWS)
      rows[nrows++] = r;
    int known = 0;
    for (int k = 0; k < ncols; k++) known |= cols[k] == column_of(r->n);
    if (!known && ncols < MAX_COLS) cols[ncols++] = column_of(r->n);
  }
  if (nrows == 0) return 0; /* nothing of this type has a baseline */
  qsort(cols, (size_t)ncols, sizeof cols[0], cmp_ll);

  /* The cells, then what the caption says of them. */
  tally winners[16], impls[16];
  int nwin = 0, nimpl = 0, plain = 0, cells = 0, repeated = 0, losses = 0;
  commit_set commits = {0};
  FILE *f = fopen(dat, "w");
  if (f == NULL) {
    tool_warn("cannot write %s", dat);
    return -1;
  }
  char *body = NULL, seps[1024] = "";
  size_t body_len = 0;
  FILE *b = open_memstream(&body, &body_len);
  if (b == NULL) {
    fclose(f);
    return -1;
  }
  fputs("x\ty\tn\trow\tratio\ttie\ttext\tbest baseline\n", b);
  for (int y = 0; y < nrows; y++) {
    char label[128], sz[32], text[32], name[96];
    row_label(rows[y], s->r + s->nr, base, label, sizeof label);
    if (y > 0 && strcmp(rows[y]->alg, rows[y - 1]->alg) != 0 && strlen(seps) + 16 < sizeof seps)
      snprintf(seps + strlen(seps), sizeof seps - strlen(seps), "%s%d", seps[0] ? " " : "",
               nrows - y); /* a line above this row (rows are drawn top down) */
    for (const rec *r = rows[y]; r < s->r + s->nr && !strcmp(r->alg, rows[y]->alg) &&
                                 !strcmp(r->type, rows[y]->type) && r->seg == rows[y]->seg;
         r++) {
      ratio q;
      if (!is_tb(r) || r->nt != 0 || ratio_of(s, r, &q) != 0) continue;
      int x = 0;
      while (cols[x] != column_of(r->n)) x++;
      const int tie = ratio_tie(&q);
      cells++, repeated += !isnan(q.cv), losses += q.ratio < 1 && !tie;
      commits_add(&commits, r->commit);
      commits_add(&commits, q.best.base->commit);
      baseline_name(r, &q.best, name, sizeof name);
      tally_add(winners, &nwin, 16, name);
      tally_add(impls, &nimpl, 16, q.best.base->impl);
      plain |= strcmp(q.best.alg, r->alg) != 0;
      cell_text(q.ratio, text, sizeof text);
      fprintf(b, "%d\t%d\t%s\t%s\t%.4f\t%d\t%s\t%s\n", x, nrows - 1 - y,
              size_str(cols[x], sz, sizeof sz), label, q.ratio, tie, text, name);
    }
  }
  fclose(b);

  char what[384], title[768], names[1024] = "";
  snprintf(what, sizeof what, "%s %s: tb / best baseline", s->name, base);
  chart_title(title, sizeof title, s, what, &commits);
  for (int i = 0, len = 0; i < nimpl && len < (int)sizeof names - 120; i++)
    len += snprintf(names + len, sizeof names - (size_t)len, "%s%.96s (%d)", i ? ", " : "",
                    impls[i].name, impls[i].count);
  if (plain) /* some rows were compared to their plain form's baselines */
    snprintf(names + strlen(names), sizeof names - strlen(names),
             "; _apply / _indirect rows against their plain form's");
  /* The caption's three lines (gnuplot variables hold no line breaks). */
  char notes[3][1280];
  snprintf(notes[0], sizeof notes[0],
           "decides: ship tb's tuned default at each n and L (blue, > 1) or fall back to the "
           "library (red, < 1)");
  snprintf(notes[1], sizeof notes[1], "%d of %d cells lose%s", losses, cells,
           repeated ? "; hatched: a tie, within the combined cv of the repetitions"
                    : "; not repeated: noise unknown");
  snprintf(notes[2], sizeof notes[2], "best baseline (cells won): %s", names);
  fprintf(f, "# %s\n# %s\n# %s\n# %s\n", title, notes[0], notes[1], notes[2]);
  fputs(body, f);
  free(body);
  if (fclose(f) != 0) {
    tool_warn("cannot write %s", dat);
    return -1;
  }
  if (!opt.render) return 0;
  char vars[3 * PATH_LEN];
  if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
      tool_gp_var(vars, sizeof vars, "note1", notes[0]) != 0 ||
      tool_gp_var(vars, sizeof vars, "note2", notes[1]) != 0 ||
      tool_gp_var(vars, sizeof vars, "note3", notes[2]) != 0 ||
      tool_gp_var(vars, sizeof vars, "seps", seps) != 0 ||
      tool_fmt(vars + strlen(vars), sizeof vars - strlen(vars),
               "nx=%d; ny=%d; winner_line=%d; ", ncols, nrows, nimpl > 1) != 0)
    return -1;
  return render_chart("ratio_map.gp", vars, png);
}

int write_ratio_maps(const suite *s) {
  int rc = 0;
  char done[64][16];
  int ndone = 0;
  for (size_t i = 0; i < s->nr; i++) {
    char base[16];
    vars_of(s->r[i].type, base, sizeof base);
    int seen = 0;
    for (int k = 0; k < ndone && !seen; k++) seen = strcmp(done[k], base) == 0;
    if (seen || ndone == 64) continue;
    snprintf(done[ndone++], sizeof done[0], "%s", base);
    if (write_map(s, base) != 0) rc = -1;
  }
  return rc;
}
