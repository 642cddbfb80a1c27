/* The tuned default boxes: generated tables, one per architecture that has
 * a committed box sweep, picked by the current device's compute capability. */
#include "kernels/tuned.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

typedef struct tuned_row {
  tb_tuned_family family;
  int type; /* tb_type, or TB_TYPE_ANY */
  double avg;
  tb_launch_box box;
} tuned_row;

static const tuned_row kSm90[] = {
#define TB_TUNED(F, T, AVG, NT, VT) {TB_TUNED_##F, T, AVG, {NT, VT}},
#include "kernels/tuned/sm_90.inc"
#undef TB_TUNED
};

static const struct tuned_table {
  const char *arch;
  int major, minor;
  const tuned_row *rows;
  size_t count;
} kTables[] = {
    {"sm_90", 9, 0, kSm90, sizeof kSm90 / sizeof kSm90[0]},
};
enum { kTableCount = sizeof kTables / sizeof kTables[0] };

/* Per device ordinal: 0 not asked yet, 1 no table, 2 + i table i. Every
 * default-box lookup of a small launch goes through here, so the
 * attribute queries run once per device; a race only asks twice. */
enum { kCachedDevices = 64 };
static _Atomic int table_of_device[kCachedDevices];

/* The current device's table, or NULL when it has none (or there is no
 * device to ask). */
static const struct tuned_table *device_table(void) {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError(); /* not sticky: the caller's next check must not see it */
    return NULL;
  }
  const bool cached = dev >= 0 && dev < kCachedDevices;
  const int known = cached ? atomic_load_explicit(&table_of_device[dev], memory_order_relaxed) : 0;
  if (known) return known >= 2 ? &kTables[known - 2] : NULL;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return NULL;
  }
  int found = 1;
  for (int i = 0; i < kTableCount; ++i)
    if (kTables[i].major == major && kTables[i].minor == minor) found = 2 + i;
  if (cached) atomic_store_explicit(&table_of_device[dev], found, memory_order_relaxed);
  return found >= 2 ? &kTables[found - 2] : NULL;
}

const char *tb_tuned_arch(void) {
  const struct tuned_table *t = device_table();
  return t ? t->arch : NULL;
}

tb_launch_box tb_tuned_box(tb_tuned_family family, tb_type type, double avg) {
  const struct tuned_table *t = device_table();
  if (!t) t = &kTables[0]; /* documented fallback: sm_90's boxes */
  const tuned_row *best = NULL;
  const double at = log2(avg > 1 ? avg : 1);
  for (size_t i = 0; i < t->count; ++i) {
    const tuned_row *r = &t->rows[i];
    if (r->family != family || (r->type != TB_TYPE_ANY && r->type != (int)type)) continue;
    if (!best || fabs(log2(r->avg > 1 ? r->avg : 1) - at) < fabs(log2(best->avg > 1 ? best->avg : 1) - at))
      best = r;
  }
  return best ? best->box : (tb_launch_box){0, 0};
}
