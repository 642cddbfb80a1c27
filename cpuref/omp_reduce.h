/* Serial CPU reference for OpenMP-style reductions: several variables, each
 * with its own type and operator, each folded over its own n inputs and then
 * into the variable's value, as `reduction(op:var)` defines it:
 *   value = value op (in[0] op in[1] op ... op in[n-1])
 * No CUDA. */
#ifndef TB_CPUREF_OMP_REDUCE_H
#define TB_CPUREF_OMP_REDUCE_H

#include <stdint.h>

#include "core/status.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_cpu_omp_var {
  tb_type type;
  tb_op op;
  const void *in; /* n elements of `type` */
  /* In: the variable, in its own type (.i32, .i64, .f32, .f64). Out: the
   * reduced variable; integers exact in their type, floats as .f64 from a
   * higher-precision fold (tb_cpu_reduce_f64: float in double, double in
   * long double), to compare against with a bound (core/validate.h). */
  tb_value value;
} tb_cpu_omp_var;

/* Reduces every variable. TB_ERR_INVALID_ARGUMENT (and nothing written)
 * when num_vars < 1, n < 0, a pair that does not fit, or a NULL input with
 * n > 0. */
tb_status tb_cpu_omp_reduce(tb_cpu_omp_var *vars, int num_vars, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
