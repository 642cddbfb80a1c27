#include "suites/testing.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
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

bool tb_message_well_formed(const char *msg, char *name, size_t cap) {
  size_t len = 0;
  if (strncmp(msg, "tb_", 3) != 0) return false;
  while (isalnum((unsigned char)msg[len]) || msg[len] == '_') ++len;
  if (strncmp(msg + len, ": ", 2) != 0) return false;
  char prefix[128];
  if (len + 2 >= sizeof prefix) return false;
  memcpy(prefix, msg, len + 1); /* "tb_name:" */
  prefix[len + 1] = '\0';
  if (strstr(msg + len + 1, prefix)) return false;
  /* A whole-word repeat ("tb_scan ... tb_scan") is the same mistake. */
  prefix[len] = '\0';
  for (const char *p = strstr(msg + len, prefix); p; p = strstr(p + 1, prefix))
    if (!isalnum((unsigned char)p[len]) && p[len] != '_') return false;
  if (name) snprintf(name, cap, "%s", prefix);
  return true;
}

bool tb_assert_status(tb_status st, tb_status expected, const char *what, int line,
                      const char *file, const char *fn) {
  const char *msg = tb_last_error();
  const bool formed = st != TB_ERR_INVALID_ARGUMENT || tb_message_well_formed(msg, NULL, 0);
  if (st == expected && (st == TB_OK || msg[0] != '\0') && formed) {
    CU_assertImplementation(CU_TRUE, (unsigned)line, what, file, fn, CU_FALSE);
    return true;
  }
  char text[1536];
  if (st == expected && !formed)
    snprintf(text, sizeof text, "%s: message \"%s\" is not \"tb_<function>: ...\" with the name once",
             what, msg);
  else
    snprintf(text, sizeof text, "%s: expected %s with a message, got %s (\"%s\")", what,
             tb_status_string(expected), tb_status_string(st), msg);
  fail_with(text, line, file, fn);
  return false;
}

bool tb_assert_rejects(tb_status st, const char *api, int line, const char *file, const char *fn,
                       ...) {
  char what[256];
  snprintf(what, sizeof what, "%s rejects", api);
  if (!tb_assert_status(st, TB_ERR_INVALID_ARGUMENT, what, line, file, fn)) return false;
  const char *msg = tb_last_error();
  char name[128], text[1536];
  tb_message_well_formed(msg, name, sizeof name);
  if (strcmp(name, api) != 0) {
    snprintf(text, sizeof text, "message \"%s\" names %s, not %s", msg, name, api);
    fail_with(text, line, file, fn);
    return false;
  }
  va_list ap;
  va_start(ap, fn);
  bool ok = true;
  for (const char *needle = va_arg(ap, const char *); needle; needle = va_arg(ap, const char *))
    if (!strstr(msg, needle)) {
      snprintf(text, sizeof text, "message \"%s\" lacks \"%s\"", msg, needle);
      fail_with(text, line, file, fn);
      ok = false;
    }
  va_end(ap);
  return ok;
}

tb_rng tb_test_rng(uint64_t stream) {
  tb_rng r;
  tb_rng_seed(&r, tb_test.seed + stream);
  return r;
}

int64_t tb_test_random_size(tb_rng *r, int64_t hi) {
  const double x = exp(tb_rng_unit(r) * log((double)hi));
  return x < 1 ? 1 : x > hi ? hi : (int64_t)x;
}

bool tb_test_upload(tb_buffer *b, const void *host, size_t bytes) {
  return TB_ASSERT_OK(tb_buffer_alloc(b, bytes ? bytes : 16), "alloc") &&
         (bytes == 0 || TB_ASSERT_OK(tb_buffer_upload(b, host, bytes), "upload"));
}

bool tb_test_dirty_scratch(tb_buffer *scratch, int pattern, tb_rng *r) {
  const size_t words = scratch->bytes / sizeof(uint64_t);
  uint64_t *host = malloc(words * sizeof *host + 1);
  if (!TB_ASSERT_OK(host ? TB_OK : tb_fail(TB_ERR_OUT_OF_MEMORY, "host scratch"), "dirty scratch"))
    return false;
  for (size_t i = 0; i < words; ++i)
    host[i] = pattern == 0   ? 0
              : pattern == 1 ? ~0ull
              : pattern == 2 ? (i % 2 ? 1 : 2)
                             : tb_rng_next(r);
  const bool ok =
      TB_ASSERT_OK(tb_buffer_upload(scratch, host, words * sizeof *host), "dirty scratch");
  free(host);
  return ok;
}

size_t tb_test_free_device_bytes(void) {
  size_t free_bytes = 0, total = 0;
  cudaDeviceSynchronize();
  cudaMemGetInfo(&free_bytes, &total);
  return free_bytes;
}

int tb_test_main(int argc, char **argv, const char *suite) {
  const char *only = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0 || strcmp(argv[i], "--sanitizer") == 0) {
      tb_test.sanitizer = strcmp(argv[i], "--sanitizer") == 0;
      tb_test.quick = true;
      tb_test.max_random_n = 1 << 16;
    } else if (strncmp(argv[i], "--seed=", 7) == 0) {
      tb_test.seed = strtoull(argv[i] + 7, NULL, 0);
    } else if (strncmp(argv[i], "--only=", 7) == 0) {
      only = argv[i] + 7;
    } else {
      fprintf(stderr, "%s: unknown argument %s (takes --quick, --sanitizer, --seed=N, --only=TEXT)\n",
              suite, argv[i]);
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

  return tb_test_run(suite, only);
}
