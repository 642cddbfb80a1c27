/* The one box resolution of every entry point (kernels/grid.h). */
#include "kernels/grid.h"

#include <stdbool.h>

#include "core/status.h"
#include "core/types.h"

static bool before(tb_launch_box a, tb_launch_box b) {
  return a.nt < b.nt || (a.nt == b.nt && a.vt < b.vt);
}

static int list_none(tb_op op, tb_launch_box *out, int cap) {
  (void)op, (void)out, (void)cap;
  return 0;
}
static tb_box_verdict verdict_none(tb_op op, tb_launch_box box) {
  (void)op, (void)box;
  return TB_BOX_NOT_IN_GRID;
}
const tb_grid tb_no_grid = {"none", list_none, verdict_none, NULL};

int tb_grid_list(const tb_grid *const *sets, tb_op op, tb_launch_box *out, int cap) {
  tb_launch_box all[256];
  int n = 0;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) n += sets[s]->list(op, all + n, 256 - n);
  for (int i = 1; i < n; ++i) /* insertion sort: a grid has a few dozen boxes */
    for (int j = i; j > 0 && before(all[j], all[j - 1]); --j) {
      const tb_launch_box t = all[j];
      all[j] = all[j - 1], all[j - 1] = t;
    }
  for (int i = 0; i < n && i < cap; ++i) out[i] = all[i];
  return n;
}

int tb_grid_set_of(const tb_grid *const *sets, tb_op op, tb_launch_box box) {
  for (int s = 0; s < TB_KERNEL_SETS; ++s)
    if (sets[s]->verdict(op, box) == TB_BOX_RUNS) return s;
  return -1;
}

/* What a call at box meets in the library: runs in some set; else too large
 * or not compiled where a set says so; else not in the grid. */
static tb_box_verdict verdict(const tb_grid *const *sets, tb_op op, tb_launch_box box) {
  tb_box_verdict v = TB_BOX_NOT_IN_GRID;
  for (int s = 0; s < TB_KERNEL_SETS; ++s) {
    const tb_box_verdict w = sets[s]->verdict(op, box);
    if (w == TB_BOX_RUNS || w == TB_BOX_TOO_LARGE) return w;
    if (w == TB_BOX_NOT_COMPILED) v = w;
  }
  return v;
}

tb_status tb_resolve_box(const char *fn, const tb_grid *const *sets, tb_type type, tb_op op,
                         const tb_launch_box *box, tb_launch_box def, tb_launch_box *out) {
  const tb_grid *grid = sets[0];
  const bool given = box && (box->nt != 0 || box->vt != 0);
  const tb_launch_box b = given ? *box : def;
  const char *over = type < TB_TYPE_COUNT ? " over " : "";
  const char *type_name = type < TB_TYPE_COUNT ? tb_type_name(type) : "";
  switch (verdict(sets, op, b)) {
    case TB_BOX_RUNS: *out = b; return TB_OK;
    case TB_BOX_NOT_IN_GRID:
      if (!given) break;
      if (grid->rule)
        return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: launch box %dx%d is not in the %s grid (%s)",
                       fn, b.nt, b.vt, grid->family, grid->rule);
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: launch box %dx%d is not in the %s grid (tb_%s_grid lists it)", fn, b.nt,
                     b.vt, grid->family, grid->family);
    case TB_BOX_TOO_LARGE:
      if (!given) break;
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: launch box %dx%d does not fit in shared memory for %s%s%s", fn, b.nt,
                     b.vt, grid->family, over, type_name);
    case TB_BOX_NOT_COMPILED:
      if (!given) break;
      return tb_fail(TB_ERR_INVALID_ARGUMENT,
                     "%s: launch box %dx%d is not compiled for %s%s%s with operator %s: this "
                     "build has it at the tuned boxes only (tb_%s_grid lists them)",
                     fn, b.nt, b.vt, grid->family, over, type_name, tb_op_name(op), grid->family);
  }
  /* The generated tables are checked against the grids by defaults_test. */
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: the tuned %s box %dx%d%s%s does not run in this build", fn,
                 grid->family, b.nt, b.vt, over, type_name);
}
