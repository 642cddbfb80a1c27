#define _POSIX_C_SOURCE 200809L /* gethostname */
#include "core/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/timing.h"

static void version_string(int v, char *out, size_t cap) {
  snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { COPY_WARMUPS = 2, COPY_RUNS = 10 };

/* Device-to-device copy bandwidth in GB/s, counting the read and the write. */
static tb_status measure_copy(const tb_device_info *dev, double *gbps) {
  size_t bytes = dev->global_bytes / 8;
  if (bytes > ((size_t)1 << 30)) bytes = (size_t)1 << 30;
  if (bytes == 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "device reports no global memory");

  tb_status st = TB_OK;
  tb_buffer src = {0}, dst = {0};
  tb_timer timer = {0};
  cudaStream_t stream = NULL;
  double times[COPY_RUNS];

  if ((st = tb_buffer_alloc(&src, bytes)) != TB_OK) goto done;
  if ((st = tb_buffer_alloc(&dst, bytes)) != TB_OK) goto done;
  TB_CUDA_GOTO(st, done, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  if ((st = tb_timer_create(&timer, stream)) != TB_OK) goto done;
  /* Initialised source: copies of never-written memory trip initcheck. */
  TB_CUDA_GOTO(st, done, cudaMemsetAsync(src.ptr, 1, bytes, stream));
  for (int i = 0; i < COPY_WARMUPS + COPY_RUNS; ++i) {
    double s = 0.0;
    if ((st = tb_timer_start(&timer)) != TB_OK) goto done;
    TB_CUDA_GOTO(st, done, cudaMemcpyAsync(dst.ptr, src.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
    if ((st = tb_timer_stop(&timer, &s)) != TB_OK) goto done;
    if (i >= COPY_WARMUPS) times[i - COPY_WARMUPS] = s;
  }
  qsort(times, COPY_RUNS, sizeof times[0], cmp_double);
  double median = 0.5 * (times[COPY_RUNS / 2 - 1] + times[COPY_RUNS / 2]);
  if (median <= 0.0) {
    st = tb_fail(TB_ERR_CUDA, "copy bandwidth: events measured %g s for %zu bytes", median, bytes);
    goto done;
  }
  *gbps = 2.0 * (double)bytes / median / 1e9;

done:
  tb_timer_destroy(&timer);
  if (stream != NULL) (void)cudaStreamDestroy(stream);
  tb_buffer_free(&dst);
  tb_buffer_free(&src);
  return st;
}

static void host_name(char *host, size_t cap) {
  if (gethostname(host, cap) != 0) snprintf(host, cap, "unknown-host");
  host[cap - 1] = '\0';
}

void tb_run_meta_set_device_id(tb_run_meta *m, const char *board) {
  char host[256];
  host_name(host, sizeof host);
  snprintf(m->device_id, sizeof m->device_id, "%s:%s", host, board);
}

void tb_run_meta_set_run(tb_run_meta *m, time_t start) {
  struct tm utc;
  char host[256], stamp[32] = "00000000T000000Z";
  host_name(host, sizeof host);
  if (gmtime_r(&start, &utc)) {
    strftime(m->run_date, sizeof m->run_date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  }
  /* Time, host and process: unique among the shards of one sweep, which
   * start within a second of each other on one host. */
  snprintf(m->run_id, sizeof m->run_id, "%s-%s-%ld", stamp, host, (long)getpid());
}

tb_status tb_run_meta_collect(tb_run_meta *m) {
  if (m == NULL) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_run_meta_collect: m is NULL");
  memset(m, 0, sizeof *m);
  TB_TRY(tb_device_get(&m->device));
  snprintf(m->arch, sizeof m->arch, "sm_%d%d", m->device.sm_major, m->device.sm_minor);
  tb_gpu_slug(m->device.name, m->gpu_slug, sizeof m->gpu_slug);
  version_string(m->device.driver_version, m->cuda_driver_api, sizeof m->cuda_driver_api);
  version_string(m->device.runtime_version, m->runtime, sizeof m->runtime);

  const char *commit = getenv("TB_COMMIT");
#ifdef TB_BUILD_COMMIT
  if (commit == NULL || commit[0] == '\0') commit = TB_BUILD_COMMIT;
#endif
  if (commit == NULL || commit[0] == '\0') commit = "unknown";
  snprintf(m->commit, sizeof m->commit, "%s", commit);
  tb_run_meta_set_device_id(m, m->device.pci_bus_id);

  return measure_copy(&m->device, &m->copy_gbps);
}
