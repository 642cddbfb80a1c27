/* The CSR SpMV references (cpuref/segreduce.h): unary, binary and the
 * higher-precision product. */
#include <math.h>
#include <stddef.h>

#include "cpuref/internal.h"
#include "cpuref/segreduce.h"

/* The checks both SpMV forms share: geometry over nz, columns inside x. */
static tb_status check_spmv(const char *fn, tb_type t, tb_op add_op, const int32_t *cols,
                            int32_t nz, const int32_t *csr, int32_t num_rows,
                            const int32_t *sources, const void *x, int32_t x_len, const void *y) {
  tb_status st = tb_cpuref_check(fn, t, add_op, cols, nz);
  if (st == TB_OK) st = tb_cpuref_check_csr(fn, "nz", nz, csr, num_rows, sources);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "y", y, num_rows);
  if (st != TB_OK) return st;
  if (x_len < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: x_len < 0 (%d)", fn, (int)x_len);
  if (x_len > 0 && x == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: x is NULL with x_len = %d", fn, (int)x_len);
  for (int32_t m = 0; m < nz; ++m)
    if (cols[m] < 0 || cols[m] >= x_len)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: cols[%d] = %d is outside x (%d)", fn, (int)m,
                     (int)cols[m], (int)x_len);
  return TB_OK;
}

/* One SpMV for both forms: matrix NULL means unary (no product). */
static void spmv(tb_type t, tb_op mul_op, tb_op add_op, const void *matrix, const int32_t *cols,
                 int32_t nz, const int32_t *csr, int32_t num_rows, const int32_t *sources,
                 const void *x, tb_value identity, void *y) {
  for (int32_t r = 0; r < num_rows; ++r) {
    int32_t begin = tb_cpuref_seg_begin(csr, sources, r),
            n = tb_cpuref_seg_len(csr, num_rows, nz, r);
    tb_value acc = identity;
    for (int32_t k = 0; k < n; ++k) {
      int32_t m = begin + k;
      tb_value term = tb_load(t, x, cols[m]);
      if (matrix) term = tb_apply(t, mul_op, tb_load(t, matrix, m), term);
      acc = k == 0 ? term : tb_apply(t, add_op, acc, term);
    }
    tb_store(t, y, r, acc);
  }
}

tb_status tb_cpu_spmv_csr_unary(tb_type t, tb_op add_op, const int32_t *cols, int32_t nz,
                                const int32_t *csr, int32_t num_rows, const int32_t *sources,
                                const void *x, int32_t x_len, tb_value identity, void *y) {
  tb_status st =
      check_spmv("tb_cpu_spmv_csr_unary", t, add_op, cols, nz, csr, num_rows, sources, x, x_len, y);
  if (st != TB_OK) return st;
  spmv(t, add_op, add_op, NULL, cols, nz, csr, num_rows, sources, x, identity, y);
  return TB_OK;
}

tb_status tb_cpu_spmv_csr(tb_type t, tb_op mul_op, tb_op add_op, const void *matrix,
                          const int32_t *cols, int32_t nz, const int32_t *csr, int32_t num_rows,
                          const int32_t *sources, const void *x, int32_t x_len, tb_value identity,
                          void *y) {
  static const char fn[] = "tb_cpu_spmv_csr";
  tb_status st = tb_cpuref_check(fn, t, mul_op, matrix, nz);
  if (st == TB_OK) st = check_spmv(fn, t, add_op, cols, nz, csr, num_rows, sources, x, x_len, y);
  if (st != TB_OK) return st;
  spmv(t, mul_op, add_op, matrix, cols, nz, csr, num_rows, sources, x, identity, y);
  return TB_OK;
}

tb_status tb_cpu_spmv_csr_f64(tb_type t, const void *matrix, const int32_t *cols, int32_t nz,
                              const int32_t *csr, int32_t num_rows, const int32_t *sources,
                              const void *x, int32_t x_len, double *y, double *sum_abs) {
  static const char fn[] = "tb_cpu_spmv_csr_f64";
  tb_status st = tb_cpuref_check(fn, t, TB_OP_MULTIPLIES, matrix, nz);
  if (st == TB_OK) st = tb_cpuref_check_float(fn, t);
  if (st == TB_OK)
    st = check_spmv(fn, t, TB_OP_PLUS, cols, nz, csr, num_rows, sources, x, x_len, y);
  if (st != TB_OK) return st;

  for (int32_t r = 0; r < num_rows; ++r) {
    int32_t begin = tb_cpuref_seg_begin(csr, sources, r),
            n = tb_cpuref_seg_len(csr, num_rows, nz, r);
    if (t == TB_FLOAT) {
      /* A float product is exact in double; only the sum rounds. */
      const float *a = (const float *)matrix, *v = (const float *)x;
      double acc = 0.0, abs_acc = 0.0;
      for (int32_t k = 0; k < n; ++k) {
        double p = (double)a[begin + k] * (double)v[cols[begin + k]];
        acc += p;
        abs_acc += fabs(p);
      }
      y[r] = acc;
      if (sum_abs) sum_abs[r] = abs_acc;
    } else {
      const double *a = (const double *)matrix, *v = (const double *)x;
      long double acc = 0.0L, abs_acc = 0.0L;
      for (int32_t k = 0; k < n; ++k) {
        long double p = (long double)a[begin + k] * (long double)v[cols[begin + k]];
        acc += p;
        abs_acc += fabsl(p);
      }
      y[r] = (double)acc;
      if (sum_abs) sum_abs[r] = (double)abs_acc;
    }
  }
  return TB_OK;
}
