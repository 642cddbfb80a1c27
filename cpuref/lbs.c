#include "cpuref/interval.h"

#include "cpuref/internal.h"

int64_t tb_cpu_counts_scan(const int32_t *counts, int32_t num_objects, int32_t *scan) {
  int64_t sum = 0;
  for (int32_t j = 0; j < num_objects; ++j) {
    /* Past INT32_MAX the entry wraps (two's complement, as GCC and Clang
     * convert); the int64 return value tells the caller. */
    scan[j] = (int32_t)(uint32_t)sum;
    sum += counts[j];
  }
  return sum;
}

tb_status tb_cpu_lbs(const int32_t *scan, int32_t num_objects, int32_t n_items,
                     int32_t *out_obj) {
  static const char fn[] = "tb_cpu_lbs";
  TB_TRY(tb_cpuref_check_runs(fn, num_objects, n_items, "scan", scan));
  TB_TRY(tb_cpuref_check_array(fn, "out_obj", out_obj, n_items));
  /* A merge of the work-item indices 0, 1, 2, ... with scan. On a tie the scan
   * entry goes first (an item at scan[j] is object j's first), which is the
   * upper-bound rule: when item i is emitted, j scan entries are <= i, and
   * the item belongs to the last of those objects, j - 1. Every step advances
   * exactly one of the two positions, so each array is read once. */
  int32_t i = 0, j = 0;
  while (i < n_items) {
    if (j < num_objects && scan[j] <= i)
      ++j;
    else
      out_obj[i++] = j - 1;
  }
  return TB_OK;
}

tb_status tb_cpu_lbs_ranks(const int32_t *scan, const int32_t *obj, int32_t n_items,
                           int32_t *out_rank) {
  static const char fn[] = "tb_cpu_lbs_ranks";
  if (n_items < 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: n_items < 0 (%d)", fn, n_items);
  TB_TRY(tb_cpuref_check_array(fn, "scan", scan, n_items));
  TB_TRY(tb_cpuref_check_array(fn, "obj", obj, n_items));
  TB_TRY(tb_cpuref_check_array(fn, "out_rank", out_rank, n_items));
  for (int32_t i = 0; i < n_items; ++i) out_rank[i] = obj[i] >= 0 ? i - scan[obj[i]] : i;
  return TB_OK;
}
