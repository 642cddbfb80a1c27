/* cross_gpu: how each family scales with memory bandwidth across two GPUs.
 *
 *   cross_gpu [--templates DIR] A_DIR B_DIR OUT_DIR
 *
 * A_DIR and B_DIR are two GPUs' result folders (results/<arch>/<gpu>/). For
 * every family file both hold, and every configuration (algorithm, type,
 * average length) at its largest size, the share of the copy bandwidth
 * (copy_bw_pct, median) of tilebench's tuned default and of the best
 * baseline on each GPU goes to OUT_DIR/<family>_cross_gpu.dat and, drawn by
 * cross_gpu.gp, OUT_DIR/<family>_cross_gpu.png: a kernel that scales with
 * bandwidth keeps its share on the faster GPU. Exit status 1, naming the
 * file, when a folder or file cannot be read or a chart not drawn. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"
#include "plots/style.h"
#include "plots/tool.h"

enum { kMaxRows = 1 << 16 };

typedef struct {
  tb_row_params p;
  double pct;
} row;

typedef struct {
  row *rows;
  int count;
  char gpu[128];
} side;

/* The medians (or single measurements) of a family file's rows without a box. */
static int load(const char *dir, const char *family, side *s) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.json", dir, family);
  char *text = tb_read_text(path);
  if (!text) return 0; /* this GPU has no such family: nothing to compare */
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
  if (!cJSON_IsArray(rows)) {
    tool_warn("%s is not a sweep result", path);
    cJSON_Delete(root);
    return -1;
  }
  const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "context"), "gpu");
  snprintf(s->gpu, sizeof s->gpu, "%s", cJSON_IsString(gpu) ? gpu->valuestring : dir);
  s->rows = calloc(kMaxRows, sizeof *s->rows);
  s->count = 0;
  const cJSON *b;
  cJSON_ArrayForEach(b, rows) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
    const cJSON *pct = cJSON_GetObjectItemCaseSensitive(b, "copy_bw_pct");
    row r;
    if (!s->rows || s->count == kMaxRows || !cJSON_IsString(name) || !cJSON_IsNumber(pct) ||
        tb_row_params_parse(name->valuestring, &r.p) != TB_OK || r.p.nt > 0)
      continue;
    if (r.p.aggregate[0] && strcmp(r.p.aggregate, "median") != 0) continue;
    r.pct = pct->valuedouble;
    int at = -1;
    for (int i = 0; i < s->count && at < 0; ++i)
      if (strcmp(s->rows[i].p.canonical, r.p.canonical) == 0) at = i;
    if (at < 0) s->rows[s->count++] = r;
    else if (strcmp(r.p.aggregate, "median") == 0) s->rows[at] = r;
  }
  cJSON_Delete(root);
  return 1;
}

static bool same_config(const tb_row_params *a, const tb_row_params *b) {
  return strcmp(a->algorithm, b->algorithm) == 0 && strcmp(a->type, b->type) == 0 &&
         a->seg == b->seg && strcmp(a->variant, b->variant) == 0;
}

/* tb's share and the best baseline's at n for one configuration (NAN: none). */
static void shares(const side *s, const tb_row_params *c, int64_t n, double *tb, double *base) {
  *tb = NAN, *base = NAN;
  for (int i = 0; i < s->count; ++i) {
    const row *r = &s->rows[i];
    if (!same_config(&r->p, c) || r->p.n != n) continue;
    if (strcmp(r->p.impl, "tb") == 0) *tb = r->pct;
    else if (isnan(*base) || r->pct > *base) *base = r->pct;
  }
}

static void put(FILE *f, double v) {
  if (isnan(v)) fputs("\t-", f);
  else fprintf(f, "\t%.2f", v);
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
  char templates[TOOL_PATH_LEN];
  if (tool_find_templates(given, "cross_gpu.gp", templates, sizeof templates) != 0) return 1;
  const char *a_dir = argv[i], *b_dir = argv[i + 1], *out = argv[i + 2];
  static const char *const families[] = {"reduce", "scan", "omp_reduce", "interval", "segreduce",
                                         "spmv"};
  int rc = 0;
  for (size_t f = 0; f < sizeof families / sizeof *families; ++f) {
    side a = {0}, b = {0};
    const int la = load(a_dir, families[f], &a), lb = load(b_dir, families[f], &b);
    if (la < 0 || lb < 0) rc = 1;
    if (la <= 0 || lb <= 0) {
      free(a.rows), free(b.rows);
      continue;
    }
    char dat[4200], png[4200], title[512];
    snprintf(dat, sizeof dat, "%s/%s_cross_gpu.dat", out, families[f]);
    snprintf(png, sizeof png, "%s/%s_cross_gpu.png", out, families[f]);
    FILE *d = fopen(dat, "w");
    if (!d) {
      tool_warn("cannot write %s: %s", dat, strerror(errno));
      rc = 1;
    } else {
      fprintf(d, "# share of the copy bandwidth (%%) at each configuration's largest size\n"
                 "config\ttb %s\ttb %s\tbaseline %s\tbaseline %s\n",
              a.gpu, b.gpu, a.gpu, b.gpu);
      for (int k = 0; k < a.count; ++k) {
        const tb_row_params *c = &a.rows[k].p;
        if (strcmp(c->impl, "tb") != 0) continue;
        int64_t n = 0; /* the configuration's largest size on A */
        for (int j = 0; j < a.count; ++j)
          if (same_config(&a.rows[j].p, c) && a.rows[j].p.n > n) n = a.rows[j].p.n;
        if (c->n != n) continue;
        double ta, ba, tb, bb;
        shares(&a, c, n, &ta, &ba);
        shares(&b, c, n, &tb, &bb);
        if (isnan(tb)) continue;
        fprintf(d, "%s/%s%s%s", c->algorithm, c->type, c->seg >= 0 ? "/L" : "",
                c->seg >= 0 ? "" : "");
        if (c->seg >= 0) fprintf(d, "%lld", (long long)c->seg);
        put(d, ta), put(d, tb), put(d, ba), put(d, bb);
        fputc('\n', d);
      }
      fclose(d);
      snprintf(title, sizeof title, "%s: share of copy bandwidth, %s vs %s", families[f], a.gpu,
               b.gpu);
      /* The second GPU in lighter shades of the same colours. */
      if (tool_render_common(templates, "cross_gpu.gp", dat, png, title,
                             STYLE_TB " " STYLE_TB_LIGHT " " STYLE_BASELINE " "
                             STYLE_BASELINE_LIGHT) != 0)
        rc = 1;
    }
    free(a.rows), free(b.rows);
  }
  return rc;
}
