/* Command-line handling of tb_bench_main(): unknown flags, --tb_list, the
 * progress lines (--tb_progress), CSV output and the DEBUG-library note.
 *
 * Google Benchmark runs once per process, so each case runs tb_bench_main()
 * in a forked child and reports back through its exit status. */
#define _POSIX_C_SOURCE 200809L

#include "core/bench.h"

#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cunit.h"

static int g_freed, g_called;

static void free_arg(void *p) {
  (void)p;
  g_freed++;
}

static int arg_a, arg_b;

/* flags/b has a counter that flags/a lacks, as a sweep's small sizes have
 * l2_resident and its large ones do not. */
static void bm(tb_bench_state *st, void *arg) {
  g_called = 1;
  while (tb_bench_keep_running(st)) tb_bench_set_iteration_time(st, 1e-3);
  if (arg == &arg_b) tb_bench_set_counter(st, "late", 1.0, TB_COUNTER_VALUE);
}

/* Exit status of the child: bit 0 the return code (0 or 1), bit 1 every
 * argument freed exactly once, bit 2 a benchmark function ran; 0x80 if
 * tb_bench_main returned something else. */
enum { RC = 1, FREED = 2, CALLED = 4, BAD_RC = 0x80 };

static void redirect(const char *path, int to) {
  if (path == NULL) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || dup2(fd, to) < 0) _exit(BAD_RC);
  close(fd);
}

/* Runs tb_bench_main(argv) in a child whose stdout and stderr go to out_path
 * and err_path (where not NULL); returns the child's exit status, or -1 (a
 * crash included). */
static int run_child(char **argv, const char *out_path, const char *err_path) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    redirect(out_path, STDOUT_FILENO);
    redirect(err_path, STDERR_FILENO);
    tb_bench_register("flags/a", bm, &arg_a, free_arg);
    tb_bench_set_iterations(2);
    tb_bench_register("flags/b", bm, &arg_b, free_arg);
    int argc = 0;
    while (argv[argc] != NULL) argc++;
    int rc = tb_bench_main(argc, argv);
    int status = (rc == 0 || rc == 1) ? rc : BAD_RC;
    if (g_freed == 2) status |= FREED;
    if (g_called) status |= CALLED;
    fflush(NULL);
    exit(status);
  }
  int wstatus;
  if (waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus)) return -1;
  return WEXITSTATUS(wstatus);
}

static char g_tmp[4096];

TB_TEST(test_unknown_flag, "unknown flag") {
  char *argv[] = {"bench_flags_test", "--benchmark_no_such_flag=1", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL, NULL), RC | FREED);
}

TB_TEST(test_positional_argument, "positional argument") {
  char *argv[] = {"bench_flags_test", "stray", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL, NULL), RC | FREED);
}

TB_TEST(test_known_flags_run, "known flags run") {
  char *argv[] = {"bench_flags_test", "--benchmark_filter=flags/a", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL, NULL), FREED | CALLED);
}

TB_TEST(test_tb_list, "--tb_list") {
  char path[4200];
  snprintf(path, sizeof path, "%s/bench_flags_list.txt", g_tmp);
  char *argv[] = {"bench_flags_test", "--tb_list", "--benchmark_filter=flags/b", NULL};
  CU_ASSERT_EQUAL(run_child(argv, path, NULL), FREED); /* listed, nothing run */

  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char line[256];
  int lines = 0, b = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    lines++;
    if (strncmp(line, "flags/b", 7) == 0) b++;
  }
  fclose(f);
  CU_ASSERT_EQUAL(lines, 1);
  CU_ASSERT_EQUAL(b, 1);
}

/* The whole of a small file, or "" (the caller frees it). */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  char *buf = calloc(1 << 16, 1);
  if (f != NULL && buf != NULL) buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
  if (f != NULL) fclose(f);
  return buf;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  return n;
}

static char *path_of(const char *name) {
  static char paths[4][4200];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", g_tmp, name);
  return p;
}

/* One line per row on stderr: "[i/N] name  elapsed[, ~left]", N counted
 * after the filter. */
TB_TEST(test_progress, "progress lines") {
  char *err = path_of("progress.err");
  char *argv[] = {"bench_flags_test", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL, err), FREED | CALLED);
  char *text = slurp(err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "[1/2] flags/a  "));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "[2/2] flags/b  "));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, " left\n"));  /* an estimate before the last row */
  CU_ASSERT_EQUAL(count(text, "] flags/"), 2);      /* once per row */
  free(text);

  char *filtered[] = {"bench_flags_test", "--benchmark_filter=flags/b", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(filtered, NULL, err), FREED | CALLED);
  text = slurp(err);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "[1/1] flags/b  "));
  CU_ASSERT_EQUAL(count(text, "] flags/"), 1);
  free(text);

  char *quiet[] = {"bench_flags_test", "--tb_progress=0", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(quiet, NULL, err), FREED | CALLED);
  text = slurp(err);
  CU_ASSERT_EQUAL(count(text, "] flags/"), 0);
  free(text);

  char *bad[] = {"bench_flags_test", "--tb_progress=maybe", NULL};
  CU_ASSERT_EQUAL(run_child(bad, NULL, err), RC | FREED);
  text = slurp(err);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "--tb_progress takes 0 or 1"));
  free(text);
}

/* CSV on stdout and in a file: one header with every row's counters (a
 * counter only a later row has aborted the library's CSV reporter), rows
 * named as registered, nothing else in the file. */
TB_TEST(test_csv, "csv") {
  char *out = path_of("csv.out"), *file = path_of("csv.file");
  char *argv[] = {"bench_flags_test", "--benchmark_format=csv", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(argv, out, NULL), FREED | CALLED);
  char *text = slurp(out);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL(strncmp(text, "name,", 5), 0);
  const char *late = strstr(text, "\"late\""), *end = strchr(text, '\n');
  CU_ASSERT(late != NULL && end != NULL && late < end); /* in the header */
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n\"flags/a\","));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n\"flags/b\","));
  CU_ASSERT_EQUAL(count(text, "\n"), 3);
  free(text);

  char out_flag[4300];
  snprintf(out_flag, sizeof out_flag, "--benchmark_out=%s", file);
  char *to_file[] = {"bench_flags_test", out_flag, "--benchmark_out_format=csv", "--benchmark_min_time=0.01",
                     NULL};
  CU_ASSERT_EQUAL(run_child(to_file, out, NULL), FREED | CALLED);
  text = slurp(file);
  CU_ASSERT_EQUAL(strncmp(text, "name,", 5), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n\"flags/b\","));
  CU_ASSERT_EQUAL(count(text, "\n"), 3);
  free(text);
}

/* A library built without NDEBUG (Debian's) says so once, as a note that
 * names the build, not as its warning; one built with NDEBUG says nothing. */
TB_TEST(test_debug_note, "debug library note") {
  char *err = path_of("debug.err");
  char *argv[] = {"bench_flags_test", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL, err), FREED | CALLED);
  char *text = slurp(err);
  CU_ASSERT_PTR_NULL(strstr(text, "***WARNING*** Library was built as DEBUG"));
  CU_ASSERT(count(text, "***NOTE*** Google Benchmark was built as DEBUG") <= 1);
  free(text);
}

int main(void) {
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(g_tmp, sizeof g_tmp, "%s", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");

  return tb_test_run("bench_flags", NULL);
}
