/* The plot driver's markdown tuning table: per group and swept size, the best box, the tuned
 * default and the best baseline. */
#include <stdio.h>
#include <string.h>

#include "plots/plot.h"

void write_table_header(FILE *f, const suite *s) {
  int known = strcmp(s->copy_gbps, "unknown") != 0;
  fprintf(f, "# Tuning table: %s\n\n", s->name);
  fputs("| GPU | arch | driver | runtime | commit | copy bandwidth |\n", f);
  fputs("|---|---|---|---|---|---|\n", f);
  fprintf(f, "| %s | %s | %s | %s | %s | %s%s |\n\n", s->gpu, s->arch, s->driver, s->runtime,
          s->commit, s->copy_gbps, known ? " GB/s" : "");
  fputs(
      "Throughput in G items/s at each size that has swept launch boxes. *best box*: the "
      "fastest swept NTxVT box; *ratio*: tuned default / best baseline (> 1: tb is faster).\n\n",
      f);
  fputs(
      "| algorithm | type | seg | n | best box | best box G/s | tuned default G/s "
      "| best baseline G/s | ratio |\n",
      f);
  fputs("|---|---|---|---|---|---|---|---|---|\n", f);
}

void write_table_rows(FILE *f, const group *g) {
  char sz[32];
  for (const rec *r = g->lo; r < g->hi; r++) {
    if (r->nt == 0 || (r != g->lo && r->n == r[-1].n && r[-1].nt > 0)) continue; /* one row per n */
    const rec *box = best_box(g, r->n), *def = find_impl(g, "tb", r->n),
              *base = best_baseline(g, r->n);
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
    if (base)
      fprintf(f, "%s %.1f | ", base->impl, base->gips);
    else
      fputs("- | ", f);
    if (def && base && base->gips > 0)
      fprintf(f, "%.2f |\n", def->gips / base->gips);
    else
      fputs("- |\n", f);
  }
}
