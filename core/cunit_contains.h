/* ASSERT_CONTAINS(hay, needle): a CUnit assertion that a message holds a
 * phrase, printing both when it does not (the core tests' error checks). */
#ifndef TB_CORE_CUNIT_CONTAINS_H
#define TB_CORE_CUNIT_CONTAINS_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#define ASSERT_CONTAINS(hay, needle)                                        \
  do {                                                                      \
    const char *h_ = (hay);                                                 \
    if (strstr(h_, (needle)) == NULL)                                       \
      fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", h_, (needle));   \
    CU_ASSERT_PTR_NOT_NULL(strstr(h_, (needle)));                           \
  } while (0)

#endif
