#include "suites/cpu_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "core/status.h"

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

bool tb_test_fits(tb_type t, tb_op op) {
  const bool ok = tb_check_type_op(t, op) == TB_OK;
  tb_clear_error();
  return ok;
}

void tb_test_expect_invalid(const char *what, tb_status st, const char *text) {
  const char *msg = tb_last_error();
  const bool ok = st == TB_ERR_INVALID_ARGUMENT && msg[0] != '\0' && (!text || strstr(msg, text));
  CU_ASSERT(ok);
  if (!ok)
    printf("\n  %s: status %s, message \"%s\"%s%s\n", what, tb_status_string(st), msg,
           text ? ", expected to contain " : "", text ? text : "");
  tb_clear_error();
}

tb_value tb_test_from_i64(tb_type t, int64_t x) {
  tb_value v;
  memset(&v, 0, sizeof v);
  switch (t) {
    case TB_INT32: v.i32 = (int32_t)x; break;
    case TB_INT64: v.i64 = x; break;
    case TB_FLOAT: v.f32 = (float)x; break;
    case TB_DOUBLE: v.f64 = (double)x; break;
    default: break;
  }
  return v;
}

double tb_test_as_double(tb_type t, tb_value v) {
  switch (t) {
    case TB_INT32: return (double)v.i32;
    case TB_INT64: return (double)v.i64;
    case TB_FLOAT: return (double)v.f32;
    case TB_DOUBLE: return v.f64;
    default: return 0.0;
  }
}

void *tb_test_convert(tb_type t, const int32_t *src, int n) {
  void *dst = malloc((size_t)(n > 0 ? n : 1) * tb_type_size(t));
  if (!dst) return NULL;
  for (int i = 0; i < n; ++i) tb_store(t, dst, i, tb_test_from_i64(t, src[i]));
  return dst;
}
