/* The plot driver's markdown tuning table: tb against its best baseline over every size swept,
 * then per group and swept size, the best box, the tuned default and the best baseline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/baseline.h"
#include "plots/plot.h"

void write_table_header(FILE *f, const suite *s) {
  int known = strcmp(s->copy_gbps, "unknown") != 0;
  fprintf(f, "# Tuning table: %s\n\n", s->name);
  fputs("| GPU | arch | driver | runtime | commit | copy bandwidth |\n", f);
  fputs("|---|---|---|---|---|---|\n", f);
  fprintf(f, "| %s | %s | %s | %s | %s | %s%s |\n\n", s->gpu, s->arch, s->driver, s->runtime,
          s->commit, s->copy_gbps, known ? " GB/s" : "");
  enum { CAP = 256 };
  ratio_summary *sum = malloc(CAP * sizeof *sum);
  const int count = sum ? summarize(s, 1, sum, CAP) : 0;
  if (count > 0) {
    fputs("## tb against the best baseline, every size swept\n\n"
          "Tuned default / best baseline (median G items/s; > 1: tb is faster) over every n and L "
          "measured. The best baseline of a row is the fastest other implementation at the same "
          "algorithm, type, n and L; an _apply or _indirect form without baselines of its own is "
          "compared to its plain form's (named in parentheses). *ties*: ratios within the "
          "combined spread (cv) of the two rows' repetitions.\n\n",
          f);
    write_summary_md(f, sum, count, 1);
    fputc('\n', f);
  }
  free(sum);
  fputs("## Launch boxes\n\n"
        "Throughput in G items/s at each size that has swept launch boxes. *best box*: the "
        "fastest swept NTxVT box; *ratio*: tuned default / best baseline (> 1: tb is faster); "
        "*commits*: of the three rows, \"mixed\" when they come from several (then "
        "the best box and the tuned default were not measured side by side, and their gap may "
        "be the runs').\n\n",
        f);
  fputs(
      "| algorithm | type | seg | n | best box | best box G/s | tuned default G/s "
      "| best baseline G/s | ratio | commits |\n",
      f);
  fputs("|---|---|---|---|---|---|---|---|---|---|\n", f);
}

void write_table_rows(FILE *f, const group *g) {
  char sz[32], name[96];
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (r->nt == 0 || (r != g->lo && r->n == r[-1].n && r[-1].nt > 0)) continue; /* one row per n */
    const rec *box = best_box(g, r->n), *def = find_impl(g, "tb", r->n);
    ratio q;
    const int has = def != NULL && ratio_of(g->s, def, &q) == 0;
    fprintf(f, "| %s | %s | ", r->alg, r->type);
    if (r->seg >= 0)
      fprintf(f, "%lld", r->seg);
    else
      fputc('-', f);
    fprintf(f, " | %s | %dx%d | %.1f | ", size_str(r->n, sz, sizeof sz), box->nt, box->vt,
            box->gips);
    if (def && def->def_nt > 0)
      fprintf(f, "%.1f (%dx%d) | ", def->gips, def->def_nt, def->def_vt);
    else if (def)
      fprintf(f, "%.1f | ", def->gips);
    else
      fputs("- | ", f);
    if (has)
      fprintf(f, "%s %.1f | %.2f | ", baseline_name(def, &q.best, name, sizeof name),
              q.best.base->gips, q.ratio);
    else
      fputs("- | - | ", f);
    commit_set set = {0};
    commits_add(&set, box->commit);
    if (def) commits_add(&set, def->commit);
    if (has) commits_add(&set, q.best.base->commit);
    char label[160];
    fprintf(f, "%s |\n", commits_label(&set, label, sizeof label));
  }
}
