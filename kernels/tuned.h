/* Internal: the generated tables of tuned default boxes (kernels/tuned/
 * <arch>.inc, written by tools/gen_defaults from a committed box sweep) and
 * their lookup for the current device. */
#ifndef TB_KERNELS_TUNED_H
#define TB_KERNELS_TUNED_H

#include <stdint.h>

#include "kernels/tilebench.h"
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tb_tuned_family {
  TB_TUNED_REDUCE,
  TB_TUNED_SCAN,
  TB_TUNED_SEGREDUCE,
  TB_TUNED_REDUCE_BY_KEY,
  TB_TUNED_OMP,
  TB_TUNED_LBS,
  TB_TUNED_EXPAND,
  TB_TUNED_MOVE, /* gather and scatter too */
  TB_TUNED_SPMV, /* float and double, the types the SpMV sweep measures */
} tb_tuned_family;

/* A row for every type. */
#define TB_TYPE_ANY (-1)

/* The family's row for type (or TB_TYPE_ANY rows) whose average count is
 * nearest avg (log scale; families without counts have one row per type)
 * and, where the table has size bands (rows chosen at smaller calls, each
 * for calls up to its size), the band of the smallest size at least n
 * items, else (n 0: no size) the row of every size,
 * from the current device's table, sm_90's when it has none. {0, 0} when
 * the table has no row, which the tests rule out for the tables shipped. */
tb_launch_box tb_tuned_box(tb_tuned_family family, tb_type type, double avg, int64_t n);

/* A row of a generated table (TB_TUNED in kernels/tuned/<arch>.inc). */
typedef struct tb_tuned_row {
  tb_tuned_family family;
  int type;   /* tb_type, or TB_TYPE_ANY */
  double avg; /* the average count it was chosen for; 0: any */
  int64_t n;  /* the call size it was chosen at */
  tb_launch_box box;
} tb_tuned_row;

/* Every table of the build, each GPU's too, for the tests: its name (the
 * arch's or the GPU's slug; NULL past the last table) and row i (NULL past
 * the last row). */
const char *tb_tuned_table_name(int table);
const tb_tuned_row *tb_tuned_row_at(int table, int i);

#ifdef __cplusplus
}
#endif
#endif
