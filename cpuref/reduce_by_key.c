/* tb_cpu_reduce_by_key and tb_cpu_keys_to_csr (cpuref/segreduce.h). */
#include <stddef.h>

#include "cpuref/internal.h"
#include "cpuref/segreduce.h"

tb_status tb_cpu_reduce_by_key(tb_type t, tb_op op, const int32_t *keys, const void *values,
                               int32_t count, void *out_values, int32_t *out_keys,
                               int32_t *num_segments) {
  static const char fn[] = "tb_cpu_reduce_by_key";
  tb_status st = tb_cpuref_check(fn, t, op, values, count);
  if (st == TB_OK && count > 0 && keys == NULL)
    st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: keys is NULL with count = %d", fn, (int)count);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "out_values", out_values, count);
  if (st != TB_OK) return st;

  int32_t k = -1; /* the segment being reduced */
  tb_value acc = tb_identity(t, op);
  for (int32_t i = 0; i < count; ++i) {
    tb_value v = tb_load(t, values, i);
    if (i == 0 || keys[i] != keys[i - 1]) {
      if (k >= 0) tb_store(t, out_values, k, acc);
      ++k;
      if (out_keys) out_keys[k] = keys[i];
      acc = v;
    } else {
      acc = tb_apply(t, op, acc, v);
    }
  }
  if (k >= 0) tb_store(t, out_values, k, acc);
  if (num_segments) *num_segments = k + 1;
  return TB_OK;
}

tb_status tb_cpu_keys_to_csr(const int32_t *keys, int32_t count, int32_t *csr,
                             int32_t *num_segments) {
  static const char fn[] = "tb_cpu_keys_to_csr";
  if (count < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: count < 0 (%d)", fn, (int)count);
  if (count > 0 && (keys == NULL || csr == NULL))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL with count = %d", fn,
                   keys == NULL ? "keys" : "csr", (int)count);
  if (num_segments == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_segments is NULL", fn);
  int32_t n = 0;
  for (int32_t i = 0; i < count; ++i)
    if (i == 0 || keys[i] != keys[i - 1]) csr[n++] = i;
  *num_segments = n;
  return TB_OK;
}
