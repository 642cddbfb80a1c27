/* The one box resolution of every entry point (kernels/grid.h). */
#include "kernels/grid.h"

#include <stdbool.h>

#include "core/status.h"
#include "core/types.h"

tb_status tb_resolve_box(const char *fn, const tb_grid *grid, tb_type type, tb_op op,
                         const tb_launch_box *box, tb_launch_box def, tb_launch_box *out) {
  const bool given = box && (box->nt != 0 || box->vt != 0);
  const tb_launch_box b = given ? *box : def;
  const char *over = type < TB_TYPE_COUNT ? " over " : "";
  const char *type_name = type < TB_TYPE_COUNT ? tb_type_name(type) : "";
  switch (grid->verdict(op, b)) {
    case TB_BOX_RUNS: *out = b; return TB_OK;
    case TB_BOX_NOT_IN_GRID:
      if (!given) break;
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
