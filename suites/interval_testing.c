#include "suites/interval_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuref/interval.h"

bool lb_same_bits(tb_type t, const void *got, const void *want, int64_t n, const char *what) {
  const size_t sz = tb_type_size(t);
  if (n <= 0 || memcmp(got, want, (size_t)n * sz) == 0) {
    CU_PASS(what);
    return true;
  }
  int64_t i = 0;
  while (memcmp((const char *)got + i * sz, (const char *)want + i * sz, sz) == 0) ++i;
  uint64_t g = 0, w = 0;
  memcpy(&g, (const char *)got + i * sz, sz);
  memcpy(&w, (const char *)want + i * sz, sz);
  char text[1024];
  snprintf(text, sizeof text,
           "%s: first mismatch at %lld of %lld: expected bits 0x%llx, got 0x%llx", what,
           (long long)i, (long long)n, (unsigned long long)w, (unsigned long long)g);
  return TB_ASSERT_OK(tb_fail(TB_ERR_MISMATCH, "%s", text), what);
}

/* ---- a problem: counts, scan, interval placements ------------------------ */

/* Offsets that lay the intervals out back to back in a random order. */
static void shuffled_layout(tb_rng *r, const int32_t *counts, int32_t n, int32_t *offsets) {
  int32_t *order = malloc(sizeof(int32_t) * (n > 0 ? n : 1));
  for (int32_t j = 0; j < n; ++j) order[j] = j;
  for (int32_t j = n - 1; j > 0; --j) {
    const int32_t k = (int32_t)tb_rng_range(r, 0, j), x = order[j];
    order[j] = order[k], order[k] = x;
  }
  int32_t acc = 0;
  for (int32_t j = 0; j < n; ++j) offsets[order[j]] = acc, acc += counts[order[j]];
  free(order);
}

void lb_problem_free(lb_problem *p) {
  free(p->counts), free(p->scan), free(p->gather), free(p->scatter);
  tb_buffer_free(&p->d_scan), tb_buffer_free(&p->d_gather), tb_buffer_free(&p->d_scatter);
  memset(p, 0, sizeof *p);
}

bool lb_problem_finish(lb_problem *p, tb_rng *r) {
  const int32_t n = p->num_objects > 0 ? p->num_objects : 1;
  p->scan = malloc(sizeof(int32_t) * n);
  p->gather = malloc(sizeof(int32_t) * n);
  p->scatter = malloc(sizeof(int32_t) * n);
  if (!p->scan || !p->gather || !p->scatter) return false;
  p->n_items = (int32_t)tb_cpu_counts_scan(p->counts, p->num_objects, p->scan);
  shuffled_layout(r, p->counts, p->num_objects, p->gather);
  shuffled_layout(r, p->counts, p->num_objects, p->scatter);
  const size_t bytes = sizeof(int32_t) * n;
  return tb_test_upload(&p->d_scan, p->scan, bytes) &&
         tb_test_upload(&p->d_gather, p->gather, bytes) &&
         tb_test_upload(&p->d_scatter, p->scatter, bytes);
}

bool lb_problem_all_zero(lb_problem *p, int32_t num_objects, tb_rng *r) {
  memset(p, 0, sizeof *p);
  p->num_objects = num_objects;
  p->counts = calloc((size_t)num_objects, sizeof(int32_t));
  return p->counts && lb_problem_finish(p, r);
}

bool lb_problem_make(lb_problem *p, const tb_geometry_spec *spec, int64_t total, tb_rng *r) {
  memset(p, 0, sizeof *p);
  const int64_t num = tb_geometry_num_objects(spec, total);
  snprintf(p->name, sizeof p->name, "%s avg=%g items=%lld objects=%lld",
           tb_geometry_name(spec->kind), spec->avg, (long long)total, (long long)num);
  p->num_objects = (int32_t)num;
  p->counts = malloc(sizeof(int32_t) * (num > 0 ? num : 1));
  if (!p->counts || num < 0) return false;
  if (!TB_ASSERT_OK(tb_geometry_counts(spec, total, p->counts, num, r), p->name)) return false;
  return lb_problem_finish(p, r);
}

lb_problem lb_problem_from_counts(const int32_t *counts, int32_t n, tb_rng *r) {
  lb_problem p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "demo (%d objects)", n);
  p.num_objects = n;
  p.counts = malloc(sizeof(int32_t) * n);
  if (p.counts) {
    memcpy(p.counts, counts, sizeof(int32_t) * n);
    lb_problem_finish(&p, r);
  }
  return p;
}

/* ---- geometries ------------------------------------------------------------ */

int lb_geometries(int tile, tb_geometry_spec *out) {
  int n = 0;
  out[n++] = tb_geometry_spec_default(TB_GEOM_ZEROS_BUT_ONE, 1.0); /* all zero but one */
  out[n++] = tb_geometry_spec_default(TB_GEOM_ZERO_RUNS, 2.0);     /* runs of zeros > a tile */
  out[n++] = tb_geometry_spec_default(TB_GEOM_ONE_GIANT, 4.0);     /* one huge count */
  out[n++] = tb_geometry_spec_default(TB_GEOM_FIXED, tile + 1.0);  /* a run across every boundary */
  out[n++] = tb_geometry_spec_default(TB_GEOM_FIXED, tile - 1.0);
  out[n++] = tb_geometry_spec_default(TB_GEOM_POWER_LAW, 8.0); /* random heavy-tailed */
  out[n++] = tb_geometry_spec_default(TB_GEOM_EMPTY_FRACTION, 3.0);
  out[n++] = tb_geometry_spec_default(TB_GEOM_ALL_ONE, 1.0);
  out[n++] = tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0);
  return n;
}

bool lb_box_selected(tb_launch_box b) {
  if (!tb_test.quick) return true;
  return (b.nt == 64 && b.vt == 3) || (b.nt == 128 && b.vt == 11) || (b.nt == 512 && b.vt == 5) ||
         (b.nt == 512 && b.vt == 11);
}

int lb_each_box_geometry(lb_box_check check, void *ctx) {
  tb_launch_box boxes[64];
  const int n_boxes = tb_lbs_grid(boxes, 64);
  CU_ASSERT_FATAL(n_boxes > 0 && n_boxes <= 64);
  tb_rng r = tb_test_rng(0);
  tb_buffer scratch = {0};
  int failures = 0;
  for (int b = 0; b < n_boxes && failures < 10; ++b) {
    const tb_launch_box box = boxes[b];
    if (!lb_box_selected(box)) continue;
    const int tile = box.nt * box.vt;
    tb_geometry_spec specs[16];
    const int n_specs = lb_geometries(tile, specs);
    for (int g = 0; g < n_specs && failures < 10; ++g) {
      const int64_t total = (int64_t)tile * (tb_test.quick ? 3 : 7) + 13 + b;
      lb_problem p;
      if (!lb_problem_make(&p, &specs[g], total, &r) ||
          !check(&p, &box, b % 2 ? NULL : &scratch, &r, ctx))
        ++failures;
      lb_problem_free(&p);
    }
  }
  tb_buffer_free(&scratch);
  return failures;
}

void lb_each_large_problem(void (*check)(const lb_problem *p, tb_rng *r)) {
  const tb_geometry_spec specs[] = {tb_geometry_spec_default(TB_GEOM_UNIFORM, 16.0),
                                    tb_geometry_spec_default(TB_GEOM_POWER_LAW, 64.0),
                                    tb_geometry_spec_default(TB_GEOM_ALL_ONE, 1.0)};
  tb_rng r = tb_test_rng(1);
  for (size_t g = 0; g < sizeof specs / sizeof specs[0]; ++g) {
    lb_problem p;
    if (lb_problem_make(&p, &specs[g], tb_test.max_random_n, &r)) check(&p, &r);
    lb_problem_free(&p);
  }
}

/* ---- bad input -------------------------------------------------------------- */

void lb_bad_input_begin(lb_bad_input *f) {
  memset(f, 0, sizeof *f);
  TB_ASSERT_OK(tb_buffer_alloc(&f->a, 4096), "alloc");
  TB_ASSERT_OK(tb_buffer_alloc(&f->b, 4096), "alloc");
  f->free_before = tb_test_free_device_bytes();
}

void lb_bad_input_end(lb_bad_input *f) {
  CU_ASSERT_EQUAL(tb_test_free_device_bytes(), f->free_before);
  tb_buffer_free(&f->a), tb_buffer_free(&f->b);
}

/* ---- malformed scans ------------------------------------------------------- */

bool lb_guarded_alloc(tb_buffer *b, int32_t n_items) {
  const size_t bytes = sizeof(int64_t) * ((size_t)n_items + 2 * kGuard);
  int64_t *host = malloc(bytes);
  if (!host) return false;
  memset(host, kCanary, bytes);
  const bool ok = tb_test_upload(b, host, bytes);
  free(host);
  return ok;
}

bool lb_guards_intact(const tb_buffer *b, int32_t n_items, const char *what) {
  const size_t bytes = sizeof(int64_t) * ((size_t)n_items + 2 * kGuard);
  int64_t *got = malloc(bytes), canary[kGuard];
  memset(canary, kCanary, sizeof canary);
  bool intact = false;
  if (got && TB_ASSERT_OK(tb_buffer_download(b, got, bytes), "download")) {
    intact = memcmp(got, canary, sizeof canary) == 0 &&
             memcmp(got + kGuard + n_items, canary, sizeof canary) == 0;
    if (!intact) printf("\n  %s: a guard zone was written\n", what);
    CU_ASSERT(intact);
  }
  free(got);
  return intact;
}

void lb_for_each_malformed_scan(void (*run)(const int32_t *scan, int32_t n_objects, int32_t n_items,
                                            const char *what)) {
  const int32_t B = tb_test.quick ? 20000 : 200000, N = B * 3;
  int32_t *scan = malloc(sizeof(int32_t) * B);
  if (!scan) return;
  tb_rng r = tb_test_rng(3);
  for (int32_t j = 0; j < B; ++j) scan[j] = (int32_t)tb_rng_range(&r, -N, 2 * (int64_t)N);
  run(scan, B, N, "random entries");
  for (int32_t j = 0; j < B; ++j) scan[j] = N - 3 * j;
  run(scan, B, N, "descending");
  for (int32_t j = 0; j < B; ++j) scan[j] = 1000 + 2 * j;
  run(scan, B, N, "starting past 0");
  for (int32_t j = 0; j < B; ++j) scan[j] = j % 2 ? INT32_MAX : INT32_MIN;
  run(scan, B, N, "extremes");
  for (int32_t j = 0; j < B; ++j) scan[j] = 3 * j;
  scan[B / 2] = 5 * N; /* sorted but for one spike past the total */
  run(scan, B, N, "one spike");
  for (int32_t j = 0; j < B; ++j) scan[j] = 4 * j; /* last entry past n_items */
  run(scan, B, N, "wrong total");
  free(scan);
}
