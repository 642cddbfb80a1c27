/* Helpers shared by the references; not part of the public API. */
#ifndef TB_CPUREF_INTERNAL_H
#define TB_CPUREF_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/status.h"
#include "core/types.h"

/* The checks every entry point makes: a valid (t, op) pair, n >= 0, and an
 * input array when there is anything to read. fn names the caller in the
 * message. */
static inline tb_status tb_cpuref_check(const char *fn, tb_type t, tb_op op,
                                        const void *in, int64_t n) {
  if (tb_check_type_op(t, op) != TB_OK) {
    /* Copy first: tb_fail writes the buffer tb_last_error() points into. */
    char why[256];
    strncpy(why, tb_last_error(), sizeof why - 1);
    why[sizeof why - 1] = '\0';
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s", fn,
                   why[0] ? why : "invalid type or operator");
  }
  if (n < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: n < 0 (%lld)", fn,
                   (long long)n);
  if (n > 0 && in == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: in is NULL with n = %lld",
                   fn, (long long)n);
  return TB_OK;
}

/* The checks of the interval family's references (they take no operator). */
static inline tb_status tb_cpuref_check_type(const char *fn, tb_type t) {
  if (!tb_type_valid(t))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: invalid element type %d", fn, (int)t);
  return TB_OK;
}

/* num_objects runs over n_items items: neither negative, and the scan there
 * when both are positive. */
static inline tb_status tb_cpuref_check_runs(const char *fn, int32_t num_objects,
                                             int32_t n_items, const char *scan_name,
                                             const int32_t *scan) {
  if (num_objects < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_objects < 0 (%d)", fn, num_objects);
  if (n_items < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: n_items < 0 (%d)", fn, n_items);
  if (num_objects > 0 && n_items > 0 && scan == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL with num_objects = %d", fn, scan_name,
                   num_objects);
  return TB_OK;
}

/* An array of n (> 0) elements, read or written, must be there. */
static inline tb_status tb_cpuref_check_array(const char *fn, const char *name, const void *p,
                                              int64_t n) {
  if (n > 0 && p == NULL)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s is NULL with %lld elements", fn, name,
                   (long long)n);
  return TB_OK;
}

/* The f64 references take floating types only. */
static inline tb_status tb_cpuref_check_float(const char *fn, tb_type t) {
  if (t != TB_FLOAT && t != TB_DOUBLE)
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "%s: type %s is not floating (integers compare bit-exact "
                   "against tb_cpu_reduce / tb_cpu_scan)",
                   fn, tb_type_valid(t) ? tb_type_name(t) : "(invalid)");
  return TB_OK;
}

/* a op b in long double, with tb_apply's min/max rule (minNum/maxNum), as
 * tb_apply_double (core/types.h) does in double. Only the floating ops
 * reach here (tb_check_type_op ran first). */
static inline long double tb_cpuref_apply_ld(tb_op op, long double a,
                                             long double b) {
  switch (op) {
    case TB_OP_PLUS: return a + b;
    case TB_OP_MULTIPLIES: return a * b;
    case TB_OP_MIN: return fminl(a, b);
    case TB_OP_MAX: return fmaxl(a, b);
    default: return 0.0L;
  }
}

/* The identity of op as double; exact for float and double (+-inf, 0, 1). */
static inline double tb_cpuref_identity_d(tb_type t, tb_op op) {
  tb_value id = tb_identity(t, op);
  return t == TB_FLOAT ? (double)id.f32 : id.f64;
}

/* The CSR segment geometry of cpuref/segreduce.h (segreduce.c, spmv.c): the
 * length of segment s (the last one runs to count). */
static inline int32_t tb_cpuref_seg_len(const int32_t *csr, int32_t num_segments, int32_t count,
                                        int32_t s) {
  return (s + 1 < num_segments ? csr[s + 1] : count) - csr[s];
}

/* Where segment s's elements begin in the data arrays. */
static inline int32_t tb_cpuref_seg_begin(const int32_t *csr, const int32_t *sources, int32_t s) {
  return sources ? sources[s] : csr[s];
}

/* The geometry checks every CSR entry point (segreduce.c, spmv.c) makes
 * before writing anything. what names the element count ("count", "nz") in
 * messages. */
static inline tb_status tb_cpuref_check_csr(const char *fn, const char *what, int32_t count,
                                            const int32_t *csr, int32_t num_segments,
                                            const int32_t *sources) {
  if (count < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: %s < 0 (%d)", fn, what, (int)count);
  if (num_segments < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: num_segments < 0 (%d)", fn, (int)num_segments);
  if (num_segments == 0) {
    if (count != 0)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: no segments for %s = %d elements", fn, what,
                     (int)count);
    return TB_OK;
  }
  if (csr == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr is NULL", fn);
  if (csr[0] != 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[0] is %d, not 0", fn, (int)csr[0]);
  for (int32_t s = 1; s < num_segments; ++s)
    if (csr[s] < csr[s - 1])
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr decreases at %d (%d after %d)", fn, (int)s,
                     (int)csr[s], (int)csr[s - 1]);
  if (csr[num_segments - 1] > count)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: csr[%d] = %d is past %s = %d", fn,
                   (int)(num_segments - 1), (int)csr[num_segments - 1], what, (int)count);
  if (sources != NULL)
    for (int32_t s = 0; s < num_segments; ++s) {
      int64_t begin = sources[s], end = begin + tb_cpuref_seg_len(csr, num_segments, count, s);
      if (begin < 0 || end > count)
        return tb_fail(TB_ERR_INVALID_ARGUMENT,
                       "%s: segment %d reads [%lld, %lld), outside the %d elements", fn, (int)s,
                       (long long)begin, (long long)end, (int)count);
    }
  return TB_OK;
}

#endif
