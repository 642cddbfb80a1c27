#include "cpuref/reduce_scan.h"

#include <math.h>

#include "cpuref/internal.h"

/* Each loop reads in[i] before it writes out[i], which is what makes
 * out == in safe. */

tb_status tb_cpu_scan(tb_type t, tb_op op, bool inclusive, const void *in,
                      void *out, int64_t n, tb_value *total) {
  tb_status st = tb_cpuref_check("tb_cpu_scan", t, op, in, n);
  if (st != TB_OK) return st;
  if (n > 0 && out == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_cpu_scan: out is NULL with n = %lld", (long long)n);

  tb_value acc = tb_identity(t, op);
  for (int64_t i = 0; i < n; ++i) {
    tb_value x = tb_load(t, in, i);
    if (!inclusive) tb_store(t, out, i, acc);
    acc = tb_apply(t, op, acc, x);
    if (inclusive) tb_store(t, out, i, acc);
  }
  if (total) *total = acc;
  return TB_OK;
}

tb_status tb_cpu_scan_f64(tb_type t, tb_op op, bool inclusive, const void *in,
                          double *out, int64_t n, double *total,
                          double *sum_abs, double *total_sum_abs) {
  tb_status st = tb_cpuref_check("tb_cpu_scan_f64", t, op, in, n);
  if (st == TB_OK) st = tb_cpuref_check_float("tb_cpu_scan_f64", t);
  if (st != TB_OK) return st;
  if (n > 0 && out == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "tb_cpu_scan_f64: out is NULL with n = %lld", (long long)n);

  /* Two plain loops: float input accumulates in double, double input in
   * long double (see reduce.c). */
  if (t == TB_FLOAT) {
    const float *in_f = (const float *)in;
    double acc = tb_cpuref_identity_d(t, op), abs_acc = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      double x = (double)in_f[i];
      if (!inclusive) {
        out[i] = acc;
        if (sum_abs) sum_abs[i] = abs_acc;
      }
      acc = tb_apply_double(op, acc, x);
      abs_acc += fabs(x);
      if (inclusive) {
        out[i] = acc;
        if (sum_abs) sum_abs[i] = abs_acc;
      }
    }
    if (total) *total = acc;
    if (total_sum_abs) *total_sum_abs = abs_acc;
  } else {
    const double *in_d = (const double *)in;
    long double acc = tb_cpuref_identity_d(t, op), abs_acc = 0.0L;
    for (int64_t i = 0; i < n; ++i) {
      long double x = (long double)in_d[i];
      if (!inclusive) {
        out[i] = (double)acc;
        if (sum_abs) sum_abs[i] = (double)abs_acc;
      }
      acc = tb_cpuref_apply_ld(op, acc, x);
      abs_acc += fabsl(x);
      if (inclusive) {
        out[i] = (double)acc;
        if (sum_abs) sum_abs[i] = (double)abs_acc;
      }
    }
    if (total) *total = (double)acc;
    if (total_sum_abs) *total_sum_abs = (double)abs_acc;
  }
  return TB_OK;
}
