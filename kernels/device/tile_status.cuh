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

}  // namespace tb
