#include "suites/sweep_lengths.h"

#include <stdio.h>
#include <string.h>

#include "core/sweep.h"

static tb_geometry_spec g_model = {TB_GEOM_UNIFORM, 1.0, 0.0, 0.0, 0.0};
static bool g_model_given;
static tb_segments g_file;

/* A file's segments have their lengths: a model beside them is a mistake,
 * whichever flag comes first. */
static tb_status one_of_them(void) {
  if (g_model_given && g_file.num > 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "give --tb_lengths or --tb_segments, not both (a file's segments have their "
                   "own lengths)");
  return TB_OK;
}

static tb_status lengths_parse(const char *value) {
  TB_TRY(tb_geometry_parse_lengths(value, &g_model));
  g_model_given = true;
  return one_of_them();
}

static tb_status segments_parse(const char *value) {
  tb_segments_free(&g_file);
  TB_TRY(tb_segments_read(value, &g_file));
  return one_of_them();
}

static const tb_sweep_flag_def kFlags[] = {
    {"--tb_lengths", "uniform|lognormal:SIGMA|zipf:S",
     "the model of the segment lengths (others than uniform rename the rows)", lengths_parse,
     true},
    {"--tb_segments", "FILE",
     "a segment file's lengths ('# offsets' or '# lengths', one integer a line): its size only",
     segments_parse, true},
};

void tb_lengths_declare(void) {
  tb_sweep_declare_flags(kFlags, (int)(sizeof kFlags / sizeof kFlags[0]));
}

const tb_segments *tb_lengths_file(void) { return g_file.num > 0 ? &g_file : NULL; }

tb_geometry_spec tb_lengths_spec(double avg) {
  tb_geometry_spec spec = g_model;
  spec.avg = avg;
  return spec;
}

const char *tb_lengths_tag(void) {
  if (g_file.num > 0) return "_file";
  switch (g_model.kind) {
    case TB_GEOM_LOGNORMAL: return "_lognormal";
    case TB_GEOM_ZIPF: return "_zipf";
    default: return "";
  }
}

void tb_lengths_name(const char *alg, char *out, size_t cap) {
  const char *form = strrchr(alg, '_');
  if (!form || (strcmp(form, "_apply") != 0 && strcmp(form, "_indirect") != 0))
    form = alg + strlen(alg);
  snprintf(out, cap, "%.*s%s%s", (int)(form - alg), alg, tb_lengths_tag(), form);
}

int tb_lengths_reach(const char *suite, const int *segs, int n) {
  const double most = tb_geometry_max_avg(&g_model);
  int keep = n;
  while (keep > 0 && segs[keep - 1] > most) --keep;
  if (keep < n)
    fprintf(stderr, "%s: zipf:%g reaches a mean length of %.4g at most: rows of L > %d left out\n",
            suite, g_model.shape, most, keep > 0 ? segs[keep - 1] : 0);
  return keep;
}

void tb_lengths_context(void) {
  const char *lengths = tb_sweep_flag("--tb_lengths"), *segments = tb_sweep_flag("--tb_segments");
  if (lengths) tb_bench_add_context("lengths", lengths);
  if (segments) tb_bench_add_context("segments", segments);
}

void tb_lengths_counters(tb_bench_state *st) {
  if (g_file.num > 0)
    tb_bench_set_counter(st, "empty_segments", (double)g_file.empty, TB_COUNTER_VALUE);
  else if (g_model.kind == TB_GEOM_LOGNORMAL)
    tb_bench_set_counter(st, "lengths_sigma", g_model.shape, TB_COUNTER_VALUE);
  else if (g_model.kind == TB_GEOM_ZIPF)
    tb_bench_set_counter(st, "lengths_s", g_model.shape, TB_COUNTER_VALUE);
}

void tb_lengths_release(void) { tb_segments_free(&g_file); }
