/* A stand-in for libnvidia-ml.so.1 with fixed readings, for the tests of
 * core/nvml.c and of the rows a sweep writes (sweep_test.sh) on a machine
 * without a GPU: loaded through $TB_NVML_LIBRARY.
 *
 * Driver 000.00.01 (a version no driver has); every board but the bus id
 * "0000:FF:00.0" is found; SM 1755 MHz, memory 2619 MHz, 41 C, 123.5 W and
 * throttle reasons 0x4 (software power cap). $TB_FAKE_NVML_NO_POWER makes
 * the power reading unsupported, as on boards without a power sensor. */
#include <stdlib.h>
#include <string.h>

typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
enum { SUCCESS = 0, ERROR_INVALID_ARGUMENT = 2, ERROR_NOT_SUPPORTED = 3, ERROR_NOT_FOUND = 6,
       ERROR_INSUFFICIENT_SIZE = 7 };

static int board; /* its address is the one handle */

nvml_return nvmlInit_v2(void) { return SUCCESS; }
nvml_return nvmlShutdown(void) { return SUCCESS; }

nvml_return nvmlSystemGetDriverVersion(char *version, unsigned length) {
  static const char v[] = "000.00.01";
  if (length < sizeof v) return ERROR_INSUFFICIENT_SIZE;
  memcpy(version, v, sizeof v);
  return SUCCESS;
}

nvml_return nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvml_device *device) {
  if (!bus_id || !device) return ERROR_INVALID_ARGUMENT;
  if (strcmp(bus_id, "0000:FF:00.0") == 0) return ERROR_NOT_FOUND;
  *device = (nvml_device)(void *)&board;
  return SUCCESS;
}

nvml_return nvmlDeviceGetClockInfo(nvml_device device, int type, unsigned *mhz) {
  if (device != (nvml_device)(void *)&board) return ERROR_INVALID_ARGUMENT;
  if (type != 1 && type != 2) return ERROR_NOT_SUPPORTED; /* SM, memory */
  *mhz = type == 1 ? 1755 : 2619;
  return SUCCESS;
}

nvml_return nvmlDeviceGetTemperature(nvml_device device, int sensor, unsigned *celsius) {
  if (device != (nvml_device)(void *)&board || sensor != 0) return ERROR_INVALID_ARGUMENT;
  *celsius = 41;
  return SUCCESS;
}

nvml_return nvmlDeviceGetPowerUsage(nvml_device device, unsigned *milliwatts) {
  if (device != (nvml_device)(void *)&board) return ERROR_INVALID_ARGUMENT;
  if (getenv("TB_FAKE_NVML_NO_POWER")) return ERROR_NOT_SUPPORTED;
  *milliwatts = 123500;
  return SUCCESS;
}

nvml_return nvmlDeviceGetCurrentClocksEventReasons(nvml_device device, unsigned long long *reasons) {
  if (device != (nvml_device)(void *)&board) return ERROR_INVALID_ARGUMENT;
  *reasons = 0x4;
  return SUCCESS;
}
