#include "core/cunit.h"

#include <stdlib.h>

#include <CUnit/Basic.h>

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

int tb_test_run(const char *suite, const CU_TestInfo *tests, const char *only) {
  int n = 0;
  while (tests[n].pName) ++n;
  CU_TestInfo *chosen = calloc((size_t)n + 1, sizeof *chosen);
  if (!chosen) return 1;
  int kept = 0;
  for (int i = 0; i < n; ++i)
    if (!only || strstr(tests[i].pName, only)) chosen[kept++] = tests[i];
  if (kept == 0) {
    fprintf(stderr, "%s: no test name contains \"%s\"; the tests are:\n", suite, only);
    for (int i = 0; i < n; ++i) fprintf(stderr, "  %s\n", tests[i].pName);
    free(chosen);
    return 2;
  }
  const int rc = run_registered(suite, chosen);
  free(chosen);
  return rc;
}
