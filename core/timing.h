/* GPU timing with CUDA events, and an optional L2 flush between iterations. */
#ifndef TB_CORE_TIMING_H
#define TB_CORE_TIMING_H

#include <cuda_runtime_api.h>
#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_timer { cudaEvent_t start, stop; cudaStream_t stream; } tb_timer;

tb_status tb_timer_create(tb_timer *t, cudaStream_t stream);
void tb_timer_destroy(tb_timer *t);
tb_status tb_timer_start(tb_timer *t);
/* Records the stop event, waits for it, and returns the elapsed seconds. */
tb_status tb_timer_stop(tb_timer *t, double *seconds);

/* Evicts the L2 by writing a buffer twice its size (allocated on first use,
 * released by tb_l2_flush_release). */
tb_status tb_l2_flush(cudaStream_t stream);
void tb_l2_flush_release(void);

#ifdef __cplusplus
}
#endif
#endif
