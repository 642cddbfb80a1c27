#include "core/cunit.h"

#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdlib.h>

/* The entered tests; a binary holds a few dozen. */
enum { kMaxTests = 256 };
static struct entered {
  CU_TestInfo info;
  const char *file;
  int line, file_rank; /* the place of the file's first test */
} entered[kMaxTests];
static int num_entered;
static bool too_many;

void tb_test_enter(const char *title, CU_TestFunc fn, const char *file, int line) {
  if (num_entered == kMaxTests) {
    too_many = true;
    return;
  }
  int rank = 0;
  while (rank < num_entered && strcmp(entered[rank].file, file) != 0) ++rank;
  entered[num_entered++] = (struct entered){{title, fn}, file, line, rank};
}

/* Files in the order their first test was entered, a file's tests by line:
 * the order of constructors within a file is the toolchain's choice. */
static int by_place(const void *a, const void *b) {
  const struct entered *x = a, *y = b;
  if (x->file_rank != y->file_rank) return x->file_rank - y->file_rank;
  return x->line - y->line;
}

static int run_registered(const char *suite, CU_TestInfo *tests) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_SuiteInfo suites[] = {{suite, NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
  if (CU_register_suites(suites) != CUE_SUCCESS) {
    fprintf(stderr, "%s: %s\n", suite, CU_get_error_msg());
    CU_cleanup_registry();
    return 1;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  const unsigned run = CU_get_number_of_tests_run();
  CU_cleanup_registry();
  return failed == 0 && run > 0 ? 0 : 1;
}

int tb_test_run(const char *suite, const char *only) {
  if (too_many) {
    fprintf(stderr, "%s: more than %d tests in one binary; raise kMaxTests in core/cunit.c\n",
            suite, kMaxTests);
    return 1;
  }
  if (num_entered == 0) {
    fprintf(stderr, "%s: no tests\n", suite);
    return 1;
  }
  qsort(entered, (size_t)num_entered, sizeof entered[0], by_place);
  static CU_TestInfo chosen[kMaxTests + 1]; /* ended by a zeroed entry */
  int kept = 0;
  for (int i = 0; i < num_entered; ++i)
    if (!only || strstr(entered[i].info.pName, only)) chosen[kept++] = entered[i].info;
  if (kept == 0) {
    fprintf(stderr, "%s: no test name contains \"%s\"; the tests are:\n", suite, only ? only : "");
    for (int i = 0; i < num_entered; ++i) fprintf(stderr, "  %s\n", entered[i].info.pName);
    return 2;
  }
  return run_registered(suite, chosen);
}
