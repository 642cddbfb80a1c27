#include "cpuref/segreduce.h"

#include <math.h>
#include <stddef.h>

#include "cpuref/internal.h"

/* Length of segment s (the last one runs to count). */
static int32_t seg_len(const int32_t *csr, int32_t num_segments, int32_t count, int32_t s) {
  return (s + 1 < num_segments ? csr[s + 1] : count) - csr[s];
}

/* Where segment s's elements begin in the data arrays. */
static int32_t seg_begin(const int32_t *csr, const int32_t *sources, int32_t s) {
  return sources ? sources[s] : csr[s];
}

/* The geometry checks every CSR entry point makes before writing anything.
 * what names the element count ("count", "nz") in messages. */
static tb_status check_geometry(const char *fn, const char *what, int32_t count,
                                const int32_t *csr, int32_t num_segments,
                                const int32_t *sources) {
  if (count < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s < 0 (%d)", fn, what, (int)count);
  if (num_segments < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_segments < 0 (%d)", fn,
                   (int)num_segments);
  if (num_segments == 0) {
    if (count != 0)
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: no segments for %s = %d elements", fn, what, (int)count);
    return TB_OK;
  }
  if (csr == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr is NULL", fn);
  if (csr[0] != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[0] is %d, not 0", fn, (int)csr[0]);
  for (int32_t s = 1; s < num_segments; ++s)
    if (csr[s] < csr[s - 1])
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr decreases at %d (%d after %d)", fn,
                     (int)s, (int)csr[s], (int)csr[s - 1]);
  if (csr[num_segments - 1] > count)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[%d] = %d is past %s = %d", fn,
                   (int)(num_segments - 1), (int)csr[num_segments - 1], what, (int)count);
  if (sources != NULL)
    for (int32_t s = 0; s < num_segments; ++s) {
      int64_t begin = sources[s], end = begin + seg_len(csr, num_segments, count, s);
      if (begin < 0 || end > count)
        return tb_fail(TB_ERR_INVALID_ARGUMENT,
                       "%s: segment %d reads [%lld, %lld), outside the %d elements", fn,
                       (int)s, (long long)begin, (long long)end, (int)count);
    }
  return TB_OK;
}

/* A NULL output that would be written. */
tb_status tb_cpu_segreduce_csr(tb_type t, tb_op op, const void *values, int32_t count,
                               const int32_t *csr, int32_t num_segments,
                               const int32_t *sources, tb_value identity, void *out) {
  static const char fn[] = "tb_cpu_segreduce_csr";
  tb_status st = tb_cpuref_check(fn, t, op, values, count);
  if (st == TB_OK) st = check_geometry(fn, "count", count, csr, num_segments, sources);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "out", out, num_segments);
  if (st != TB_OK) return st;

  for (int32_t s = 0; s < num_segments; ++s) {
    int32_t begin = seg_begin(csr, sources, s), n = seg_len(csr, num_segments, count, s);
    tb_value acc = identity;
    if (n > 0) {
      acc = tb_load(t, values, begin);
      for (int32_t k = 1; k < n; ++k) acc = tb_apply(t, op, acc, tb_load(t, values, begin + k));
    }
    tb_store(t, out, s, acc);
  }
  return TB_OK;
}

tb_status tb_cpu_segreduce_csr_f64(tb_type t, tb_op op, const void *values, int32_t count,
                                   const int32_t *csr, int32_t num_segments,
                                   const int32_t *sources, tb_value identity, double *out,
                                   double *sum_abs) {
  static const char fn[] = "tb_cpu_segreduce_csr_f64";
  tb_status st = tb_cpuref_check(fn, t, op, values, count);
  if (st == TB_OK) st = tb_cpuref_check_float(fn, t);
  if (st == TB_OK) st = check_geometry(fn, "count", count, csr, num_segments, sources);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "out", out, num_segments);
  if (st != TB_OK) return st;

  double empty = t == TB_FLOAT ? (double)identity.f32 : identity.f64;
  for (int32_t s = 0; s < num_segments; ++s) {
    int32_t begin = seg_begin(csr, sources, s), n = seg_len(csr, num_segments, count, s);
    if (n == 0) {
      out[s] = empty;
      if (sum_abs) sum_abs[s] = 0.0;
    } else if (t == TB_FLOAT) {
      /* float in double: every float, and every sum of a few, is exact. */
      const float *x = (const float *)values + begin;
      double acc = x[0], abs_acc = fabs((double)x[0]);
      for (int32_t k = 1; k < n; ++k) {
        acc = tb_cpuref_apply_d(op, acc, (double)x[k]);
        abs_acc += fabs((double)x[k]);
      }
      out[s] = acc;
      if (sum_abs) sum_abs[s] = abs_acc;
    } else {
      const double *x = (const double *)values + begin;
      long double acc = x[0], abs_acc = fabsl((long double)x[0]);
      for (int32_t k = 1; k < n; ++k) {
        acc = tb_cpuref_apply_ld(op, acc, (long double)x[k]);
        abs_acc += fabsl((long double)x[k]);
      }
      out[s] = (double)acc;
      if (sum_abs) sum_abs[s] = (double)abs_acc;
    }
  }
  return TB_OK;
}

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
  if (count < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: count < 0 (%d)", fn, (int)count);
  if (count > 0 && (keys == NULL || csr == NULL))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL with count = %d", fn,
                   keys == NULL ? "keys" : "csr", (int)count);
  if (num_segments == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_segments is NULL", fn);
  int32_t n = 0;
  for (int32_t i = 0; i < count; ++i)
    if (i == 0 || keys[i] != keys[i - 1]) csr[n++] = i;
  *num_segments = n;
  return TB_OK;
}

/* The checks both SpMV forms share: geometry over nz, columns inside x. */
static tb_status check_spmv(const char *fn, tb_type t, tb_op add_op, const int32_t *cols,
                            int32_t nz, const int32_t *csr, int32_t num_rows,
                            const int32_t *sources, const void *x, int32_t x_len,
                            const void *y) {
  tb_status st = tb_cpuref_check(fn, t, add_op, cols, nz);
  if (st == TB_OK) st = check_geometry(fn, "nz", nz, csr, num_rows, sources);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "y", y, num_rows);
  if (st != TB_OK) return st;
  if (x_len < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: x_len < 0 (%d)", fn, (int)x_len);
  if (x_len > 0 && x == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: x is NULL with x_len = %d", fn, (int)x_len);
  for (int32_t m = 0; m < nz; ++m)
    if (cols[m] < 0 || cols[m] >= x_len)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: cols[%d] = %d is outside x (%d)", fn,
                     (int)m, (int)cols[m], (int)x_len);
  return TB_OK;
}

/* One SpMV for both forms: matrix NULL means unary (no product). */
static void spmv(tb_type t, tb_op mul_op, tb_op add_op, const void *matrix,
                 const int32_t *cols, int32_t nz, const int32_t *csr, int32_t num_rows,
                 const int32_t *sources, const void *x, tb_value identity, void *y) {
  for (int32_t r = 0; r < num_rows; ++r) {
    int32_t begin = seg_begin(csr, sources, r), n = seg_len(csr, num_rows, nz, r);
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
  tb_status st = check_spmv("tb_cpu_spmv_csr_unary", t, add_op, cols, nz, csr, num_rows,
                            sources, x, x_len, y);
  if (st != TB_OK) return st;
  spmv(t, add_op, add_op, NULL, cols, nz, csr, num_rows, sources, x, identity, y);
  return TB_OK;
}

tb_status tb_cpu_spmv_csr(tb_type t, tb_op mul_op, tb_op add_op, const void *matrix,
                          const int32_t *cols, int32_t nz, const int32_t *csr, int32_t num_rows,
                          const int32_t *sources, const void *x, int32_t x_len,
                          tb_value identity, void *y) {
  static const char fn[] = "tb_cpu_spmv_csr";
  tb_status st = tb_cpuref_check(fn, t, mul_op, matrix, nz);
  if (st == TB_OK)
    st = check_spmv(fn, t, add_op, cols, nz, csr, num_rows, sources, x, x_len, y);
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
    int32_t begin = seg_begin(csr, sources, r), n = seg_len(csr, num_rows, nz, r);
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

tb_status tb_cpu_segreduce_carry_in(tb_type t, tb_op op, const void *carry_out,
                                    const uint8_t *ends, int32_t n, tb_value identity,
                                    void *carry_in, tb_value *tile_carry_out) {
  static const char fn[] = "tb_cpu_segreduce_carry_in";
  tb_status st = tb_cpuref_check(fn, t, op, carry_out, n);
  if (st == TB_OK && n > 0 && (ends == NULL || carry_in == NULL))
    st = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL with n = %d", fn,
                 ends == NULL ? "ends" : "carry_in", (int)n);
  if (st != TB_OK) return st;

  /* acc: the carry-outs since (and including) the last thread with an end. A
   * thread with an end restarts it: its carry-out belongs to the segment that
   * opens after its last end. */
  tb_value acc = identity;
  for (int32_t i = 0; i < n; ++i) {
    tb_store(t, carry_in, i, acc);
    tb_value c = tb_load(t, carry_out, i);
    acc = ends[i] ? c : tb_apply(t, op, acc, c);
  }
  if (tile_carry_out) *tile_carry_out = acc;
  return TB_OK;
}
