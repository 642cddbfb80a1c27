/* Run metadata carried in every result file: which run, GPU, driver,
 * toolkit, measured copy bandwidth and project commit. */
#ifndef TB_CORE_META_H
#define TB_CORE_META_H

#include <time.h>

#include "core/cuda.h"
#include "core/slug.h"  /* tb_gpu_slug (CPU only, in :base) */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_run_meta {
  tb_device_info device;
  char arch[16];        /* "sm_90" */
  char gpu_slug[128];   /* "h100-80gb-hbm3": lower case, runs of non-alnum -> '-', no "nvidia-" */
  char driver[96];      /* the driver's version, "580.95.05", from NVML (core/nvml.h;
                           the sweep fills it), "" where NVML is not available */
  char cuda_driver_api[32]; /* "13.0": the CUDA version the driver supports */
  char runtime[32];     /* "13.0" */
  char commit[64];      /* $TB_COMMIT, else the build-time stamp, else "unknown" */
  double copy_gbps;     /* device-to-device copy, GB/s counting read + write */
  char device_id[320];  /* "<host>:<PCI bus id>": the board that measured, across hosts */
  char run_id[320];     /* "20261124T014549Z-<host>-<pid>": this process's run, unique */
  char run_date[32];    /* "2026-11-24T01:45:49Z": when it started (ISO 8601, UTC) */
} tb_run_meta;

/* Fills everything; measures copy bandwidth with a 1 GiB (or 1/8 of memory,
 * whichever is less) device-to-device copy, median of 10 after 2 warm-ups. */
tb_status tb_run_meta_collect(tb_run_meta *m);

/* m->device_id = "<this host's name>:<board>". */
void tb_run_meta_set_device_id(tb_run_meta *m, const char *board);

/* m->run_id and m->run_date for a run of this process started at `start`. */
void tb_run_meta_set_run(tb_run_meta *m, time_t start);

#ifdef __cplusplus
}
#endif
#endif
