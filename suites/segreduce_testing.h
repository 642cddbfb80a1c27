/* What the segmented-reduction family's GPU suites share (segreduce_test,
 * reduce_by_key_test, spmv_test): the sweep choices (operators, boxes,
 * support_empty), CSR segment geometries on the host and the device, exact
 * data and poisoned outputs, the rounding bound of real-valued data, plans
 * over no items, the bad-input fixture and the malformed descriptors.
 *
 * Every random choice comes from a tb_rng seeded from tb_test.seed
 * (--seed=N), which every failure message repeats. */
#ifndef TB_SUITES_SEGREDUCE_TESTING_H
#define TB_SUITES_SEGREDUCE_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cuda.h"
#include "core/geometry.h"
#include "core/rng.h"
#include "kernels/tilebench.h"
#include "suites/testing.h"

enum { kMaxBoxes = 128, kMaxFailures = 10, kPoison = 0xa5 };

/* ---- small helpers ------------------------------------------------------------ */

/* Fills bytes of device memory with kPoison. */
bool seg_poison(void *d, size_t bytes);

int32_t *seg_alloc_i32(int64_t n);

bool seg_op_fits(tb_type t, int op);

/* The operators the type x box sweeps run: every one that fits, or under
 * --quick plus, max and (integers) bit_and; under a sanitizer only plus:
 * every kernel and box still runs, and the other operators change no memory
 * access. */
bool seg_op_swept(tb_type t, int op);

/* Whether a sweep runs support_empty `se` on a geometry: only true where
 * there are empty segments; both ways on strict ones (under --quick one way,
 * alternating with the form). */
bool seg_mode_swept(bool strict, int se, int form);

/* The boxes of the family's grid for t. */
int seg_grid_of(tb_type t, tb_launch_box *out);

/* Whether grid (tb_segreduce_grid or tb_reduce_by_key_grid) lists box for op
 * (NULL: the tuned default, always): the grid is plus's, the other
 * operators are compiled at the tuned boxes. */
bool seg_in_op_grid(int (*grid)(tb_type, tb_op, tb_launch_box *, int), tb_type t, int op,
                    const tb_launch_box *box);
bool seg_op_at_box(tb_type t, int op, const tb_launch_box *box);

/* seg_op_swept, where the build has op at box. */
bool seg_op_swept_at(tb_type t, int op, const tb_launch_box *box);

/* The boxes the plan and real-data tests run at: the tuned default (NULL),
 * the grid's first and its last that a plan takes (VT up to
 * TB_SEG_PLAN_MAX_VT), pointing into grid. */
void seg_edge_boxes(tb_type t, tb_launch_box grid[kMaxBoxes], const tb_launch_box *boxes[3]);

/* Under --quick / --sanitizer (every launch many times slower there) the
 * first, a middle and the last box of the grid; all of them otherwise. */
bool seg_box_selected(int i, int n);

/* Items per tile of the box a call runs with (box, or the tuned default for
 * NULL / {0, 0}): segreduce's and reduce-by-key's preprocess, and SpMV's
 * (tb_spmv_default_box), whose tile edges its geometries must meet. A plain
 * SpMV call with a NULL box runs its row length's box instead
 * (tb_spmv_default_box_for), whose edges the grid's explicit boxes meet. */
int64_t seg_tile_of(tb_type t, const tb_launch_box *box);
int64_t seg_spmv_tile_of(tb_type t, const tb_launch_box *box);

/* "fn type op form box=.. geometry (seed N)": the case, for failure messages. */
void seg_describe(char *out, size_t cap, const char *fn, tb_type t, tb_op op, const char *form,
                  const tb_launch_box *box, const char *geometry);

/* ---- segment geometries --------------------------------------------------------- */

/* A CSR geometry on the host and the device: lens[s] is segment s's length,
 * csr their exclusive scan; sources lay the segments out elsewhere for the
 * indirect form, either as a random permutation of the segments (every item
 * read once) or at random starts (segments may share items). */
typedef struct {
  char name[200];
  int32_t num_segments, count;
  int32_t *lens, *csr, *sources;
  tb_buffer d_csr, d_sources;
} seg_geom;

void seg_geom_free(seg_geom *g);

/* Takes lens (n of them) over; label names the geometry. */
bool seg_geom_from_lens(seg_geom *g, int32_t *lens, int64_t n, bool overlap, tb_rng *r,
                        const char *label);

typedef enum {
  SEG_SHAPE_SPEC,
  SEG_SHAPE_ONE_SEGMENT,
  SEG_SHAPE_LONG_MIDDLE,
  SEG_SHAPE_RUNS
} seg_shape;

/* rows rows of len items each (SEG_SHAPE_RUNS). */
typedef struct {
  int64_t rows;
  int32_t len;
} seg_run;

typedef struct {
  seg_shape shape;
  tb_geometry_spec spec; /* SEG_SHAPE_SPEC */
  bool strict;           /* no empty segment (support_empty may be false) */
  int64_t total;         /* items asked for (strict SPEC shapes may add a few) */
  const seg_run *runs;   /* SEG_SHAPE_RUNS: n_runs runs, one after the other */
  int n_runs;
} seg_case;

seg_case seg_spec_case(tb_geometry kind, double avg, bool strict, int64_t total);
/* Rows as runs of one length each; strict when no run is of empty rows. */
seg_case seg_runs_case(const seg_run *runs, int n_runs);

/* The layouts where segmented reduction goes wrong, for a box whose tile
 * holds T items. Strict ones first: strict generator output has its zero
 * counts raised to 1. The others have empty segments, two of them at each
 * end besides what the generator draws. Sizes are a few tiles and, but for
 * all_one (exactly 4 tiles), not a multiple of the tile. out holds up to 16. */
int seg_cases(int64_t T, tb_rng *r, seg_case *out);

/* The four layouts of a plan test for a tile of T items, 3 tiles + 29
 * items each: uniform and fixed (one item past a tile) strict, power-law and
 * all-but-one-empty with empty segments. */
void seg_plan_cases(int64_t T, seg_case out[4]);

bool seg_geom_make(seg_geom *g, const seg_case *c, bool overlap, tb_rng *r);

/* ---- values and outputs ------------------------------------------------------------ */

/* n values of type t on the host and the device. */
typedef struct {
  tb_type t;
  tb_op op;
  int64_t n;
  void *host;
  tb_buffer dev;
} seg_values;

void seg_values_free(seg_values *v);

/* Exact-in-any-order data for op (tb_fill_random), drawn as for `as_n` items
 * (>= n): the first n of them. */
bool seg_values_make_as(seg_values *v, tb_type t, tb_op op, int64_t n, int64_t as_n, tb_rng *r);
bool seg_values_make(seg_values *v, tb_type t, tb_op op, int64_t n, tb_rng *r);

/* Real-valued data, uniform in [-1, 1). */
bool seg_values_make_real(seg_values *v, tb_type t, int64_t n, tb_rng *r);

/* Results on the device and the host, 8 bytes per element whatever the type
 * (want holds doubles for floats, as tb_compare takes them), keys and a run
 * count for reduce-by-key. */
typedef struct {
  int64_t cap;
  void *got, *want;
  int32_t *got_keys, *want_keys;
  tb_buffer dev, dev_keys, dev_num;
} seg_outputs;

void seg_outputs_free(seg_outputs *o);

/* Room for n results. */
bool seg_outputs_reserve(seg_outputs *o, int64_t n);

bool seg_fetch(const tb_buffer *b, void *host, size_t bytes, const char *what);

/* got (n elements of t) against want (t for integers, double for floats);
 * bound NULL: exact. */
bool seg_compare(tb_type t, const void *got, const void *want, const double *bound, int64_t n,
                 const char *what);

/* Every result is the identity of op. */
bool seg_all_identity(tb_type t, tb_op op, const void *got, int64_t n, const char *what);

/* ---- real-valued data: the rounding bound -------------------------------------------- */

/* Rounding depth of one segment's result for a call with box over count
 * items; NULL (the tuned default, which the API may choose per call) takes
 * the worst box of the grid. */
int64_t seg_rounding_depth(tb_type t, const tb_launch_box *box, int64_t count);

/* got against want within tb_sum_error_bound(t, depth, sum_abs[s]). */
void seg_check_real_bound(tb_type t, const double *sum_abs, int64_t depth, int64_t n,
                          const void *got, const void *want, const char *what);

/* ---- plans over no items -------------------------------------------------------------- */

/* Segments (support_empty) over no items: csr all 0. */
bool seg_no_items_geom(seg_geom *g, int32_t num_segments, tb_rng *r);

/* A plan of each kind for t over g (no items, support_empty), and the run
 * count the reduce-by-key preprocess gave, into *h_runs: the apply of each
 * kind and its refusal of the others' plans. */
bool seg_plans_over_no_items(tb_type t, const seg_geom *g, tb_seg_plan **seg, tb_seg_plan **sp,
                             tb_seg_plan **rbk, int64_t *h_runs);

/* ---- bad input -------------------------------------------------------------------------- */

/* A refused preprocess leaves no plan (freed all the same, so that the leak
 * check counts only what the calls themselves kept); call writes to *plan. */
#define EXPECT_NO_PLAN(plan, call, api, ...)     \
  do {                                           \
    plan = NULL;                                 \
    TB_EXPECT_REJECTS((call), api, __VA_ARGS__); \
    CU_ASSERT_PTR_NULL(plan);                    \
    tb_seg_plan_free(plan);                      \
  } while (0)

/* The rules bad input breaks, in the words of the messages: sizes in
 * [0, 2^31), segments and rows in [1, 2^31), the grid, and csr[0] == 0
 * (broken by the fixture's managed and pinned csr). */
extern const char kRange0[], kRange1[], kNotInGrid[], kCsr0[];

/* What the bad-input tests call with: kBadSegments segments of 3 items over
 * kBadCount on the device (csr) and, starting at 5, in managed and in pinned
 * memory; 4096 bytes of zeros (keys, columns, indices, values) and 4096
 * poisoned bytes (out) that no refused call may write; a valid float plan of
 * each kind. */
enum { kBadSegments = 10, kBadCount = 30 };
typedef struct {
  tb_buffer csr, zeros, out;
  int32_t *managed, *pinned;
  tb_seg_plan *seg, *sp, *rbk;
  size_t free_before;
} seg_bad_input;

/* A suite's bad-input test: body on a ready fixture, then the checks that
 * nothing leaked since it was made and nothing was written to out. */
void seg_with_bad_input(void (*body)(seg_bad_input *f));

/* Boxes that are not in t's grid (up to cap of a few candidates), to be
 * refused. */
int seg_boxes_off_grid(tb_type t, tb_launch_box *out, int cap);

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

enum { kGuard = 4096, kCanary = 0x3c };

/* A device array of n elements of `size` bytes with kGuard canary elements
 * on each side; seg_guarded_mid() is what the call gets. */
typedef struct {
  tb_buffer b;
  size_t size;
  int64_t n;
} seg_guarded;

void *seg_guarded_mid(const seg_guarded *g);
bool seg_guarded_make(seg_guarded *g, size_t size, int64_t n);

/* The device after a call on malformed input: healthy, guards intact. Any
 * status is fine. */
bool seg_after_call(tb_status st, const seg_guarded *const *outs, int n_outs, const char *label,
                    const char *call);

typedef struct {
  const char *label;
  const int32_t *csr;     /* num_segments entries */
  const int32_t *sources; /* num_segments entries */
  const int32_t *cols;    /* count entries */
  bool csr_bad;           /* validation (strict) must refuse the csr */
  bool cols_bad;          /* ... or the columns */
} seg_malformed;

/* A malformed descriptor's inputs on the device, each allocated to its exact
 * size, so that memcheck (--sanitizer) sees any read past them: csr and
 * sources (num_segments), cols and values `in` (count), x (x_len, the first
 * values). */
typedef struct {
  tb_buffer csr, sources, cols, in, x;
} seg_malformed_inputs;

/* One malformed case as a suite's calls take it: the descriptor and its
 * sizes and type, its inputs on the device, an output of num_segments
 * values with guard zones, and scratch. */
typedef struct {
  const seg_malformed *mc;
  int32_t num_segments, count, x_len;
  tb_type t;
  seg_malformed_inputs d;
  seg_guarded out;
  tb_buffer scratch;
} seg_malformed_case;

/* Runs `run` (which returns false once the context is lost: it fails
 * everything after) on thirteen malformed descriptors: offsets random,
 * descending, past 0 at the start, extreme, spiking past count, huge,
 * past count at the end, empty segments; sources and columns out of range;
 * then offsets random, descending and past count under rows of 48 items on
 * average (the tiles that wait on published limits). Each case is made
 * before and freed after its run. */
void seg_for_each_malformed(bool (*run)(seg_malformed_case *c));

/* seg_after_call for a call of case c that writes its output alone. */
bool seg_case_after(const seg_malformed_case *c, tb_status st, const char *call);

/* ---- the forms (segreduce_forms.c) ----------------------------------------------------- */

/* The family's three forms over a CSR geometry: segmented reduction over
 * values, SpMV over a matrix (columns and x), reduce-by-key over keys whose
 * runs are the geometry's non-empty segments. Each has a reference check
 * here; the tests they share (real data against the rounding bound,
 * preprocess + apply, plans over no items and of the wrong kind) run from
 * one table of the forms, which seg_suite_main adds to a suite's own. */
typedef enum { SEG_SEGREDUCE, SEG_SPMV, SEG_REDUCE_BY_KEY, SEG_FORM_COUNT } seg_form_kind;

/* tb_test_main over the suite's own tests and the shared ones (this file's
 * TB_TESTs), for form kind. */
int seg_suite_main(int argc, char **argv, const char *suite, seg_form_kind kind);

/* Mean row lengths at the steps of the rows path's group width
 * (tb_seg_rows_lanes) into out (up to 18): for each width g,
 * TB_SEG_ROWS_UNROLL * g, one more where every, and one more than the
 * group's longest row (tb_seg_rows_long). Returns how many. */
int seg_rows_step_lengths(int64_t *out, bool every);

/* The every-case sweep of form kind, a suite's own first test: every type x
 * box of the grid (and the tuned default) x case of the form's sweep x
 * operator swept at that box, each variant of the form's call against the
 * reference; it stops after kMaxFailures failed checks. stream: the
 * tb_test_rng stream it draws from. */
void seg_every_case(seg_form_kind kind, uint64_t stream);

/* Segmented reduction: poisons, runs tb_segreduce_csr and downloads (what
 * gets the case); the same compared with the reference; a plan's apply
 * compared with it. */
bool seg_run_segreduce(const seg_geom *g, const seg_values *v, bool indirect, bool support_empty,
                       const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o, char *what,
                       size_t what_cap);
bool seg_check_segreduce(const seg_geom *g, const seg_values *v, bool indirect, bool support_empty,
                         const tb_launch_box *box, tb_buffer *scratch, seg_outputs *o);
/* tb_segreduce_fixed over g, whose segments all have segment_size items. */
bool seg_check_fixed(const seg_geom *g, const seg_values *v, int64_t segment_size,
                     tb_buffer *scratch, seg_outputs *o);
bool seg_check_apply(const tb_seg_plan *plan, const seg_geom *g, const seg_values *v,
                     tb_buffer *scratch, seg_outputs *o, const char *what);

/* A CSR matrix: rows from a geometry (nz = g.count), random columns in
 * [0, x_len). */
typedef struct {
  seg_geom g;
  int32_t x_len;
  int32_t *cols;
  tb_buffer d_cols;
} seg_spmat;

void seg_spmat_free(seg_spmat *m);
bool seg_spmat_make(seg_spmat *m, const seg_case *c, bool overlap, int32_t x_len, tb_rng *r);

/* SpMV data for (t, add_op): the matrix from {1, -1} (floats) or
 * {1, -1, 2, 3} (integers), x drawn for add_op as for a reduction of
 * max(x_len, nz) terms, so every row's partial results are exact. */
typedef struct {
  seg_values matrix, x;
} seg_spvals;

void seg_spvals_free(seg_spvals *sv);
bool seg_spvals_make(seg_spvals *sv, tb_type t, tb_op add_op, const seg_spmat *m, tb_rng *r);

/* One SpMV call (unary or binary, direct or indirect) against the reference. */
bool seg_check_spmv(const seg_spmat *m, const seg_spvals *sv, tb_op add_op, bool binary,
                    bool indirect, bool support_empty, const tb_launch_box *box, tb_buffer *scratch,
                    seg_outputs *o);

/* Keys whose runs have the lengths of a geometry's non-empty segments. */
typedef struct {
  char name[260];
  int32_t count;
  int32_t *keys;
  tb_buffer d_keys;
} seg_keyset;

void seg_keyset_free(seg_keyset *k);

/* mode 0: random int32 keys; 1: alternating 0 / 1 (every key comes back);
 * 2: keys from {0..3}; 3: ascending run numbers. Consecutive runs always get
 * different keys. */
bool seg_keyset_make(seg_keyset *k, const seg_geom *g, int mode, tb_rng *r);

/* A run count against the reference's (which: where it was read). */
bool seg_count_matches(int64_t got, int64_t want, const char *what, const char *which);

/* One tb_reduce_by_key. variant bit 0: keys out; bits 1-2: the run count to
 * the host (0), the device (1), both (2), neither (3). */
bool seg_check_rbk(const seg_keyset *k, const seg_values *v, int variant, const tb_launch_box *box,
                   tb_buffer *scratch, seg_outputs *o);

#endif
