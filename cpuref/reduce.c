#include "cpuref/reduce_scan.h"

#include <math.h>

#include "cpuref/internal.h"

tb_status tb_cpu_reduce(tb_type t, tb_op op, const void *in, int64_t n,
                        tb_value *total) {
  tb_status st = tb_cpuref_check("tb_cpu_reduce", t, op, in, n);
  if (st != TB_OK) return st;
  if (total == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_cpu_reduce: total is NULL");

  tb_value acc = tb_identity(t, op);
  for (int64_t i = 0; i < n; ++i) acc = tb_apply(t, op, acc, tb_load(t, in, i));
  *total = acc;
  return TB_OK;
}

tb_status tb_cpu_reduce_f64(tb_type t, tb_op op, const void *in, int64_t n,
                            double *total, double *sum_abs) {
  tb_status st = tb_cpuref_check("tb_cpu_reduce_f64", t, op, in, n);
  if (st == TB_OK) st = tb_cpuref_check_float("tb_cpu_reduce_f64", t);
  if (st != TB_OK) return st;
  if (total == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_cpu_reduce_f64: total is NULL");

  /* Two plain loops rather than one generic one, so that float input is
   * accumulated in double exactly as documented (no double rounding). */
  if (t == TB_FLOAT) {
    const float *x = (const float *)in;
    double acc = tb_cpuref_identity_d(t, op), abs_acc = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      acc = tb_apply_double(op, acc, (double)x[i]);
      abs_acc += fabs((double)x[i]);
    }
    *total = acc;
    if (sum_abs) *sum_abs = abs_acc;
  } else {
    const double *x = (const double *)in;
    long double acc = tb_cpuref_identity_d(t, op), abs_acc = 0.0L;
    for (int64_t i = 0; i < n; ++i) {
      acc = tb_cpuref_apply_ld(op, acc, (long double)x[i]);
      abs_acc += fabsl((long double)x[i]);
    }
    *total = (double)acc;
    if (sum_abs) *sum_abs = (double)abs_acc;
  }
  return TB_OK;
}
