// What every dev/ harness needs: a CUDA call that exits on error, and the
// median time of a launch.
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

// Median of reps timed calls of f (after one untimed warm-up), in ms; 0 with
// reps = 0 (the warm-up alone, to run a launch once). before() runs ahead of
// each call, outside the timed events (an L2 flush, say).
template <class F, class Before>
static float median_ms(F&& f, int reps, Before before) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < reps + 1; ++r) {
    before();
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    if (r) ms.push_back(t);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class F>
static float median_ms(F&& f, int reps) {
  return median_ms(f, reps, [] {});
}
