#include "cpuref/segreduce.h"

#include <math.h>
#include <stddef.h>

#include "cpuref/internal.h"

tb_status tb_cpu_segreduce_csr(tb_type t, tb_op op, const void *values, int32_t count,
                               const int32_t *csr, int32_t num_segments,
                               const int32_t *sources, tb_value identity, void *out) {
  static const char fn[] = "tb_cpu_segreduce_csr";
  tb_status st = tb_cpuref_check(fn, t, op, values, count);
  if (st == TB_OK) st = tb_cpuref_check_csr(fn, "count", count, csr, num_segments, sources);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "out", out, num_segments);
  if (st != TB_OK) return st;

  for (int32_t s = 0; s < num_segments; ++s) {
    int32_t begin = tb_cpuref_seg_begin(csr, sources, s),
            n = tb_cpuref_seg_len(csr, num_segments, count, s);
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
  if (st == TB_OK) st = tb_cpuref_check_csr(fn, "count", count, csr, num_segments, sources);
  if (st == TB_OK) st = tb_cpuref_check_array(fn, "out", out, num_segments);
  if (st != TB_OK) return st;

  double empty = t == TB_FLOAT ? (double)identity.f32 : identity.f64;
  for (int32_t s = 0; s < num_segments; ++s) {
    int32_t begin = tb_cpuref_seg_begin(csr, sources, s),
            n = tb_cpuref_seg_len(csr, num_segments, count, s);
    if (n == 0) {
      out[s] = empty;
      if (sum_abs) sum_abs[s] = 0.0;
    } else if (t == TB_FLOAT) {
      /* float in double: every float, and every sum of a few, is exact. */
      const float *x = (const float *)values + begin;
      double acc = x[0], abs_acc = fabs((double)x[0]);
      for (int32_t k = 1; k < n; ++k) {
        acc = tb_apply_double(op, acc, (double)x[k]);
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
