/* Internal, for the host (segreduce_api.c) and the tile (CtaSegReduce)
 * alike: which direct tiles hold a row mark per item. */
#ifndef TB_KERNELS_SEG_TILE_H
#define TB_KERNELS_SEG_TILE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/tilebench.h"

#ifdef __cplusplus
#define TB_SEG_CONSTEXPR constexpr
#else
#define TB_SEG_CONSTEXPR
#endif

/* Static shared memory a segmented tile may take (of the 48 KiB a CTA gets
 * without opting in), leaving room for the scan's and the hand-off's. */
#define TB_SEG_TILE_BUDGET (46 * 1024)

/* Whether the direct tiles at box (nt x vt, elem-byte values) hold a
 * 32-bit row mark per item, which empty segments need: all but the boxes
 * wider than a plan whose values and a bit per item fit the budget (4-byte
 * values at 512x21), which keep only the bits; the API sends their calls
 * with support_empty through the prepass. */
static inline TB_SEG_CONSTEXPR bool tb_seg_tile_marks(size_t elem, int nt, int vt) {
  return vt <= TB_SEG_PLAN_MAX_VT ||
         elem * (size_t)nt * (size_t)vt + 4 * (size_t)nt > TB_SEG_TILE_BUDGET;
}

#endif
