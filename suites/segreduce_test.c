/* Segmented reduction over CSR descriptors (direct and indirect): the GPU
 * entry points against the CPU reference (cpuref/segreduce.h) for every
 * type x operator x launch box x segment geometry, with and without empty
 * segments; real-valued data against the rounding bound; preprocess +
 * apply; the opt-in descriptor validation (tb_segreduce_validate, which
 * checks SpMV's columns too); bad input; and malformed descriptors, which
 * must give unspecified output but never touch memory outside the arrays
 * (run under compute-sanitizer memcheck with --sanitizer; guard zones around
 * the outputs catch stray writes without it). Reduce-by-key and SpMV have
 * suites of their own (reduce_by_key_test.c, spmv_test.c); what the three
 * share is in segreduce_testing.h.
 *
 * Exactness: tb_fill_random draws data on which every partial result is exact
 * in any order (core/rng.h), so integer results are compared bit for bit and
 * float results against the higher-precision reference with no tolerance.
 * One test runs real-valued data against the rounding bound
 * (segreduce_testing.c).
 *
 * Outputs are poisoned before every run, so an element the kernel fails to
 * write cannot pass. Every random choice comes from a tb_rng seeded from
 * tb_test.seed (--seed=N), which every failure message repeats. */
#include "cpuref/segreduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "kernels/segreduce_dispatch.h" /* tb_segreduce_wave_tiles */
#include "kernels/tilebench.h"
#include "suites/segreduce_testing.h"
#include "suites/testing.h"

/* Every type x operator x box (and the default) x geometry, direct and
 * indirect, support_empty both ways where the geometry allows it. */
TB_TEST(test_segreduce_every_case, "every type x op x box x geometry") {
  seg_every_case(SEG_SEGREDUCE, 0);
}

/* Integer wrap-around (random bits summed and multiplied), a single item,
 * and count == 0 with segments: every result the identity. */
TB_TEST(test_segreduce_edges, "wrap-around, one item, no items") {
  tb_rng r = tb_test_rng(11);
  seg_outputs o = {0};
  tb_launch_box grid[kMaxBoxes];
  const int n_grid = seg_grid_of(TB_INT32, grid);
  /* Wrap-around: all bits random, plus and multiplies (short segments, so
   * that products do not all end in zero bits). */
  static const tb_op wrap_ops[] = {TB_OP_PLUS, TB_OP_MULTIPLIES};
  for (int t = TB_INT32; t <= TB_INT64; ++t) {
    seg_case c = seg_spec_case(TB_GEOM_UNIFORM, 6.0, true, 20011);
    seg_geom g;
    if (seg_geom_make(&g, &c, false, &r)) {
      seg_values v;
      if (seg_values_make(&v, (tb_type)t, TB_OP_BIT_XOR, g.count, &r)) {
        snprintf(g.name + strlen(g.name), sizeof g.name - strlen(g.name), ", random bits");
        for (int op = 0; op < 2; ++op) {
          v.op = wrap_ops[op];
          seg_check_segreduce(&g, &v, false, false, NULL, NULL, &o);
          const bool at = n_grid > 0 && seg_op_at_box((tb_type)t, v.op, &grid[0]);
          seg_check_segreduce(&g, &v, true, true, at ? &grid[0] : NULL, NULL, &o);
        }
      }
      seg_values_free(&v);
    }
    seg_geom_free(&g);
  }
  /* One item in one segment. */
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    int32_t *lens = seg_alloc_i32(1);
    if (lens) lens[0] = 1;
    seg_geom g;
    seg_values v;
    if (seg_geom_from_lens(&g, lens, 1, false, &r, "one item") &&
        seg_values_make(&v, (tb_type)t, TB_OP_MAX, 1, &r)) {
      seg_check_segreduce(&g, &v, false, false, NULL, NULL, &o);
      seg_check_segreduce(&g, &v, true, true, NULL, NULL, &o);
    }
    seg_values_free(&v);
    seg_geom_free(&g);
  }
  /* count == 0: 1, 7 and 5000 empty segments, every op, the default and
   * the first box. */
  static const int32_t nums[] = {1, 7, 5000};
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; ++k) {
    int32_t *lens = calloc((size_t)nums[k], sizeof(int32_t));
    seg_geom g;
    if (!seg_geom_from_lens(&g, lens, nums[k], false, &r, "no items")) {
      seg_geom_free(&g);
      continue;
    }
    for (int t = 0; t < TB_TYPE_COUNT; ++t)
      for (int op = 0; op < TB_OP_COUNT; ++op) {
        if (!seg_op_fits((tb_type)t, op)) continue;
        seg_values v;
        if (seg_values_make(&v, (tb_type)t, (tb_op)op, 0, &r))
          for (int indirect = 0; indirect < 2; ++indirect) {
            char what[400];
            const bool at = indirect && n_grid > 0 && seg_op_at_box((tb_type)t, op, &grid[0]);
            if (seg_run_segreduce(&g, &v, indirect, true, at ? &grid[0] : NULL, NULL, &o, what,
                                  sizeof what))
              seg_all_identity((tb_type)t, (tb_op)op, o.got, g.num_segments, what);
          }
        seg_values_free(&v);
      }
    seg_geom_free(&g);
  }
  seg_outputs_free(&o);
}

/* support_empty's prepass ranks the segments 2048 to a CTA, 32 to a rank
 * word (kernels/segreduce_prep.cu): empty runs that start, end and span
 * those edges, a first and a last segment empty, a whole word and a whole
 * CTA of them; plain (direct, indirect) and preprocessed, every type. */
TB_TEST(test_empty_runs_at_prepass_edges, "support_empty: empty runs at the prepass's edges") {
  enum { kRows = 3 * 2048 + 37 };
  tb_rng r = tb_test_rng(13);
  seg_outputs o = {0};
  int32_t *lens = seg_alloc_i32(kRows);
  seg_geom g;
  if (!lens) return;
  for (int s = 0; s < kRows; ++s) lens[s] = 1 + (int32_t)tb_rng_range(&r, 0, 5);
  static const int32_t empty_runs[][2] = {{0, 1},       {31, 33},          {64, 96},
                                          {2047, 2048}, {2040, 2049},      {4095, 6144},
                                          {6177, 6180}, {kRows - 5, kRows}};
  for (size_t k = 0; k < sizeof empty_runs / sizeof empty_runs[0]; ++k)
    for (int32_t s = empty_runs[k][0]; s < empty_runs[k][1]; ++s) lens[s] = 0;
  if (!seg_geom_from_lens(&g, lens, kRows, false, &r, "empty runs at the prepass's edges")) {
    seg_geom_free(&g);
    return;
  }
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    seg_values v;
    if (seg_values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r)) {
      seg_check_segreduce(&g, &v, false, true, NULL, NULL, &o);
      seg_check_segreduce(&g, &v, true, true, NULL, NULL, &o);
      tb_seg_plan *plan = NULL;
      char what[400];
      seg_describe(what, sizeof what, "segreduce preprocess + apply", (tb_type)t, TB_OP_PLUS,
                   "support_empty", NULL, g.name);
      if (TB_ASSERT_OK(tb_segreduce_csr_preprocess((tb_type)t, g.count, g.d_csr.ptr, g.num_segments,
                                                   true, NULL, &plan, 0),
                       what))
        seg_check_apply(plan, &g, &v, NULL, &o, what);
      tb_seg_plan_free(plan);
    }
    seg_values_free(&v);
  }
  seg_geom_free(&g);
  seg_outputs_free(&o);
}

/* The direct tiles take empty segments themselves (support_empty): a tile
 * then holds any number of rows, an item before a run of empty rows ends
 * the last non-empty one, a run that a round of marks ends inside is
 * skipped (kernels/device/cta_segreduce.cuh), and a tile stores the
 * identity into its empty rows, over a value it may have stored there,
 * unless it holds more than four tiles' worth of rows, which it leaves to a
 * pass after the tiles (kernels/segreduce.cu). Per box: empty runs of 1, 3,
 * NT + 5 and 2 (or 5) tiles + 7 rows right after rows that end on a tile's
 * last item, one item before it and one after it; a run before the first
 * item (NT + 3 rows, or 5 tiles') and after the last; a tile's worth of
 * one-item rows between them. Rows of 1-5 items (tiles of more rows than
 * threads: their ends from marks) and of 8-40 (mostly a row a thread at
 * most: ends from the CSR), the second with the runs a tile leaves to the
 * pass after. Every type. */
TB_TEST(test_empty_runs_at_tile_edges, "support_empty: empty runs at tile edges") {
  tb_rng r = tb_test_rng(19);
  seg_outputs o = {0};
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const int n_grid = seg_grid_of((tb_type)t, grid);
    for (int b = -1; b < n_grid; ++b)
      for (int pass = 0; pass < 2; ++pass) {
        if (b >= 0 && !seg_box_selected(b, n_grid)) continue;
        const tb_launch_box *box = b < 0 ? NULL : &grid[b];
        const int64_t T = seg_tile_of((tb_type)t, box);
        const int nt = (int)(box ? box->nt : tb_segreduce_default_box((tb_type)t).nt);
        const int64_t longest = pass ? 5 * T + 7 : 2 * T + 7;
        const int64_t runs[] = {1, 3, nt + 5, longest};
        const int64_t cap = 12 * T + 8 * longest + 5 * T + 4 * nt + 64;
        int32_t *lens = seg_alloc_i32(cap);
        if (!lens) break;
        int64_t n = 0, at = 0;
        const int64_t lead = pass ? 5 * T : nt + 3;
        for (; n < lead; ++n) lens[n] = 0;
        for (int k = 1; k <= 8; ++k) {
          /* Rows up to item k T + delta: the last ends one item before tile
           * k, at its start or one item into it ... */
          const int64_t delta = k % 3 - 1, edge = k * T + delta;
          while (at < edge) {
            const int64_t len = pass ? 8 + tb_rng_range(&r, 0, 32) : 1 + tb_rng_range(&r, 0, 4);
            lens[n++] = (int32_t)(at + len > edge ? edge - at : len);
            at += lens[n - 1];
          }
          /* ... then an empty run, and in tile 4 a tile of one-item rows. */
          for (int64_t e = 0; e < runs[k % 4]; ++e) lens[n++] = 0;
          if (k == 4)
            for (int64_t e = 0; e < T; ++e) lens[n++] = 1, ++at;
        }
        lens[n++] = 5, at += 5;
        for (int64_t e = 0; e < nt + 9; ++e) lens[n++] = 0;
        CU_ASSERT_FATAL(n <= cap);
        seg_geom g;
        if (seg_geom_from_lens(&g, lens, n, false, &r, "empty runs at tile edges")) {
          seg_values v;
          if (seg_values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r))
            seg_check_segreduce(&g, &v, false, true, box, NULL, &o);
          seg_values_free(&v);
          if (seg_op_swept_at((tb_type)t, TB_OP_MIN, box)) {
            if (seg_values_make(&v, (tb_type)t, TB_OP_MIN, g.count, &r))
              seg_check_segreduce(&g, &v, false, true, box, NULL, &o);
            seg_values_free(&v);
          }
        }
        seg_geom_free(&g);
      }
  }
  seg_outputs_free(&o);
}

/* The tile partition gives each warp up to 32 limits, sized for rows of the
 * average length to fit the offsets it reads at once (1024,
 * kernels/segreduce_prep.cu): long rows around a burst of one-item rows
 * (many limits of a warp outside that window), rows as long as a tile (limits
 * on row starts) and empty runs (support_empty) at limits; every box, direct
 * and indirect, every type. */
TB_TEST(test_partition_windows, "tile partition: limits outside a warp's window") {
  const int kLong = tb_test.quick ? 400 : 800, kBurst = tb_test.quick ? 4000 : 20000;
  const int rows = 3 * kLong + kBurst;
  tb_rng r = tb_test_rng(17);
  seg_outputs o = {0};
  for (int pass = 0; pass < 2; ++pass) {
    int32_t *lens = seg_alloc_i32(rows);
    seg_geom g;
    if (!lens) break;
    for (int s = 0; s < rows; ++s) {
      if (s >= kLong && s < kLong + kBurst)
        lens[s] = 1;  // the burst
      else if (s < 2 * kLong + kBurst)
        lens[s] = 1000 + (int32_t)tb_rng_range(&r, 0, 2000);
      else
        lens[s] = s % 2 ? 5632 : 1408;           // tiles of the default boxes
      if (pass == 1 && s % 7 == 0) lens[s] = 0;  // empty rows (support_empty)
    }
    if (seg_geom_from_lens(&g, lens, rows, false, &r, pass ? "burst, empty rows" : "burst"))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        tb_launch_box grid[kMaxBoxes];
        const int n_grid = seg_grid_of((tb_type)t, grid);
        seg_values v;
        if (seg_values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r))
          for (int b = 0; b < n_grid; ++b)
            if (seg_box_selected(b, n_grid))
              for (int indirect = 0; indirect < 2; ++indirect)
                seg_check_segreduce(&g, &v, indirect, pass == 1 || indirect, &grid[b], NULL, &o);
        seg_values_free(&v);
      }
    seg_geom_free(&g);
  }
  seg_outputs_free(&o);
}

/* The tuned default (NULL and {0, 0}) on up to 2^22 items, plus. Fixed
 * lengths of 4095 and 4096 (the ends on and off a power of two) and 50001:
 * segments over up to ten tiles of every default box, so most tiles end
 * none and pass the carry on from tile to tile. */
TB_TEST(test_segreduce_default_large, "default box, large") {
  const int64_t n = tb_test.max_random_n < (1 << 22) ? tb_test.max_random_n : (1 << 22);
  const tb_launch_box zero = {0, 0};
  const seg_case cases[] = {seg_spec_case(TB_GEOM_UNIFORM, 16.0, true, n),
                            seg_spec_case(TB_GEOM_FIXED, 4095.0, true, n),
                            seg_spec_case(TB_GEOM_FIXED, 4096.0, true, n),
                            seg_spec_case(TB_GEOM_FIXED, 50001.0, true, n),
                            seg_spec_case(TB_GEOM_ALL_ONE, 1.0, true, n),
                            seg_spec_case(TB_GEOM_ONE_GIANT, 64.0, true, n),
                            seg_spec_case(TB_GEOM_POWER_LAW, 64.0, false, n),
                            seg_spec_case(TB_GEOM_ZERO_RUNS, 4.0, false, n)};
  tb_rng r = tb_test_rng(1);
  seg_outputs o = {0};
  tb_buffer scratch = {0};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    seg_geom g;
    if (seg_geom_make(&g, &cases[c], c % 2 == 1, &r))
      for (int t = 0; t < TB_TYPE_COUNT; ++t) {
        seg_values v;
        if (seg_values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r))
          for (int indirect = 0; indirect < 2; ++indirect)
            seg_check_segreduce(&g, &v, indirect, !cases[c].strict || indirect,
                                indirect ? &zero : NULL, indirect ? NULL : &scratch, &o);
        seg_values_free(&v);
      }
    seg_geom_free(&g);
  }
  tb_buffer_free(&scratch);
  seg_outputs_free(&o);
}

/* ---- the switch between one wave and the partitioned path ------------------------- */

/* A call of few enough tiles at a tuned box is one cooperative launch whose
 * tiles find their own limits and fold their carries after a grid barrier;
 * one tile more takes the partition, the tiles and the fold. Both sides of
 * the switch (the GPU's own capacity, tb_segreduce_wave_tiles) and one tile,
 * each at the tile's edge and one item either side, direct and applied,
 * over short rows, rows of many tiles and one segment of nearly all, and
 * direct over rows some of which are empty (support_empty), whose wave is
 * its own kernel's. */
TB_TEST(test_one_wave_switch, "one wave: both sides of the switch") {
  tb_rng r = tb_test_rng(11);
  tb_buffer scratch = {0};
  seg_outputs o = {0};
  int failures = 0;
  for (int t = 0; t < TB_TYPE_COUNT && failures < kMaxFailures; ++t) {
    tb_launch_box grid[kMaxBoxes];
    const tb_launch_box *boxes[3];
    seg_edge_boxes((tb_type)t, grid, boxes);
    for (int b = 0; b < 3 && failures < kMaxFailures; ++b) {
      const tb_launch_box box = boxes[b] ? *boxes[b] : tb_segreduce_default_box((tb_type)t);
      const int64_t tile = (int64_t)box.nt * box.vt;
      const int waves[3] = {
          tb_segreduce_wave_tiles((tb_type)t, TB_OP_PLUS, box, TB_WAVE_CSR),
          tb_segreduce_wave_tiles((tb_type)t, TB_OP_PLUS, box, TB_WAVE_APPLY),
          tb_segreduce_wave_tiles((tb_type)t, TB_OP_PLUS, box, TB_WAVE_CSR_EMPTY)};
      /* The tuned boxes have the one-wave path; the wide set's are
       * partitioned at every size (0). */
      if (!boxes[b]) CU_ASSERT(waves[0] > 0);
      if (waves[0] == 0) continue;
      const int64_t tiles[] = {1, waves[0], waves[0] + 1, waves[1], waves[1] + 1, waves[2],
                               waves[2] + 1};
      /* Quick (and under the sanitizers, which run quick): the default box,
       * at the edges themselves, short rows. */
      if (tb_test.quick && b > 0) break;
      const int d0 = tb_test.quick ? 0 : -1, d1 = tb_test.quick ? 0 : 1;
      for (size_t k = 0; k < sizeof tiles / sizeof tiles[0] && failures < kMaxFailures; ++k)
        for (int delta = d0; delta <= d1 && failures < kMaxFailures; ++delta) {
          const int64_t n = tiles[k] * tile + delta;
          if (n < 1) continue;
          /* The last with empty rows (support_empty: in the tiles, at a box
           * whose tiles take them). */
          const seg_case cases[] = {seg_spec_case(TB_GEOM_UNIFORM, 16.0, true, n),
                                    seg_spec_case(TB_GEOM_FIXED, 3.0 * tile + 1, true, n),
                                    seg_spec_case(TB_GEOM_ONE_GIANT, 64.0, true, n),
                                    seg_spec_case(TB_GEOM_UNIFORM, 16.0, false, n)};
          const size_t n_cases = sizeof cases / sizeof cases[0];
          for (size_t c = 0; c < n_cases && failures < kMaxFailures; ++c) {
            const bool empty = !cases[c].strict;
            if (tb_test.quick && c > 0 && !empty) continue;
            seg_geom g;
            seg_values v;
            if (!seg_geom_make(&g, &cases[c], false, &r) ||
                !seg_values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r)) {
              ++failures;
              seg_geom_free(&g);
              continue;
            }
            if (!seg_check_segreduce(&g, &v, false, empty, &box, &scratch, &o)) ++failures;
            tb_seg_plan *plan = NULL;
            char what[480];
            seg_describe(what, sizeof what, "segreduce", (tb_type)t, TB_OP_PLUS,
                         "apply (wave edge)", &box, g.name);
            if (box.vt <= TB_SEG_PLAN_MAX_VT && !empty &&
                !(TB_ASSERT_OK(tb_segreduce_csr_preprocess((tb_type)t, g.count, g.d_csr.ptr,
                                                           g.num_segments, false, &box, &plan, 0),
                               what) &&
                  seg_check_apply(plan, &g, &v, &scratch, &o, what)))
              ++failures;
            tb_seg_plan_free(plan);
            seg_values_free(&v);
            seg_geom_free(&g);
          }
        }
    }
  }
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* ---- whole rows a CTA --------------------------------------------------------------- */

/* One geometry at the rows path's edges (g, freed after): every type, plus
 * or every swept operator, direct with no box, with support_empty or not;
 * false after a failure. */
static bool every_type_as(seg_geom *g, bool all_ops, bool support_empty, tb_rng *r,
                          seg_outputs *o) {
  bool ok = true;
  for (int t = 0; t < TB_TYPE_COUNT && ok; ++t)
    for (int op = 0; op < TB_OP_COUNT && ok; ++op) {
      if (!(all_ops ? seg_op_swept((tb_type)t, op) : op == TB_OP_PLUS)) continue;
      seg_values v;
      ok = seg_values_make(&v, (tb_type)t, (tb_op)op, g->count, r) &&
           seg_check_segreduce(g, &v, false, support_empty, NULL, NULL, o);
      seg_values_free(&v);
    }
  seg_geom_free(g);
  return ok;
}
static bool every_type(seg_geom *g, bool all_ops, tb_rng *r, seg_outputs *o) {
  return every_type_as(g, all_ops, false, r, o);
}

static bool rows_case(const seg_case *c, bool all_ops, tb_rng *r, seg_outputs *o) {
  seg_geom g;
  return seg_geom_make(&g, c, false, r) && every_type(&g, all_ops, r, o);
}

/* The rows of lens (taken over). */
static bool lens_case(int32_t *lens, int64_t n, const char *label, bool all_ops, tb_rng *r,
                      seg_outputs *o) {
  seg_geom g;
  return lens && seg_geom_from_lens(&g, lens, n, false, r, label) && every_type(&g, all_ops, r, o);
}

/* Direct calls with no box and no empty rows reduce whole rows a CTA up to
 * TB_SEG_ROWS_MAX_COUNT items (tb_seg_rows_fit). Fixed lengths on both
 * sides of each step of the group width (tb_seg_rows_lanes), of a group's
 * longest row (tb_seg_rows_long) and of the CTA's round of loads, each over
 * row counts either side of a multiple of TB_SEG_ROWS_MIN_CTAS (where rows
 * a CTA steps, tb_seg_rows_per_cta, and the last CTA is partial), and for
 * groups narrower than a warp either side of a row a group in half and in
 * all of TB_SEG_ROWS_MIN_CTAS CTAs (where rows a CTA stop growing with the
 * rows, and start again); rows of
 * a group, a warp and the CTA in one CTA; groups of several warps; rows a
 * CTA either side of its groups (one row a group takes the CTA's unroll); then
 * both sides of the size switch over fixed, mixed and power-law lengths
 * and one row of all but three items (split). */
TB_TEST(test_rows_path, "whole rows a CTA: each step of its policy, both sides of the switch") {
  tb_rng r = tb_test_rng(13);
  seg_outputs o = {0};
  int64_t lengths[24];
  int n_lengths = seg_rows_step_lengths(lengths, true);
  lengths[n_lengths++] = (int64_t)TB_SEG_ROWS_THREADS * TB_SEG_ROWS_CTA_UNROLL;
  lengths[n_lengths++] = (int64_t)TB_SEG_ROWS_THREADS * TB_SEG_ROWS_CTA_UNROLL + 1;
  int failures = 0;
  for (int k = 0; k < n_lengths && failures < kMaxFailures; ++k) {
    /* The largest multiple of TB_SEG_ROWS_MIN_CTAS (up to 2) whose rows fit,
     * else a few rows. */
    int64_t m = TB_SEG_ROWS_MIN_CTAS * 2;
    while (m > TB_SEG_ROWS_MIN_CTAS / 2 && (m + 1) * lengths[k] > TB_SEG_ROWS_MAX_COUNT) m /= 2;
    if ((m + 1) * lengths[k] > TB_SEG_ROWS_MAX_COUNT) m = 2;
    const int lanes = tb_seg_rows_lanes((double)lengths[k]);
    int64_t p = (int64_t)TB_SEG_ROWS_MIN_CTAS / 2 * (TB_SEG_ROWS_THREADS / lanes), q = 2 * p;
    if (lanes >= 32 || (p + 1) * lengths[k] > TB_SEG_ROWS_MAX_COUNT) p = m;
    if (lanes >= 32 || (q + 1) * lengths[k] > TB_SEG_ROWS_MAX_COUNT) q = m;
    const int64_t rows[] = {m, m - 1, m + 1, p, p - 1, p + 1, q, q - 1, q + 1};
    for (int j = 0; j < 9 && failures < kMaxFailures; ++j) {
      if ((tb_test.quick && j % 3 > 0) || (j >= 3 && rows[j / 3 * 3] == m)) continue;
      const seg_case c =
          seg_spec_case(TB_GEOM_FIXED, (double)lengths[k], true, rows[j] * lengths[k]);
      if (!rows_case(&c, !tb_test.quick, &r, &o)) ++failures;
    }
  }
  /* Every tier in one CTA: fifteen rows of one item, then one of a warp's
   * longest (TB_SEG_ROWS_WARP_LONG) or one item more, repeated (a mean of
   * about 130 and 16 rows a CTA: groups of 32 lanes, whose longest rows are
   * shorter). */
  {
    const int64_t n = 16 * TB_SEG_ROWS_MIN_CTAS; /* 528,128 items */
    int32_t *lens = seg_alloc_i32(n);
    if (lens)
      for (int64_t i = 0; i < n; ++i)
        lens[i] = i % 16 != 15 ? 1 : TB_SEG_ROWS_WARP_LONG + (int32_t)(i / 16 % 2);
    if (!lens_case(lens, n, "rows of every tier", true, &r, &o)) ++failures;
  }
  /* Groups wider than a warp where a CTA has few rows (tb_seg_rows_width):
   * rows a CTA on both sides of each width's step, fixed and mixed
   * lengths. */
  const int per_cta[] = {1, 2, 3, 4, 5, 8, 9};
  for (size_t k = 0; k < sizeof per_cta / sizeof per_cta[0] && failures < kMaxFailures; ++k) {
    const int64_t rows = (int64_t)TB_SEG_ROWS_MIN_CTAS * per_cta[k] + 1;
    const seg_case cases[] = {seg_spec_case(TB_GEOM_FIXED, 900.0, true, rows * 900),
                              seg_spec_case(TB_GEOM_UNIFORM, 900.0, true, rows * 900)};
    for (int c = 0; c < 2 && failures < kMaxFailures; ++c)
      if (!rows_case(&cases[c], false, &r, &o)) ++failures;
  }
  /* Eight rows a CTA (groups of 64 lanes): rows of 100 items, every 16th
   * one of the group's longest (tb_seg_rows_long) or one item more. */
  {
    const int64_t n = 8 * TB_SEG_ROWS_MIN_CTAS;
    const int32_t longest = tb_seg_rows_long(tb_seg_rows_width(32, 8));
    int32_t *lens = seg_alloc_i32(n);
    if (lens)
      for (int64_t i = 0; i < n; ++i)
        lens[i] = i % 16 != 15 ? 100 : longest + (int32_t)(i / 16 % 2);
    if (!lens_case(lens, n, "a wide group's longest rows", false, &r, &o)) ++failures;
  }
  /* Where a CTA has no more rows than groups, each group's row takes the
   * CTA tier's unroll: groups of 8 and of 32 lanes, rows a CTA equal to the
   * groups and one more, rows of the group's longest (tb_seg_rows_long) and
   * one item more among shorter ones. */
  {
    const struct {
      int32_t len;
      int lanes;
    } mixes[] = {{24, 8}, {256, 32}};
    for (size_t k = 0; k < 2 && failures < kMaxFailures; ++k) {
      const int lanes = mixes[k].lanes, groups = TB_SEG_ROWS_THREADS / lanes;
      const int32_t longest = tb_seg_rows_long(lanes);
      for (int more = 0; more < 2 && failures < kMaxFailures; ++more) {
        const int64_t n = (int64_t)(groups + more) * TB_SEG_ROWS_MIN_CTAS;
        int32_t *lens = seg_alloc_i32(n);
        double sum = 0;
        if (lens)
          for (int64_t i = 0; i < n; ++i)
            sum += lens[i] = i % 16 != 15 ? mixes[k].len : longest + (int32_t)(i / 16 % 2);
        /* the geometry this case is for */
        CU_ASSERT_EQUAL(tb_seg_rows_lanes(sum / (double)n), lanes);
        CU_ASSERT_EQUAL(tb_seg_rows_per_cta(n, lanes), groups + more);
        CU_ASSERT_EQUAL(tb_seg_rows_width(lanes, groups + more), lanes);
        if (!lens_case(lens, n, "a group's row each, or more", false, &r, &o)) ++failures;
      }
    }
  }
  const int64_t max = TB_SEG_ROWS_MAX_COUNT;
  const int64_t sizes[] = {max, max + 1};
  for (int j = 0; j < 2 && failures < kMaxFailures && !tb_test.quick; ++j) {
    /* Exactly sizes[j] items: fixed and uniform lengths, one row of all but
     * three; power-law rows (their empty ones made 1) about as many. */
    const seg_case cases[] = {seg_spec_case(TB_GEOM_FIXED, 1.0, true, sizes[j]),
                              seg_spec_case(TB_GEOM_UNIFORM, 16.0, true, sizes[j]),
                              seg_spec_case(TB_GEOM_UNIFORM, 300.0, true, sizes[j]),
                              {SEG_SHAPE_LONG_MIDDLE, {0}, true, sizes[j]},
                              seg_spec_case(TB_GEOM_POWER_LAW, 4.0, true, sizes[j])};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0] && failures < kMaxFailures; ++c)
      if (!rows_case(&cases[c], false, &r, &o)) ++failures;
  }
  seg_outputs_free(&o);
}

/* With support_empty the rows path takes empty rows too, up to
 * TB_SEG_ROWS_EMPTY_MAX_COUNT items (tb_seg_rows_fit): an empty row gets
 * the identity as any row its reduction, and a call may have more rows
 * than items. Runs of empty rows of one, a CTA's most rows
 * (TB_SEG_ROWS_GROUP_MOST x TB_SEG_ROWS_THREADS) -1 and +1 and three CTAs' worth
 * between rows of every tier (group, warp, CTA) and at both ends; 1,000
 * rows of one item among 300,000; one row among 2^21 + 3 empty ones;
 * power-law and zero-run lengths (empty ends added) on both sides of the
 * size switch; every type. Malformed offsets: test_rows_path_malformed. */
TB_TEST(test_rows_path_empty,
        "whole rows a CTA with support_empty: empty runs, more rows than items") {
  tb_rng r = tb_test_rng(23);
  seg_outputs o = {0};
  int failures = 0;
  {
    const int64_t most = (int64_t)TB_SEG_ROWS_GROUP_MOST * TB_SEG_ROWS_THREADS;
    const int64_t runs[] = {1, most - 1, most + 1, 3 * most};
    const int32_t tiers[] = {3, 37, TB_SEG_ROWS_WARP_LONG + 1, 20000, 1};
    const int64_t cap = 10 * (3 * most + 1 + 100) + 3 * most;
    int32_t *lens = seg_alloc_i32(cap);
    int64_t n = 0;
    if (lens) {
      for (int k = 0; k < 10; ++k) {
        for (int64_t e = 0; e < runs[k % 4]; ++e) lens[n++] = 0;
        lens[n++] = tiers[k % 5];
        for (int e = 0; e < 100; ++e)
          lens[n++] = e % 3 == 0 ? 0 : 1 + (int32_t)tb_rng_range(&r, 0, 8);
      }
      for (int64_t e = 0; e < 3 * most; ++e) lens[n++] = 0;
      CU_ASSERT_FATAL(n <= cap);
    }
    seg_geom g;
    if (!(lens &&
          seg_geom_from_lens(&g, lens, n, false, &r, "empty runs between rows of each tier") &&
          every_type_as(&g, true, true, &r, &o)))
      ++failures;
  }
  const int64_t spread[][2] = {{300000, 1000}, {(1 << 21) + 3, 1}};
  for (int k = 0; k < 2 && failures < kMaxFailures; ++k) {
    const int64_t n = spread[k][0], full = spread[k][1];
    int32_t *lens = calloc((size_t)n, sizeof(int32_t));
    if (lens)
      for (int64_t i = 0; i < full; ++i) lens[tb_rng_range(&r, 0, n - 1)] = k ? 1234 : 1;
    seg_geom g;
    if (!(lens && seg_geom_from_lens(&g, lens, n, false, &r, "more rows than items") &&
          every_type_as(&g, false, true, &r, &o)))
      ++failures;
  }
  const int64_t max = TB_SEG_ROWS_EMPTY_MAX_COUNT;
  const int64_t sizes[] = {max, max + 1};
  for (int j = 0; j < 2 && failures < kMaxFailures; ++j) {
    seg_case cases[] = {seg_spec_case(TB_GEOM_POWER_LAW, 4.0, false, sizes[j]),
                        seg_spec_case(TB_GEOM_ZERO_RUNS, 3.0, false, sizes[j])};
    cases[1].spec.empty_fraction = 0.6;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0] && failures < kMaxFailures; ++c) {
      seg_geom g;
      if (!(seg_geom_make(&g, &cases[c], false, &r) && every_type_as(&g, false, true, &r, &o)))
        ++failures;
    }
  }
  seg_outputs_free(&o);
}

/* Rows of more than TB_SEG_ROWS_SPLIT items are split into units of
 * TB_SEG_ROWS_UNIT that any CTA of the call may take (kernels/segreduce.cu,
 * RowsSplit): lengths either side of the split length and of a multiple of
 * the unit, each as the call's only row (CTAs without rows take its units),
 * among rows of one item in different CTAs, and two side by side; the most
 * split rows a call of TB_SEG_ROWS_MAX_COUNT items has. A CTA of more than
 * TB_SEG_ROWS_SPLIT items posts its rows of more than TB_SEG_ROWS_WARP_LONG
 * too: the first CTA's 16 rows (4,080 rows of 64 items after them)
 * TB_SEG_ROWS_SPLIT items in all and one more, its long rows of 9,000, or of
 * TB_SEG_ROWS_WARP_LONG and one more; its rows of four units and of five
 * (combined by a thread, by a warp); 300 rows of 10,000 items before
 * 35,000 rows of 30 (more than the table's slots); every type. */
TB_TEST(test_rows_split, "whole rows a CTA: split rows, either side of each length") {
  tb_rng r = tb_test_rng(17);
  seg_outputs o = {0};
  const int32_t S = TB_SEG_ROWS_SPLIT, U = TB_SEG_ROWS_UNIT;
  const int32_t lengths[] = {S, S + 1, S + U - 1, S + U, S + U + 1, 9 * U, 9 * U + 1};
  int failures = 0;
  for (size_t k = 0; k < sizeof lengths / sizeof lengths[0] && failures < kMaxFailures; ++k) {
    const int32_t L = lengths[k];
    const bool all_ops = k == 1;
    int32_t *alone = seg_alloc_i32(1);
    if (alone) alone[0] = L;
    if (!lens_case(alone, 1, "one row", all_ops, &r, &o)) ++failures;
    /* A long row every 700th among rows of one item, and two side by side. */
    const int64_t n = 2101;
    int32_t *mixed = seg_alloc_i32(n);
    if (mixed)
      for (int64_t i = 0; i < n; ++i) mixed[i] = i % 700 == 350 || i == 1401 ? L : 1;
    if (!lens_case(mixed, n, "long rows among short", all_ops, &r, &o)) ++failures;
  }
  for (int k = 0; k < 4 && failures < kMaxFailures; ++k) {
    /* 16 rows a CTA, groups of a warp (mean 80: long rows past 512 items,
     * tb_seg_rows_long). CTA 0: seven rows of 9,000 and eight of one, or
     * fifteen of TB_SEG_ROWS_WARP_LONG (+ 1), then one to S (+ 1) items. */
    const int64_t n = 16 * TB_SEG_ROWS_MIN_CTAS;
    const int32_t W = TB_SEG_ROWS_WARP_LONG, total = S + k % 2;
    int32_t *lens = seg_alloc_i32(n);
    if (!lens) break;
    int32_t first = 0;
    for (int64_t i = 0; i < 15; ++i) lens[i] = k < 2 ? (i < 7 ? 9000 : 1) : W + k % 2;
    for (int64_t i = 0; i < 15; ++i) first += lens[i];
    lens[15] = total - first;
    for (int64_t i = 16; i < n; ++i) lens[i] = 64;
    const int lanes = tb_seg_rows_lanes((double)(total + (n - 16) * 64) / (double)n);
    CU_ASSERT_FATAL(lens[15] > 0 && tb_seg_rows_per_cta(n, lanes) == 16 &&
                    tb_seg_rows_long(tb_seg_rows_width(lanes, 16)) < W);
    if (!lens_case(lens, n, "a CTA of TB_SEG_ROWS_SPLIT items or one more", k == 1, &r, &o))
      ++failures;
  }
  {
    /* The first CTA's split rows combined by a thread (up to four units)
     * and by a warp (five): rows of 4 U and 4 U + 1 items, then rows of one
     * in that CTA and of 64 after it. */
    const int64_t n = 16 * TB_SEG_ROWS_MIN_CTAS;
    int32_t *lens = seg_alloc_i32(n);
    int64_t sum = 0;
    if (lens)
      for (int64_t i = 0; i < n; ++i)
        sum += lens[i] = i < 4 ? 4 * U + (int32_t)(i % 2) : i < 16 ? 1 : 64;
    CU_ASSERT_FATAL(tb_seg_rows_per_cta_of(sum, n) == 16);
    if (!lens_case(lens, n, "split rows of four units and of five", true, &r, &o)) ++failures;
  }
  if (failures < kMaxFailures) {
    const int64_t n = 300 + 35000;
    int32_t *lens = seg_alloc_i32(n);
    if (lens)
      for (int64_t i = 0; i < n; ++i) lens[i] = i < 300 ? 10000 : 30;
    if (!lens_case(lens, n, "a CTA of 300 rows of 10,000 items", false, &r, &o)) ++failures;
  }
  if (!tb_test.quick && failures < kMaxFailures) {
    /* Rows of S + 1 items and one of one, as many as fit, then rows of one
     * to TB_SEG_ROWS_MAX_COUNT items in all. */
    const int64_t max = TB_SEG_ROWS_MAX_COUNT, pairs = max / (S + 2);
    const int64_t n = 2 * pairs + (max - pairs * (S + 2));
    int32_t *lens = seg_alloc_i32(n);
    if (lens)
      for (int64_t i = 0; i < n; ++i) lens[i] = i < 2 * pairs && i % 2 == 0 ? S + 1 : 1;
    if (!lens_case(lens, n, "the most split rows", false, &r, &o)) ++failures;
  }
  seg_outputs_free(&o);
}

/* ---- segments of one length --------------------------------------------------------- */

/* rows segments of L items (rows * L <= 2^31 - 1), every type, plus or
 * every swept operator, against the reference over their CSR. */
static bool fixed_case(int64_t rows, int64_t L, bool all_ops, tb_buffer *scratch, tb_rng *r,
                       seg_outputs *o) {
  int32_t *lens = seg_alloc_i32(rows);
  if (!lens) return false;
  for (int64_t i = 0; i < rows; ++i) lens[i] = (int32_t)L;
  char label[64];
  snprintf(label, sizeof label, "%lld rows of %lld", (long long)rows, (long long)L);
  seg_geom g;
  if (!seg_geom_from_lens(&g, lens, rows, false, r, label)) return false;
  bool ok = true;
  for (int t = 0; t < TB_TYPE_COUNT && ok; ++t)
    for (int op = 0; op < TB_OP_COUNT && ok; ++op) {
      if (!(all_ops ? seg_op_swept((tb_type)t, op) : op == TB_OP_PLUS)) continue;
      seg_values v;
      ok = seg_values_make(&v, (tb_type)t, (tb_op)op, g.count, r) &&
           seg_check_fixed(&g, &v, L, scratch, o);
      seg_values_free(&v);
    }
  seg_geom_free(&g);
  return ok;
}

/* tb_segreduce_fixed: rows of a length dividing TB_SEG_FIXED_SHORT a
 * thread's (1, 2, 4, 8, 16 and their neighbours among the lengths below),
 * of 256-2048 items a warp's (both edges and one past each), others whole
 * rows a CTA with offsets computed. Each step of the rows
 * policy and of the split rows (either side of each length) over row
 * counts either side of where rows a CTA step (and a warp's last items
 * partial); then past the CSR's rows limit, where only this form takes
 * rows: one item a row over 2^22 + 1 rows, 2^20 + 3 rows of 16, 2^12 + 1
 * of 1024, rows of three, rows of the split length plus one, and split rows more than the
 * split table's slots. */
TB_TEST(test_fixed, "segments of one length: each step of the rows policy, any count") {
  tb_rng r = tb_test_rng(19);
  seg_outputs o = {0};
  tb_buffer scratch = {0};
  int64_t lengths[40];
  int n = seg_rows_step_lengths(lengths, true);
  const int64_t S = TB_SEG_ROWS_SPLIT, U = TB_SEG_ROWS_UNIT;
  const int64_t more[] = {1,
                          2,
                          3,
                          TB_SEG_FIXED_WARP_LEAST - 1,
                          TB_SEG_FIXED_WARP_LEAST,
                          1000,
                          TB_SEG_FIXED_WARP_MOST,
                          TB_SEG_FIXED_WARP_MOST + 1,
                          U,
                          U + 1,
                          S,
                          S + 1,
                          S + U + 1};
  for (size_t k = 0; k < sizeof more / sizeof more[0]; ++k) lengths[n++] = more[k];
  int failures = 0;
  for (int k = 0; k < n && failures < kMaxFailures; ++k) {
    int64_t m = TB_SEG_ROWS_MIN_CTAS * 2;
    while (m > 2 && (m + 1) * lengths[k] > TB_SEG_ROWS_MAX_COUNT) m /= 2;
    const int64_t rows[] = {m, m - 1, m + 1, 1};
    for (int j = 0; j < 4 && failures < kMaxFailures; ++j) {
      if (tb_test.quick && j == 1) continue;
      if (!fixed_case(rows[j], lengths[k], j == 0 && !tb_test.quick, &scratch, &r, &o)) ++failures;
    }
  }
  if (!tb_test.quick && failures < kMaxFailures) {
    const int64_t big[][2] = {{TB_SEG_ROWS_MAX_COUNT + 1, 1},
                              {(1 << 20) + 3, TB_SEG_FIXED_SHORT},
                              {(1 << 12) + 1, 1024},
                              {(1 << 24) / 3, 3},
                              {64, S + 1},
                              {300, S + 1}};
    for (size_t k = 0; k < sizeof big / sizeof big[0] && failures < kMaxFailures; ++k)
      if (!fixed_case(big[k][0], big[k][1], false, &scratch, &r, &o)) ++failures;
  }
  seg_outputs_free(&o);
  tb_buffer_free(&scratch);
}

/* No items: zero rows does nothing (NULL arrays allowed), rows of zero
 * items get the identity; and bad input gets a clear refusal. */
TB_TEST(test_fixed_edges, "segments of one length: no items, bad input") {
  CU_ASSERT_EQUAL(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, NULL, 0, 7, NULL, NULL, 0), TB_OK);
  tb_buffer out = {0}, in = {0};
  if (!TB_ASSERT_OK(tb_buffer_alloc(&out, 8 * 1000), "out") ||
      !TB_ASSERT_OK(tb_buffer_alloc(&in, 64), "in"))
    goto done;
  for (int t = 0; t < TB_TYPE_COUNT; ++t)
    for (int op = 0; op < TB_OP_COUNT; ++op) {
      if (tb_check_type_op((tb_type)t, (tb_op)op) != TB_OK) continue;
      const size_t size = tb_type_size((tb_type)t);
      char got[8 * 1000], what[96];
      snprintf(what, sizeof what, "tb_segreduce_fixed %s op %d, 1000 rows of 0",
               tb_type_name((tb_type)t), op);
      if (!seg_poison(out.ptr, 8 * 1000) ||
          !TB_ASSERT_OK(tb_segreduce_fixed((tb_type)t, (tb_op)op, NULL, 1000, 0, out.ptr, NULL, 0),
                        what) ||
          !seg_fetch(&out, got, size * 1000, what))
        continue;
      const tb_value id = tb_identity((tb_type)t, (tb_op)op);
      for (int i = 0; i < 1000; ++i)
        if (memcmp(got + size * (size_t)i, &id, size) != 0) {
          CU_FAIL(what);
          break;
        }
    }
  void *p = in.ptr, *q = out.ptr;
  TB_EXPECT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, -1, 4, q, NULL, 0),
                    "tb_segreduce_fixed", "num_segments = -1");
  TB_EXPECT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, 4, -1, q, NULL, 0),
                    "tb_segreduce_fixed", "segment_size = -1");
  TB_EXPECT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, 1 << 16, 1 << 16, q, NULL, 0),
                    "tb_segreduce_fixed", "65536 * 65536 = 4294967296 items, past 2^31 - 1");
  TB_EXPECT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, NULL, 4, 4, q, NULL, 0),
                    "tb_segreduce_fixed", "d_in is NULL");
  TB_EXPECT_REJECTS(tb_segreduce_fixed(TB_INT32, TB_OP_PLUS, p, 4, 4, NULL, NULL, 0),
                    "tb_segreduce_fixed", "d_out is NULL");
  TB_EXPECT_REJECTS(tb_segreduce_fixed(TB_FLOAT, TB_OP_BIT_AND, p, 4, 4, q, NULL, 0),
                    "tb_segreduce_fixed", "float");
  TB_EXPECT_REJECTS(tb_segreduce_fixed((tb_type)99, TB_OP_PLUS, p, 4, 4, q, NULL, 0),
                    "tb_segreduce_fixed", "unknown type 99");
done:
  tb_buffer_free(&out);
  tb_buffer_free(&in);
}

/* Offsets that overlap (every other row all of the first half of the items,
 * more such rows than the split rows' table holds) stay memory safe on the
 * rows path: the call returns, whatever its results. */
TB_TEST(test_rows_split_malformed, "whole rows a CTA: overlapping split rows stay memory safe") {
  const int count = 1 << 20, num_segments = 2 * TB_SEG_ROWS_SLOTS + 100;
  int32_t *csr = seg_alloc_i32(num_segments);
  tb_buffer d_csr = {0}, d_in = {0}, d_out = {0};
  CU_ASSERT_FATAL(csr != NULL);
  for (int i = 0; i < num_segments; ++i) csr[i] = i % 2 ? 0 : count / 2;
  if (TB_ASSERT_OK(tb_buffer_put(&d_csr, csr, sizeof(int32_t) * (size_t)num_segments), "csr") &&
      TB_ASSERT_OK(tb_buffer_alloc(&d_in, sizeof(float) * (size_t)count), "values") &&
      TB_ASSERT_OK(tb_buffer_alloc(&d_out, sizeof(float) * (size_t)num_segments), "out")) {
    CU_ASSERT_EQUAL(cudaMemset(d_in.ptr, 0, sizeof(float) * (size_t)count), cudaSuccess);
    const tb_status st = tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, d_in.ptr, count, d_csr.ptr,
                                          num_segments, NULL, false, d_out.ptr, NULL, NULL, 0);
    TB_ASSERT_OK(st, "tb_segreduce_csr over overlapping rows");
    CU_ASSERT_EQUAL(cudaDeviceSynchronize(), cudaSuccess);
  }
  tb_buffer_free(&d_csr), tb_buffer_free(&d_in), tb_buffer_free(&d_out);
  free(csr);
}

/* Values that start one element past a 16-byte boundary take the striped
 * loads instead of the bulk copy (kernels/segreduce.cu, Tile::Words):
 * every type, the default box, direct and preprocessed, over tiles that end
 * a segment each item, a few and one in several, the last tile partial. */
TB_TEST(test_unaligned_values, "values not 16-byte aligned") {
  tb_rng r = tb_test_rng(9);
  seg_outputs o = {0};
  const double lengths[] = {1.0, 16.0, 1024.0};
  for (int t = 0; t < TB_TYPE_COUNT; ++t) {
    const size_t size = tb_type_size((tb_type)t);
    for (int c = 0; c < 3; ++c) {
      const seg_case gc = seg_spec_case(TB_GEOM_UNIFORM, lengths[c], true, 100003);
      seg_geom g;
      seg_values v;
      memset(&v, 0, sizeof v);
      tb_buffer shifted = {0};
      tb_seg_plan *plan = NULL;
      if (seg_geom_make(&g, &gc, false, &r) &&
          seg_values_make(&v, (tb_type)t, TB_OP_PLUS, g.count, &r) &&
          TB_ASSERT_OK(tb_buffer_alloc(&shifted, ((size_t)g.count + 1) * size), "alloc")) {
        CU_ASSERT_EQUAL(cudaMemcpy((char *)shifted.ptr + size, v.dev.ptr, (size_t)g.count * size,
                                   cudaMemcpyDeviceToDevice),
                        cudaSuccess);
        seg_values u = v; /* the same items, one element into the allocation */
        u.dev.ptr = (char *)shifted.ptr + size;
        seg_check_segreduce(&g, &u, false, false, NULL, NULL, &o);
        char what[400];
        seg_describe(what, sizeof what, "segreduce", (tb_type)t, TB_OP_PLUS,
                     "apply, values unaligned", NULL, g.name);
        if (TB_ASSERT_OK(tb_segreduce_csr_preprocess((tb_type)t, g.count, g.d_csr.ptr,
                                                     g.num_segments, false, NULL, &plan, 0),
                         what))
          seg_check_apply(plan, &g, &u, NULL, &o, what);
      }
      tb_seg_plan_free(plan);
      tb_buffer_free(&shifted);
      seg_values_free(&v);
      seg_geom_free(&g);
    }
  }
  seg_outputs_free(&o);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void bad_input(seg_bad_input *f) {
  enum { S = kBadSegments, C = kBadCount };
  const int32_t *csr = f->csr.ptr, *zeros = f->zeros.ptr, *managed = f->managed,
                *pinned = f->pinned;
  const void *in = f->zeros.ptr;
  void *out = f->out.ptr;
  const int64_t big = (int64_t)INT32_MAX + 1;
  const tb_launch_box half = {128, 0}, zero_nt = {0, 7}, negative = {-128, 5};
  tb_launch_box grid[kMaxBoxes], off_grid[16];
  const int n_grid = seg_grid_of(TB_FLOAT, grid),
            n_off = seg_boxes_off_grid(TB_FLOAT, off_grid, 16);
  tb_seg_plan *p = NULL;
  const char *const SC = "tb_segreduce_csr", *const SP = "tb_segreduce_csr_preprocess";
  const char *const SA = "tb_segreduce_apply", *const SV = "tb_segreduce_validate";

  /* tb_segreduce_csr */
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, 0, NULL, false, out, NULL, NULL, 0), SC,
      "num_segments = 0", kRange1);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, -1, NULL, true, out, NULL, NULL, 0), SC,
      "num_segments = -1", kRange1);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, big, NULL, true, out, NULL, NULL, 0), SC,
      "num_segments = 2147483648", kRange1);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, -1, csr, S, NULL, true, out, NULL, NULL, 0), SC,
      "count = -1", kRange0);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, big, csr, S, NULL, false, out, NULL, NULL, 0), SC,
      "count = 2147483648", kRange0);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, NULL, C, csr, S, NULL, false, out, NULL, NULL, 0), SC,
      "d_in is NULL");
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, NULL, S, NULL, false, out, NULL, NULL, 0), SC,
      "d_csr is NULL");
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, csr, S, NULL, false, NULL, NULL, NULL, 0), SC,
      "d_out is NULL");
  TB_EXPECT_REJECTS(
      tb_segreduce_csr((tb_type)9, TB_OP_PLUS, in, C, csr, S, NULL, false, out, NULL, NULL, 0), SC,
      "unknown type 9");
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, (tb_op)42, in, C, csr, S, NULL, false, out, NULL, NULL, 0), SC,
      "invalid operator 42");
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_FLOAT, TB_OP_BIT_AND, in, C, csr, S, NULL, false, out, NULL, NULL, 0), SC,
      "operator bit_and does not apply to float");
  /* double bit_xor (indirect) */
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_DOUBLE, TB_OP_BIT_XOR, in, C, csr, S, zeros, true, out, NULL, NULL, 0),
      SC, "operator bit_xor does not apply to double");
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &half, NULL, 0), SC,
      "launch box 128x0", kNotInGrid);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &zero_nt, NULL, 0),
      SC, "launch box 0x7", kNotInGrid);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out, &negative, NULL, 0),
      SC, "launch box -128x5", kNotInGrid);
  for (int i = 0; i < n_off; ++i) {
    char box[64]; /* a box not in the grid */
    snprintf(box, sizeof box, "launch box %dx%d", off_grid[i].nt, off_grid[i].vt);
    TB_EXPECT_REJECTS(tb_segreduce_csr(TB_FLOAT, TB_OP_PLUS, in, C, csr, S, NULL, false, out,
                                       &off_grid[i], NULL, 0),
                      SC, box, kNotInGrid);
    EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_FLOAT, C, csr, S, false, &off_grid[i], &p, 0),
                   SP, box, kNotInGrid);
  }
  /* A box of the grid that min is not compiled at (plus has every box, the
   * other operators the tuned ones): the call, and the apply of a plan made
   * at it, say so. */
  for (int i = 0; i < n_grid; ++i) {
    if (seg_op_at_box(TB_FLOAT, TB_OP_MIN, &grid[i])) continue;
    char box[64];
    snprintf(box, sizeof box, "launch box %dx%d", grid[i].nt, grid[i].vt);
    const char *const NOT_MIN = "is not compiled for segreduce over float with operator min";
    TB_EXPECT_REJECTS(
        tb_segreduce_csr(TB_FLOAT, TB_OP_MIN, in, C, csr, S, NULL, false, out, &grid[i], NULL, 0),
        SC, box, NOT_MIN);
    tb_seg_plan *at = NULL;
    if (TB_ASSERT_OK(tb_segreduce_csr_preprocess(TB_FLOAT, C, csr, S, false, &grid[i], &at, 0),
                     "plan at a plus-only box"))
      TB_EXPECT_REJECTS(tb_segreduce_apply(at, TB_OP_MIN, in, out, NULL, 0), SA, box, NOT_MIN);
    tb_seg_plan_free(at);
    break;
  }
  /* csr[0] = 5 in managed memory (direct; indirect with support_empty), in pinned host memory */
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, managed, S, NULL, false, out, NULL, NULL, 0),
      SC, kCsr0);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT32, TB_OP_PLUS, in, C, managed, S, zeros, true, out, NULL, NULL, 0),
      SC, kCsr0);
  TB_EXPECT_REJECTS(
      tb_segreduce_csr(TB_INT64, TB_OP_MAX, in, C, pinned, S, NULL, true, out, NULL, NULL, 0), SC,
      kCsr0);

  /* preprocess */
  TB_EXPECT_REJECTS(tb_segreduce_csr_preprocess(TB_INT32, C, csr, S, false, NULL, NULL, 0), SP,
                    "plan is NULL");
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_INT32, C, csr, 0, false, NULL, &p, 0), SP,
                 "num_segments = 0", kRange1);
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_INT32, -1, csr, S, true, NULL, &p, 0), SP,
                 "count = -1", kRange0);
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_INT32, big, csr, S, true, NULL, &p, 0), SP,
                 "count = 2147483648", kRange0);
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_INT32, C, NULL, S, true, NULL, &p, 0), SP,
                 "d_csr is NULL");
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess((tb_type)7, C, csr, S, true, NULL, &p, 0), SP,
                 "unknown type 7");
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_INT32, C, csr, S, true, &half, &p, 0), SP,
                 "launch box 128x0", kNotInGrid);
  EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_INT32, C, managed, S, false, NULL, &p, 0), SP,
                 kCsr0);
  /* Every box of the grid wider than a plan's codes: refused by each
   * preprocess, which names the limit (the plain forms run them). */
  for (int i = 0; i < n_grid; ++i) {
    if (grid[i].vt <= TB_SEG_PLAN_MAX_VT) continue;
    char box[64];
    snprintf(box, sizeof box, "launch box %dx%d", grid[i].nt, grid[i].vt);
    EXPECT_NO_PLAN(p, tb_segreduce_csr_preprocess(TB_FLOAT, C, csr, S, false, &grid[i], &p, 0), SP,
                   box, "a plan takes VT up to 15");
    EXPECT_NO_PLAN(p, tb_spmv_preprocess(TB_FLOAT, C, csr, S, true, &grid[i], &p, 0),
                   "tb_spmv_preprocess", box, "a plan takes VT up to 15");
    EXPECT_NO_PLAN(
        p, tb_reduce_by_key_preprocess(TB_FLOAT, zeros, C, NULL, NULL, NULL, &grid[i], &p, 0),
        "tb_reduce_by_key_preprocess", box, "a plan takes VT up to 15");
  }

  /* apply (the plans are float) */
  TB_EXPECT_REJECTS(tb_segreduce_apply(NULL, TB_OP_PLUS, in, out, NULL, 0), SA, "plan is NULL");
  TB_EXPECT_REJECTS(tb_segreduce_apply(f->seg, TB_OP_PLUS, NULL, out, NULL, 0), SA, "d_in is NULL");
  TB_EXPECT_REJECTS(tb_segreduce_apply(f->seg, TB_OP_PLUS, in, NULL, NULL, 0), SA, "d_out is NULL");
  TB_EXPECT_REJECTS(tb_segreduce_apply(f->seg, TB_OP_BIT_AND, in, out, NULL, 0), SA,
                    "operator bit_and does not apply to float");
  TB_EXPECT_REJECTS(tb_segreduce_apply(f->rbk, TB_OP_PLUS, in, out, NULL, 0), SA,
                    "the plan was made for reduce_by_key, not segreduce");

  /* validate */
  TB_EXPECT_REJECTS(tb_segreduce_validate(NULL, S, C, false, NULL, 0, NULL, 0), SV,
                    "d_csr is NULL");
  TB_EXPECT_REJECTS(tb_segreduce_validate(csr, 0, C, false, NULL, 0, NULL, 0), SV,
                    "num_segments = 0", kRange1);
  TB_EXPECT_REJECTS(tb_segreduce_validate(csr, S, -1, false, NULL, 0, NULL, 0), SV, "count = -1",
                    kRange0);
  TB_EXPECT_REJECTS(tb_segreduce_validate(csr, S, big, false, NULL, 0, NULL, 0), SV,
                    "count = 2147483648", kRange0);
  TB_EXPECT_REJECTS(tb_segreduce_validate(csr, S, C, false, zeros, -1, NULL, 0), SV, "x_len = -1",
                    kRange0);
}

TB_TEST(test_bad_input, "bad input") { seg_with_bad_input(bad_input); }

/* ---- tb_segreduce_validate ------------------------------------------------------------ */

/* Whether the message names `index` as a whole number. */
static bool names_index(const char *msg, int64_t index) {
  char needle[32];
  snprintf(needle, sizeof needle, "%lld", (long long)index);
  const size_t len = strlen(needle);
  for (const char *p = strstr(msg, needle); p; p = strstr(p + 1, needle)) {
    const bool starts = p == msg || p[-1] < '0' || p[-1] > '9';
    const bool ends = p[len] < '0' || p[len] > '9';
    if (starts && ends) return true;
  }
  return false;
}

/* tb_segreduce_validate's verdict: TB_OK when index < 0; otherwise
 * TB_ERR_INVALID_ARGUMENT with a message naming the array (arg: "csr[" or
 * "cols["), index (or alt, when >= 0) and the rule broken there. */
static void expect_verdict(const tb_buffer *d_csr, int32_t n, int64_t count, bool support_empty,
                           const tb_buffer *d_cols, int64_t x_len, int64_t index, int64_t alt,
                           const char *arg, const char *rule, const char *what) {
  char text[256];
  snprintf(text, sizeof text, "validate %s%s%s", what, support_empty ? ", support_empty" : "",
           d_cols ? ", with columns" : "");
  tb_clear_error();
  const tb_status st = tb_segreduce_validate(d_csr->ptr, n, count, support_empty,
                                             d_cols ? d_cols->ptr : NULL, x_len, NULL, 0);
  if (index < 0) {
    TB_ASSERT_OK(st, text);
    return;
  }
  if (!TB_ASSERT_REJECTS(st, "tb_segreduce_validate", arg, rule, NULL)) {
    printf("  (%s)\n", text);
    return;
  }
  const bool named = names_index(tb_last_error(), index) || (alt >= 0 && names_index(tb_last_error(), alt));
  if (!named)
    printf("\n  %s: message \"%s\" does not name index %lld\n", text, tb_last_error(),
           (long long)index);
  CU_ASSERT(named);
}

TB_TEST(test_validate, "validation entry point") {
  enum { N = 300000, X = 100 };
  const int64_t count = 3 * (int64_t)N;
  int32_t *csr = seg_alloc_i32(N), *cols = seg_alloc_i32(count);
  tb_buffer d = {0}, dc = {0};
  tb_rng r = tb_test_rng(9);
  if (!csr || !cols) goto done;
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i;
  for (int64_t m = 0; m < count; ++m) cols[m] = (int32_t)tb_rng_range(&r, 0, X - 1);
  if (!tb_test_upload(&d, csr, sizeof(int32_t) * N) ||
      !tb_test_upload(&dc, cols, sizeof(int32_t) * count))
    goto done;
  for (int se = 0; se < 2; ++se) {
    expect_verdict(&d, N, count, se, NULL, 0, -1, -1, NULL, NULL, "good csr");
    expect_verdict(&d, N, count, se, &dc, X, -1, -1, NULL, NULL, "good csr");
    /* Offsets past count: csr[N - 1] = 3N - 3 > count. */
    expect_verdict(&d, N, 3 * (int64_t)N - 4, se, NULL, 0, N - 1, -1, "csr[",
                   se ? "the last start, exceeds count" : "the last start, is not below count",
                   "offsets past count");
  }
  /* The last segment empty (csr[N - 1] == count): fine only with support_empty. */
  expect_verdict(&d, N, count - 3, true, NULL, 0, -1, -1, NULL, NULL, "empty last segment");
  expect_verdict(&d, N, count - 3, false, NULL, 0, N - 1, -1, "csr[",
                 "the last start, is not below count", "empty last segment");
  /* Empty segments in the middle (999 and, later, 200000). The message may
   * name the segment or the offset that repeats. */
  csr[1000] = csr[999], csr[200001] = csr[200000];
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload")) {
    expect_verdict(&d, N, count, true, NULL, 0, -1, -1, NULL, NULL, "empty segments");
    expect_verdict(&d, N, count, false, NULL, 0, 1000, 999, "csr[",
                   "(an empty or descending segment)", "empty segments");
  }
  /* Descending offsets, and a later one: the first is named. */
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i;
  csr[123456] = csr[123455] - 1, csr[200000] = 0;
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload"))
    for (int se = 0; se < 2; ++se)
      expect_verdict(&d, N, count, se, NULL, 0, 123456, -1, "csr[",
                     se ? "(descending)" : "(an empty or descending segment)",
                     "descending offsets");
  /* csr[0] != 0 on the device. */
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i + 1;
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload"))
    for (int se = 0; se < 2; ++se)
      expect_verdict(&d, N, count, se, NULL, 0, 0, -1, "csr[0] = 1",
                     "the first segment starts at 0", "csr[0] = 1");
  /* Columns out of [0, x_len): too large first, then negative. */
  for (int32_t i = 0; i < N; ++i) csr[i] = 3 * i;
  cols[777777] = X, cols[800000] = -1;
  if (TB_ASSERT_OK(tb_buffer_upload(&d, csr, sizeof(int32_t) * N), "upload") &&
      TB_ASSERT_OK(tb_buffer_upload(&dc, cols, sizeof(int32_t) * count), "upload")) {
    expect_verdict(&d, N, count, false, &dc, X, 777777, -1, "cols[",
                   "outside [0, x_len = 100)", "column = x_len");
    expect_verdict(&d, N, count, false, NULL, X, -1, -1, NULL, NULL, "bad columns not passed");
  }
  cols[777777] = 0, cols[700001] = -1;
  if (TB_ASSERT_OK(tb_buffer_upload(&dc, cols, sizeof(int32_t) * count), "upload"))
    expect_verdict(&d, N, count, true, &dc, X, 700001, -1, "cols[", "outside [0, x_len = 100)",
                   "column -1");
done:
  tb_buffer_free(&d), tb_buffer_free(&dc);
  free(csr), free(cols);
}

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

/* With support_empty, a CSR with an offset outside [0, count] or a
 * descending pair gives every segment the identity (kernels/tilebench.h). */
static bool identity_everywhere(const int32_t *csr, int32_t num_segments, int32_t count) {
  for (int32_t s = 0; s < num_segments; ++s) {
    const int32_t next = s + 1 < num_segments ? csr[s + 1] : count;
    if (csr[s] < 0 || csr[s] > count || next < csr[s]) return true;
  }
  return false;
}

/* Whether every output between the guards is 0, plus's identity. */
static bool all_zero(const seg_guarded *g, const char *what) {
  const size_t bytes = g->size * (size_t)(g->n + 2 * kGuard), guard = kGuard * g->size;
  unsigned char *host = malloc(bytes);
  bool ok = host && seg_fetch(&g->b, host, bytes, what);
  for (size_t i = guard; ok && i < bytes - guard; ++i) ok = host[i] == 0;
  free(host);
  if (!ok) printf("\n  %s: a segment is not the identity\n", what);
  CU_ASSERT(ok);
  return ok;
}

/* What tb_segreduce_validate (strict, without support_empty) must say of a
 * descriptor: the first entry of csr, else of cols, that breaks a rule, in
 * *arg ("csr[i] = "), and the words of the rule. */
static const char *first_broken(const seg_malformed *mc, int32_t num_segments, int32_t count,
                                int32_t x_len, char *arg, size_t cap) {
  const int32_t *csr = mc->csr;
  snprintf(arg, cap, "(nothing is broken)");
  for (int32_t i = 0; i < num_segments; ++i) {
    const char *rule = NULL;
    if (i == 0 && csr[0] != 0) rule = "the first segment starts at 0";
    else if (i > 0 && csr[i - 1] >= csr[i]) rule = "(an empty or descending segment)";
    else if (i == num_segments - 1 && csr[i] >= count) rule = "the last start, is not below count";
    if (rule) {
      snprintf(arg, cap, "csr[%d] = ", i);
      return rule;
    }
  }
  for (int32_t m = 0; m < count; ++m)
    if (mc->cols[m] < 0 || mc->cols[m] >= x_len) {
      snprintf(arg, cap, "cols[%d] = ", m);
      return "outside [0, x_len = ";
    }
  return NULL;
}

/* Every segreduce entry point on one malformed descriptor with validation
 * off; then the opt-in validation. Outputs carry guard zones. */
static bool run_malformed(seg_malformed_case *c) {
  const seg_malformed *mc = c->mc;
  const int32_t num_segments = c->num_segments, count = c->count, x_len = c->x_len;
  const tb_type t = c->t;
  const int32_t *csr = c->d.csr.ptr, *src = c->d.sources.ptr, *cols = c->d.cols.ptr;
  const void *in = c->d.in.ptr;
  void *y = seg_guarded_mid(&c->out);
  tb_status st;
  bool ok = true;
  for (int se = 0; se < 2 && ok; ++se) {
    const char *mode = se ? "support_empty" : "strict";
    char call[128];
    tb_buffer *s = se ? &c->scratch : NULL;
    snprintf(call, sizeof call, "segreduce direct %s", mode);
    st = tb_segreduce_csr(t, TB_OP_PLUS, in, count, csr, num_segments, NULL, se, y, NULL, s, 0);
    ok = ok && seg_case_after(c, st, call);
    if (ok && se && st == TB_OK && identity_everywhere(mc->csr, num_segments, count))
      ok = all_zero(&c->out, call);
    snprintf(call, sizeof call, "segreduce indirect %s", mode);
    st = tb_segreduce_csr(t, TB_OP_MAX, in, count, csr, num_segments, src, se, y, NULL, s, 0);
    ok = ok && seg_case_after(c, st, call);
    tb_seg_plan *plan = NULL;
    snprintf(call, sizeof call, "segreduce preprocess + apply %s", mode);
    st = tb_segreduce_csr_preprocess(t, count, csr, num_segments, se, NULL, &plan, 0);
    if (st == TB_OK) st = tb_segreduce_apply(plan, TB_OP_PLUS, in, y, s, 0);
    tb_seg_plan_free(plan);
    ok = ok && seg_case_after(c, st, call);
  }
  /* The opt-in validation refuses what the calls above could not. */
  if (ok && (mc->csr_bad || mc->cols_bad)) {
    char arg[48];
    const char *rule = first_broken(mc, num_segments, count, x_len, arg, sizeof arg);
    tb_clear_error();
    st = tb_segreduce_validate(csr, num_segments, count, false, cols, x_len, NULL, 0);
    if (!TB_ASSERT_REJECTS(st, "tb_segreduce_validate", arg, rule, NULL))
      printf("  (%s: validate)\n", mc->label);
  }
  return ok;
}

TB_TEST(test_malformed_memory_safe, "malformed descriptors stay memory safe") {
  seg_for_each_malformed(run_malformed);
}

/* A well-formed call of rows of three int32 items on d_in (values on the
 * host) with a scratch a malformed call has used: every row its sum. */
static bool rows_path_after_malformed(const tb_buffer *d_in, const void *values, int32_t rows,
                                      tb_buffer *scratch) {
  int32_t *csr = seg_alloc_i32(rows), *got = seg_alloc_i32(rows), *want = seg_alloc_i32(rows);
  tb_buffer d_csr = {0}, d_out = {0};
  bool ok = csr && got && want;
  for (int32_t s = 0; ok && s < rows; ++s) csr[s] = 3 * s;
  ok = ok && tb_test_upload(&d_csr, csr, sizeof(int32_t) * (size_t)rows) &&
       TB_ASSERT_OK(tb_buffer_reserve(&d_out, sizeof(int32_t) * (size_t)rows), "output");
  if (ok) {
    const tb_status st = tb_segreduce_csr(TB_INT32, TB_OP_PLUS, d_in->ptr, 3 * (int64_t)rows,
                                          d_csr.ptr, rows, NULL, true, d_out.ptr, NULL, scratch, 0);
    ok = TB_ASSERT_OK(st, "well-formed call after a malformed one") &&
         seg_fetch(&d_out, got, sizeof(int32_t) * (size_t)rows, "its rows");
  }
  ok = ok && TB_ASSERT_OK(tb_cpu_segreduce_csr(TB_INT32, TB_OP_PLUS, values, 3 * rows, csr, rows,
                                               NULL, tb_identity(TB_INT32, TB_OP_PLUS), want),
                          "the reference");
  for (int32_t s = 0; ok && s < rows; ++s)
    if (got[s] != want[s]) {
      printf("\n  row %d after a malformed call: %d, expected %d\n", s, got[s], want[s]);
      ok = false;
    }
  CU_ASSERT(ok);
  tb_buffer_free(&d_csr), tb_buffer_free(&d_out);
  free(csr), free(got), free(want);
  return ok;
}

/* One call over csr (rows, count items) that breaks EmptyRows' rule
 * somewhere, every type, the output canaried: every row the identity, and
 * the same from a plan's apply (whole rows a CTA or tiles, as the plan
 * chose). after: then a well-formed call with the same scratch (its
 * malformed word still set by the call before) gives every row its sum. */
static bool malformed_gives_identity(const int32_t *csr, int32_t rows, int32_t count,
                                     const char *label, bool after, tb_rng *r) {
  void *values = malloc((size_t)count * sizeof(double)); /* random: sums not the identity */
  bool ok = values != NULL;
  for (int t = 0; t < TB_TYPE_COUNT && ok; ++t) {
    tb_buffer d_csr = {0}, d_in = {0}, scratch = {0};
    seg_guarded out = {0}, applied = {0};
    tb_fill_random(r, (tb_type)t, TB_OP_PLUS, values, count);
    ok = tb_test_upload(&d_csr, csr, sizeof(int32_t) * (size_t)rows) &&
         tb_test_upload(&d_in, values, tb_type_size((tb_type)t) * (size_t)count) &&
         seg_guarded_make(&out, tb_type_size((tb_type)t), rows) &&
         seg_guarded_make(&applied, tb_type_size((tb_type)t), rows);
    if (ok) {
      const tb_status st =
          tb_segreduce_csr((tb_type)t, TB_OP_PLUS, d_in.ptr, count, d_csr.ptr, rows, NULL, true,
                           seg_guarded_mid(&out), NULL, &scratch, 0);
      const seg_guarded *outs[] = {&out};
      ok = TB_ASSERT_OK(st, label) &&
           seg_after_call(st, outs, 1, label, tb_type_name((tb_type)t)) && all_zero(&out, label);
    }
    tb_seg_plan *plan = NULL;
    if (ok) {
      char what[200];
      snprintf(what, sizeof what, "%s, preprocess + apply", label);
      tb_status st =
          tb_segreduce_csr_preprocess((tb_type)t, count, d_csr.ptr, rows, true, NULL, &plan, 0);
      if (st == TB_OK)
        st = tb_segreduce_apply(plan, TB_OP_PLUS, d_in.ptr, seg_guarded_mid(&applied), &scratch, 0);
      const seg_guarded *outs[] = {&applied};
      ok = TB_ASSERT_OK(st, what) && seg_after_call(st, outs, 1, what, tb_type_name((tb_type)t)) &&
           all_zero(&applied, what);
    }
    tb_seg_plan_free(plan);
    if (ok && after && t == TB_INT32 && count >= 3 * (int64_t)rows)
      ok = rows_path_after_malformed(&d_in, values, rows, &scratch);
    tb_buffer_free(&d_csr), tb_buffer_free(&d_in), tb_buffer_free(&scratch);
    tb_buffer_free(&out.b), tb_buffer_free(&applied.b);
  }
  free(values);
  return ok;
}

/* Offsets that break EmptyRows' rule in one CTA of the rows path
 * (support_empty, up to TB_SEG_ROWS_EMPTY_MAX_COUNT items) give every row
 * the identity, though the other CTAs stored their results: 20,000 rows of
 * three items, one offset past count in the first, a middle and the last
 * CTA, one negative, one descending pair, a negative one in every CTA (each
 * CTA finds them at once); then a well-formed call with the same scratch. */
TB_TEST(test_rows_path_malformed,
        "whole rows a CTA with support_empty: one CTA's malformed offsets") {
  enum { kRows = 20000, kCount = 3 * kRows };
  const struct {
    int32_t row, offset;
    const char *label;
  } breaks[] = {{1, kCount + 1, "an offset past count in the first CTA"},
                {kRows / 2, kCount + 1, "an offset past count in a middle CTA"},
                {kRows - 1, kCount + 1, "the last offset past count"},
                {kRows / 3, -1, "a negative offset"},
                {2 * kRows / 3, 3 * (2 * kRows / 3) - 4, "a descending pair"},
                {-1, -1, "a negative offset in every CTA"}};
  tb_rng r = tb_test_rng(29);
  int32_t *csr = seg_alloc_i32(kRows);
  bool ok = csr != NULL;
  for (size_t k = 0; ok && k < sizeof breaks / sizeof breaks[0]; ++k) {
    for (int32_t s = 0; s < kRows; ++s)
      csr[s] = breaks[k].row < 0 && s % 50 == 49 ? breaks[k].offset : 3 * s;
    if (breaks[k].row >= 0) csr[breaks[k].row] = breaks[k].offset;
    ok = malformed_gives_identity(csr, kRows, kCount, breaks[k].label, true, &r);
  }
  free(csr);
}

/* A CTA of the rows path loads its rows' offsets (one more than its rows)
 * TB_SEG_ROWS_BATCH + 1 a thread at a time (kernels/segreduce.cu,
 * rows_kernel): rows a CTA one less than such a load's offsets, as many
 * and one more, the last CTA of one row; rows of one to three items, then
 * with support_empty mostly empty ones, and in CTA 1 a descending pair or
 * an offset past count on each side of the second load's first offset. */
TB_TEST(test_rows_path_offset_loads, "whole rows a CTA: either side of a load of its offsets") {
  tb_rng r = tb_test_rng(31);
  seg_outputs o = {0};
  const int64_t load = (int64_t)(TB_SEG_ROWS_BATCH + 1) * TB_SEG_ROWS_THREADS;
  int failures = 0;
  for (int64_t per_cta = load - 1; per_cta <= load + 1 && failures < kMaxFailures; ++per_cta) {
    const int64_t n = per_cta * TB_SEG_ROWS_MIN_CTAS + 1;
    CU_ASSERT_FATAL(tb_seg_rows_per_cta(n, 1) == per_cta && tb_seg_rows_lanes(2.0) == 1);
    int32_t *lens = seg_alloc_i32(n);
    if (lens)
      for (int64_t i = 0; i < n; ++i) lens[i] = 1 + (int32_t)tb_rng_range(&r, 0, 2);
    if (!lens_case(lens, n, "rows a CTA either side of a load of offsets", false, &r, &o))
      ++failures;
    /* One row in 16 of one item: TB_SEG_ROWS_EMPTY_MAX_COUNT at most. */
    int32_t *sparse = seg_alloc_i32(n);
    if (sparse)
      for (int64_t i = 0; i < n; ++i) sparse[i] = tb_rng_range(&r, 0, 15) == 0;
    seg_geom g;
    if (!(sparse && seg_geom_from_lens(&g, sparse, n, false, &r, "mostly empty rows") &&
          every_type_as(&g, false, true, &r, &o)))
      ++failures;
    /* Rows of one item but one in 16 (a count under 2^16), broken in CTA 1
     * at the second load's first offset (local k = load) or the one before. */
    int32_t *csr = seg_alloc_i32(n);
    if (!csr) break;
    int32_t count = 0;
    for (int64_t i = 0; i < n; ++i) csr[i] = count, count += i % 16 == 0;
    const struct {
      int64_t k;
      int32_t offset;
      const char *label;
    } breaks[] = {{load, -1, "a negative offset opening the second load"},
                  {load - 1, count + 1, "an offset past count closing the first load"},
                  {load, csr[per_cta + load - 1] - 1, "a descending pair across the loads"}};
    for (size_t k = 0; k < 3 && failures < kMaxFailures; ++k) {
      const int64_t row = per_cta + breaks[k].k;
      const int32_t kept = csr[row];
      csr[row] = breaks[k].offset;
      if (!malformed_gives_identity(csr, (int32_t)n, count, breaks[k].label, false, &r)) ++failures;
      csr[row] = kept;
    }
    free(csr);
  }
  seg_outputs_free(&o);
}

int main(int argc, char **argv) {
  return seg_suite_main(argc, argv, "segreduce_test", SEG_SEGREDUCE);
}
