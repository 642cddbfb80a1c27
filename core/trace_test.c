/* core/trace.h on the CPU: the sums over made-up records, kernel names, the
 * timeline's text, no CUPTI (or one of another version), and a whole trace
 * through the stand-in library (cupti_fake.c, its path the first argument). */
#define _POSIX_C_SOURCE 200809L
#include "core/trace.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cunit.h"

static const char *g_fake;

#define US 1000ull         /* ns */
#define T0 5000000000ull /* the call's start */

static tb_trace_record rec(tb_trace_kind kind, double from_us, double to_us, uint32_t thread,
                           const char *name) {
  tb_trace_record r = {.kind = kind, .thread = thread};
  r.start = T0 + (uint64_t)(from_us * US), r.end = T0 + (uint64_t)(to_us * US);
  snprintf(r.name, sizeof r.name, "%s", name);
  return r;
}

/* The fake's call (cupti_fake.c), as plain records, in CUPTI's order. */
static size_t fake_call(tb_trace_record *r) {
  size_t n = 0;
  r[n++] = rec(TB_TRACE_RUNTIME, 1, 4, 7, "cudaMemsetAsync");
  r[n++] = rec(TB_TRACE_DRIVER, 2, 3.5, 7, "cuMemsetD8Async");
  r[n++] = rec(TB_TRACE_RUNTIME, 5, 9, 7, "cudaLaunchKernel");
  r[n++] = rec(TB_TRACE_DRIVER, 6, 8, 7, "cuLaunchKernel");
  r[n++] = rec(TB_TRACE_DRIVER, 10, 11, 7, "cuStreamQuery");
  r[n++] = rec(TB_TRACE_KERNEL, 22, 30, 0, "plain_kernel");
  r[n++] = rec(TB_TRACE_MEMSET, 12, 13, 0, "value 0");
  r[n - 1].bytes = 4096;
  r[n++] = rec(TB_TRACE_KERNEL, 15, 23, 0, "tb::reduce<int, 4>");
  r[n++] = rec(TB_TRACE_RUNTIME, 31, 35, 7, "cudaStreamSynchronize");
  r[n++] = rec(TB_TRACE_SYNC, 31, 35, 7, "stream");
  r[n++] = rec(TB_TRACE_MEMCPY, 32, 34, 0, "DtoH");
  r[n - 1].bytes = 8;
  r[n++] = rec(TB_TRACE_RUNTIME, 60, 70, 7, "cudaDeviceSynchronize");
  r[n++] = rec(TB_TRACE_DRIVER, 61, 69, 7, "cuCtxSynchronize");
  r[n++] = rec(TB_TRACE_SYNC, 60, 70, 7, "context");
  return n;
}

#define NEAR(a, b) CU_ASSERT(fabs((a) - (b)) < 1e-9)

static void check_fake_call(const tb_trace_summary *s) {
  CU_ASSERT_EQUAL(s->kernels, 2);
  CU_ASSERT_EQUAL(s->memsets, 1);
  CU_ASSERT_EQUAL(s->memcpys, 1);
  CU_ASSERT_EQUAL(s->runtime_calls, 3); /* the caller's wait after the return is not the call's */
  CU_ASSERT_EQUAL(s->driver_calls, 3);
  CU_ASSERT_EQUAL(s->api_calls, 4); /* 3 runtime, cuStreamQuery */
  CU_ASSERT_EQUAL(s->syncs, 1);
  NEAR(s->host_us, 50);
  NEAR(s->first_us, 12);
  NEAR(s->span_us, 22);   /* 12 to 34 */
  NEAR(s->kernel_us, 16); /* 8 + 8, overlap and all */
  NEAR(s->gap_us, 4);     /* 13-15, 30-32 */
  NEAR(s->api_us, 12);    /* 1-4, 5-9, 10-11, 31-35 */
}

TB_TEST(test_summarise, "summary arithmetic") {
  tb_trace_record r[32];
  const size_t n = fake_call(r);
  tb_trace_summary s;
  tb_trace_summarise(r, n, T0, T0 + 50 * US, &s);
  check_fake_call(&s);
  CU_ASSERT_EQUAL(s.dropped, 0);

  /* Nothing on the GPU: no first work, no span. */
  tb_trace_summarise(r, 5, T0, T0 + 50 * US, &s);
  CU_ASSERT(isnan(s.first_us));
  NEAR(s.span_us, 0);
  NEAR(s.gap_us, 0);
  CU_ASSERT_EQUAL(s.kernels, 0);
  tb_trace_summarise(NULL, 0, T0, T0, &s);
  CU_ASSERT(isnan(s.first_us));
  CU_ASSERT_EQUAL(s.api_calls, 0);
  NEAR(s.host_us, 0);

  /* A driver call inside a runtime call of another thread is its own; one
   * without times counts, and adds no time. */
  tb_trace_record t[4] = {
      rec(TB_TRACE_RUNTIME, 0, 10, 1, "cudaMalloc"),
      rec(TB_TRACE_DRIVER, 2, 3, 2, "cuMemAlloc"),
      rec(TB_TRACE_DRIVER, 4, 5, 1, "cuMemAlloc"),
      {.kind = TB_TRACE_DRIVER, .thread = 1, .name = "cuCtxGetCurrent"},
  };
  t[3].start = t[3].end = 0;
  tb_trace_summarise(t, 4, T0, T0 + 20 * US, &s);
  CU_ASSERT_EQUAL(s.runtime_calls, 1);
  CU_ASSERT_EQUAL(s.driver_calls, 2); /* the untimed one starts at 0: not in the call */
  CU_ASSERT_EQUAL(s.api_calls, 2);
  NEAR(s.api_us, 10);

  /* Back-to-back and nested GPU work: no gap; the span from the first start. */
  tb_trace_record g[3] = {
      rec(TB_TRACE_KERNEL, 3, 5, 0, "a"),
      rec(TB_TRACE_KERNEL, 5, 9, 0, "b"),
      rec(TB_TRACE_MEMSET, 6, 7, 0, "value 0"),
  };
  tb_trace_summarise(g, 3, T0, T0 + 1 * US, &s);
  NEAR(s.first_us, 3);
  NEAR(s.span_us, 6);
  NEAR(s.gap_us, 0);
  NEAR(s.kernel_us, 6);
}

TB_TEST(test_short_name, "kernel names") {
  char out[64];
  tb_trace_short_name("void tb::reduce<int, 4>(int const*, int*)", out, sizeof out);
  CU_ASSERT_STRING_EQUAL(out, "tb::reduce<int, 4>");
  tb_trace_short_name("void (anonymous namespace)::k<float (*)(float)>(float*, int)", out, sizeof out);
  CU_ASSERT_STRING_EQUAL(out, "(anonymous namespace)::k<float (*)(float)>");
  tb_trace_short_name("cub::Kernel<cub::Policy<(int)128, 4>, void>(int)", out, sizeof out);
  CU_ASSERT_STRING_EQUAL(out, "cub::Kernel<cub::Policy<(int)128, 4>, void>");
  tb_trace_short_name("plain_kernel", out, sizeof out);
  CU_ASSERT_STRING_EQUAL(out, "plain_kernel");
  tb_trace_short_name("void f<int>(int)", out, 4);
  CU_ASSERT_STRING_EQUAL(out, "f<i");
}

/* The text of a timeline, into a string the caller frees. */
static char *timeline(const tb_trace_record *r, size_t n, uint64_t begin, uint64_t returned,
                      const tb_trace_summary *s) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  tb_trace_write(f, "reduce/tb/int32/n:1024", r, n, begin, returned, s);
  fclose(f);
  return text;
}

TB_TEST(test_write, "timeline text") {
  tb_trace_record r[32];
  const size_t n = fake_call(r);
  tb_trace_summary s;
  tb_trace_summarise(r, n, T0, T0 + 50 * US, &s);
  char *text = timeline(r, n, T0, T0 + 50 * US, &s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL(strncmp(text, "== reduce/tb/int32/n:1024\n# host_us=50.000 first_us=12.000 "
                                "span_us=22.000 kernel_us=16.000 gap_us=4.000 kernels=2 ",
                          strlen("== reduce/tb/int32/n:1024\n# host_us=50.000 first_us=12.000 "
                                 "span_us=22.000 kernel_us=16.000 gap_us=4.000 kernels=2 ")),
                  0);
  /* Start order, the runtime's driver calls indented, the gaps of GPU work
   * from the previous work's end, the return in its place, the caller's wait
   * after it left out. */
  const char *want[] = {
      "       1.000      3.000          -  runtime cudaMemsetAsync\n",
      "       2.000      1.500          -  driver    cuMemsetD8Async\n",
      "      10.000      1.000          -  driver  cuStreamQuery\n",
      "      12.000      1.000          -  memset  value 0, 4096 B\n",
      "      15.000      8.000      2.000  kernel  tb::reduce<int, 4>\n",
      "      22.000      8.000      0.000  kernel  plain_kernel\n",
      "      31.000      4.000          -  sync    stream\n",
      "      32.000      2.000      2.000  memcpy  DtoH, 8 B\n",
      "      50.000          -          -  returned\n\n",
  };
  const char *at = text;
  for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
    const char *hit = strstr(at, want[i]);
    if (!hit) fprintf(stderr, "\nmissing in order: %s\n%s", want[i], text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
    at = hit;
  }
  CU_ASSERT_PTR_NULL(strstr(text, "cudaDeviceSynchronize"));
  free(text);
}

TB_TEST(test_absent, "no CUPTI") {
  CU_ASSERT_EQUAL(tb_trace_load("/nonexistent/libcupti.so.13"), TB_ERR_NO_DEVICE);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "CUPTI not loaded (tried /nonexistent/libcupti.so.13"));
  CU_ASSERT_FALSE(tb_trace_loaded());
  CU_ASSERT_EQUAL(tb_trace_begin(), TB_ERR_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "not loaded"));
  CU_ASSERT_EQUAL(tb_trace_end(NULL), TB_ERR_INVALID_ARGUMENT);

  /* A library that is not CUPTI. */
  CU_ASSERT_EQUAL(tb_trace_load("libc.so.6"), TB_ERR_NO_DEVICE);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "lacks the functions"));

  /* A CUPTI whose records have another layout (CUDA 12.9's, API version 28). */
  setenv("TB_FAKE_CUPTI_VERSION", "28", 1);
  CU_ASSERT_EQUAL(tb_trace_load(g_fake), TB_ERR_NO_DEVICE);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "has API version 28"));
  unsetenv("TB_FAKE_CUPTI_VERSION");
  CU_ASSERT_FALSE(tb_trace_loaded());
}

TB_TEST(test_fake, "stand-in CUPTI") {
  CU_ASSERT_EQUAL_FATAL(tb_trace_load(g_fake), TB_OK);
  CU_ASSERT_TRUE(tb_trace_loaded());
  CU_ASSERT_EQUAL(tb_trace_load(NULL), TB_OK); /* once */
  CU_ASSERT_EQUAL(tb_trace_end(NULL), TB_ERR_INVALID_ARGUMENT);

  for (int round = 0; round < 2; ++round) { /* a second trace starts afresh */
    CU_ASSERT_EQUAL_FATAL(tb_trace_begin(), TB_OK);
    CU_ASSERT_EQUAL(tb_trace_begin(), TB_ERR_INVALID_ARGUMENT);
    CU_ASSERT_EQUAL(tb_trace_returned(), TB_OK);
    tb_trace_summary s;
    CU_ASSERT_EQUAL_FATAL(tb_trace_end(&s), TB_OK);
    check_fake_call(&s);
    CU_ASSERT_EQUAL(s.dropped, 0);
    size_t n = 0;
    uint64_t begin = 0, returned = 0;
    const tb_trace_record *r = tb_trace_records(&n, &begin, &returned);
    CU_ASSERT_EQUAL(n, 14);
    CU_ASSERT_EQUAL(returned - begin, 50 * US);
    int kernels = 0;
    for (size_t i = 0; i < n; ++i) {
      if (r[i].kind != TB_TRACE_KERNEL) continue;
      ++kernels;
      /* Demangled, return type and parameters left out. */
      CU_ASSERT(strcmp(r[i].name, "tb::reduce<int, 4>") == 0 || strcmp(r[i].name, "plain_kernel") == 0);
    }
    CU_ASSERT_EQUAL(kernels, 2);
    for (size_t i = 0; i < n; ++i) {
      if (r[i].kind == TB_TRACE_MEMSET) CU_ASSERT_EQUAL(r[i].bytes, 4096);
      if (r[i].kind == TB_TRACE_MEMCPY) CU_ASSERT_STRING_EQUAL(r[i].name, "DtoH");
      if (r[i].kind == TB_TRACE_RUNTIME && r[i].start - begin == 5 * US)
        CU_ASSERT_STRING_EQUAL(r[i].name, "cudaLaunchKernel"); /* "_v7000" left out */
    }
  }

  /* Without tb_trace_returned the end's own reading is the return. */
  CU_ASSERT_EQUAL_FATAL(tb_trace_begin(), TB_OK);
  tb_trace_summary s;
  CU_ASSERT_EQUAL_FATAL(tb_trace_end(&s), TB_OK);
  NEAR(s.host_us, 50);

  /* A CUPTI without the synchronization kind traces the rest. */
  setenv("TB_FAKE_CUPTI_NO_SYNC", "1", 1);
  CU_ASSERT_EQUAL_FATAL(tb_trace_begin(), TB_OK);
  CU_ASSERT_EQUAL_FATAL(tb_trace_end(&s), TB_OK);
  unsetenv("TB_FAKE_CUPTI_NO_SYNC");
  CU_ASSERT_EQUAL(s.syncs, 0);
  CU_ASSERT_EQUAL(s.kernels, 2);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBCUPTI_FAKE\n", argv[0]);
    return 2;
  }
  g_fake = argv[1];
  return tb_test_run("trace", NULL);
}
