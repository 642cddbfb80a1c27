/* The state of the GPU a sweep measures on (clocks, temperature, power,
 * throttle reasons) and the driver's version, from NVML.
 *
 * NVML comes with the driver, not the toolkit: libnvidia-ml.so.1 is loaded
 * at run time, so a build needs neither it nor its header, and a machine
 * without it (no driver, a container without the driver's libraries) runs
 * every sweep with these fields left out, never guessed. $TB_NVML_LIBRARY
 * names another library to load (the tests' stand-in).
 *
 * CPU only: no CUDA header; the board is named by its PCI bus id, as CUDA
 * gives it (core/cuda.h), so that CUDA_VISIBLE_DEVICES cannot make NVML
 * report on another GPU than the one measured. */
#ifndef TB_CORE_NVML_H
#define TB_CORE_NVML_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_nvml tb_nvml;

/* One reading. A field NVML did not give is NAN (throttle_reasons: has_
 * false); which fields a board gives is settled by tb_nvml_open's first
 * reading (tb_nvml_fields), so that every row of a run has the same keys. */
typedef struct tb_gpu_sample {
  double sm_clock_mhz, mem_clock_mhz, temp_c, power_w;
  uint64_t throttle_reasons; /* NVML's clocks-event (throttle) reasons bitmask */
  bool has_throttle_reasons;
} tb_gpu_sample;

/* The board with PCI bus id `pci_bus_id` ("0000:1B:00.0"), through
 * `library` (NULL: $TB_NVML_LIBRARY, else libnvidia-ml.so.1). NULL, with the
 * reason in tb_last_error(), when the library, its functions or the board
 * cannot be had. */
tb_nvml *tb_nvml_open(const char *library, const char *pci_bus_id);
void tb_nvml_close(tb_nvml *n);

/* The driver's version ("580.95.05"); "" when NVML did not give it. */
const char *tb_nvml_driver_version(const tb_nvml *n);

/* Which fields this board gives: the TB_GPU_* bits of those it answered at
 * open time. */
enum {
  TB_GPU_SM_CLOCK = 1,
  TB_GPU_MEM_CLOCK = 2,
  TB_GPU_TEMP = 4,
  TB_GPU_POWER = 8,
  TB_GPU_THROTTLE = 16,
};
unsigned tb_nvml_fields(const tb_nvml *n);

/* Reads the board now (five NVML calls; none touches the GPU's work).
 * With n NULL every field is absent. */
void tb_nvml_sample(const tb_nvml *n, tb_gpu_sample *out);

#ifdef __cplusplus
}
#endif
#endif
