/* What every CUnit test shares: tests that enter themselves where they are
 * written (TB_TEST), the runner, ASSERT_NAMES_ROUND_TRIP and
 * ASSERT_CONTAINS (a message holds a phrase, both printed when it does
 * not). */
#ifndef TB_CORE_CUNIT_H
#define TB_CORE_CUNIT_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A test, entered in its binary's suite by a constructor, so that no list
 * of tests is kept apart from the tests:
 *
 *   TB_TEST(test_empty, "n = 0") { ... }
 *
 * A binary's tests run file by file, each file's in the order they are
 * written. */
#define TB_TEST(fn, title)                                    \
  static void fn(void);                                       \
  __attribute__((constructor)) static void fn##_enter(void) { \
    tb_test_enter(title, fn, __FILE__, __LINE__);             \
  }                                                           \
  static void fn(void)

void tb_test_enter(const char *title, CU_TestFunc fn, const char *file, int line);

/* Runs the binary's tests (only those whose name contains `only`, when it is
 * not NULL) as one suite, verbosely, and returns the process exit code: 0
 * only when tests ran and none failed; 1 on a failure; 2 when `only` matches
 * no test. */
int tb_test_run(const char *suite, const char *only);

#ifdef __cplusplus
}
#endif

/* Every value of enum type T below count has a name (not "invalid") that
 * parse takes back to it: name(T) -> const char *, parse(const char *, T *)
 * -> bool. */
#define ASSERT_NAMES_ROUND_TRIP(T, count, name, parse)  \
  for (int v_ = 0; v_ < (int)(count); ++v_) {           \
    T back_ = (T)(count);                               \
    CU_ASSERT_STRING_NOT_EQUAL(name((T)v_), "invalid"); \
    CU_ASSERT(parse(name((T)v_), &back_));              \
    CU_ASSERT_EQUAL((int)back_, v_);                    \
  }

#define ASSERT_CONTAINS(hay, needle)                                        \
  do {                                                                      \
    const char *h_ = (hay);                                                 \
    if (strstr(h_, (needle)) == NULL)                                       \
      fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", h_, (needle));   \
    CU_ASSERT_PTR_NOT_NULL(strstr(h_, (needle)));                           \
  } while (0)

#endif
