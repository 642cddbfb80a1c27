/* GPU name -> path-safe slug, as used in results/<arch>/<gpu>/. No CUDA. */
#ifndef TB_CORE_SLUG_H
#define TB_CORE_SLUG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3": lower case, a leading "nvidia"
 * word dropped, runs of non-alphanumerics become one '-', no '-' at either
 * end; "unknown" if nothing is left. Truncated to fit cap (incl. the NUL). */
void tb_gpu_slug(const char *name, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
