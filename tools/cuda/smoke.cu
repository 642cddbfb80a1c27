#include <cuda_runtime.h>
#include <cub/cub.cuh>
extern "C" int smoke(void) { int n = 0; return cudaGetDeviceCount(&n) == cudaSuccess ? n : -1; }
