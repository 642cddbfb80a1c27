#include "suites/testing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/cuda.h"

tb_test_config tb_test = {false, false, 1 << 24, 20261122};

static void fail_with(const char *text, int line, const char *file, const char *fn) {
  printf("\n  FAILED %s:%d: %s\n", file, line, text);
  CU_assertImplementation(CU_FALSE, (unsigned)line, text, file, fn, CU_FALSE);
}

bool tb_assert_ok(tb_status st, const char *what, int line, const char *file, const char *fn) {
  if (st == TB_OK) {
    CU_assertImplementation(CU_TRUE, (unsigned)line, what, file, fn, CU_FALSE);
    return true;
  }
  char text[1536];
  snprintf(text, sizeof text, "%s: %s: %s", what, tb_status_string(st), tb_last_error());
  fail_with(text, line, file, fn);
  return false;
}

bool tb_assert_status(tb_status st, tb_status expected, const char *what, int line,
                      const char *file, const char *fn) {
  if (st == expected && (st == TB_OK || tb_last_error()[0] != '\0')) {
    CU_assertImplementation(CU_TRUE, (unsigned)line, what, file, fn, CU_FALSE);
    return true;
  }
  char text[1536];
  snprintf(text, sizeof text, "%s: expected %s with a message, got %s (\"%s\")", what,
           tb_status_string(expected), tb_status_string(st), tb_last_error());
  fail_with(text, line, file, fn);
  return false;
}

int64_t tb_test_random_size(tb_rng *r, int64_t hi) {
  const double x = exp(tb_rng_unit(r) * log((double)hi));
  return x < 1 ? 1 : x > hi ? hi : (int64_t)x;
}

size_t tb_test_free_device_bytes(void) {
  size_t free_bytes = 0, total = 0;
  cudaDeviceSynchronize();
  cudaMemGetInfo(&free_bytes, &total);
  return free_bytes;
}

int tb_test_main(int argc, char **argv, const char *suite, const CU_TestInfo *tests) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0 || strcmp(argv[i], "--sanitizer") == 0) {
      tb_test.sanitizer = strcmp(argv[i], "--sanitizer") == 0;
      tb_test.quick = true;
      tb_test.max_random_n = 1 << 16;
    } else if (strncmp(argv[i], "--seed=", 7) == 0) {
      tb_test.seed = strtoull(argv[i] + 7, NULL, 0);
    } else {
      fprintf(stderr, "%s: unknown argument %s (takes --quick, --sanitizer, --seed=N)\n", suite, argv[i]);
      return 2;
    }
  }
  tb_device_info dev;
  if (tb_device_get(&dev) != TB_OK) {
    fprintf(stderr, "%s: FAILED: this is a GPU suite and there is no usable GPU: %s\n", suite,
            tb_last_error());
    return 1;
  }
  printf("%s on %s (sm_%d%d), seed %llu%s\n", suite, dev.name, dev.sm_major, dev.sm_minor,
         (unsigned long long)tb_test.seed, tb_test.quick ? ", quick" : "");

  return tb_test_run(suite, tests);
}
