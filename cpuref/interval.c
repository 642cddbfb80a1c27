#include "cpuref/interval.h"

#include <stddef.h>
#include <string.h>

/* One element; the two fixed sizes (every tb_type is 4 or 8 bytes) let the
 * compiler turn the memcpy into a plain load and store. */
static inline void copy_element(char *dst, const char *src, size_t size) {
  if (size == 4)
    memcpy(dst, src, 4);
  else
    memcpy(dst, src, 8);
}

/* Where object j's run of work items ends (the next object's begin). */
static int32_t run_end(const int32_t *scan, int32_t num_objects, int32_t n_items, int32_t j) {
  return j + 1 < num_objects ? scan[j + 1] : n_items;
}

void tb_cpu_interval_expand(tb_type t, const int32_t *scan, int32_t num_objects, int32_t n_items,
                            const void *values, void *out) {
  size_t size = tb_type_size(t);
  if (size == 0 || n_items <= 0 || num_objects <= 0) return;
  const char *v = values;
  char *o = out;
  /* One object at a time, its value written over its whole run. */
  for (int32_t j = 0; j < num_objects; ++j) {
    int32_t end = run_end(scan, num_objects, n_items, j);
    for (int32_t i = scan[j]; i < end; ++i)
      copy_element(o + (size_t)i * size, v + (size_t)j * size, size);
  }
}

void tb_cpu_interval_move(tb_type t, const int32_t *gather, const int32_t *scatter,
                          const int32_t *scan, int32_t num_objects, int32_t n_items,
                          const void *in, void *out) {
  size_t size = tb_type_size(t);
  if (size == 0 || n_items <= 0 || num_objects <= 0) return;
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
}

/* Gather and scatter are move with one side packed: scan itself is then the
 * scatter (resp. gather) offset of every interval, as the reference defines
 * them. */
void tb_cpu_interval_gather(tb_type t, const int32_t *gather, const int32_t *scan,
                            int32_t num_objects, int32_t n_items, const void *in, void *out) {
  tb_cpu_interval_move(t, gather, scan, scan, num_objects, n_items, in, out);
}

void tb_cpu_interval_scatter(tb_type t, const int32_t *scatter, const int32_t *scan,
                             int32_t num_objects, int32_t n_items, const void *in, void *out) {
  tb_cpu_interval_move(t, scan, scatter, scan, num_objects, n_items, in, out);
}
