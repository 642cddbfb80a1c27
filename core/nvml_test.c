/* core/nvml.h on the CPU: no library, a board NVML does not know, and the
 * stand-in library (nvml_fake.c, its path the first argument), whose
 * readings come back as given, a missing power sensor left out. */
#define _POSIX_C_SOURCE 200809L
#include "core/nvml.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cunit.h"
#include "core/status.h"

static const char *g_fake;

TB_TEST(test_absent, "absent") {
  tb_nvml *n = tb_nvml_open("/nonexistent/libnvidia-ml.so.1", "0000:1B:00.0");
  CU_ASSERT_PTR_NULL(n);
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "cannot load /nonexistent/libnvidia-ml.so.1"));
  /* What the sweep does then: every field absent, no driver version. */
  tb_gpu_sample s;
  tb_nvml_sample(NULL, &s);
  CU_ASSERT(isnan(s.sm_clock_mhz) && isnan(s.mem_clock_mhz) && isnan(s.temp_c) && isnan(s.power_w));
  CU_ASSERT_FALSE(s.has_throttle_reasons);
  CU_ASSERT_STRING_EQUAL(tb_nvml_driver_version(NULL), "");
  CU_ASSERT_EQUAL(tb_nvml_fields(NULL), 0);
  tb_nvml_close(NULL);

  /* A library that is not NVML. */
  CU_ASSERT_PTR_NULL(tb_nvml_open("libc.so.6", "0000:1B:00.0"));
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "lacks the functions"));
  CU_ASSERT_PTR_NULL(tb_nvml_open(g_fake, ""));
}

TB_TEST(test_fake, "stand-in library") {
  CU_ASSERT_PTR_NULL(tb_nvml_open(g_fake, "0000:FF:00.0"));
  CU_ASSERT_PTR_NOT_NULL(strstr(tb_last_error(), "no board at PCI bus id 0000:FF:00.0"));

  tb_nvml *n = tb_nvml_open(g_fake, "0000:1B:00.0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(n);
  CU_ASSERT_STRING_EQUAL(tb_nvml_driver_version(n), "000.00.01");
  CU_ASSERT_EQUAL(tb_nvml_fields(n),
                  TB_GPU_SM_CLOCK | TB_GPU_MEM_CLOCK | TB_GPU_TEMP | TB_GPU_POWER | TB_GPU_THROTTLE);
  tb_gpu_sample s;
  tb_nvml_sample(n, &s);
  CU_ASSERT_DOUBLE_EQUAL(s.sm_clock_mhz, 1755, 0);
  CU_ASSERT_DOUBLE_EQUAL(s.mem_clock_mhz, 2619, 0);
  CU_ASSERT_DOUBLE_EQUAL(s.temp_c, 41, 0);
  CU_ASSERT_DOUBLE_EQUAL(s.power_w, 123.5, 1e-9);
  CU_ASSERT(s.has_throttle_reasons && s.throttle_reasons == 0x4);
  tb_nvml_close(n);

  /* A board without a power sensor: power left out from the start. */
  setenv("TB_FAKE_NVML_NO_POWER", "1", 1);
  n = tb_nvml_open(g_fake, "0000:1B:00.0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(n);
  CU_ASSERT_EQUAL(tb_nvml_fields(n) & TB_GPU_POWER, 0);
  tb_nvml_sample(n, &s);
  CU_ASSERT(isnan(s.power_w));
  CU_ASSERT_DOUBLE_EQUAL(s.temp_c, 41, 0);
  tb_nvml_close(n);
  unsetenv("TB_FAKE_NVML_NO_POWER");

  /* $TB_NVML_LIBRARY names the library when the caller does not. */
  setenv("TB_NVML_LIBRARY", g_fake, 1);
  n = tb_nvml_open(NULL, "0000:1B:00.0");
  CU_ASSERT_PTR_NOT_NULL(n);
  tb_nvml_close(n);
  unsetenv("TB_NVML_LIBRARY");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: nvml_test FAKE_NVML.so\n");
    return 2;
  }
  /* dlopen searches the library path for a bare name: make it a path. */
  static char fake[4096];
  snprintf(fake, sizeof fake, "%s%s", strchr(argv[1], '/') ? "" : "./", argv[1]);
  g_fake = fake;
  return tb_test_run("nvml", NULL);
}
