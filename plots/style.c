#include "plots/style.h"

#include <string.h>

const char *style_colour(const char *series) {
  static const struct {
    const char *name, *rgb;
  } known[] = {
      {"tb (tuned default)", STYLE_TB}, {"tb", STYLE_TB},           {"tb (best box)", "#9ecae1"},
      {"cub", STYLE_BASELINE},          {"thrust", "#2ca02c"},      {"cub_batched", "#ff7f0e"},
      {"cusparse_alg1", "#9467bd"},     {"cusparse_alg2", "#8c564b"}, {"cub_segmented", "#e377c2"},
      /* The baselines added with CCCL 3.5 and cuSPARSE's preprocess: shades of their kin. */
      {"cub35", "#ff9896"},             {"cub35_hint", "#bcbd22"},  {"cub35_fixed", "#17becf"},
      {"cub35_find", "#98df8a"},        {"cusparse_pre_alg1", "#c5b0d5"},
      {"cusparse_pre_alg2", "#c49c94"}, {"atomics", "#7f7f7f"},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(series, known[i].name) == 0) return known[i].rgb;
  return "#7f7f7f";
}

void style_colours(const char *const *names, int n, char *out, size_t size) {
  out[0] = '\0';
  for (int i = 0; i < n; i++)
    if (strlen(out) + 10 < size) strcat(strcat(out, style_colour(names[i])), " ");
}
