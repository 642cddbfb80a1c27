// Programmatic dependent launch (sm_90): a kernel launched with
// launch_dependent may be scheduled before the kernel ahead of it on the
// stream has finished, once every block of that one has called
// let_dependents_start (or exited). Until it calls wait_for_prior_kernel it
// may read only what was complete before the kernel ahead started (the
// call's inputs) and what that kernel publishes (Published, below); the
// call returns when the kernel ahead has completed and its writes are
// visible. What is hidden: the launch latency between the two, and whatever
// the dependent issues before its wait (a tile's loads of its input behind
// a partition, for one).
//
// Read what the kernel ahead wrote through plain pointers (or __ldcg):
// ptxas may hoist a read-only load (`const __restrict__`, LDG.E.CONSTANT)
// above the wait. In a hot tile prefer the plain pointer: __ldcg on the
// segmented tile's limits changed its code and cost it 10 points of copy
// (cta_segreduce.cuh, tile_range).
#pragma once

#include "core/cuda.h"

namespace tb {

__device__ __forceinline__ void let_dependents_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__device__ __forceinline__ void wait_for_prior_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// Values that the kernel ahead stores one at a time while it runs, for a
// dependent that reads each as soon as it is stored instead of waiting for
// the whole kernel (its tail: a partition's last wave, say). Word i holds
// value i plus one, stored relaxed into words zeroed before the kernel ahead
// started; 0 reads as not yet stored. For values other than UINT32_MAX. A
// dependent may wait only on words the kernel ahead always stores: then it
// cannot hang, as it is scheduled only once every block of that kernel has
// called let_dependents_start or exited, so all of them run.
struct Published {
  unsigned* words;

  __device__ __forceinline__ void publish(int64_t i, unsigned v) const {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(words + i), "r"(v + 1u) : "memory");
  }
  // Values i .. i + n - 1 (n <= 3): peek issues their loads and returns
  // (no compiler barrier: loads issued after it are in flight with them),
  // settle then waits for any not yet stored and leaves the values in w.
  // peek loads through L1 (relaxed loads from L2 there cost the 4-byte CSR
  // tile 8-10% of its throughput, H100): a word stays 0 until stored, then
  // keeps its value, so a stale line can only read 0, which settle
  // confirms from L2.
  __device__ __forceinline__ void peek(int64_t i, int n, unsigned (&w)[3]) const {
#pragma unroll
    for (int k = 0; k < 3; ++k) w[k] = k < n ? words[i + k] : 1u;
  }
  __device__ __forceinline__ void settle(int64_t i, int n, unsigned (&w)[3]) const {
    // Backing off: every warp of every early block polls, on a few lines.
    for (unsigned ns = 128; !(w[0] && w[1] && w[2]); ns = min(2 * ns, 1024u)) {
      __nanosleep(ns);
#pragma unroll
      for (int k = 0; k < 3; ++k) w[k] = k < n ? load(words + i + k) : 1u;
    }
#pragma unroll
    for (int k = 0; k < 3; ++k) --w[k];
  }

 private:
  __device__ __forceinline__ static unsigned load(const unsigned* p) {
    unsigned w;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(w) : "l"(p));
    return w;
  }
};

// kernel<<<grid, nt, shared, stream>>>(args...) with one launch attribute.
template <typename... Params, typename... Args>
tb_status launch_with(cudaLaunchAttribute attribute, void (*kernel)(Params...), unsigned grid,
                      int nt, int shared, cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(unsigned(nt));
  config.dynamicSmemBytes = size_t(shared);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  TB_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, Params(args)...));
  return TB_OK;
}

// kernel<<<grid, nt, shared, stream>>>(args...) as a programmatic dependent
// of the kernel ahead of it on the stream (after anything else, an ordinary
// launch).
template <typename... Params, typename... Args>
tb_status launch_dependent(void (*kernel)(Params...), unsigned grid, int nt, int shared,
                           cudaStream_t stream, Args... args) {
  cudaLaunchAttribute dependent = {};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  return launch_with(dependent, kernel, grid, nt, shared, stream, args...);
}

// Whether a grid of kernel (nt threads, no dynamic shared memory) is
// resident at once: one wave, where a call can drop the pass ahead of its
// tiles (the tiles find their own bounds) and a cooperative launch may use a
// grid barrier.
template <class Kernel>
bool fits_one_wave(Kernel kernel, int nt, int64_t grid) {
  int per_sm = 0, sms = 0;
  return tb_kernel_residency(reinterpret_cast<const void*>(kernel), nt, 0, &per_sm, &sms) ==
             TB_OK &&
         grid <= int64_t(per_sm) * sms;
}

// kernel<<<grid, nt, shared, stream>>>(args...) launched cooperatively: every
// block resident at once, so that the kernel may use a grid barrier
// (cooperative_groups::this_grid().sync()). The caller has checked that the
// grid fits (fits_one_wave).
template <typename... Params, typename... Args>
tb_status launch_cooperative(void (*kernel)(Params...), unsigned grid, int nt, int shared,
                             cudaStream_t stream, Args... args) {
  cudaLaunchAttribute cooperative = {};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  return launch_with(cooperative, kernel, grid, nt, shared, stream, args...);
}

}  // namespace tb
