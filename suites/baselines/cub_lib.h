/* Which CUB a baseline runs: the CUDA toolkit's, or the newest CCCL's, pinned
 * by tools/cccl/fetch.sh. Both are measured: neither is faster everywhere
 * (the toolkit's scans faster on the H100, the newer one has the
 * longest-segment hint, the fixed-size overloads and a merge-path search). */
#ifndef TB_SUITES_BASELINES_CUB_LIB_H
#define TB_SUITES_BASELINES_CUB_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tb_cub_lib {
  TB_CUB_TOOLKIT, /* rows "cub" */
  TB_CUB_LATEST,  /* rows "cub35" */
  TB_CUB_LIB_COUNT
} tb_cub_lib;

/* The impl name of lib's rows ("cub", "cub35"). */
const char *tb_cub_lib_name(tb_cub_lib lib);

/* lib's CUB version, "3.0.1" (from CUB_VERSION as compiled). */
const char *tb_cub_lib_version(tb_cub_lib lib);

/* note(name, version) for each CUB: a sweep passes tb_sweep_note_version, so
 * that its result records both. */
void tb_cub_note_versions(void (*note)(const char *library, const char *version));

#ifdef __cplusplus
}
#endif

/* X(type name) for each element type a baseline is compiled for. */
#define TB_FOR_EACH_TYPE(X) X(int32) X(int64) X(float) X(double)

/* For the C side of a baseline compiled once per CUB and type as
 * tb_<cub>_<function>_<type>: returns CALL(cub or cub35, type name), or
 * fails for a type with no build. Needs core/cuda.h (tb_fail). */
#define TB_CUB_PICK(lib, type, CALL)                                                             \
  switch ((type) * TB_CUB_LIB_COUNT + (lib)) {                                               \
    case TB_INT32 * TB_CUB_LIB_COUNT + TB_CUB_TOOLKIT: return CALL(cub, int32);              \
    case TB_INT64 * TB_CUB_LIB_COUNT + TB_CUB_TOOLKIT: return CALL(cub, int64);              \
    case TB_FLOAT * TB_CUB_LIB_COUNT + TB_CUB_TOOLKIT: return CALL(cub, float);              \
    case TB_DOUBLE * TB_CUB_LIB_COUNT + TB_CUB_TOOLKIT: return CALL(cub, double);            \
    case TB_INT32 * TB_CUB_LIB_COUNT + TB_CUB_LATEST: return CALL(cub35, int32);             \
    case TB_INT64 * TB_CUB_LIB_COUNT + TB_CUB_LATEST: return CALL(cub35, int64);             \
    case TB_FLOAT * TB_CUB_LIB_COUNT + TB_CUB_LATEST: return CALL(cub35, float);             \
    case TB_DOUBLE * TB_CUB_LIB_COUNT + TB_CUB_LATEST: return CALL(cub35, double);           \
    default:                                                                                 \
      return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUB baseline: no %s build for type %d",       \
                     tb_cub_lib_name(lib), (int)(type));                                     \
  }

#endif
