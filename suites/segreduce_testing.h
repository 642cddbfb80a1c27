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

/* A device copy of `bytes` of host data (at least 16 bytes are allocated, so
 * that an empty array is still a valid pointer). */
bool seg_upload(tb_buffer *b, const void *host, size_t bytes);

/* Fills bytes of device memory with kPoison. */
bool poison(void *d, size_t bytes);

int32_t *alloc_i32(int64_t n);

bool op_fits(tb_type t, int op);

/* The operators the type x box sweeps run: every one that fits, or under
 * --quick plus, max and (integers) bit_and; under a sanitizer only plus:
 * every kernel and box still runs, and the other operators change no memory
 * access. */
bool op_swept(tb_type t, int op);

/* Whether a sweep runs support_empty `se` on a geometry: only true where
 * there are empty segments; both ways on strict ones (under --quick one way,
 * alternating with the form). */
bool mode_swept(bool strict, int se, int form);

/* The boxes of the family's grid for t. */
int grid_of(tb_type t, tb_launch_box *out);

/* Whether grid (tb_segreduce_grid or tb_reduce_by_key_grid) lists box for op
 * (NULL: the tuned default, always): the grid is plus's, the other
 * operators are compiled at the tuned boxes. */
bool in_op_grid(int (*grid)(tb_type, tb_op, tb_launch_box *, int), tb_type t, int op,
                const tb_launch_box *box);
bool op_at_box(tb_type t, int op, const tb_launch_box *box);

/* op_swept, where the build has op at box. */
bool op_swept_at(tb_type t, int op, const tb_launch_box *box);

/* The boxes the plan and real-data tests run at: the tuned default (NULL),
 * the grid's first and its last that a plan takes (VT up to
 * TB_SEG_PLAN_MAX_VT), pointing into grid. */
void edge_boxes(tb_type t, tb_launch_box grid[kMaxBoxes], const tb_launch_box *boxes[3]);

/* Under --quick / --sanitizer (every launch many times slower there) the
 * first, a middle and the last box of the grid; all of them otherwise. */
bool box_selected(int i, int n);

/* Items per tile of the box a call runs with (box, or the tuned default for
 * NULL / {0, 0}): segreduce's and reduce-by-key's preprocess, and SpMV's
 * (tb_spmv_default_box), whose tile edges its geometries must meet. A plain
 * SpMV call with a NULL box runs its row length's box instead
 * (tb_spmv_default_box_for), whose edges the grid's explicit boxes meet. */
int64_t tile_of(tb_type t, const tb_launch_box *box);
int64_t spmv_tile_of(tb_type t, const tb_launch_box *box);

/* "fn type op form box=.. geometry (seed N)": the case, for failure messages. */
void describe(char *out, size_t cap, const char *fn, tb_type t, tb_op op, const char *form,
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
} geom;

void geom_free(geom *g);

/* Takes lens (n of them) over; label names the geometry. */
bool geom_from_lens(geom *g, int32_t *lens, int64_t n, bool overlap, tb_rng *r, const char *label);

typedef enum { SHAPE_SPEC, SHAPE_ONE_SEGMENT, SHAPE_LONG_MIDDLE } geo_shape;

typedef struct {
  geo_shape shape;
  tb_geometry_spec spec; /* SHAPE_SPEC */
  bool strict;           /* no empty segment (support_empty may be false) */
  int64_t total;         /* items asked for (strict SPEC shapes may add a few) */
} geo_case;

geo_case spec_case(tb_geometry kind, double avg, bool strict, int64_t total);

/* The layouts where segmented reduction goes wrong, for a box whose tile
 * holds T items. Strict ones first (*n_strict of them): strict generator
 * output has its zero counts raised to 1. The others have empty segments,
 * two of them at each end besides what the generator draws. Sizes are a few
 * tiles and, but for all_one (exactly 4 tiles), not a multiple of the tile.
 * out holds up to 16. */
int geo_cases(int64_t T, tb_rng *r, geo_case *out, int *n_strict);

/* The four layouts of a plan test for a tile of T items, 3 tiles + 29
 * items each: uniform and fixed (one item past a tile) strict, power-law and
 * all-but-one-empty with empty segments. */
void plan_cases(int64_t T, geo_case out[4]);

bool geom_make(geom *g, const geo_case *c, bool overlap, tb_rng *r);

/* ---- values and outputs ------------------------------------------------------------ */

/* n values of type t on the host and the device. */
typedef struct {
  tb_type t;
  tb_op op;
  int64_t n;
  void *host;
  tb_buffer dev;
} values;

void values_free(values *v);

/* Exact-in-any-order data for op (tb_fill_random), drawn as for `as_n` items
 * (>= n): the first n of them. */
bool values_make_as(values *v, tb_type t, tb_op op, int64_t n, int64_t as_n, tb_rng *r);
bool values_make(values *v, tb_type t, tb_op op, int64_t n, tb_rng *r);

/* Real-valued data, uniform in [-1, 1). */
bool values_make_real(values *v, tb_type t, int64_t n, tb_rng *r);

/* Results on the device and the host, 8 bytes per element whatever the type
 * (want holds doubles for floats, as tb_compare takes them), keys and a run
 * count for reduce-by-key. */
typedef struct {
  int64_t cap;
  void *got, *want;
  int32_t *got_keys, *want_keys;
  tb_buffer dev, dev_keys, dev_num;
} outputs;

void outputs_free(outputs *o);

/* Room for n results. */
bool outputs_reserve(outputs *o, int64_t n);

bool seg_fetch(const tb_buffer *b, void *host, size_t bytes, const char *what);

/* got (n elements of t) against want (t for integers, double for floats);
 * bound NULL: exact. */
bool seg_compare(tb_type t, const void *got, const void *want, const double *bound, int64_t n,
                 const char *what);

/* Every result is the identity of op. */
bool all_identity(tb_type t, tb_op op, const void *got, int64_t n, const char *what);

/* ---- real-valued data: the rounding bound -------------------------------------------- */

/* Rounding depth of one segment's result for a call with box over count
 * items; NULL (the tuned default, which the API may choose per call) takes
 * the worst box of the grid. */
int64_t rounding_depth_for(tb_type t, const tb_launch_box *box, int64_t count);

/* got against want within tb_sum_error_bound(t, depth, sum_abs[s]). */
void check_real_bound(tb_type t, const double *sum_abs, int64_t depth, int64_t n, const void *got,
                      const void *want, const char *what);

/* ---- plans over no items -------------------------------------------------------------- */

/* Segments (support_empty) over no items: csr all 0. */
bool no_items_geom(geom *g, int32_t num_segments, tb_rng *r);

/* A plan of each kind for t over g (no items, support_empty), and the run
 * count the reduce-by-key preprocess gave, into *h_runs: the apply of each
 * kind and its refusal of the others' plans. */
bool plans_over_no_items(tb_type t, const geom *g, tb_seg_plan **seg, tb_seg_plan **sp,
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
} bad_input;

/* Whether the fixture is ready; frees nothing (bad_input_end does). */
bool bad_input_begin(bad_input *f);
/* Nothing leaked since bad_input_begin, nothing written to out. */
void bad_input_check_clean(const bad_input *f);
void bad_input_end(bad_input *f);

/* Boxes that are not in t's grid (up to cap of a few candidates), to be
 * refused. */
int boxes_off_grid(tb_type t, tb_launch_box *out, int cap);

/* ---- malformed descriptors stay memory safe --------------------------------------------- */

enum { kGuard = 4096, kCanary = 0x3c };

/* A device array of n elements of `size` bytes with kGuard canary elements
 * on each side; guarded_mid() is what the call gets. */
typedef struct {
  tb_buffer b;
  size_t size;
  int64_t n;
} guarded;

void *guarded_mid(const guarded *g);
bool guarded_make(guarded *g, size_t size, int64_t n);

/* The device after a call on malformed input: healthy, guards intact. Any
 * status is fine. */
bool after_call(tb_status st, const guarded *const *outs, int n_outs, const char *label,
                const char *call);

typedef struct {
  const char *label;
  const int32_t *csr;     /* num_segments entries */
  const int32_t *sources; /* num_segments entries */
  const int32_t *cols;    /* count entries */
  bool csr_bad;           /* validation (strict) must refuse the csr */
  bool cols_bad;          /* ... or the columns */
} malformed;

/* A malformed descriptor's inputs on the device, each allocated to its exact
 * size, so that memcheck (--sanitizer) sees any read past them: csr and
 * sources (num_segments), cols and values `in` (count), x (x_len, the first
 * values). */
typedef struct {
  tb_buffer csr, sources, cols, in, x;
} malformed_inputs;

bool malformed_upload(malformed_inputs *d, const malformed *mc, int32_t num_segments, int32_t count,
                      int32_t x_len, tb_type t, tb_rng *r);
void malformed_inputs_free(malformed_inputs *d);

/* Runs `run` (which returns false once the context is lost: it fails
 * everything after) on thirteen malformed descriptors: offsets random,
 * descending, past 0 at the start, extreme, spiking past count, huge,
 * past count at the end, empty segments; sources and columns out of range;
 * then offsets random, descending and past count under rows of 48 items on
 * average (the tiles that wait on published limits). */
void for_each_malformed(bool (*run)(const malformed *mc, int32_t num_segments, int32_t count,
                                    int32_t x_len, tb_type t, tb_rng *r));

#endif
