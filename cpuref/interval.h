/* Serial CPU references for load-balancing search and the interval family
 * (expand, move, gather, scatter). No CUDA.
 *
 * num_objects objects (intervals) generate count[j] >= 0 work items each. The
 * functions take the exclusive scan of those counts:
 *   scan:    num_objects entries, non-decreasing, scan[0] == 0; scan[j] is
 *            where object j's run of work items begins;
 *   n_items: the total, scan[last] + count[last]; object j's run ends at
 *            scan[j + 1] (at n_items for the last object).
 * tb_cpu_counts_scan makes both from the counts.
 *
 * These are references for tests and benchmark validation. Like the other
 * references they return a tb_status: TB_ERR_INVALID_ARGUMENT, with a message
 * naming the function and the argument, for an invalid type, a negative
 * size or a NULL array that would be read or written; n_items == 0 or
 * num_objects == 0 is nothing to do (except for LBS, whose items then belong
 * to no object, -1). They do not check the scan itself: a malformed one
 * gives what the definitions say (an item before scan[0] belongs to object
 * -1), which the GPU tests compare against. Gather and scatter offsets must
 * keep every access inside in / out; in and out must not overlap. Elements
 * are copied bit for bit (tb_type_size bytes), so float NaN payloads and
 * -0.0 survive. */
#ifndef TB_CPUREF_INTERVAL_H
#define TB_CPUREF_INTERVAL_H

#include <stdint.h>

#include "core/status.h"
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exclusive scan of counts (num_objects of them, each >= 0) into scan;
 * returns the total as int64, so that a caller sees a total that does not fit
 * int32 (scan entries past INT32_MAX then wrap and mean nothing). */
int64_t tb_cpu_counts_scan(const int32_t *counts, int32_t num_objects, int32_t *scan);

/* Load-balancing search: out_obj[i] (n_items entries) is the object that
 * generated work item i, i.e. upper_bound(scan, i) - 1: the last j with
 * scan[j] <= i. Empty objects are never named. Computed as a merge of the
 * work-item indices 0, 1, 2, ... with scan, each walked once. */
tb_status tb_cpu_lbs(const int32_t *scan, int32_t num_objects, int32_t n_items,
                     int32_t *out_obj);

/* out_rank[i] = i - scan[obj[i]]: work item i's rank within its object
 * (obj as tb_cpu_lbs gives it); i for an item of object -1, as the GPU's. */
tb_status tb_cpu_lbs_ranks(const int32_t *scan, const int32_t *obj, int32_t n_items,
                           int32_t *out_rank);

/* IntervalExpand: out[i] = values[obj(i)] for every work item i; values holds
 * num_objects elements of type t, out n_items. */
tb_status tb_cpu_interval_expand(tb_type t, const int32_t *scan, int32_t num_objects,
                                 int32_t n_items, const void *values, void *out);

/* IntervalMove: interval j copies its count_j items,
 * out[scatter[j] + r] = in[gather[j] + r] for r < count_j. Destination
 * intervals that overlap leave the overlap undefined (here: the later
 * interval wins). */
tb_status tb_cpu_interval_move(tb_type t, const int32_t *gather, const int32_t *scatter,
                               const int32_t *scan, int32_t num_objects, int32_t n_items,
                               const void *in, void *out);

/* IntervalGather: IntervalMove with the outputs packed in scan order,
 * out[scan[j] + r] = in[gather[j] + r]; out holds n_items. */
tb_status tb_cpu_interval_gather(tb_type t, const int32_t *gather, const int32_t *scan,
                                 int32_t num_objects, int32_t n_items, const void *in,
                                 void *out);

/* IntervalScatter: IntervalMove with the inputs packed in scan order,
 * out[scatter[j] + r] = in[scan[j] + r]; in holds n_items. */
tb_status tb_cpu_interval_scatter(tb_type t, const int32_t *scatter, const int32_t *scan,
                                  int32_t num_objects, int32_t n_items, const void *in,
                                  void *out);

#ifdef __cplusplus
}
#endif
#endif
