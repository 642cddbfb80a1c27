#define _POSIX_C_SOURCE 200809L
#include "plots/tool.h"

#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *program = "plot";

void tool_set_program(const char *name) { program = name; }

void tool_warn(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fprintf(stderr, "%s: ", program);
  vfprintf(stderr, format, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int tool_fmt(char *buf, size_t size, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  const int len = vsnprintf(buf, size, format, ap);
  va_end(ap);
  return len >= 0 && (size_t)len < size ? 0 : -1;
}

int tool_user_path(const char *path, char *buf, size_t size) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (path[0] == '/' || wd == NULL || wd[0] == '\0') return tool_fmt(buf, size, "%s", path);
  return tool_fmt(buf, size, "%s/%s", wd, path);
}

int tool_gp_var(char *buf, size_t size, const char *name, const char *val) {
  size_t len = strlen(buf);
  if (tool_fmt(buf + len, size - len, "%s='", name) != 0) return -1;
  len = strlen(buf);
  for (; *val; val++) {
    if (len + 4 >= size) return -1;
    if (*val == '\'') buf[len++] = '\'';
    buf[len++] = iscntrl((unsigned char)*val) ? ' ' : *val;
  }
  return tool_fmt(buf + len, size - len, "'; ");
}

int tool_gp_common(char *vars, size_t size, const char *dat, const char *png, const char *title) {
  vars[0] = '\0';
  return tool_gp_var(vars, size, "datafile", dat) || tool_gp_var(vars, size, "outfile", png) ||
         tool_gp_var(vars, size, "title", title);
}

int tool_find_templates(const char *given, const char *probe, char *dir, size_t size) {
  char user[TOOL_PATH_LEN] = "", rf[TOOL_PATH_LEN] = "", exe[TOOL_PATH_LEN] = "",
       path[TOOL_PATH_LEN];
  const char *env = getenv("RUNFILES_DIR");
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (given != NULL && tool_user_path(given, user, sizeof user) != 0) user[0] = '\0';
  if (env != NULL && tool_fmt(rf, sizeof rf, "%s/tilebench/plots", env) != 0) rf[0] = '\0';
  if (len <= 0 || tool_fmt(exe + len, sizeof exe - (size_t)len, ".runfiles/tilebench/plots") != 0)
    exe[0] = '\0';
  const char *cand[] = {user, "plots", rf, exe};
  for (int i = 0; i < (given != NULL ? 1 : 4); i++)
    if (cand[i][0] && tool_fmt(path, sizeof path, "%s/%s", cand[i], probe) == 0 &&
        access(path, R_OK) == 0)
      return tool_fmt(dir, size, "%s", cand[i]);
  tool_warn("cannot find the gnuplot template %s %s", probe,
            given ? "in --templates DIR" : "in ./plots or the runfiles; pass --templates DIR");
  return -1;
}

/* Charts are committed by the hundred: pngquant (Debian's, when installed)
 * turns gnuplot's truecolour PNG into a palette one, a third of the bytes
 * and no visible change. Without it, or if it fails, the chart stays as
 * gnuplot wrote it. */
static void shrink(const char *png) {
  static int missing = 0;
  if (missing) return;
  /* --output, not --ext: a temporary name need not end in .png. */
  char *argv[] = {"pngquant", "--quality=80-95", "--force", "--skip-if-larger", "--output",
                  (char *)png, "--", (char *)png, NULL};
  pid_t pid;
  int st;
  if (posix_spawnp(&pid, "pngquant", NULL, NULL, argv, environ) != 0) {
    missing = 1;
    return;
  }
  waitpid(pid, &st, 0);
}

int tool_render(const char *tdir, const char *tmpl, const char *vars, const char *png) {
  char path[TOOL_PATH_LEN];
  if (tool_fmt(path, sizeof path, "%s/%s", tdir, tmpl) != 0) return -1;
  const char *gp = getenv("GNUPLOT") ? getenv("GNUPLOT") : "gnuplot";
  char *argv[] = {(char *)gp, "-e", (char *)vars, path, NULL};
  pid_t pid;
  int st;
  const int err = posix_spawnp(&pid, gp, NULL, NULL, argv, environ);
  if (err != 0) {
    tool_warn("cannot run %s: %s (install gnuplot-nox, or set $GNUPLOT)", gp, strerror(err));
    return -2;
  }
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    tool_warn("%s failed on %s for %s", gp, path, png);
    remove(png); /* no half-written chart among the results */
    return -1;
  }
  struct stat sb;
  if (stat(png, &sb) != 0 || sb.st_size == 0) {
    tool_warn("%s wrote no image to %s", gp, png);
    return -1;
  }
  shrink(png);
  return 0;
}

int tool_render_common(const char *tdir, const char *tmpl, const char *dat, const char *png,
                       const char *title, const char *colours) {
  char vars[3 * TOOL_PATH_LEN];
  if (tool_gp_common(vars, sizeof vars, dat, png, title) != 0 ||
      tool_gp_var(vars, sizeof vars, "colours", colours) != 0) {
    tool_warn("paths or title too long for gnuplot");
    return -1;
  }
  return tool_render(tdir, tmpl, vars, png) == 0 ? 0 : -1;
}

int tool_is_baseline(const char *impl) {
  return strcmp(impl, "tb") != 0 && strcmp(impl, "atomics") != 0;
}
