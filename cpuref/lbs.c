#include "cpuref/interval.h"

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

void tb_cpu_lbs(const int32_t *scan, int32_t num_objects, int32_t n_items, int32_t *out_obj) {
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
}

void tb_cpu_lbs_ranks(const int32_t *scan, const int32_t *obj, int32_t n_items,
                      int32_t *out_rank) {
  for (int32_t i = 0; i < n_items; ++i) out_rank[i] = i - scan[obj[i]];
}
