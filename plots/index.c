/* index: writes the index page of one GPU's results folder,
 * results/<arch>/<gpu>/README.md, from what the folder holds:
 *
 *   index DIR
 *
 * The page names the GPU, the runs behind each family's result (commit,
 * date, copy bandwidth, repetitions), and per family tb against its best
 * baseline (baseline.h) over every size swept, each type's ratio maps, its
 * tuning table, and every other chart by kind, each kind captioned with the
 * decision it serves; then the folder's notes.md (the hand-written account
 * of the runs). Exit status 1, naming the file, when the folder cannot be
 * read or the page not written. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/result_file.h"
#include "plots/baseline.h"
#include "plots/tool.h"

enum { kMaxFiles = 8192 };

static const char *const kFamilies[] = {"reduce", "scan", "omp_reduce", "interval", "segreduce",
                                        "spmv"};
/* The kinds of chart, each with the decision it serves (substrings of chart names, the first
 * that matches decides). The first kind is each family's headline. */
static const struct {
  const char *key, *caption;
} kKinds[] = {
    {"_ratio_",
     "**Ratio maps** (tb's tuned default / best baseline at every n and L, red where tb is "
     "slower, hatched where the two tie within their repetitions' spread): decide where tb's "
     "default ships and where the library stays."},
    {"_by_seg",
     "**By average segment length**, one chart per n (no suffix: the largest), tb / best baseline "
     "below: decide which implementation to use at each length."},
    {"_by_vars",
     "**By clause size** (variables k per pass, against the reference baseline): decide whether "
     "fusing k reductions into one pass beats the library."},
    {"_heatmap",
     "**Launch-box heat maps** (fastest box framed red, the tuned default dashed): decide the "
     "default NTxVT box."},
    {"_throughput",
     "**Throughput against n**, tb / best baseline below: the sizes at which tb leads or trails."},
    {"_bandwidth",
     "**Share of the copy bandwidth against n** (_apply rows: effective bytes, the plain form's "
     "count): decide whether headroom is left."},
};
enum { kNumKinds = sizeof kKinds / sizeof kKinds[0] };

static int kind_of(const char *name) {
  for (int k = 0; k < kNumKinds; k++)
    if (strstr(name, kKinds[k].key)) return k;
  return kNumKinds - 1;
}

/* tb against the best baseline per type over every size of the family's result. */
static void ratio_table(FILE *out, const char *dir, const char *family) {
  char path[4200];
  suite *s = calloc(1, sizeof *s);
  snprintf(path, sizeof path, "%s/%s.json", dir, family);
  if (s == NULL || access(path, R_OK) != 0) {
    free(s);
    return;
  }
  snprintf(s->name, sizeof s->name, "%s", family);
  enum { CAP = 64 };
  ratio_summary sum[CAP];
  const int count = load(path, s) == 0 ? summarize(s, 0, sum, CAP) : 0;
  if (count > 0) {
    fputs("tb's tuned default / its best baseline (the fastest other implementation of the same "
          "configuration; _apply and _indirect rows without their own, their plain form's), "
          "over every n and L swept:\n\n",
          out);
    write_summary_md(out, sum, count, 0);
    fputc('\n', out);
  }
  free(s->r);
  free(s);
}

/* Whether a chart or table is the family's: named <family>_..., but not after another result
 * whose name extends the family's (omp_reduce_flush_l2.json's charts are not omp_reduce's). */
static int of_family(const char *name, const char *family, char *const *stems, int nstems) {
  const size_t flen = strlen(family);
  if (strncmp(name, family, flen) != 0 || name[flen] != '_') return 0;
  for (int i = 0; i < nstems; ++i) {
    const size_t slen = strlen(stems[i]);
    if (slen > flen && strncmp(name, stems[i], slen) == 0 && name[slen] == '_') return 0;
  }
  return 1;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *ctx_str(const tb_result_file *f, const char *key) {
  const char *v = tb_result_context(f, key);
  return v ? v : "?";
}

/* One table row per family result: the run behind it. */
static void run_row(FILE *out, const char *dir, const char *family, char *gpu, size_t cap) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.json", dir, family);
  if (access(path, R_OK) != 0) return;
  tb_result_file f;
  if (tb_result_file_load(path, &f) == TB_OK) {
    if (!gpu[0]) snprintf(gpu, cap, "%s (%s)", ctx_str(&f, "gpu"), ctx_str(&f, "arch"));
    const char *partial = ctx_str(&f, "partial_update");
    fprintf(out, "| [%s](%s.json) | %s | %.10s | %s GB/s | %s | %s |\n", family, family,
            ctx_str(&f, "commit"), ctx_str(&f, "date"), ctx_str(&f, "copy_gbps"),
            ctx_str(&f, "repetitions"), strcmp(partial, "?") ? partial : "");
  } else {
    fprintf(out, "| %s | (unreadable: %s) | | | | |\n", family, path);
  }
  tb_result_file_free(&f);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: index DIR (one GPU's results folder)\n");
    return 2;
  }
  tool_set_program("index");
  const char *dir = argv[1];
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "index: cannot read %s: %s\n", dir, strerror(errno));
    return 1;
  }
  static char *names[kMaxFiles], *stems[kMaxFiles];
  int count = 0, nstems = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL && count < kMaxFiles;)
    if (strstr(e->d_name, ".png") || strstr(e->d_name, "_tuning.md"))
      names[count++] = strdup(e->d_name);
    else if (strstr(e->d_name, ".json") && nstems < kMaxFiles)
      stems[nstems++] = strndup(e->d_name, strlen(e->d_name) - 5);
  closedir(d);
  qsort(names, (size_t)count, sizeof *names, cmp_str);

  char path[4200], tmp[4300], gpu[256] = "";
  snprintf(path, sizeof path, "%s/README.md", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *out = fopen(tmp, "w");
  if (!out) {
    fprintf(stderr, "index: cannot write %s: %s\n", tmp, strerror(errno));
    return 1;
  }
  /* The run table first (it names the GPU), then the title above it. */
  char *runs = NULL;
  size_t runs_len = 0;
  FILE *rows = open_memstream(&runs, &runs_len);
  for (size_t f = 0; f < sizeof kFamilies / sizeof *kFamilies; ++f)
    run_row(rows, dir, kFamilies[f], gpu, sizeof gpu);
  fclose(rows);
  fprintf(out, "# %s\n\n", gpu[0] ? gpu : dir);
  fputs("Generated by `plots/index` from this folder (`./tilebench plot` and `./tilebench sweep` "
        "rewrite it); `notes.md` below is the hand-written account of the runs.\n\n"
        "| result | commit | date | copy bandwidth | repetitions | partial update |\n"
        "|---|---|---|---|---|---|\n",
        out);
  fputs(runs ? runs : "", out);
  free(runs);
  /* The families in their order, then any other result of the folder (omp_reduce_flush_l2). */
  const char *sections[kMaxFiles];
  size_t nsections = 0;
  for (size_t f = 0; f < sizeof kFamilies / sizeof *kFamilies; ++f)
    sections[nsections++] = kFamilies[f];
  qsort(stems, (size_t)nstems, sizeof *stems, cmp_str);
  for (int i = 0; i < nstems; ++i) {
    int known = 0;
    for (size_t f = 0; f < sizeof kFamilies / sizeof *kFamilies; ++f)
      known |= !strcmp(stems[i], kFamilies[f]);
    if (!known) sections[nsections++] = stems[i];
  }
  for (size_t f = 0; f < nsections; ++f) {
    const size_t flen = strlen(sections[f]);
    int listed = 0;
    for (int i = 0; i < count; ++i) {
      if (!of_family(names[i], sections[f], stems, nstems)) continue;
      if (!listed++) {
        fprintf(out, "\n## %s\n\n", sections[f]);
        ratio_table(out, dir, sections[f]);
      }
      if (strstr(names[i], "_tuning.md")) fprintf(out, "Tuning table: [%s](%s)\n\n", names[i], names[i]);
    }
    /* Each kind once, captioned; the headline kind's charts shown, the others linked. */
    for (int k = 0; k < kNumKinds; ++k) {
      int shown = 0;
      for (int i = 0; i < count; ++i) {
        if (!of_family(names[i], sections[f], stems, nstems) ||
            !strstr(names[i], ".png") || kind_of(names[i]) != k)
          continue;
        if (!shown++) fprintf(out, "%s\n\n", kKinds[k].caption);
        if (k == 0)
          fprintf(out, "![%s](%s)\n\n", names[i], names[i]);
        else
          fprintf(out, "%s[%s](%s)", shown > 1 ? ", " : "", names[i] + flen + 1, names[i]);
      }
      if (shown && k > 0) fputs("\n\n", out);
    }
  }
  char notes_path[4200];
  snprintf(notes_path, sizeof notes_path, "%s/notes.md", dir);
  char *notes = tb_read_text(notes_path, NULL);
  if (notes) fprintf(out, "\n---\n\n%s", notes);
  free(notes);
  for (int i = 0; i < count; ++i) free(names[i]);
  for (int i = 0; i < nstems; ++i) free(stems[i]);
  if (fclose(out) != 0 || rename(tmp, path) != 0) {
    fprintf(stderr, "index: cannot write %s: %s\n", path, strerror(errno));
    remove(tmp);
    return 1;
  }
  return 0;
}
