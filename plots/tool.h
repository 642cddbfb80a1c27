/* What the chart tools (plot, compare, cross_gpu) share: their messages,
 * paths given under `bazel run`, and gnuplot. */
#ifndef TB_PLOTS_TOOL_H
#define TB_PLOTS_TOOL_H

#include <stddef.h>

enum { TOOL_PATH_LEN = 4096 };

/* Messages go to stderr as "<program>: ...". */
void tool_set_program(const char *name);
void tool_warn(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* snprintf that reports truncation as failure (-1). */
int tool_fmt(char *buf, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Relative paths given under `bazel run` are meant relative to the user's
 * directory, not the runfiles tree the binary runs in. */
int tool_user_path(const char *path, char *buf, size_t size);

/* Appends name='value'; to a gnuplot -e string (single quotes doubled, as
 * gnuplot escapes them; control characters as spaces). */
int tool_gp_var(char *buf, size_t size, const char *name, const char *val);

/* Starts vars with what every template takes: datafile, outfile, title. */
int tool_gp_common(char *vars, size_t size, const char *dat, const char *png, const char *title);

/* The folder holding the template `probe`: `given` (--templates DIR; NULL:
 * not given), else ./plots (the workspace root, or the runfiles root under
 * bazel run and bazel test), else the runfiles next to the binary. */
int tool_find_templates(const char *given, const char *probe, char *dir, size_t size);

/* Runs gnuplot ($GNUPLOT, else gnuplot) on tdir/tmpl with the -e
 * assignments vars; the chart png must come out non-empty, and is then
 * shrunk to a palette PNG by pngquant where it is installed. 0; -1 when
 * gnuplot failed (png removed); -2 when it could not be started. */
int tool_render(const char *tdir, const char *tmpl, const char *vars, const char *png);

/* tool_render of a template that takes only the common variables
 * (tool_gp_common) and colours (its series' colours, plots/style.h); 0, or
 * -1 with a message. */
int tool_render_common(const char *tdir, const char *tmpl, const char *dat, const char *png,
                       const char *title, const char *colours);

/* Whether a row's impl is a library's (cub, thrust, cusparse_alg1, ...), a baseline: tilebench's
 * own impls are tb and atomics (tb_omp_reduce's atomics method), which a ratio against the best
 * baseline, or a comparison's control, must not take for a library's. */
int tool_is_baseline(const char *impl);

#endif
