#include "suites/cpu_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

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
