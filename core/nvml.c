#define _POSIX_C_SOURCE 200809L
#include "core/nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

/* The few declarations of nvml.h used here, as NVML's ABI has them (the
 * header ships with the driver's development files, which a build machine
 * need not have). */
typedef int nvml_return; /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;
enum { NVML_SUCCESS = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_DRIVER_VERSION_BUFFER = 80 }; /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */

struct tb_nvml {
  void *lib;
  nvml_device device;
  unsigned fields;
  char driver[NVML_DRIVER_VERSION_BUFFER];
  nvml_return (*shutdown)(void);
  nvml_return (*clock)(nvml_device, int, unsigned *);
  nvml_return (*temperature)(nvml_device, int, unsigned *);
  nvml_return (*power)(nvml_device, unsigned *);
  nvml_return (*reasons)(nvml_device, unsigned long long *);
};

/* dlsym's object pointer into a function pointer (POSIX guarantees that the
 * two have one representation); whether the library has it. */
static bool load_symbol(void *lib, const char *name, void *fp, size_t size) {
  void *p = dlsym(lib, name);
  memcpy(fp, &p, size);
  return p != NULL;
}
#define LOAD(lib, fp, name) load_symbol((lib), (name), &(fp), sizeof(fp))

static void read_all(const tb_nvml *n, tb_gpu_sample *s) {
  unsigned v = 0;
  unsigned long long bits = 0;
  s->sm_clock_mhz = n->clock(n->device, NVML_CLOCK_SM, &v) == NVML_SUCCESS ? v : NAN;
  s->mem_clock_mhz = n->clock(n->device, NVML_CLOCK_MEM, &v) == NVML_SUCCESS ? v : NAN;
  s->temp_c = n->temperature(n->device, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS ? v : NAN;
  s->power_w = n->power && n->power(n->device, &v) == NVML_SUCCESS ? v / 1000.0 : NAN; /* mW */
  s->has_throttle_reasons = n->reasons && n->reasons(n->device, &bits) == NVML_SUCCESS;
  s->throttle_reasons = s->has_throttle_reasons ? bits : 0;
}

tb_nvml *tb_nvml_open(const char *library, const char *pci_bus_id) {
  if (!library) library = getenv("TB_NVML_LIBRARY");
  if (!library || !library[0]) library = "libnvidia-ml.so.1";
  if (!pci_bus_id || !pci_bus_id[0]) {
    tb_fail(TB_ERR_INVALID_ARGUMENT, "NVML: no PCI bus id to find the board by");
    return NULL;
  }
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    tb_fail(TB_ERR_NO_DEVICE, "NVML: cannot load %s: %s", library, dlerror());
    return NULL;
  }
  tb_nvml *n = calloc(1, sizeof *n);
  if (!n) {
    dlclose(lib);
    tb_fail(TB_ERR_OUT_OF_MEMORY, "NVML: out of memory");
    return NULL;
  }
  nvml_return (*init)(void) = NULL;
  nvml_return (*by_bus_id)(const char *, nvml_device *) = NULL;
  nvml_return (*driver)(char *, unsigned) = NULL;
  LOAD(lib, init, "nvmlInit_v2");
  LOAD(lib, by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  LOAD(lib, driver, "nvmlSystemGetDriverVersion");
  n->lib = lib;
  LOAD(lib, n->shutdown, "nvmlShutdown");
  LOAD(lib, n->clock, "nvmlDeviceGetClockInfo");
  LOAD(lib, n->temperature, "nvmlDeviceGetTemperature");
  LOAD(lib, n->power, "nvmlDeviceGetPowerUsage");
  /* Renamed in r535 (clocks events); older drivers have the old name only. */
  if (!LOAD(lib, n->reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    LOAD(lib, n->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  nvml_return r = -1;
  if (!init || !by_bus_id || !driver || !n->shutdown || !n->clock || !n->temperature) {
    tb_fail(TB_ERR_NO_DEVICE, "NVML: %s lacks the functions used here", library);
  } else if ((r = init()) != NVML_SUCCESS) {
    tb_fail(TB_ERR_NO_DEVICE, "NVML: nvmlInit failed (%d)", r);
  } else if ((r = by_bus_id(pci_bus_id, &n->device)) != NVML_SUCCESS) {
    tb_fail(TB_ERR_NO_DEVICE, "NVML: no board at PCI bus id %s (%d)", pci_bus_id, r);
    n->shutdown();
    r = -1;
  }
  if (r != NVML_SUCCESS) {
    free(n);
    dlclose(lib);
    return NULL;
  }
  if (driver(n->driver, sizeof n->driver) != NVML_SUCCESS) n->driver[0] = '\0';
  n->driver[sizeof n->driver - 1] = '\0';
  tb_gpu_sample s;
  read_all(n, &s);
  n->fields = (isnan(s.sm_clock_mhz) ? 0 : TB_GPU_SM_CLOCK) |
              (isnan(s.mem_clock_mhz) ? 0 : TB_GPU_MEM_CLOCK) |
              (isnan(s.temp_c) ? 0 : TB_GPU_TEMP) | (isnan(s.power_w) ? 0 : TB_GPU_POWER) |
              (s.has_throttle_reasons ? TB_GPU_THROTTLE : 0);
  return n;
}

void tb_nvml_close(tb_nvml *n) {
  if (!n) return;
  n->shutdown();
  dlclose(n->lib);
  free(n);
}

const char *tb_nvml_driver_version(const tb_nvml *n) { return n ? n->driver : ""; }

unsigned tb_nvml_fields(const tb_nvml *n) { return n ? n->fields : 0; }

void tb_nvml_sample(const tb_nvml *n, tb_gpu_sample *out) {
  if (!n) {
    *out = (tb_gpu_sample){NAN, NAN, NAN, NAN, 0, false};
    return;
  }
  read_all(n, out);
}
