/* Command-line handling of tb_bench_main(): unknown flags and --tb_list.
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

static int g_freed, g_called;

static void free_arg(void *p) {
  (void)p;
  g_freed++;
}

static void bm(tb_bench_state *st, void *arg) {
  (void)arg;
  g_called = 1;
  while (tb_bench_keep_running(st)) tb_bench_set_iteration_time(st, 1e-3);
}

/* Exit status of the child: bit 0 the return code (0 or 1), bit 1 every
 * argument freed exactly once, bit 2 a benchmark function ran; 0x80 if
 * tb_bench_main returned something else. */
enum { RC = 1, FREED = 2, CALLED = 4, BAD_RC = 0x80 };

/* Runs tb_bench_main(argv) in a child whose stdout goes to out_path (if not
 * NULL); returns the child's exit status, or -1. */
static int run_child(char **argv, const char *out_path) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (out_path != NULL) {
      int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(BAD_RC);
      close(fd);
    }
    static int arg_a, arg_b;
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

static void test_unknown_flag(void) {
  char *argv[] = {"bench_flags_test", "--benchmark_no_such_flag=1", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL), RC | FREED);
}

static void test_positional_argument(void) {
  char *argv[] = {"bench_flags_test", "stray", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL), RC | FREED);
}

static void test_known_flags_run(void) {
  char *argv[] = {"bench_flags_test", "--benchmark_filter=flags/a", "--benchmark_min_time=0.01", NULL};
  CU_ASSERT_EQUAL(run_child(argv, NULL), FREED | CALLED);
}

static void test_tb_list(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/bench_flags_list.txt", g_tmp);
  char *argv[] = {"bench_flags_test", "--tb_list", "--benchmark_filter=flags/b", NULL};
  CU_ASSERT_EQUAL(run_child(argv, path), FREED); /* listed, nothing run */

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

int main(void) {
  const char *tmp = getenv("TEST_TMPDIR");
  snprintf(g_tmp, sizeof g_tmp, "%s", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");

  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("bench_flags", NULL, NULL);
  if (s == NULL || CU_add_test(s, "unknown flag", test_unknown_flag) == NULL ||
      CU_add_test(s, "positional argument", test_positional_argument) == NULL ||
      CU_add_test(s, "known flags run", test_known_flags_run) == NULL ||
      CU_add_test(s, "--tb_list", test_tb_list) == NULL) {
    CU_cleanup_registry();
    return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failed != 0 ? 1 : 0;
}
