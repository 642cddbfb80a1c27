/* The tuned default boxes: generated tables, one per architecture that has
 * a committed box sweep, picked by the current device's compute capability,
 * and a GPU's own rows of some families (from that GPU's sweep), which the
 * lookup prefers for those families on that GPU (H100 and H200 share sm_90
 * but not their best tiles). */
#include "kernels/tuned.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "core/slug.h"

static const tb_tuned_row kSm90[] = {
#define TB_TUNED(F, T, AVG, N, NT, VT) {TB_TUNED_##F, T, AVG, N, {NT, VT}},
#include "kernels/tuned/sm_90.inc"
#undef TB_TUNED
};
static const tb_tuned_row kSm90H200[] = {
#define TB_TUNED(F, T, AVG, N, NT, VT) {TB_TUNED_##F, T, AVG, N, {NT, VT}},
#include "kernels/tuned/sm_90_h200.inc"
#undef TB_TUNED
};

static const struct tuned_table {
  const char *arch;
  const char *gpu; /* NULL: the arch's table; else that GPU's slug (core/slug.h) */
  int major, minor;
  const tb_tuned_row *rows;
  size_t count;
} kTables[] = {
    {"sm_90", NULL, 9, 0, kSm90, sizeof kSm90 / sizeof kSm90[0]},
    {"sm_90", "h200", 9, 0, kSm90H200, sizeof kSm90H200 / sizeof kSm90H200[0]},
};
enum { kTableCount = sizeof kTables / sizeof kTables[0] };

/* A device's tables: its arch's, and its GPU's own (either may be none). */
typedef struct device_tables {
  const struct tuned_table *arch, *gpu;
} device_tables;

/* Per device ordinal: 0 not asked yet, else 1 + (arch table index + 1) +
 * 64 * (GPU table index + 1), index -1 for none. Every default-box lookup
 * of a small launch goes through here, so the attribute queries run once
 * per device; a race only asks twice. */
enum { kCachedDevices = 64 };
static _Atomic int tables_of_device[kCachedDevices];

static device_tables decode(int known) {
  const int a = (known - 1) % 64 - 1, g = (known - 1) / 64 - 1;
  return (device_tables){a >= 0 ? &kTables[a] : NULL, g >= 0 ? &kTables[g] : NULL};
}

/* The current device's tables ({NULL, NULL} when there is no device to
 * ask). */
static device_tables device_tables_now(void) {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError(); /* not sticky: the caller's next check must not see it */
    return (device_tables){NULL, NULL};
  }
  const bool cached = dev >= 0 && dev < kCachedDevices;
  const int known = cached ? atomic_load_explicit(&tables_of_device[dev], memory_order_relaxed) : 0;
  if (known) return decode(known);
  struct cudaDeviceProp prop;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return (device_tables){NULL, NULL};
  }
  char slug[128];
  tb_gpu_slug(prop.name, slug, sizeof slug);
  int a = -1, g = -1;
  for (int i = 0; i < kTableCount; ++i) {
    if (kTables[i].major != major || kTables[i].minor != minor) continue;
    if (!kTables[i].gpu)
      a = i;
    else if (strcmp(kTables[i].gpu, slug) == 0)
      g = i;
  }
  const int code = 1 + (a + 1) + 64 * (g + 1);
  if (cached) atomic_store_explicit(&tables_of_device[dev], code, memory_order_relaxed);
  return decode(code);
}

const char *tb_tuned_arch(void) {
  const device_tables t = device_tables_now();
  return t.arch ? t.arch->arch : NULL;
}

/* Of two rows of one count, whether r fits a call of n items better than
 * best: a size band covers the calls up to the size it was chosen at, so
 * the row of the smallest size at least n; past every band (or n 0, no
 * size), the row chosen at the largest size, the one of every size. */
static bool fits_size(const tb_tuned_row *r, const tb_tuned_row *best, int64_t n) {
  const bool r_covers = n > 0 && r->n >= n, best_covers = n > 0 && best->n >= n;
  if (r_covers != best_covers) return r_covers;
  return r_covers ? r->n < best->n : r->n > best->n;
}

/* The row of table t for (family, type) among its rows per count (sized) or
 * its row of any count (avg 0) whose average count is nearest avg, and of
 * those the one that fits a call of n items (fits_size); NULL when t has
 * none. */
static const tb_tuned_row *nearest_row(const struct tuned_table *t, tb_tuned_family family,
                                       tb_type type, double avg, int64_t n, bool sized) {
  /* Called on every call with a default box: one log2 a candidate row. */
  const tb_tuned_row *best = NULL;
  const double at = log2(avg > 1 ? avg : 1);
  double best_gap = 0; /* |log2 of best's count - at| */
  for (size_t i = 0; t && i < t->count; ++i) {
    const tb_tuned_row *r = &t->rows[i];
    if (r->family != family || (r->type != TB_TYPE_ANY && r->type != (int)type)) continue;
    if ((r->avg > 0) != sized) continue;
    const double gap = fabs(log2(r->avg > 1 ? r->avg : 1) - at);
    if (!best || gap < best_gap || (r->avg == best->avg && fits_size(r, best, n)))
      best = r, best_gap = gap;
  }
  return best;
}

/* A known count (avg > 0) takes the rows per count, the GPU's before the
 * arch's: the row of any count would tie with a count of 1. An unknown one
 * (avg 0: a plan's box, or no items) takes the row of any count. A family
 * without rows of the kind asked for takes the other kind (LBS and the
 * intervals have no row of any count: no items there takes the row of
 * count 1). */
tb_launch_box tb_tuned_box(tb_tuned_family family, tb_type type, double avg, int64_t n) {
  const device_tables t = device_tables_now();
  /* No table for the arch: sm_90's boxes, the documented fallback. */
  const struct tuned_table *arch = t.arch ? t.arch : &kTables[0];
  const tb_tuned_row *r = NULL;
  for (int pass = 0; pass < 2 && !r; ++pass) {
    const bool sized = (avg > 0) == (pass == 0);
    r = nearest_row(t.gpu, family, type, avg, n, sized);
    if (!r) r = nearest_row(arch, family, type, avg, n, sized);
  }
  return r ? r->box : (tb_launch_box){0, 0};
}

const char *tb_tuned_table_name(int table) {
  if (table < 0 || table >= kTableCount) return NULL;
  return kTables[table].gpu ? kTables[table].gpu : kTables[table].arch;
}

const tb_tuned_row *tb_tuned_row_at(int table, int i) {
  if (table < 0 || table >= kTableCount || i < 0 || (size_t)i >= kTables[table].count)
    return NULL;
  return &kTables[table].rows[i];
}
