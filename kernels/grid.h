/* Internal: a family's launch-box grid as its translation units compile it
 * (kernels/dispatch.cuh), and the one box resolution every entry point
 * uses. */
#ifndef TB_KERNELS_GRID_H
#define TB_KERNELS_GRID_H

#include "kernels/tilebench.h"

#ifdef __cplusplus
extern "C" {
#endif

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
} tb_grid;

/* *out = box, or def for NULL / {0, 0}; a box that would not run is
 * rejected with a message that says why. type TB_TYPE_COUNT: the family
 * has no element type (lbs). */
tb_status tb_resolve_box(const char *fn, const tb_grid *grid, tb_type type, tb_op op,
                         const tb_launch_box *box, tb_launch_box def, tb_launch_box *out);

#ifdef __cplusplus
}
#endif
#endif
