#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "core/trace.h"

#include <cupti.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* CUPTI, as loaded: every function through dlsym, none linked. */
static struct {
  void *lib;
  char path[256];
  CUptiResult (*version)(uint32_t *);
  CUptiResult (*result_string)(CUptiResult, const char **);
  CUptiResult (*timestamp)(uint64_t *);
  CUptiResult (*enable)(CUpti_ActivityKind);
  CUptiResult (*disable)(CUpti_ActivityKind);
  CUptiResult (*flush_all)(uint32_t);
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
  CUptiResult (*callback_name)(CUpti_CallbackDomain, uint32_t, const char **); /* optional */
} g_cupti;

/* __cxa_demangle from the C++ runtime (the sweeps link Google Benchmark's);
 * without one kernels keep their mangled names. */
static char *(*g_demangle)(const char *, char *, size_t *, int *);

/* The kinds traced, in the order enabled; the first is required. */
static const CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMCPY,            CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,            CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};
enum { kKindCount = sizeof kKinds / sizeof *kKinds };
static bool g_enabled[kKindCount];

/* The records of the traced call. CUPTI hands buffers over from its own
 * thread as well as from a flush, hence the lock. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static tb_trace_record *g_records;
static size_t g_count, g_cap;
static size_t g_dropped;
static uint64_t g_begin, g_returned;
static bool g_active, g_has_returned;

enum { kBufferBytes = 1 << 20, kRecordAlign = 8 /* ACTIVITY_RECORD_ALIGNMENT */ };

static const char *result_text(CUptiResult r) {
  const char *s = NULL;
  if (g_cupti.result_string && g_cupti.result_string(r, &s) == CUPTI_SUCCESS && s) return s;
  return "unknown CUPTI error";
}

#define CUPTI_TRY(call)                                                                \
  do {                                                                                 \
    CUptiResult tb_r_ = (call);                                                        \
    if (tb_r_ != CUPTI_SUCCESS)                                                        \
      return tb_fail(TB_ERR_CUDA, "CUPTI: %s failed: %s (%d)", #call, result_text(tb_r_), \
                     (int)tb_r_);                                                      \
  } while (0)

/* dlsym's object pointer into a function pointer (POSIX guarantees one
 * representation for both); whether the library has it. */
static bool load_symbol(void *lib, const char *name, void *fp, size_t size) {
  void *p = dlsym(lib, name);
  memcpy(fp, &p, size);
  return p != NULL;
}
#define LOAD(lib, fp, name) load_symbol((lib), (name), &(fp), sizeof(fp))

/* ---- names ---------------------------------------------------------------- */

void tb_trace_short_name(const char *demangled, char *out, size_t cap) {
  if (cap == 0) return;
  size_t len = strlen(demangled);
  /* The parameter list: the parenthesis matching a final ')'. */
  if (len > 0 && demangled[len - 1] == ')') {
    int depth = 0;
    for (size_t i = len; i-- > 0;) {
      depth += demangled[i] == ')';
      depth -= demangled[i] == '(';
      if (depth == 0) {
        if (i > 0) len = i; /* "(anonymous namespace)" alone is a name */
        break;
      }
    }
  }
  /* The return type: up to the last space outside <> and (). */
  size_t from = 0;
  int angle = 0, paren = 0;
  for (size_t i = 0; i < len; ++i) {
    const char c = demangled[i];
    angle += (c == '<') - (c == '>');
    paren += (c == '(') - (c == ')');
    if (c == ' ' && angle == 0 && paren == 0) from = i + 1;
  }
  snprintf(out, cap, "%.*s", (int)(len - from), demangled + from);
}

static void kernel_name(const char *mangled, char *out, size_t cap) {
  if (!mangled) {
    snprintf(out, cap, "(unnamed)");
    return;
  }
  int status = -1;
  char *d = g_demangle ? g_demangle(mangled, NULL, NULL, &status) : NULL;
  if (d && status == 0) tb_trace_short_name(d, out, cap);
  else snprintf(out, cap, "%s", mangled); /* extern "C", or no demangler */
  free(d);
}

/* "cudaLaunchKernel_v7000" → "cudaLaunchKernel". */
static void api_name(CUpti_CallbackDomain domain, uint32_t cbid, char *out, size_t cap) {
  const char *name = NULL;
  if (!g_cupti.callback_name || g_cupti.callback_name(domain, cbid, &name) != CUPTI_SUCCESS || !name) {
    snprintf(out, cap, "%s#%u", domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", cbid);
    return;
  }
  size_t len = strlen(name);
  const char *v = strstr(name, "_v");
  if (v && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2)) len = (size_t)(v - name);
  snprintf(out, cap, "%.*s", (int)len, name);
}

static const char *memcpy_kind(uint8_t k) {
  static const char *const names[] = {"?", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                      "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return k < sizeof names / sizeof *names ? names[k] : "?";
}

static const char *sync_kind(CUpti_ActivitySynchronizationType t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream waits for event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context";
    default: return "?";
  }
}

/* ---- CUPTI's buffers -------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = aligned_alloc(kRecordAlign, kBufferBytes);
  *size = *buffer ? kBufferBytes : 0; /* 0: CUPTI drops the records, and counts them */
  *max_records = 0;                   /* as many as fit */
}

/* One CUPTI record as a plain one; false for kinds not traced. */
static bool convert(const CUpti_Activity *a, tb_trace_record *r) {
  memset(r, 0, sizeof *r);
  switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
      *r = (tb_trace_record){.kind = TB_TRACE_KERNEL, .start = k->start, .end = k->end};
      kernel_name(k->name, r->name, sizeof r->name);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
      *r = (tb_trace_record){.kind = TB_TRACE_MEMSET, .start = m->start, .end = m->end,
                             .bytes = m->bytes};
      snprintf(r->name, sizeof r->name, "value %u", m->value);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
      *r = (tb_trace_record){.kind = TB_TRACE_MEMCPY, .start = m->start, .end = m->end,
                             .bytes = m->bytes};
      snprintf(r->name, sizeof r->name, "%s", memcpy_kind(m->copyKind));
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const CUpti_ActivityAPI *c = (const CUpti_ActivityAPI *)a;
      const bool runtime = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      *r = (tb_trace_record){.kind = runtime ? TB_TRACE_RUNTIME : TB_TRACE_DRIVER,
                             .start = c->start, .end = c->end, .thread = c->threadId};
      api_name(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, c->cbid,
               r->name, sizeof r->name);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)a;
      *r = (tb_trace_record){.kind = TB_TRACE_SYNC, .start = s->start, .end = s->end};
      snprintf(r->name, sizeof r->name, "%s", sync_kind(s->type));
      return true;
    }
    default:
      return false;
  }
}

static void append(const tb_trace_record *r) {
  if (g_count == g_cap) {
    const size_t cap = g_cap ? 2 * g_cap : 256;
    tb_trace_record *grown = realloc(g_records, cap * sizeof *grown);
    if (!grown) {
      ++g_dropped; /* the summary says its sums are short */
      return;
    }
    g_records = grown, g_cap = cap;
  }
  g_records[g_count++] = *r;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid) {
  (void)size;
  pthread_mutex_lock(&g_lock);
  CUpti_Activity *a = NULL;
  tb_trace_record r;
  /* Anything but CUPTI_SUCCESS ends the buffer: MAX_LIMIT_REACHED is its end. */
  while (g_cupti.next_record(buffer, valid, &a) == CUPTI_SUCCESS)
    if (g_active && convert(a, &r)) append(&r);
  size_t dropped = 0;
  if (g_cupti.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
  pthread_mutex_unlock(&g_lock);
  free(buffer);
}

/* ---- loading ------------------------------------------------------------------ */

static tb_status load_from(void *lib, const char *path) {
  memset(&g_cupti, 0, sizeof g_cupti);
  g_cupti.lib = lib;
  snprintf(g_cupti.path, sizeof g_cupti.path, "%s", path);
  const bool all = LOAD(lib, g_cupti.version, "cuptiGetVersion") &
                   LOAD(lib, g_cupti.result_string, "cuptiGetResultString") &
                   LOAD(lib, g_cupti.timestamp, "cuptiGetTimestamp") &
                   LOAD(lib, g_cupti.enable, "cuptiActivityEnable") &
                   LOAD(lib, g_cupti.disable, "cuptiActivityDisable") &
                   LOAD(lib, g_cupti.flush_all, "cuptiActivityFlushAll") &
                   LOAD(lib, g_cupti.register_callbacks, "cuptiActivityRegisterCallbacks") &
                   LOAD(lib, g_cupti.next_record, "cuptiActivityGetNextRecord") &
                   LOAD(lib, g_cupti.dropped, "cuptiActivityGetNumDroppedRecords");
  LOAD(lib, g_cupti.callback_name, "cuptiGetCallbackName");
  if (!all) return tb_fail(TB_ERR_NO_DEVICE, "CUPTI: %s lacks the functions used here", path);
  /* The records are read as CUPTI 13's structures: another major version
   * lays them out otherwise (before 13 the version was a small integer). */
  uint32_t version = 0;
  CUPTI_TRY(g_cupti.version(&version));
  if (version / 10000 != CUPTI_API_VERSION / 10000)
    return tb_fail(TB_ERR_NO_DEVICE,
                   "CUPTI: %s has API version %u; its activity records are read as those of "
                   "version %d (CUDA %d.x): use the toolkit's own libcupti",
                   path, version, CUPTI_API_VERSION, CUPTI_API_VERSION / 10000);
  CUPTI_TRY(g_cupti.register_callbacks(buffer_requested, buffer_completed));
  return TB_OK;
}

static void load_demangler(void) {
  if (g_demangle || LOAD(RTLD_DEFAULT, g_demangle, "__cxa_demangle")) return;
  /* A C program has no C++ runtime of its own: borrow it, kept for the process. */
  void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
  if (cxx && !LOAD(cxx, g_demangle, "__cxa_demangle")) dlclose(cxx);
}

int tb_trace_loaded(void) { return g_cupti.lib != NULL; }

tb_status tb_trace_load(const char *library) {
  if (tb_trace_loaded()) return TB_OK;
  static const char *const kDefault[] = {
      "libcupti.so.13",
      "libcupti.so",
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
      "/usr/local/cuda/lib64/libcupti.so.13",
      "/usr/local/cuda/lib64/libcupti.so",
  };
  if (!library) library = getenv("TB_CUPTI_LIBRARY");
  const char *const *paths = kDefault;
  size_t npaths = sizeof kDefault / sizeof *kDefault;
  if (library && library[0]) paths = &library, npaths = 1;
  char tried[1024] = "";
  size_t used = 0;
  for (size_t i = 0; i < npaths; ++i) {
    void *lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      const int n = snprintf(tried + used, sizeof tried - used, "%s%s (%s)", i ? "; " : "",
                             paths[i], why ? why : "not found");
      if (n > 0) used += (size_t)n < sizeof tried - used ? (size_t)n : sizeof tried - used - 1;
      continue;
    }
    const tb_status s = load_from(lib, paths[i]);
    if (s != TB_OK) {
      /* A CUPTI that cannot be used is an answer: say why, try no other. */
      memset(&g_cupti, 0, sizeof g_cupti);
      dlclose(lib);
      return s;
    }
    load_demangler();
    return TB_OK;
  }
  return tb_fail(TB_ERR_NO_DEVICE, "CUPTI not loaded (tried %s)", tried);
}

/* ---- a traced call ------------------------------------------------------------- */

static tb_status disable_all(void) {
  tb_status s = TB_OK;
  for (int i = kKindCount; i-- > 0;) {
    if (!g_enabled[i]) continue;
    g_enabled[i] = false;
    const CUptiResult r = g_cupti.disable(kKinds[i]);
    if (r != CUPTI_SUCCESS && s == TB_OK)
      s = tb_fail(TB_ERR_CUDA, "CUPTI: cuptiActivityDisable(%d) failed: %s (%d)", (int)kKinds[i],
                  result_text(r), (int)r);
  }
  return s;
}

tb_status tb_trace_begin(void) {
  if (!tb_trace_loaded()) return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUPTI: not loaded (tb_trace_load)");
  if (g_active) return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUPTI: a trace is under way already");
  pthread_mutex_lock(&g_lock);
  g_count = 0;
  g_dropped = 0;
  g_active = true;
  pthread_mutex_unlock(&g_lock);
  for (int i = 0; i < kKindCount; ++i) {
    const CUptiResult r = g_cupti.enable(kKinds[i]);
    g_enabled[i] = r == CUPTI_SUCCESS;
    /* Kernels are the point; a kind this CUPTI or GPU lacks is left out. */
    if (r == CUPTI_SUCCESS || (i > 0 && (r == CUPTI_ERROR_NOT_COMPATIBLE ||
                                         r == CUPTI_ERROR_NOT_SUPPORTED ||
                                         r == CUPTI_ERROR_INVALID_KIND)))
      continue;
    disable_all();
    g_active = false;
    return tb_fail(TB_ERR_CUDA, "CUPTI: cuptiActivityEnable(%d) failed: %s (%d)", (int)kKinds[i],
                   result_text(r), (int)r);
  }
  g_has_returned = false;
  const CUptiResult r = g_cupti.timestamp(&g_begin);
  if (r != CUPTI_SUCCESS) {
    disable_all();
    g_active = false;
    return tb_fail(TB_ERR_CUDA, "CUPTI: cuptiGetTimestamp failed: %s (%d)", result_text(r), (int)r);
  }
  return TB_OK;
}

tb_status tb_trace_returned(void) {
  if (!g_active) return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUPTI: no trace under way");
  CUPTI_TRY(g_cupti.timestamp(&g_returned));
  g_has_returned = true;
  return TB_OK;
}

tb_status tb_trace_end(tb_trace_summary *out) {
  if (!g_active) return tb_fail(TB_ERR_INVALID_ARGUMENT, "CUPTI: no trace under way");
  tb_status s = g_has_returned ? TB_OK : tb_trace_returned();
  const tb_status off = disable_all(); /* whatever happened: the timed loops run untraced */
  if (s == TB_OK) s = off;
  /* Forced: hands over the buffers not yet full, so every record of the
   * call is in before the sums. */
  const CUptiResult r = g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS && s == TB_OK)
    s = tb_fail(TB_ERR_CUDA, "CUPTI: cuptiActivityFlushAll failed: %s (%d)", result_text(r), (int)r);
  pthread_mutex_lock(&g_lock);
  g_active = false;
  if (out && s == TB_OK) {
    tb_trace_summarise(g_records, g_count, g_begin, g_returned, out);
    out->dropped = g_dropped > (size_t)INT32_MAX ? INT32_MAX : (int)g_dropped;
  }
  pthread_mutex_unlock(&g_lock);
  return s;
}

const tb_trace_record *tb_trace_records(size_t *count, uint64_t *begin, uint64_t *returned) {
  if (count) *count = g_count;
  if (begin) *begin = g_begin;
  if (returned) *returned = g_returned;
  return g_records;
}

/* ---- sums and text ---------------------------------------------------------- */

static bool on_device(tb_trace_kind k) {
  return k == TB_TRACE_KERNEL || k == TB_TRACE_MEMSET || k == TB_TRACE_MEMCPY;
}
static bool is_api(tb_trace_kind k) { return k == TB_TRACE_RUNTIME || k == TB_TRACE_DRIVER; }
static bool timed(const tb_trace_record *r) { return r->end >= r->start && (r->start || r->end); }

typedef struct span {
  uint64_t start, end;
} span;

static int by_start(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The length of the union of n intervals (sorted in place) and the time
 * between them, from the first start to the last end. */
static void cover(span *s, size_t n, uint64_t *covered, uint64_t *gaps) {
  *covered = *gaps = 0;
  if (n == 0) return;
  qsort(s, n, sizeof *s, by_start);
  uint64_t from = s[0].start, to = s[0].end;
  for (size_t i = 1; i < n; ++i) {
    if (s[i].start > to) {
      *covered += to - from;
      *gaps += s[i].start - to;
      from = s[i].start;
    }
    if (s[i].end > to) to = s[i].end;
  }
  *covered += to - from;
}

/* A driver call made by a runtime call of the same thread lies inside it. */
static bool nested(const tb_trace_record *d, const tb_trace_record *r, size_t n, uint64_t begin,
                   uint64_t returned) {
  for (size_t i = 0; i < n; ++i)
    if (r[i].kind == TB_TRACE_RUNTIME && r[i].thread == d->thread && r[i].start <= d->start &&
        d->end <= r[i].end && r[i].start >= begin && r[i].start <= returned)
      return true;
  return false;
}

void tb_trace_summarise(const tb_trace_record *r, size_t n, uint64_t begin, uint64_t returned,
                        tb_trace_summary *out) {
  memset(out, 0, sizeof *out);
  out->first_us = NAN;
  out->host_us = returned > begin ? (double)(returned - begin) / 1e3 : 0;
  span *device = malloc((n ? n : 1) * sizeof *device);
  span *api = malloc((n ? n : 1) * sizeof *api);
  size_t nd = 0, na = 0;
  uint64_t kernel_ns = 0;
  for (size_t i = 0; i < n; ++i) {
    const tb_trace_record *x = &r[i];
    const bool in_call = x->start >= begin && x->start <= returned;
    switch (x->kind) {
      case TB_TRACE_KERNEL: ++out->kernels; break;
      case TB_TRACE_MEMSET: ++out->memsets; break;
      case TB_TRACE_MEMCPY: ++out->memcpys; break;
      case TB_TRACE_RUNTIME: out->runtime_calls += in_call; break;
      case TB_TRACE_DRIVER: out->driver_calls += in_call; break;
      case TB_TRACE_SYNC: out->syncs += in_call; break;
    }
    if (!timed(x)) continue;
    if (on_device(x->kind)) {
      if (x->kind == TB_TRACE_KERNEL) kernel_ns += x->end - x->start;
      if (device) device[nd++] = (span){x->start, x->end};
    } else if (is_api(x->kind) && in_call) {
      if (x->kind == TB_TRACE_RUNTIME || !nested(x, r, n, begin, returned)) ++out->api_calls;
      if (api) api[na++] = (span){x->start, x->end};
    }
  }
  /* Untimed API calls still count as calls. */
  for (size_t i = 0; i < n; ++i)
    if (is_api(r[i].kind) && !timed(&r[i]) && r[i].start >= begin && r[i].start <= returned)
      ++out->api_calls;
  out->kernel_us = (double)kernel_ns / 1e3;
  uint64_t covered = 0, gaps = 0;
  if (device && api) {
    cover(device, nd, &covered, &gaps);
    if (nd > 0) {
      out->first_us = ((double)device[0].start - (double)begin) / 1e3; /* sorted by cover */
      out->span_us = (double)(covered + gaps) / 1e3;
      out->gap_us = (double)gaps / 1e3;
    }
    cover(api, na, &covered, &gaps);
    out->api_us = (double)covered / 1e3;
  } else {
    out->span_us = out->gap_us = out->api_us = NAN; /* no memory to sum in */
  }
  free(device);
  free(api);
}

static const char *kind_word(tb_trace_kind k) {
  switch (k) {
    case TB_TRACE_KERNEL: return "kernel";
    case TB_TRACE_MEMSET: return "memset";
    case TB_TRACE_MEMCPY: return "memcpy";
    case TB_TRACE_RUNTIME: return "runtime";
    case TB_TRACE_DRIVER: return "driver";
    case TB_TRACE_SYNC: return "sync";
  }
  return "?";
}

static const tb_trace_record *g_sort_records; /* by_record's table (qsort has no context) */
static int by_record(const void *a, const void *b) {
  const tb_trace_record *x = &g_sort_records[*(const size_t *)a];
  const tb_trace_record *y = &g_sort_records[*(const size_t *)b];
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  /* At one time the enclosing call first (it ends later), then CUPTI's order. */
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static double us_from(uint64_t t, uint64_t origin) { return ((double)t - (double)origin) / 1e3; }

void tb_trace_write(FILE *f, const char *title, const tb_trace_record *r, size_t n,
                    uint64_t begin, uint64_t returned, const tb_trace_summary *s) {
  fprintf(f, "== %s\n", title);
  fprintf(f,
          "# host_us=%.3f first_us=%.3f span_us=%.3f kernel_us=%.3f gap_us=%.3f kernels=%d "
          "memsets=%d memcpys=%d api_calls=%d runtime_calls=%d driver_calls=%d api_us=%.3f "
          "syncs=%d dropped=%d\n",
          s->host_us, s->first_us, s->span_us, s->kernel_us, s->gap_us, s->kernels, s->memsets,
          s->memcpys, s->api_calls, s->runtime_calls, s->driver_calls, s->api_us, s->syncs,
          s->dropped);
  fprintf(f, "# %10s %10s %10s  what\n", "start_us", "dur_us", "gap_us");
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  if (!order) {
    fprintf(f, "# (no memory for the timeline)\n\n");
    return;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) /* host records of the call only, as summed */
    if (on_device(r[i].kind) || (r[i].start >= begin && r[i].start <= returned)) order[m++] = i;
  g_sort_records = r;
  qsort(order, m, sizeof *order, by_record);
  bool returned_shown = false;
  uint64_t device_end = 0; /* the latest end of GPU work so far */
  for (size_t j = 0; j < m; ++j) {
    const tb_trace_record *x = &r[order[j]];
    if (!returned_shown && x->start > returned) {
      fprintf(f, "  %10.3f %10s %10s  returned\n", us_from(returned, begin), "-", "-");
      returned_shown = true;
    }
    char dur[32] = "-", gap[32] = "-";
    if (timed(x)) snprintf(dur, sizeof dur, "%.3f", (double)(x->end - x->start) / 1e3);
    if (on_device(x->kind) && timed(x)) {
      if (device_end) snprintf(gap, sizeof gap, "%.3f",
                               x->start > device_end ? (double)(x->start - device_end) / 1e3 : 0.0);
      if (x->end > device_end) device_end = x->end;
    }
    /* Driver calls a runtime call made, indented under it. */
    const bool inner = x->kind == TB_TRACE_DRIVER && nested(x, r, n, begin, returned);
    fprintf(f, "  %10.3f %10s %10s  %-7s %s%s", us_from(x->start, begin), dur, gap,
            kind_word(x->kind), inner ? "  " : "", x->name);
    if (x->kind == TB_TRACE_MEMSET || x->kind == TB_TRACE_MEMCPY)
      fprintf(f, ", %llu B", (unsigned long long)x->bytes);
    fputc('\n', f);
  }
  if (!returned_shown) fprintf(f, "  %10.3f %10s %10s  returned\n", us_from(returned, begin), "-", "-");
  fputc('\n', f);
  free(order);
}
