#include "cpuref/interval.h"

#include "cpuref/internal.h"

#include <stddef.h>
#include <string.h>

/* dst[i] = src[j] for elements of size bytes; the two fixed sizes (every
 * tb_type is 4 or 8 bytes) let the compiler turn the memcpy into a plain
 * load and store. */
static inline void copy_element(void *dst, int32_t i, const void *src, int32_t j, size_t size) {
  char *d = (char *)dst + (size_t)i * size;
  const char *s = (const char *)src + (size_t)j * size;
  if (size == 4)
    memcpy(d, s, 4);
  else
    memcpy(d, s, 8);
}

/* Where object j's run of work items ends (the next object's begin). */
static int32_t run_end(const int32_t *scan, int32_t num_objects, int32_t n_items, int32_t j) {
  return j + 1 < num_objects ? scan[j + 1] : n_items;
}

tb_status tb_cpu_interval_expand(tb_type t, const int32_t *scan, int32_t num_objects,
                                 int32_t n_items, const void *values, void *out) {
  static const char fn[] = "tb_cpu_interval_expand";
  TB_TRY(tb_cpuref_check_type(fn, t));
  TB_TRY(tb_cpuref_check_runs(fn, num_objects, n_items, "scan", scan));
  if (n_items == 0 || num_objects == 0) return TB_OK;
  TB_TRY(tb_cpuref_check_array(fn, "values", values, num_objects));
  TB_TRY(tb_cpuref_check_array(fn, "out", out, n_items));
  const size_t size = tb_type_size(t);
  /* One object at a time, its value written over its whole run. */
  for (int32_t j = 0; j < num_objects; ++j) {
    int32_t end = run_end(scan, num_objects, n_items, j);
    for (int32_t i = scan[j]; i < end; ++i) copy_element(out, i, values, j, size);
  }
  return TB_OK;
}

/* Move, gather and scatter: fn names the entry point the caller used. */
static tb_status move(const char *fn, tb_type t, const int32_t *gather, const int32_t *scatter,
                      const int32_t *scan, int32_t num_objects, int32_t n_items, const void *in,
                      void *out) {
  TB_TRY(tb_cpuref_check_type(fn, t));
  TB_TRY(tb_cpuref_check_runs(fn, num_objects, n_items, "scan", scan));
  if (n_items == 0 || num_objects == 0) return TB_OK;
  TB_TRY(tb_cpuref_check_array(fn, "gather", gather, num_objects));
  TB_TRY(tb_cpuref_check_array(fn, "scatter", scatter, num_objects));
  TB_TRY(tb_cpuref_check_array(fn, "in", in, n_items));
  TB_TRY(tb_cpuref_check_array(fn, "out", out, n_items));
  const size_t size = tb_type_size(t);
  const char *src = in;
  char *dst = out;
  /* Each interval is one contiguous copy: the GPU's load-balanced, strided
   * copy must end in the same place. */
  for (int32_t j = 0; j < num_objects; ++j) {
    int32_t count = run_end(scan, num_objects, n_items, j) - scan[j];
    if (count > 0)
      memcpy(dst + (size_t)scatter[j] * size, src + (size_t)gather[j] * size,
             (size_t)count * size);
  }
  return TB_OK;
}

tb_status tb_cpu_interval_move(tb_type t, const int32_t *gather, const int32_t *scatter,
                               const int32_t *scan, int32_t num_objects, int32_t n_items,
                               const void *in, void *out) {
  return move("tb_cpu_interval_move", t, gather, scatter, scan, num_objects, n_items, in, out);
}

/* Gather and scatter are move with one side packed: scan itself is then the
 * scatter (resp. gather) offset of every interval, as the reference defines
 * them. */
tb_status tb_cpu_interval_gather(tb_type t, const int32_t *gather, const int32_t *scan,
                                 int32_t num_objects, int32_t n_items, const void *in,
                                 void *out) {
  return move("tb_cpu_interval_gather", t, gather, scan, scan, num_objects, n_items, in, out);
}

tb_status tb_cpu_interval_scatter(tb_type t, const int32_t *scatter, const int32_t *scan,
                                  int32_t num_objects, int32_t n_items, const void *in,
                                  void *out) {
  return move("tb_cpu_interval_scatter", t, scan, scatter, scan, num_objects, n_items, in, out);
}
