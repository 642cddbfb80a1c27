/* What every CUnit test shares: the runner, and ASSERT_CONTAINS (a message
 * holds a phrase, both printed when it does not). */
#ifndef TB_CORE_CUNIT_H
#define TB_CORE_CUNIT_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers `tests` (ended by CU_TEST_INFO_NULL; only those whose name
 * contains `only`, when it is not NULL) as one suite, runs it verbosely and
 * returns the process exit code: 0 only when tests ran and none failed; 1
 * on a failure; 2 when `only` matches no test. */
int tb_test_run(const char *suite, const CU_TestInfo *tests, const char *only);

#ifdef __cplusplus
}
#endif

#define ASSERT_CONTAINS(hay, needle)                                        \
  do {                                                                      \
    const char *h_ = (hay);                                                 \
    if (strstr(h_, (needle)) == NULL)                                       \
      fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", h_, (needle));   \
    CU_ASSERT_PTR_NOT_NULL(strstr(h_, (needle)));                           \
  } while (0)

#endif
