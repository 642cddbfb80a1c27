// Load-balancing search: which object generated each work item.
//
// Objects 0..B-1 own runs of work items given by the exclusive scan of their
// counts: item i belongs to upper_bound(scan, i) - 1. Merging the items
// 0, 1, 2, ... with the scan so that scan[j] goes before item i when
// scan[j] <= i (upper bound), and cutting the merged sequence into tiles of
// NT*VT elements, gives every CTA the same work, items plus objects, whatever
// the counts (Merge Path). A partition pass stores how many scan entries
// precede each tile boundary; CtaLoadBalance turns two of those into the
// tile's ranges, loads its slice of the scan (with the entry before it, for
// ranks) and finds every item's object in shared memory: each object marks
// the item where its run starts, then a max-scan over the tile carries each
// mark forward. A tile holding no scan entry lies inside one object and
// skips both (most tiles, once runs are longer than a tile).
//
// Marks are shared atomicMax: of several objects starting at one item (all
// but the last empty) the last wins, as upper_bound's does. No thread waits
// on a chain of dependent loads (a per-thread Merge Path search and serial
// merge measured 10-15 points of copy bandwidth slower at short runs, equal
// at long ones), and any input, sorted or not, is race-free; every index is
// clamped to the arrays, so a malformed scan stays memory safe.
#pragma once

#include <stdint.h>

#include <climits>

#include "kernels/device/cta_scan.cuh"
#include "kernels/device/tile_io.cuh"

namespace tb {

// Upper-bound Merge Path of the items 0, 1, ..., n_items - 1 with the n_scan
// entries of scan: how many entries are among the first diag merged
// elements. Entry m goes before item i when scan[m] <= i, so before the item
// it meets on diagonal diag when scan[m] + m < diag: the answer is the lower
// bound of diag in the keys scan[m] + m, ascending for a sorted scan.
__device__ __forceinline__ int64_t merge_path_key(const int* __restrict__ scan, int m) {
  return int64_t(scan[m]) + m;
}

// The Merge Path answers of NT consecutive tile boundaries, one a thread,
// their diagonals ascending from d_first to d_last. A binary search a
// boundary costs log2(n_scan) dependent loads, and every boundary's first
// levels are the same few lines, which all CTAs ask for at about the same
// time. Here the CTA probes NT evenly spaced keys of a range that holds all
// its answers, a round at a time: a round narrows each thread's range to
// the gap between two probes, and the CTA's to the gaps of its first and
// last answers, until that stops halving (the spread of the answers
// themselves). Each thread then searches its own gap. (H100, 2^26 items:
// 17-20 us at one item per object where a search over the whole scan took
// 19-22 us.) Reads only entries in [0, n_scan), on any scan; the result is
// clamped to [max(0, diag - n_items), min(diag, n_scan)], where a sorted
// scan's is.
template <int NT>
struct CtaMergePath {
  struct Storage {
    int64_t keys[NT];  // the round's probes
  };

  __device__ __forceinline__ static int partition(const int* __restrict__ scan, int n_items,
                                                  int n_scan, int64_t diag, int64_t d_first,
                                                  int64_t d_last, Storage& s) {
    int lo = 0, hi = n_scan;        // the CTA's range, the same in every thread
    int my_lo = 0, my_hi = n_scan;  // this thread's
    while (hi - lo > NT) {
      const int64_t width = hi - lo;
      // Probe j, ascending and distinct in j (width > NT), inside [lo, hi).
      const auto probe = [&](int j) { return lo + int((j + 1) * width / (NT + 1)); };
      const int64_t key = merge_path_key(scan, probe(threadIdx.x));
      s.keys[threadIdx.x] = key;
      const int below_first = __syncthreads_count(key < d_first);
      const int below_last = __syncthreads_count(key < d_last);
      int c = 0, n = NT;  // the probes below diag
      while (c < n) {
        const int mid = (c + n) / 2;
        if (s.keys[mid] < diag)
          c = mid + 1;
        else
          n = mid;
      }
      my_lo = c > 0 ? probe(c - 1) + 1 : lo;
      my_hi = c < NT ? probe(c) : hi;
      const int next_lo = below_first > 0 ? probe(below_first - 1) + 1 : lo;
      const int next_hi = below_last < NT ? probe(below_last) : hi;
      __syncthreads();  // every thread has read the keys the next round writes
      lo = next_lo;
      hi = next_hi;
      if (2 * int64_t(hi - lo) >= width) break;
    }
    while (my_lo < my_hi) {
      const int mid = int((unsigned(my_lo) + unsigned(my_hi)) / 2);
      if (merge_path_key(scan, mid) < diag)
        my_lo = mid + 1;
      else
        my_hi = mid;
    }
    return int(min(max(int64_t(my_lo), diag - n_items), min(diag, int64_t(n_scan))));
  }
};

// Copies src[0, count) into dst in shared memory with cp.async:
// each warp instruction reads consecutive addresses, no register holds a
// value, and the rounds stop at count (a predicated round for every slot a
// slice could hold took a fifth of expand's instructions at 4 items per
// object). cta_slices_landed() waits for them.
template <int NT, typename T>
__device__ __forceinline__ void cta_load_slice(const T* __restrict__ src, int count, T* dst) {
#pragma unroll 1
  for (int k = int(threadIdx.x); k < count; k += NT) cp_async<int(sizeof(T))>(dst + k, src + k);
}

// After the slices and clear(): every thread's copies have landed, and the
// CTA sees every slice.
__device__ __forceinline__ void cta_slices_landed() {
  cp_async_wait_all();
  __syncthreads();
}

template <int NT, int VT>
struct CtaLoadBalance {
  static_assert(NT % 32 == 0, "NT must be a multiple of the warp size");
  static constexpr int kTile = NT * VT;
  static constexpr int kWarps = NT / 32;

  // The tile's part of the merge: items [a0, a0 + a_count) and scan entries
  // [b0, b0 + b_count). Its items belong to objects b0 - 1 .. b0 + b_count - 1
  // (b0 - 1: the object running into the tile from the left); the slice
  // [b_lo, b_lo + n_slice) is that range without object -1. Callers load
  // their per-object arrays (values, gather, scatter offsets) for the slice.
  struct Tile {
    int a0, a_count, b0, b_count, b_lo, n_slice;
  };

  // Owned by the caller, who may place its slices beside it.
  struct Storage {
    int scan[kTile + 1];  // scan[b_lo + k], k < n_slice
    int obj[kTile];       // object of item a0 + k, k < a_count (-1: none)
    int warp_max[kWarps];
  };

  // The slot of this thread's i-th item (i < VT) once search() has returned:
  // warp w reads back its own 32*VT slots, lane by lane, so that consecutive
  // lanes touch consecutive items in global memory, with no CTA barrier.
  __device__ __forceinline__ static int slot_of(int i) {
    return int(threadIdx.x / 32) * (32 * VT) + i * 32 + int(threadIdx.x % 32);
  }

  // The ranges of tile `tile` from the partition pass, or with kSearch (a
  // grid of one wave, which the host launches without the pass; partition
  // unused) from the tile's own search of its two diagonals, on s. Every
  // thread calls it, after the wait for the kernel ahead. A template
  // argument, not a null partition: the search's code in the partitioned
  // kernels cost them up to a tenth at 2^24-2^26 items (H100).
  template <bool kSearch>
  __device__ __forceinline__ static Tile tile(const int* partition, const int* __restrict__ scan,
                                              int tile, int n_items, int n_objects, Storage& s) {
    if constexpr (!kSearch)
      return bounded(partition, tile, tile, n_items, n_objects);
    using MergePath = CtaMergePath<NT>;
    static_assert(sizeof(typename MergePath::Storage) <= sizeof(Storage), "the search's on s");
    (void)partition;
    const int64_t total = int64_t(n_items) + n_objects;
    const int64_t d0 = min(int64_t(tile) * kTile, total), d1 = min(d0 + kTile, total);
    const int b = MergePath::partition(scan, n_items, n_objects, threadIdx.x == 0 ? d0 : d1, d0,
                                       d1, *reinterpret_cast<typename MergePath::Storage*>(&s));
    __shared__ int bounds[2];
    if (threadIdx.x < 2) bounds[threadIdx.x] = b;
    __syncthreads();
    const Tile t = bounded(bounds, 0, tile, n_items, n_objects);
    __syncthreads();  // the search's storage read before the tile's reuse of s
    return t;
  }

 private:
  // From the tile's two bounds, b[k] and b[k + 1].
  __device__ __forceinline__ static Tile bounded(const int* b, int k, int tile, int n_items,
                                                 int n_objects) {
    const int64_t d0 = int64_t(tile) * kTile;
    const int64_t d1 = min(d0 + kTile, int64_t(n_items) + n_objects);
    const int len = int(d1 - d0);
    Tile t;
    t.b0 = b[k];
    t.a0 = int(d0 - t.b0);
    // With a sorted scan the partitions are monotone and these clamps change
    // nothing; with any other they keep the tile inside both arrays.
    t.b_count = min(max(b[k + 1] - t.b0, 0), min(len, n_objects - t.b0));
    t.a_count = min(len - t.b_count, n_items - t.a0);
    t.b_lo = t.b0 > 0 ? t.b0 - 1 : 0;
    t.n_slice = t.b0 + t.b_count - t.b_lo;
    return t;
  }

 public:
  // A tile with no scan entry lies inside one object (b0 - 1, or none
  // when b0 = 0): it needs no marks and no max-scan, and so no barrier.
  __device__ __forceinline__ static bool one_object(const Tile& t) { return t.b_count == 0; }

  // Loads the tile's scan slice into s.scan. No barrier: the caller issues
  // its own slice loads and clear(), then cta_slices_landed().
  __device__ __forceinline__ static void load_scan(const int* __restrict__ scan, const Tile& t,
                                                   Storage& s) {
    cta_load_slice<NT>(scan + t.b_lo, t.n_slice, s.scan);
  }

  // Clears s.obj for the marks, every slot (a store costs less than its
  // predicate); a tile of one object needs none. Where it goes is the
  // caller's, measured per kernel on the H100 when the slices were loaded
  // through registers: the search cleared after its slice load (5% faster
  // at one item per object), expand and move before theirs (8-byte expand
  // lost 4-5% at 2-4 items per object with the clear after).
  __device__ __forceinline__ static void clear(const Tile& t, Storage& s) {
    if (one_object(t)) return;
#pragma unroll
    for (int i = 0; i < VT; ++i) s.obj[i * NT + int(threadIdx.x)] = INT_MIN;
  }

  // After that barrier: the object of every item into s.obj. Ends with the
  // __syncwarp that slot_of's reads need (a warp reads back only the slots
  // it wrote).
  __device__ __forceinline__ static void search(const Tile& t, Storage& s) {
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    if (one_object(t)) {
      // Every slot, the tile's items or not: a store costs less than its
      // predicate, and slots past a_count are never read back.
#pragma unroll
      for (int i = 0; i < VT; ++i) s.obj[tid * VT + i] = t.b0 - 1;
      __syncwarp();
      return;
    }
    // Entry j >= b0 marks the item where its run starts; an entry before the
    // tile's first item (only a scan with negative entries has one) still
    // counts for that item. In 32 bits: a0 + a_count <= n_items. With no
    // item (a_count = 0) a mark may land in slot 0, which nothing reads.
    const int a_end = t.a0 + t.a_count;
    for (int k = tid + (t.b0 - t.b_lo); k < t.n_slice; k += NT) {
      const int v = s.scan[k];
      if (v < a_end) atomicMax(&s.obj[max(v, t.a0) - t.a0], t.b_lo + k);
    }
    __syncthreads();
    // Max-scan in blocked order (thread t owns slots t*VT .. t*VT + VT - 1),
    // starting from the object that runs into the tile from the left. Slots
    // past a_count hold whatever was there; unpredicated, they reach only
    // slots past a_count (a thread that owns an item has only items before
    // it), so every item still gets its upper bound.
    int x[VT], m = INT_MIN;
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      x[i] = s.obj[tid * VT + i];
      m = max(m, x[i]);
    }
    const int incl = warp_scan_inclusive<TB_OP_MAX>(m, lane);
    int carry = __shfl_up_sync(kFullMask, incl, 1);
    if (lane == 0) carry = INT_MIN;
    if (kWarps > 1) {
      if (lane == 31) s.warp_max[warp] = incl;
      __syncthreads();
      carry = max(carry, warp_reduce<TB_OP_MAX>(lane < warp ? s.warp_max[lane] : INT_MIN));
    }
    carry = max(carry, t.b0 - 1);
#pragma unroll
    for (int i = 0; i < VT; ++i) {
      carry = max(carry, x[i]);
      s.obj[tid * VT + i] = carry;
    }
    __syncwarp();
  }

  // Where object o (>= 0, from s.obj) sits in the tile's slices.
  __device__ __forceinline__ static int slot(const Tile& t, int o) { return o - t.b_lo; }
};

}  // namespace tb
