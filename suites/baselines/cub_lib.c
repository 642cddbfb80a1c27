/* The two CUBs' names and versions (cub_version.cu, compiled against each). */
#include "suites/baselines/cub_lib.h"

const char *cub_version(void);
const char *cub35_version(void);

const char *tb_cub_lib_name(tb_cub_lib lib) { return lib == TB_CUB_LATEST ? "cub35" : "cub"; }

const char *tb_cub_lib_version(tb_cub_lib lib) {
  return lib == TB_CUB_LATEST ? cub35_version() : cub_version();
}

void tb_cub_note_versions(void (*note)(const char *library, const char *version)) {
  for (int lib = 0; lib < TB_CUB_LIB_COUNT; ++lib)
    note(tb_cub_lib_name((tb_cub_lib)lib), tb_cub_lib_version((tb_cub_lib)lib));
}
