// Moving a tile of NT*VT items between global memory and registers.
//
// Global memory is read and written striped (item i*NT + tid), so each warp
// instruction touches consecutive addresses. Scans need each thread's VT
// items consecutive (blocked), so they pass through shared memory; even VT
// is padded by one slot per 32 to keep the blocked reads free of bank
// conflicts.
#pragma once

namespace tb {

// One asynchronous copy of kBytes (4, 8 or 16) from global to shared memory:
// no register holds the value. 16-byte copies skip L1 (.cg); 4 and 8 bytes
// can only go through it (.ca). cp_async_wait_all() waits for this thread's.
template <int kBytes>
__device__ __forceinline__ void cp_async(void* shared, const void* global) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     unsigned(__cvta_generic_to_shared(shared))),
                 "l"(global)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(
                     unsigned(__cvta_generic_to_shared(shared))),
                 "l"(global), "n"(kBytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// A bulk copy by the copy engine (cp.async.bulk) into shared memory that
// completes on an mbarrier (`bar`, a shared-window address): one thread
// issues it for the threads that wait. bytes: a multiple of 16, both
// addresses 16-byte aligned. Against cp.async of 16 bytes a thread it saves
// the threads' address arithmetic; the barrier is initialized for one use
// (phase 0).
__device__ __forceinline__ void bulk_copy_begin(unsigned bar, void* shared, const void* global,
                                                unsigned bytes) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;\n\t"
      "fence.mbarrier_init.release.cluster;\n\t"
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %3;\n\t"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%1], [%2], %3, [%0];" ::
          "r"(bar),
      "r"(unsigned(__cvta_generic_to_shared(shared))), "l"(global), "r"(bytes)
      : "memory");
}
// The same barrier with nothing to copy: its phase completes at once.
__device__ __forceinline__ void bulk_copy_none(unsigned bar) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;\n\t"
      "mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
      : "memory");
}
// Until the copy has landed (the barrier's phase 0 completed).
__device__ __forceinline__ void bulk_copy_wait(unsigned bar) {
  asm volatile(
      "{\n\t.reg .pred done;\n\t"
      "wait:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
      "@!done bra wait;\n\t}" ::"r"(bar)
      : "memory");
}

// *p where pred holds, fallback elsewhere: a load of data read once (a sparse
// matrix's entries and column indices), evict-first in L1 and L2
// (ld.global.cs) so that the caches keep what is read again. The predicate
// sits on the instruction: a branch around each such load cost the 2D
// stencil SpMV 35% more instructions (H100).
template <typename T>
__device__ __forceinline__ T load_once_if(bool pred, const T* p, T fallback) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte elements");
  if constexpr (sizeof(T) == 4) {
    unsigned v = __builtin_bit_cast(unsigned, fallback);
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t@p ld.global.cs.b32 %0, [%1];\n\t}"
        : "+r"(v)
        : "l"(p), "r"(int(pred)));
    return __builtin_bit_cast(T, v);
  } else {
    unsigned long long v = __builtin_bit_cast(unsigned long long, fallback);
    asm("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t@p ld.global.cs.b64 %0, [%1];\n\t}"
        : "+l"(v)
        : "l"(p), "r"(int(pred)));
    return __builtin_bit_cast(T, v);
  }
}

template <typename T, int NT, int VT>
struct TileTranspose {
  static constexpr bool kPad = VT % 2 == 0;
  static constexpr int kItems = NT * VT;
  static constexpr int kSlots = kItems + (kPad ? kItems / 32 : 0);
  struct Storage { T items[kSlots]; };

  __device__ __forceinline__ static int slot(int i) { return kPad ? i + i / 32 : i; }

  // Loads count (<= NT*VT) items from src; slots past count get fill.
  __device__ __forceinline__ static void load_blocked(const T* __restrict__ src, int count,
                                                      T fill, T (&x)[VT], Storage& s) {
    const int tid = threadIdx.x;
    T v[VT];
    if (count == kItems) {
#pragma unroll
      for (int i = 0; i < VT; ++i) v[i] = src[i * NT + tid];
    } else {
#pragma unroll
      for (int i = 0; i < VT; ++i) v[i] = i * NT + tid < count ? src[i * NT + tid] : fill;
    }
#pragma unroll
    for (int i = 0; i < VT; ++i) s.items[slot(i * NT + tid)] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < VT; ++i) x[i] = s.items[slot(tid * VT + i)];
  }

  // Stores the first count items of the blocked tile x to dst. Callers
  // synchronise before reusing s after load_blocked.
  __device__ __forceinline__ static void store_blocked(const T (&x)[VT], int count,
                                                       T* __restrict__ dst, Storage& s) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < VT; ++i) s.items[slot(tid * VT + i)] = x[i];
    __syncthreads();
    if (count == kItems) {
#pragma unroll
      for (int i = 0; i < VT; ++i) dst[i * NT + tid] = s.items[slot(i * NT + tid)];
    } else {
#pragma unroll
      for (int i = 0; i < VT; ++i)
        if (i * NT + tid < count) dst[i * NT + tid] = s.items[slot(i * NT + tid)];
    }
  }
};

// Striped registers to thread order through a buffer of 1/R of the tile, in
// R rounds (R = 2 keeps an 8-byte tile in the shared memory a 4-byte one
// takes). With VT odd the thread-order reads are free of bank conflicts.
template <typename T, int NT, int VT, int R>
struct TileTransposeRounds {
  static constexpr int kItems = NT * VT;
  static constexpr int kSlots = (kItems + R - 1) / R;
  struct Storage { T items[kSlots]; };

  __device__ __forceinline__ static void blocked_from_striped(const T (&v)[VT], T (&x)[VT],
                                                              Storage& s) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int lo = r * kSlots;
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const int k = i * NT + tid - lo;
        if (R == 1 || (k >= 0 && k < kSlots)) s.items[k] = v[i];
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < VT; ++i) {
        const int k = tid * VT + i - lo;
        if (R == 1 || (k >= 0 && k < kSlots)) x[i] = s.items[k];
      }
      __syncthreads();
    }
  }
};

// One warp's 32*VT consecutive items between global memory and registers:
// global accesses striped across the lanes (coalesced), registers blocked
// (lane l holds items l*VT ..). Only the warp meets (__syncwarp), so a CTA
// of such warps needs no barrier to load or store its tile. Even VT is
// padded by one slot per 32 items, as in TileTranspose.
template <typename T, int VT>
struct WarpTranspose {
  static constexpr bool kPad = VT % 2 == 0;
  static constexpr int kItems = 32 * VT;
  static constexpr int kSlots = kItems + (kPad ? VT : 0);
  struct Storage { T items[kSlots]; };

  __device__ __forceinline__ static int slot(int i) { return kPad ? i + i / 32 : i; }

  // Loads count (<= 32*VT, may be 0 or negative) items from src; slots past
  // count get fill.
  __device__ __forceinline__ static void load_blocked(const T* __restrict__ src, int count,
                                                      T fill, T (&x)[VT], Storage& s) {
    const int lane = threadIdx.x % 32;
    T v[VT];
    if (count >= kItems) {
#pragma unroll
      for (int i = 0; i < VT; ++i) v[i] = src[i * 32 + lane];
    } else {
#pragma unroll
      for (int i = 0; i < VT; ++i) v[i] = i * 32 + lane < count ? src[i * 32 + lane] : fill;
    }
    blocked_from_striped(v, x, s);
  }

  // The warp's items from striped registers (v[i] is item i * 32 + lane) to
  // blocked ones.
  __device__ __forceinline__ static void blocked_from_striped(const T (&v)[VT], T (&x)[VT],
                                                              Storage& s) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < VT; ++i) s.items[slot(i * 32 + lane)] = v[i];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < VT; ++i) x[i] = s.items[slot(lane * VT + i)];
  }

  // Stores the first count items of the warp's blocked x to dst.
  __device__ __forceinline__ static void store_blocked(const T (&x)[VT], int count,
                                                       T* __restrict__ dst, Storage& s) {
    const int lane = threadIdx.x % 32;
    __syncwarp();  // every lane has read its load_blocked items
#pragma unroll
    for (int i = 0; i < VT; ++i) s.items[slot(lane * VT + i)] = x[i];
    __syncwarp();
    if (count >= kItems) {
#pragma unroll
      for (int i = 0; i < VT; ++i) dst[i * 32 + lane] = s.items[slot(i * 32 + lane)];
    } else {
#pragma unroll
      for (int i = 0; i < VT; ++i)
        if (i * 32 + lane < count) dst[i * 32 + lane] = s.items[slot(i * 32 + lane)];
    }
  }
};

}  // namespace tb
