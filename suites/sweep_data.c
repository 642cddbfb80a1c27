#include "suites/sweep_data.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

static tb_sweep_data current;

void tb_sweep_data_release(void) {
  free(current.host);
  tb_buffer_free(&current.dev);
  memset(&current, 0, sizeof current);
}

const tb_sweep_data *tb_sweep_data_get(tb_type t, tb_op op, int64_t cap) {
  if (current.host && current.t == t && current.op == op && current.cap >= cap) return &current;
  tb_sweep_data_release();
  const size_t bytes = (size_t)cap * tb_type_size(t);
  current.t = t, current.op = op, current.cap = cap;
  current.host = malloc(bytes);
  if (!current.host) {
    tb_fail(TB_ERR_OUT_OF_MEMORY, "sweep input: %zu host bytes", bytes);
    tb_sweep_data_release();
    return NULL;
  }
  tb_rng r;
  tb_rng_seed(&r, 0x5eed0000u + (uint64_t)t * 16 + (uint64_t)op);
  tb_fill_random(&r, t, op, current.host, cap);
  if (tb_buffer_alloc(&current.dev, bytes) != TB_OK ||
      tb_buffer_upload(&current.dev, current.host, bytes) != TB_OK) {
    tb_sweep_data_release();
    return NULL;
  }
  return &current;
}
