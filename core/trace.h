/* A timeline of one call: which kernels, memsets and memcpys it runs on the
 * GPU and when, the CUDA API calls it makes on the host, and their sums (the
 * fixed cost of a call, which decides small sizes), from CUPTI's Activity
 * API.
 *
 * CUPTI comes with the toolkit, not the driver, and is loaded at run time
 * (libcupti.so.13, libcupti.so, then the toolkit's own folders): no binary
 * links it, and a machine without it runs everything but a trace. Its
 * activity records and the host's calls are stamped by one clock
 * (cuptiGetTimestamp), so host and GPU times share one axis.
 *
 *   tb_trace_load(NULL);       once; fails clearly without CUPTI
 *   tb_trace_begin();          activity on, the call's start stamped
 *   launch(...);               the call under study
 *   tb_trace_returned();       the call returned on the host
 *   cudaDeviceSynchronize();   its work done on the GPU
 *   tb_trace_end(&summary);    activity off, records flushed and summed
 *
 * CPU only: no CUDA header here. tb_trace_summarise and tb_trace_write work
 * on plain records, so a timeline can be checked without a GPU. */
#ifndef TB_CORE_TRACE_H
#define TB_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tb_trace_kind {
  /* Work on the GPU: start and end are the device's. */
  TB_TRACE_KERNEL,
  TB_TRACE_MEMSET,
  TB_TRACE_MEMCPY,
  /* Work on the host: a CUDA runtime or driver API call (the runtime's calls
   * make driver calls of their own, recorded inside them), or a wait of the
   * host for the GPU (a stream, event or context synchronisation). */
  TB_TRACE_RUNTIME,
  TB_TRACE_DRIVER,
  TB_TRACE_SYNC,
} tb_trace_kind;

typedef struct tb_trace_record {
  tb_trace_kind kind;
  uint64_t start, end; /* ns, CUPTI's clock; 0 and 0 when CUPTI had no time */
  uint32_t thread;     /* API calls and syncs: the host thread */
  uint64_t bytes;      /* memsets, memcpys */
  /* Kernels: demangled, return type and parameters left out; API calls:
   * the function; memcpys: the direction (HtoD, DtoH, DtoD, ...); syncs:
   * what was waited for (stream, event, context, ...). */
  char name[160];
} tb_trace_record;

typedef struct tb_trace_summary {
  int kernels, memsets, memcpys;
  /* Runtime and driver calls made on the host between the call's start and
   * its return; api_calls counts the calls the code made itself: runtime
   * calls and the driver calls outside any runtime call of the same thread. */
  int runtime_calls, driver_calls, api_calls;
  int syncs;   /* waits of the host for the GPU inside the call */
  int dropped; /* records CUPTI lost (buffers full): the sums are short */
  double host_us;   /* the call's start to its return, on the host */
  double first_us;  /* the call's start to the start of its first GPU work; NAN: none */
  double span_us;   /* first start to last end of its GPU work; 0: none */
  double kernel_us; /* the kernels' durations, summed */
  double gap_us;    /* the time within span_us when none of its GPU work ran */
  double api_us;    /* host time inside API calls (nested calls counted once) */
} tb_trace_summary;

/* Loads CUPTI: `library` (NULL: $TB_CUPTI_LIBRARY, else libcupti.so.13,
 * libcupti.so, then those names under /usr/local/cuda/extras/CUPTI/lib64 and
 * /usr/local/cuda/lib64), checks that its activity records are the ones
 * this was built for (CUPTI 13), and registers the record buffers. TB_OK at
 * once when loaded already; TB_ERR_NO_DEVICE with every path tried in
 * tb_last_error() when none loads. Touches no GPU. */
tb_status tb_trace_load(const char *library);
/* Whether tb_trace_load succeeded. */
int tb_trace_loaded(void);

/* Activity on (kernels, memsets, memcpys, runtime and driver calls, syncs;
 * a kind this CUPTI lacks is left out), then the call's start stamped. */
tb_status tb_trace_begin(void);
/* Stamps the call's return on the host (without it, tb_trace_end's own
 * time is taken): API calls and syncs after it are not the call's. */
tb_status tb_trace_returned(void);
/* Activity off, every record flushed, the call summed into *out (NULL: not
 * wanted). The GPU must have finished the call's work: a kernel still
 * running has no end yet. Its records stay readable (tb_trace_records)
 * until the next tb_trace_begin. */
tb_status tb_trace_end(tb_trace_summary *out);

/* The records of the last traced call, in CUPTI's order; their number into
 * *count, and the call's start and return stamps into *begin, *returned
 * (each may be NULL). */
const tb_trace_record *tb_trace_records(size_t *count, uint64_t *begin, uint64_t *returned);

/* Sums n records of a call that started at `begin` and returned at
 * `returned` (ns, the records' clock). Host records (API calls, syncs) that
 * start outside [begin, returned] are not the call's and are left out; GPU
 * records are all the call's. Pure arithmetic, for tests on made-up records. */
void tb_trace_summarise(const tb_trace_record *r, size_t n, uint64_t begin, uint64_t returned,
                        tb_trace_summary *out);

/* The call's timeline as text: "== title", the summary on one line, then
 * one line per record in start order, "+offset duration kind name", times
 * in us from the call's start (format in docs/sweeps.md). */
void tb_trace_write(FILE *f, const char *title, const tb_trace_record *r, size_t n,
                    uint64_t begin, uint64_t returned, const tb_trace_summary *s);

/* "void ns::kernel<int, 4>(int const*, int*)" → "ns::kernel<int, 4>" into
 * out: the return type and the parameters left out, truncated to fit. */
void tb_trace_short_name(const char *demangled, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
