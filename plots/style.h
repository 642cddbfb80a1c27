/* The chart tools' colours, in one place so that tb and each baseline look the same in every
 * chart (plot, compare, cross_gpu). Colours are gnuplot's "#rrggbb"; the templates take them as
 * a space-separated list, colours, and read series i's as word(colours, i). */
#ifndef TB_PLOTS_STYLE_H
#define TB_PLOTS_STYLE_H

#include <stddef.h>

#define STYLE_TB "#1f77b4"
#define STYLE_TB_LIGHT "#6baed6" /* tb on the second GPU (cross_gpu); its _apply form (plot) */
#define STYLE_BASELINE "#d62728" /* cub, or the baselines taken together */
#define STYLE_BASELINE_LIGHT "#fc9272"

/* The colour of a series: an implementation ("tb", "cub", ...), "tb (tuned default)" or
 * "tb (best box)"; grey for names without one. */
const char *style_colour(const char *series);

/* The colours of names[0..n) in that order, each followed by a space; series that no longer
 * fit in out are left out. */
void style_colours(const char *const *names, int n, char *out, size_t size);

#endif
