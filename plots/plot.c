/* plot: turns sweep results (Google Benchmark JSON, docs/design.md, "Benchmarks" under the
 * conventions) into gnuplot charts and a markdown tuning table.
 *
 *   plot [--no-render] [--out DIR] [--templates DIR] RESULT.json...
 *
 * For each RESULT.json (suite S = its basename without .json) and each algorithm, type and
 * segment length it writes into DIR (default: the JSON's directory)
 *   S_<alg>_<type>[_seg<L>]_throughput.{dat,png}  G items/s against n, one line per
 *                                                 implementation; below, tb / best baseline
 *   S_<alg>_<type>[_seg<L>]_bandwidth.{dat,png}   percent of the copy bandwidth against n
 *   S_<alg>_<type>[_seg<L>]_heatmap.{dat,png}     G items/s over NT x VT at the largest swept n
 *   S_tuning.md                                   tb / best baseline over every size, and per
 *                                                 swept size best box, tuned default, baseline
 * and, per type (<base> for types <base>_x<k>),
 *   S_ratio_<type>.{dat,png}                      tb / best baseline over n x (algorithm, L)
 * and, per family and type, when the file has real-matrix rows (<family>_mtx_<matrix>[_apply])
 *   S[_<family>]_matrices_ratio_<type>.{dat,png}  tb / best baseline per matrix, plain and _apply
 *                                                 (<family> left out where it is S: spmv)
 * and, for types named <base>_x<k> (a clause of k variables, as omp_reduce sweeps them),
 *   S_<alg>_<base>_by_vars.{dat,png}             each implementation / the reference baseline
 *                                                 (cub if measured) against k, at three sizes
 * and, for segmented algorithms (names with seg:<L>), at the largest n and each other n swept
 *   S_<alg>_<type>_by_seg[_n<n>].{dat,png}       G items/s of each implementation against the
 *                                                 average segment length; below, tb / best
 *                                                 baseline
 * The best baseline of a row is baseline.h's rule. --no-render writes the .dat and .md files only. Exit status 0, or 1 if any input could not be
 * read or any output written or rendered.
 *
 * The parts: rows.c folds a result file's rows (core/result_file.h) into records (rows.h),
 * baseline.c compares tb to its best baseline (baseline.h), plot_group.c sorts the records into
 * one group per chart, plot_charts.c, plot_special.c, plot_ratio.c and plot_matrices.c write the
 * charts, plot_table.c the table (plot.h). */
#include "plots/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "plots/tool.h"

options opt = {1, NULL, NULL, ""};

/* The charts and the table of one result file. */
static int process(const char *json_path) {
  char path[PATH_LEN], md[PATH_LEN], prefix[PATH_LEN];
  suite s;
  memset(&s, 0, sizeof s);
  if (tool_user_path(json_path, path, sizeof path) != 0) {
    tool_warn("path too long: %s", json_path);
    return -1;
  }
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  size_t len = strlen(base);
  if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
  snprintf(s.name, sizeof s.name, "%.*s", (int)len, base);
  if (opt.out != NULL) {
    if (tool_user_path(opt.out, s.dir, sizeof s.dir) != 0) return -1;
  } else {
    snprintf(s.dir, sizeof s.dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  }
  if (s.dir[0] == '\0') strcpy(s.dir, "/");
  if (load(path, &s) != 0) {
    free(s.r);
    return -1;
  }
  if (tb_mkdirs(s.dir) != 0 || tool_fmt(md, sizeof md, "%s/%s_tuning.md", s.dir, s.name) != 0) {
    tool_warn("cannot create output directory %s: %s", s.dir, strerror(errno));
    free(s.r);
    return -1;
  }
  int rc = 0, rows = 0;
  FILE *f = fopen(md, "w");
  if (f == NULL) {
    tool_warn("cannot write %s: %s", md, strerror(errno));
    free(s.r);
    return -1;
  }
  write_table_header(f, &s);
  for (const rec *lo = s.r; lo < s.r + s.nr;) {
    group g = make_group(&s, lo);
    if (tool_fmt(prefix, sizeof prefix, "%s/%s_%s_%s", s.dir, s.name, lo->alg, lo->type) != 0 ||
        (lo->seg >= 0 && tool_fmt(prefix + strlen(prefix), sizeof prefix - strlen(prefix),
                                  "_seg%lld", lo->seg) != 0) ||
        (!is_matrix_alg(lo->alg) && write_charts(&s, &g, prefix) != 0))
      rc = -1;
    write_table_rows(f, &g);
    rows += g.box_n > 0;
    lo = g.hi;
  }
  if (write_by_vars(&s) != 0 || write_by_seg(&s) != 0 || write_ratio_maps(&s) != 0 ||
      write_matrix_ratios(&s) != 0)
    rc = -1;
  if (rows == 0) fputs("\nNo swept launch boxes in this run.\n", f);
  if (s.failed > 0) fprintf(f, "\n%d benchmark(s) failed and are left out.\n", s.failed);
  if (fclose(f) != 0) {
    tool_warn("cannot write %s", md);
    rc = -1;
  }
  free(s.r);
  return rc;
}

static int usage(void) {
  fputs(
      "usage: plot [--no-render] [--out DIR] [--templates DIR] RESULT.json...\n"
      "  Writes charts (.png via gnuplot, with their .dat data) and S_tuning.md for each\n"
      "  RESULT.json, into DIR or else beside the JSON.\n",
      stderr);
  return 2;
}

int main(int argc, char **argv) {
  int i = 1, rc = 0;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    } else if (strcmp(argv[i], "--no-render") == 0) {
      opt.render = 0;
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      opt.out = argv[++i];
    } else if (strcmp(argv[i], "--templates") == 0 && i + 1 < argc) {
      opt.templates = argv[++i];
    } else {
      if (strcmp(argv[i], "--help") != 0) tool_warn("unknown option %s", argv[i]);
      return usage();
    }
  }
  if (i == argc) return usage();
  if (opt.render && tool_find_templates(opt.templates, "lines.gp", opt.tdir, sizeof opt.tdir) != 0)
    return 1;
  for (; i < argc; i++) rc |= process(argv[i]) != 0;
  return rc;
}
