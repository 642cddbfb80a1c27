/* Serial OpenMP-style reduction: each variable on its own, by the plain
 * reduce references, then folded into the variable's value. */
#include "cpuref/omp_reduce.h"

#include "cpuref/reduce_scan.h"

static tb_status check(const tb_cpu_omp_var *vars, int num_vars, int64_t n) {
  if (!vars || num_vars < 1)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_cpu_omp_reduce: %d variables (need at least 1)",
                   vars ? num_vars : 0);
  if (n < 0)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_cpu_omp_reduce: negative n = %lld", (long long)n);
  for (int v = 0; v < num_vars; ++v) {
    const tb_status st = tb_check_type_op(vars[v].type, vars[v].op);
    if (st != TB_OK) return st;
    if (n > 0 && !vars[v].in)
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_cpu_omp_reduce: variable %d: in is NULL", v);
  }
  return TB_OK;
}

tb_status tb_cpu_omp_reduce(tb_cpu_omp_var *vars, int num_vars, int64_t n) {
  tb_status st = check(vars, num_vars, n);
  if (st != TB_OK) return st;
  for (int v = 0; v < num_vars; ++v) {
    tb_cpu_omp_var *x = &vars[v];
    if (tb_type_is_float(x->type)) {
      double total;
      st = tb_cpu_reduce_f64(x->type, x->op, x->in, n, &total, NULL);
      if (st != TB_OK) return st;
      const tb_value init = {.f64 = x->type == TB_FLOAT ? (double)x->value.f32 : x->value.f64};
      x->value = tb_apply(TB_DOUBLE, x->op, init, (tb_value){.f64 = total});
    } else {
      tb_value total;
      st = tb_cpu_reduce(x->type, x->op, x->in, n, &total);
      if (st != TB_OK) return st;
      x->value = tb_apply(x->type, x->op, x->value, total);
    }
  }
  return TB_OK;
}
