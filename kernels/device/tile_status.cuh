// Per-tile status for single-pass scans with decoupled look-back.
//
// Each tile publishes its aggregate (AGGREGATE) as soon as it is reduced and
// its inclusive prefix (PREFIX) once known; successors read a window of 32
// predecessors per step. Types of up to 4 bytes pack status and value into
// one 64-bit word written with a single relaxed atomic store, so a reader
// sees both or neither. Wider types keep them apart: the value is stored
// first and the status released after it; a reader acquires the status
// before reading the value.
#pragma once

#include <cuda/atomic>

#include "kernels/device/cta_reduce.cuh"

namespace tb {

enum TileStatus : unsigned { kInvalid = 0, kAggregate = 1, kPrefix = 2 };

template <typename T, bool kPacked = (sizeof(T) <= 4)>
struct TileStatusArray;

template <typename T>
struct TileStatusArray<T, true> {
  unsigned long long* words;  // zeroed (kInvalid) before the launch

  static size_t bytes(int64_t tiles) { return size_t(tiles) * sizeof(unsigned long long); }
  static size_t status_bytes(int64_t tiles) { return bytes(tiles); }
  void bind(void* p, int64_t) { words = static_cast<unsigned long long*>(p); }

  __device__ __forceinline__ void publish(int64_t tile, TileStatus st, T value) const {
    unsigned bits = 0;
    memcpy(&bits, &value, sizeof(T));
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
    w.store((static_cast<unsigned long long>(st) << 32) | bits, cuda::memory_order_relaxed);
  }
  __device__ __forceinline__ TileStatus read(int64_t tile, T* value) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
    unsigned long long word = w.load(cuda::memory_order_relaxed);
    unsigned bits = static_cast<unsigned>(word);
    memcpy(value, &bits, sizeof(T));
    return static_cast<TileStatus>(word >> 32);
  }
};

template <typename T>
struct TileStatusArray<T, false> {
  unsigned* status;  // zeroed (kInvalid) before the launch
  T* aggregate;
  T* prefix;

  static size_t bytes(int64_t tiles) {
    return align(size_t(tiles) * sizeof(unsigned)) + 2 * size_t(tiles) * sizeof(T);
  }
  static size_t align(size_t b) { return (b + 255) / 256 * 256; }
  void bind(void* p, int64_t tiles) {
    status = static_cast<unsigned*>(p);
    aggregate = reinterpret_cast<T*>(static_cast<char*>(p) + align(size_t(tiles) * sizeof(unsigned)));
    prefix = aggregate + tiles;
  }
  // Only the status words need zeroing.
  static size_t status_bytes(int64_t tiles) { return size_t(tiles) * sizeof(unsigned); }

  __device__ __forceinline__ void publish(int64_t tile, TileStatus st, T value) const {
    (st == kPrefix ? prefix : aggregate)[tile] = value;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> s(status[tile]);
    s.store(st, cuda::memory_order_release);
  }
  __device__ __forceinline__ TileStatus read(int64_t tile, T* value) const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> s(status[tile]);
    TileStatus st = static_cast<TileStatus>(s.load(cuda::memory_order_acquire));
    if (st != kInvalid) *value = (st == kPrefix ? prefix : aggregate)[tile];
    return st;
  }
};

// Warp 0 finds the exclusive prefix of `tile` (> 0) from its predecessors'
// published aggregates and prefixes, 32 tiles per step, nearest first.
template <tb_op OP, typename T>
__device__ T look_back(const TileStatusArray<T>& status, int64_t tile) {
  const int lane = threadIdx.x % 32;
  const T identity = Op<OP>::template identity<T>();
  T prefix = identity;
  for (int64_t nearest = tile - 1;; nearest -= 32) {
    const int64_t pred = nearest - (31 - lane);  // lane 31 reads the nearest
    T value = identity;
    TileStatus st = kPrefix;  // nothing before tile 0
    if (pred >= 0) st = status.read(pred, &value);
    // Back off between polls: thousands of warps spinning on L2 otherwise
    // take bandwidth from the tiles' own loads and stores.
    for (unsigned delay = 32; __any_sync(kFullMask, st == kInvalid); delay = min(2 * delay, 512u)) {
      __nanosleep(delay);
      if (st == kInvalid) st = status.read(pred, &value);
    }
    const unsigned prefixes = __ballot_sync(kFullMask, st == kPrefix);
    const int first = prefixes ? 31 - __clz(prefixes) : 0;  // nearest prefix
    const T window = warp_reduce<OP>(lane >= first ? value : identity);
    prefix = Op<OP>::apply(window, prefix);
    if (prefixes) return prefix;
  }
}

}  // namespace tb
