/* A stand-in for libcupti.so with a fixed timeline, for the tests of
 * core/trace.c and of the rows a traced sweep writes (sweep_test.sh) on a
 * machine without a GPU: loaded through $TB_CUPTI_LIBRARY.
 *
 * Its clock (cuptiGetTimestamp) starts at 1000 s and moves 50 us a reading.
 * A trace starts when the kernel kind is enabled; its first reading after
 * that is the call's start (t0), the next its return (t0 + 50 us). The flush
 * that follows hands over, in CUPTI 13's record layouts, a call that
 * (times in us from t0)
 *
 *   runtime cudaMemsetAsync        1-4,   its driver cuMemsetD8Async 2-3.5
 *   runtime cudaLaunchKernel       5-9,   its driver cuLaunchKernel  6-8
 *   driver  cuStreamQuery         10-11   (made directly)
 *   memset  4096 B                12-13
 *   kernel  tb::reduce<int, 4>    15-23   (mangled, as CUPTI gives it)
 *   kernel  plain_kernel          22-30   (extern "C"; overlaps the first)
 *   runtime cudaStreamSynchronize 31-35   and its sync (stream)
 *   memcpy  DtoH 8 B              32-34
 *
 * and, after the return, the caller's cudaDeviceSynchronize 60-70 with its
 * cuCtxSynchronize 61-69 and sync (context): 2 kernels, 1 memset, 1 memcpy,
 * 4 API calls (3 runtime, 3 driver of which 1 direct) over 12 us, 1 sync,
 * first GPU work at 12 us, GPU span 22 us with 16 us of kernels and 4 us of
 * gaps, 50 us on the host.
 *
 * $TB_FAKE_CUPTI_VERSION=V reports API version V; $TB_FAKE_CUPTI_NO_SYNC
 * refuses the synchronization kind, as a CUPTI without it does. */
#include <cupti.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static CUpti_BuffersCallbackRequestFunc g_request;
static CUpti_BuffersCallbackCompleteFunc g_complete;
static uint64_t g_clock = 1000000000000ull;
static uint64_t g_t0;
static bool g_tracing, g_have_t0, g_pending;
static bool g_kinds[64]; /* enabled at any time since the trace started */

CUptiResult cuptiGetVersion(uint32_t *version) {
  const char *v = getenv("TB_FAKE_CUPTI_VERSION");
  *version = v ? (uint32_t)strtoul(v, NULL, 10) : CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **str) {
  *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "fake CUPTI error";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *timestamp) {
  *timestamp = g_clock;
  if (g_tracing && !g_have_t0) g_t0 = g_clock, g_have_t0 = true;
  g_clock += 50000;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                           CUpti_BuffersCallbackCompleteFunc complete) {
  if (!request || !complete) return CUPTI_ERROR_INVALID_PARAMETER;
  g_request = request, g_complete = complete;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  if ((unsigned)kind >= 64) return CUPTI_ERROR_INVALID_KIND;
  if (kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && getenv("TB_FAKE_CUPTI_NO_SYNC"))
    return CUPTI_ERROR_NOT_COMPATIBLE;
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    memset(g_kinds, 0, sizeof g_kinds);
    g_tracing = true, g_have_t0 = false, g_pending = true;
  }
  g_kinds[kind] = true;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  if ((unsigned)kind >= 64) return CUPTI_ERROR_INVALID_KIND;
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_tracing = false;
  return CUPTI_SUCCESS;
}

static size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    default: return 0;
  }
}

/* Callback ids of the fake's own numbering, named by cuptiGetCallbackName. */
enum { MEMSET = 1, LAUNCH, QUERY, STREAM_SYNC, DEVICE_SYNC };

static uint8_t *put(uint8_t *at, uint8_t *end, CUpti_ActivityKind kind, uint64_t from,
                    uint64_t to, uint32_t cbid) {
  const size_t size = record_size(kind);
  if (!g_kinds[kind] || at + size > end) return at;
  memset(at, 0, size);
  const uint64_t start = g_t0 + from, stop = g_t0 + to;
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)at;
      k->kind = kind, k->start = start, k->end = stop;
      k->name = cbid == 1 ? "_ZN2tb6reduceIiLi4EEEvPKT_PS1_" : "plain_kernel";
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)at;
      m->kind = kind, m->start = start, m->end = stop, m->bytes = 4096;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)at;
      m->kind = kind, m->start = start, m->end = stop, m->bytes = 8;
      m->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      CUpti_ActivityAPI *a = (CUpti_ActivityAPI *)at;
      a->kind = kind, a->start = start, a->end = stop, a->cbid = cbid, a->threadId = 7;
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      CUpti_ActivitySynchronization2 *s = (CUpti_ActivitySynchronization2 *)at;
      s->kind = kind, s->start = start, s->end = stop;
      s->type = cbid == STREAM_SYNC ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
                                    : CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
      break;
    }
    default:
      return at;
  }
  return at + size;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  (void)flag;
  if (!g_pending || !g_have_t0 || !g_request) return CUPTI_SUCCESS;
  g_pending = false;
  uint8_t *buffer = NULL;
  size_t size = 0, max_records = 0;
  g_request(&buffer, &size, &max_records);
  if (!buffer) return CUPTI_SUCCESS;
  uint8_t *at = buffer, *end = buffer + size;
  const CUpti_ActivityKind RT = CUPTI_ACTIVITY_KIND_RUNTIME, DRV = CUPTI_ACTIVITY_KIND_DRIVER;
  /* CUPTI's order is not the timeline's: kernels come when they end. */
  at = put(at, end, RT, 1000, 4000, MEMSET);
  at = put(at, end, DRV, 2000, 3500, MEMSET);
  at = put(at, end, RT, 5000, 9000, LAUNCH);
  at = put(at, end, DRV, 6000, 8000, LAUNCH);
  at = put(at, end, DRV, 10000, 11000, QUERY);
  at = put(at, end, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 22000, 30000, 2);
  at = put(at, end, CUPTI_ACTIVITY_KIND_MEMSET, 12000, 13000, 0);
  at = put(at, end, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 15000, 23000, 1);
  at = put(at, end, RT, 31000, 35000, STREAM_SYNC);
  at = put(at, end, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 31000, 35000, STREAM_SYNC);
  at = put(at, end, CUPTI_ACTIVITY_KIND_MEMCPY, 32000, 34000, 0);
  at = put(at, end, RT, 60000, 70000, DEVICE_SYNC);
  at = put(at, end, DRV, 61000, 69000, DEVICE_SYNC);
  at = put(at, end, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 60000, 70000, DEVICE_SYNC);
  g_complete(NULL, 0, buffer, size, (size_t)(at - buffer));
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
  uint8_t *at = *record ? (uint8_t *)*record + record_size((*record)->kind) : buffer;
  if (at >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)at;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream, size_t *dropped) {
  (void)context, (void)stream;
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name) {
  static const char *const runtime[] = {NULL, "cudaMemsetAsync_v3020", "cudaLaunchKernel_v7000",
                                        NULL, "cudaStreamSynchronize_v3020",
                                        "cudaDeviceSynchronize_v3020"};
  static const char *const driver[] = {NULL, "cuMemsetD8Async", "cuLaunchKernel",
                                       "cuStreamQuery", NULL, "cuCtxSynchronize"};
  const char *const *names = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime : driver;
  if (cbid >= 6 || !names[cbid]) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = names[cbid];
  return CUPTI_SUCCESS;
}
