/* The tuned defaults (kernels/tuned/, generated): every default box of every
 * family is in that family's grid for every type, operator and average
 * count, so a generated table can never name a box the library cannot run.
 * Needs no GPU: without one the library uses its documented fallback, the
 * sm_90 table, which is the table checked here. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "core/cunit.h"
#include "kernels/segreduce_dispatch.h" /* tb_seg_tile_marks */
#include "kernels/tilebench.h"
#include "kernels/tuned.h" /* every table, for test_every_table */
#include "core/cuda.h"  /* internal: TB_TRY, TB_CUDA_TRY, tb_buffer_reserve */
#include "core/types.h"

enum { kMax = 256 };

static bool in(const tb_launch_box *grid, int count, tb_launch_box b) {
  for (int i = 0; i < count && i < kMax; ++i)
    if (grid[i].nt == b.nt && grid[i].vt == b.vt) return true;
  return false;
}

static void expect_in(const tb_launch_box *grid, int count, tb_launch_box b, const char *what) {
  if (!in(grid, count, b)) printf("\n  %s: default %dx%d is not in the grid\n", what, b.nt, b.vt);
  CU_ASSERT(in(grid, count, b));
}

TB_TEST(test_fixed_families, "reduce, scan, segreduce, omp_reduce") {
  tb_launch_box grid[kMax];
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int o = 0; o < TB_OP_COUNT; ++o) {
      const tb_type type = (tb_type)t;
      const tb_op op = (tb_op)o;
      if (tb_check_type_op(type, op) != TB_OK) continue;
      char what[80];
      snprintf(what, sizeof what, "reduce %s %s", tb_type_name(type), tb_op_name(op));
      expect_in(grid, tb_reduce_grid(type, op, grid, kMax), tb_reduce_default_box(type), what);
      snprintf(what, sizeof what, "scan %s %s", tb_type_name(type), tb_op_name(op));
      expect_in(grid, tb_scan_grid(type, op, grid, kMax), tb_scan_default_box(type), what);
      snprintf(what, sizeof what, "segreduce %s %s", tb_type_name(type), tb_op_name(op));
      expect_in(grid, tb_segreduce_grid(type, op, grid, kMax), tb_segreduce_default_box(type),
                what);
      CU_ASSERT(tb_segreduce_default_box(type).vt <= TB_SEG_PLAN_MAX_VT); /* plans take it */
      for (double avg = 1; avg <= 1 << 20; avg *= 1.19) { /* each segment length's own */
        snprintf(what, sizeof what, "segreduce %s %s avg %.1f", tb_type_name(type), tb_op_name(op),
                 avg);
        expect_in(grid, tb_segreduce_grid(type, op, grid, kMax),
                  tb_segreduce_default_box_for(type, 1 << 10, (int64_t)(avg * (1 << 10))), what);
      }
      /* Segments but no items: no known length, the plans' box. */
      const tb_launch_box none = tb_segreduce_default_box_for(type, 1 << 10, 0);
      CU_ASSERT(none.nt == tb_segreduce_default_box(type).nt &&
                none.vt == tb_segreduce_default_box(type).vt);
      snprintf(what, sizeof what, "spmv %s %s", tb_type_name(type), tb_op_name(op));
      expect_in(grid, tb_segreduce_grid(type, op, grid, kMax), tb_spmv_default_box(type), what);
      CU_ASSERT(tb_spmv_default_box(type).vt <= TB_SEG_PLAN_MAX_VT); /* plans take it */
      for (double avg = 1; avg <= 1 << 20; avg *= 1.19) { /* each row length's own */
        snprintf(what, sizeof what, "spmv %s %s avg %.1f", tb_type_name(type), tb_op_name(op), avg);
        expect_in(grid, tb_segreduce_grid(type, op, grid, kMax),
                  tb_spmv_default_box_for(type, 1 << 10, (int64_t)(avg * (1 << 10))), what);
      }
      /* support_empty: up to 2^24 items a box whose tiles take empty rows
       * (a plan's box: its tiles hold marks), the length's own beyond. */
      for (double avg = 1; avg <= 1 << 20; avg *= 1.19)
        for (int64_t k = 16; k <= 27; ++k) { /* 2^16 .. 2^26, and 2^24 + 1 (k = 27) */
          const int64_t n = k == 27 ? ((int64_t)1 << 24) + 1 : (int64_t)1 << k;
          const int64_t num = (int64_t)((double)n / avg) + 1;
          const tb_launch_box seg = tb_segreduce_default_box_for(type, num, n),
                              seg_e = tb_segreduce_default_box_empty(type, num, n),
                              spmv = tb_spmv_default_box_for(type, num, n),
                              spmv_e = tb_spmv_default_box_empty(type, num, n);
          snprintf(what, sizeof what, "segreduce %s %s avg %.1f n %lld support_empty",
                   tb_type_name(type), tb_op_name(op), avg, (long long)n);
          expect_in(grid, tb_segreduce_grid(type, op, grid, kMax), seg_e, what);
          if (n > 1 << 24) CU_ASSERT(seg_e.nt == seg.nt && seg_e.vt == seg.vt);
          if (n <= 1 << 24) CU_ASSERT(tb_seg_tile_marks(tb_type_size(type), seg_e.nt, seg_e.vt));
          if (n <= 1 << 24) CU_ASSERT(tb_seg_tile_marks(tb_type_size(type), spmv_e.nt, spmv_e.vt));
          if (n > 1 << 24) CU_ASSERT(spmv_e.nt == spmv.nt && spmv_e.vt == spmv.vt);
        }
      snprintf(what, sizeof what, "reduce_by_key %s %s", tb_type_name(type), tb_op_name(op));
      expect_in(grid, tb_reduce_by_key_grid(type, op, grid, kMax),
                tb_reduce_by_key_default_box(type), what);
    }
  const tb_launch_box omp = tb_omp_default_box();
  CU_ASSERT(omp.nt >= 1 && omp.nt <= 1024 && (omp.vt == 1 || omp.vt == 2 || omp.vt == 4 || omp.vt == 8));
  CU_ASSERT_EQUAL(tb_reduce_default_box((tb_type)99).nt, 0);
  CU_ASSERT_EQUAL(tb_spmv_default_box((tb_type)99).nt, 0);
  CU_ASSERT_EQUAL(tb_spmv_default_box_for((tb_type)99, 1, 1).nt, 0);
  /* No known length (no rows, no nonzeros): the box over every matrix. */
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    const tb_launch_box any = tb_spmv_default_box((tb_type)t);
    const tb_launch_box none = tb_spmv_default_box_for((tb_type)t, 0, 0);
    const tb_launch_box empty = tb_spmv_default_box_for((tb_type)t, 1000, 0);
    const tb_launch_box negative = tb_spmv_default_box_for((tb_type)t, -1, 1000);
    CU_ASSERT(any.nt == none.nt && any.vt == none.vt && any.nt == empty.nt && any.vt == empty.vt);
    CU_ASSERT(any.nt == negative.nt && any.vt == negative.vt);
  }
}

/* Every average count from 1 to 2^20 in quarter octaves, and past the ends. */
TB_TEST(test_counted_families, "lbs and intervals at every average count") {
  tb_launch_box grid[kMax];
  const int lbs = tb_lbs_grid(grid, kMax);
  for (double avg = 1; avg <= 1 << 20; avg *= 1.19) {
    const int64_t objects = 1 << 10, items = (int64_t)(avg * objects);
    expect_in(grid, lbs, tb_lbs_default_box(objects, items), "lbs");
  }
  expect_in(grid, lbs, tb_lbs_default_box(0, 0), "lbs, no objects");
  /* Objects but no items (all counts zero): an average count of 0, which no
   * row of these families names. */
  expect_in(grid, lbs, tb_lbs_default_box(1 << 10, 0), "lbs, all counts zero");
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    const int count = tb_interval_grid((tb_type)t, grid, kMax);
    for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op)
      for (double avg = 1; avg <= 1 << 20; avg *= 1.19) {
        char what[80];
        snprintf(what, sizeof what, "interval op %d %s avg %.1f", op, tb_type_name((tb_type)t), avg);
        const int64_t objects = 1 << 10, items = (int64_t)(avg * objects);
        expect_in(grid, count,
                  tb_interval_default_box((tb_interval_op)op, (tb_type)t, objects, items), what);
      }
    for (int op = 0; op < TB_INTERVAL_OP_COUNT; ++op) {
      char what[80];
      snprintf(what, sizeof what, "interval op %d %s, all counts zero", op,
               tb_type_name((tb_type)t));
      expect_in(grid, count, tb_interval_default_box((tb_interval_op)op, (tb_type)t, 1 << 10, 0),
                what);
    }
  }
}

/* Every row of every generated table (each GPU's, not only the one this
 * machine would pick) names a box its family's build compiles for the row's
 * types and every operator: the tuned boxes each grid's .def declares. */
static int family_grid(tb_tuned_family family, tb_type type, tb_op op, tb_launch_box *out) {
  switch (family) {
    case TB_TUNED_REDUCE: return tb_reduce_grid(type, op, out, kMax);
    case TB_TUNED_SCAN: return tb_scan_grid(type, op, out, kMax);
    case TB_TUNED_SEGREDUCE:
    case TB_TUNED_SPMV: return tb_segreduce_grid(type, op, out, kMax);
    case TB_TUNED_REDUCE_BY_KEY: return tb_reduce_by_key_grid(type, op, out, kMax);
    case TB_TUNED_LBS: return op == TB_OP_PLUS ? tb_lbs_grid(out, kMax) : 0;
    case TB_TUNED_EXPAND:
    case TB_TUNED_MOVE: return op == TB_OP_PLUS ? tb_interval_grid(type, out, kMax) : 0;
    case TB_TUNED_OMP: return 0;
  }
  return 0;
}

TB_TEST(test_every_table, "every table's rows are compiled boxes") {
  tb_launch_box grid[kMax];
  int rows = 0;
  for (int table = 0; tb_tuned_table_name(table); ++table) {
    const tb_tuned_row *r;
    for (int i = 0; (r = tb_tuned_row_at(table, i)) != NULL; ++i, ++rows) {
      const tb_tuned_family family = r->family;
      const int row_type = r->type;
      const tb_launch_box box = r->box;
      if (family == TB_TUNED_OMP) continue; /* any nt: its own rule (test_fixed_families) */
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        if (row_type != TB_TYPE_ANY && row_type != t) continue;
        for (int o = 0; o < TB_OP_COUNT; ++o) {
          const tb_op op = (tb_op)o;
          const bool takes_op = family == TB_TUNED_LBS || family == TB_TUNED_EXPAND ||
                                        family == TB_TUNED_MOVE
                                    ? op == TB_OP_PLUS
                                    : tb_check_type_op((tb_type)t, op) == TB_OK;
          if (!takes_op) continue;
          char what[120];
          snprintf(what, sizeof what, "table %s row %d (%s %s)", tb_tuned_table_name(table), i,
                   tb_type_name((tb_type)t), tb_op_name(op));
          expect_in(grid, family_grid(family, (tb_type)t, op, grid), box, what);
        }
      }
    }
  }
  CU_ASSERT(rows > 0);
}

/* The box a direct segmented call of mean length avg and n items gets. */
static tb_launch_box seg_box_at(tb_type t, double avg, int64_t n) {
  return tb_segreduce_default_box_for(t, (int64_t)((double)n / avg), n);
}

/* The row of sm_90's table for (type, avg) chosen at the smallest size above
 * n: the one a call just past a band takes. */
static const tb_tuned_row *next_size_up(int type, double avg, int64_t n) {
  const tb_tuned_row *r, *next = NULL;
  for (int i = 0; (r = tb_tuned_row_at(0, i)) != NULL; ++i)
    if (r->family == TB_TUNED_SEGREDUCE && r->type == type && r->avg == avg && r->n > n &&
        (!next || r->n < next->n))
      next = r;
  return next;
}

/* sm_90's table: a call of a segmented row's length and size (a size band's
 * or the length's largest) gets that row's box; one of twice a band's size
 * the row of the next size up. */
TB_TEST(test_size_bands, "segreduce: each length's row at its size, size bands up to theirs") {
  const tb_tuned_row *r;
  int rows = 0, bands = 0;
  for (int i = 0; (r = tb_tuned_row_at(0, i)) != NULL; ++i) {
    if (r->family != TB_TUNED_SEGREDUCE || r->avg == 0 || r->type == TB_TYPE_ANY) continue;
    const tb_type t = (tb_type)r->type;
    const tb_launch_box got = seg_box_at(t, r->avg, r->n);
    if (got.nt != r->box.nt || got.vt != r->box.vt)
      printf("\n  %s L = %g n = %lld: got %dx%d, the row says %dx%d\n", tb_type_name(t), r->avg,
             (long long)r->n, got.nt, got.vt, r->box.nt, r->box.vt);
    CU_ASSERT(got.nt == r->box.nt && got.vt == r->box.vt);
    ++rows;
    const tb_tuned_row *up = next_size_up(r->type, r->avg, r->n);
    if (up) { /* r is a band */
      const tb_launch_box past = seg_box_at(t, r->avg, 2 * r->n);
      CU_ASSERT(past.nt == up->box.nt && past.vt == up->box.vt);
      ++bands;
    }
  }
  CU_ASSERT(rows > 0);
  CU_ASSERT(bands > 0); /* the table has size bands to check */
}

TB_TEST(test_arch, "the table's architecture") {
  const char *arch = tb_tuned_arch();
  /* No GPU here, or an sm_90 one: never a table the device does not have. */
  CU_ASSERT(arch == NULL || strcmp(arch, "sm_90") == 0);
}

int main(void) { return tb_test_run("defaults", NULL); }
