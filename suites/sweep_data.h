/* Inputs shared by the benchmarks of a sweep: one random array per
 * (type, op) at the sweep's largest size, on the host and the device, drawn
 * by tb_fill_random so that every reference is exact (core/rng.h). Sweeps
 * register their benchmarks grouped by (type, op), so one array is live at
 * a time. */
#ifndef TB_SUITES_SWEEP_DATA_H
#define TB_SUITES_SWEEP_DATA_H

#include <stdint.h>

#include "core/cuda.h"
#include "core/types.h"

typedef struct tb_sweep_data {
  tb_type t;
  tb_op op;
  int64_t cap;
  void *host;
  tb_buffer dev;
} tb_sweep_data;

/* The data for (t, op) with at least cap elements, regenerated when the
 * pair changes. NULL (with tb_last_error) if memory runs out. */
const tb_sweep_data *tb_sweep_data_get(tb_type t, tb_op op, int64_t cap);
void tb_sweep_data_release(void);

#endif
