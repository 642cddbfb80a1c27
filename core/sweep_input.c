/* The sweeps' input arrays (core/sweep.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "core/sweep.h"

typedef struct entry {
  tb_type t;
  tb_op op;
  tb_sweep_draw draw;
  int slot;
  uint64_t used; /* the use count at its last use: the least recent goes first */
  tb_sweep_input in;
  void *host;
  tb_buffer dev;
} entry;

enum { kEntries = 32 };
static entry pool[kEntries];
static uint64_t uses;

static size_t entry_bytes(const entry *e) { return (size_t)e->in.cap * tb_type_size(e->t); }

static void entry_release(entry *e) {
  free(e->host);
  tb_buffer_free(&e->dev);
  memset(e, 0, sizeof *e);
}

void tb_sweep_inputs_release(void) {
  for (int i = 0; i < kEntries; ++i) entry_release(&pool[i]);
}

/* A quarter of the device's memory for inputs; the rest is the sweeps'. */
static size_t budget(void) {
  tb_device_info d;
  return tb_device_get(&d) == TB_OK ? d.global_bytes / 4 : (size_t)1 << 30;
}

/* Room for `bytes` more: the least recently used entries go until it fits. */
static void make_room(size_t bytes) {
  const size_t cap = budget();
  for (;;) {
    size_t held = 0;
    entry *oldest = NULL;
    for (int i = 0; i < kEntries; ++i) {
      if (!pool[i].host) continue;
      held += entry_bytes(&pool[i]);
      if (!oldest || pool[i].used < oldest->used) oldest = &pool[i];
    }
    if (!oldest || held + bytes <= cap) return;
    entry_release(oldest);
  }
}

static void fill_unit(tb_rng *r, tb_type t, void *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = 2 * tb_rng_unit(r) - 1;
    if (t == TB_FLOAT)
      ((float *)dst)[i] = (float)v;
    else
      ((double *)dst)[i] = v;
  }
}

static tb_status draw(entry *e, int64_t cap) {
  const size_t bytes = (size_t)cap * tb_type_size(e->t);
  e->host = malloc(bytes);
  if (!e->host) return tb_fail(TB_ERR_OUT_OF_MEMORY, "sweep input: %zu host bytes", bytes);
  /* The same seed for a larger cap: the smaller array is a prefix. Unit
   * reals do not depend on the type, so float holds double's draws rounded. */
  tb_rng r;
  if (e->draw == TB_DRAW_UNIT) {
    tb_rng_seed(&r, 0x0417u + (uint64_t)e->slot);
    fill_unit(&r, e->t, e->host, cap);
  } else {
    tb_rng_seed(&r, 0x5eed0000u + (uint64_t)e->slot * 4096 + (uint64_t)e->t * 16 + (uint64_t)e->op);
    tb_fill_random(&r, e->t, e->op, e->host, cap);
  }
  TB_TRY(tb_buffer_put(&e->dev, e->host, bytes));
  e->in = (tb_sweep_input){e->host, e->dev.ptr, cap};
  return TB_OK;
}

tb_status tb_sweep_input_get(tb_type t, tb_op op, tb_sweep_draw how, int slot, int64_t cap,
                             tb_sweep_input *out) {
  if (!tb_type_valid(t) || cap < 0 || (how == TB_DRAW_UNIT && !tb_type_is_float(t)))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_sweep_input_get: no %s input of %s",
                   how == TB_DRAW_UNIT ? "unit" : "exact",
                   tb_type_valid(t) ? tb_type_name(t) : "an unknown type");
  if (how == TB_DRAW_UNIT) op = TB_OP_PLUS; /* unused */
  entry *hit = NULL, *free_slot = NULL;
  for (int i = 0; i < kEntries; ++i) {
    entry *e = &pool[i];
    if (!e->host) {
      if (!free_slot) free_slot = e;
    } else if (e->t == t && e->op == op && e->draw == how && e->slot == slot) {
      hit = e;
    }
  }
  if (hit && hit->in.cap >= cap) {
    hit->used = ++uses;
    *out = hit->in;
    return TB_OK;
  }
  if (hit) entry_release(hit), free_slot = hit;
  make_room((size_t)cap * tb_type_size(t));
  if (!free_slot)
    for (int i = 0; i < kEntries && !free_slot; ++i)
      if (!pool[i].host) free_slot = &pool[i];
  if (!free_slot)
    return tb_fail(TB_ERR_OUT_OF_MEMORY, "sweep input: more than %d arrays", kEntries);
  *free_slot = (entry){t, op, how, slot, ++uses, {0}, NULL, {0}};
  const tb_status st = draw(free_slot, cap);
  if (st != TB_OK) {
    entry_release(free_slot);
    return st;
  }
  *out = free_slot->in;
  return TB_OK;
}
