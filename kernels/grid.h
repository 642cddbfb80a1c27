/* Internal: a family's launch-box grid as its translation units compile it
 * (kernels/dispatch.cuh), and the one box resolution every entry point
 * uses.
 *
 * Each family and type is compiled in kernel sets that split its grid: the
 * tuned set (every operator at the tuned boxes), which the installed
 * library holds alone, and the wide set (plus at the other boxes), which
 * the library of the tests and sweeps adds (built with TB_WIDE_SET). Each
 * family's entry file exports its sets' resolutions and grids by name
 * (tb_scan_resolve, tb_scan_resolve_wide, ...). */
#ifndef TB_KERNELS_GRID_H
#define TB_KERNELS_GRID_H

#include "kernels/tilebench.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef TB_WIDE_SET
enum { TB_KERNEL_SETS = 2 };
#else
enum { TB_KERNEL_SETS = 1 };
#endif

/* The tiles of count items at box: the one tile arithmetic of the launch
 * code and of the scratch it is sized for. */
static inline int64_t tb_tiles(int64_t count, tb_launch_box box) {
  const int64_t tile = (int64_t)box.nt * box.vt;
  return (count + tile - 1) / tile;
}

/* What a call at a box would meet. */
typedef enum tb_box_verdict {
  TB_BOX_RUNS,
  TB_BOX_NOT_IN_GRID,  /* not a box of the family's .def */
  TB_BOX_TOO_LARGE,    /* its tile does not fit in shared memory for the type */
  TB_BOX_NOT_COMPILED, /* this build has the operator at the tuned boxes only */
} tb_box_verdict;

/* A family's grid for one element type, exported by the translation unit
 * that launches it: the boxes that run for op (their count; at most cap
 * written to out) and the verdict on any box. Families without operators
 * ignore op. */
typedef struct tb_grid {
  const char *family; /* "scan": names tb_scan_grid, which lists the boxes */
  int (*list)(tb_op op, tb_launch_box *out, int cap);
  tb_box_verdict (*verdict)(tb_op op, tb_launch_box box);
  /* The rule a box must meet, where the family runs more boxes than its
   * list (omp_reduce: any nt); NULL: the list is the rule. */
  const char *rule;
} tb_grid;

/* A family's grid in each kernel set, for one type: what the functions
 * below take as sets (.set). */
typedef struct tb_grid_sets {
  const tb_grid *set[TB_KERNEL_SETS];
} tb_grid_sets;

/* sets: a family's TB_KERNEL_SETS grids for one type (a family with one
 * kernel set gives tb_no_grid as the wide one). */
extern const tb_grid tb_no_grid;

/* The boxes any set runs for op, in (nt, vt) order, which is the .def's:
 * their count, at most cap written to out. */
int tb_grid_list(const tb_grid *const *sets, tb_op op, tb_launch_box *out, int cap);

/* The set that runs box for op, or -1. */
int tb_grid_set_of(const tb_grid *const *sets, tb_op op, tb_launch_box box);

/* *out = box, or def for NULL / {0, 0}; a box that no set runs is rejected
 * with a message that says why. type TB_TYPE_COUNT: the family has no
 * element type (lbs). */
tb_status tb_resolve_box(const char *fn, const tb_grid *const *sets, tb_type type, tb_op op,
                         const tb_launch_box *box, tb_launch_box def, tb_launch_box *out);

#ifdef __cplusplus
}
#endif
#endif
