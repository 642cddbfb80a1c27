// OpenMP-style reductions: what a compiler generates for one reduction clause
// such as `reduction(+:foo) reduction(max:bar)`, on top of the type-agnostic
// runtime in kernels/device/omp_runtime.cuh.
//
// The generated side is written once here over a run-time description of
// the clause (each variable's type and operator as a one-byte code), where a
// compiler would emit it per clause: the private ReduceData, its two
// callbacks, the region's loop body, the kernels that wrap the region, and
// the atomics path that the runtime's tree reduction replaces.
#include <stdint.h>
#include <string.h>

#include "core/cuda.h"
#include "kernels/device/dependent_launch.cuh"
#include "kernels/device/omp_runtime.cuh"
#include "kernels/device/ops.cuh"
#include "kernels/omp_reduce_dispatch.h"

namespace tb {
namespace omp {
namespace {

// ---- the clause's private data ---------------------------------------------

// Every (type, op) pair that tb_check_type_op accepts, as X(type, T, op).
#define TB_OMP_INT_PAIRS(X, TT, T)                                                    \
  X(TT, T, TB_OP_PLUS) X(TT, T, TB_OP_MIN) X(TT, T, TB_OP_MAX) X(TT, T, TB_OP_MULTIPLIES) \
  X(TT, T, TB_OP_BIT_AND) X(TT, T, TB_OP_BIT_OR) X(TT, T, TB_OP_BIT_XOR)
#define TB_OMP_FLOAT_PAIRS(X, TT, T) \
  X(TT, T, TB_OP_PLUS) X(TT, T, TB_OP_MIN) X(TT, T, TB_OP_MAX) X(TT, T, TB_OP_MULTIPLIES)
#define TB_OMP_PAIRS(X)                                                            \
  TB_OMP_INT_PAIRS(X, TB_INT32, int32_t) TB_OMP_INT_PAIRS(X, TB_INT64, long long) \
  TB_OMP_FLOAT_PAIRS(X, TB_FLOAT, float) TB_OMP_FLOAT_PAIRS(X, TB_DOUBLE, double)

__host__ __device__ constexpr uint8_t code_of(tb_type t, tb_op op) {
  return uint8_t(t * TB_OP_COUNT + op);  // as tb_omp_code
}

__device__ __forceinline__ bool is_wide(uint8_t code) {
  const int t = code / TB_OP_COUNT;
  return t == TB_INT64 || t == TB_DOUBLE;
}

// A variable's private copy sits in the low bytes of a 64-bit slot.
template <typename T>
__device__ __forceinline__ T from_bits(uint64_t bits) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const uint32_t w = uint32_t(bits);
    memcpy(&v, &w, 4);
  } else {
    memcpy(&v, &bits, 8);
  }
  return v;
}

template <typename T>
__device__ __forceinline__ uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t w;
    memcpy(&w, &v, 4);
    return w;
  } else {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
  }
}

// The ReduceData: one thread's private copies of the clause's variables,
// with the codes that the callbacks switch on.
struct ReduceData {
  uint64_t value[TB_OMP_MAX_VARS];
  uint8_t code[TB_OMP_MAX_VARS];
  int32_t num_vars;
};
static_assert(sizeof(ReduceData) % 8 == 0, "the runtime copies ReduceData in words");

// A (type, op) pair as a type: what visit_pair hands its callback.
template <typename T_, tb_op OP_>
struct Pair {
  using T = T_;
  static constexpr tb_op op = OP_;
};

// Calls f(Pair<T, OP>{}) for the pair that code names: the one switch from
// a run-time code to the type-specific code.
template <class F>
__device__ __forceinline__ void visit_pair(uint8_t code, F&& f) {
  switch (code) {
#define TB_CASE(TT, T, OP) \
  case code_of(TT, OP): f(Pair<T, OP>{}); return;
    TB_OMP_PAIRS(TB_CASE)
#undef TB_CASE
  }
}

__device__ uint64_t identity(uint8_t code) {
  uint64_t bits = 0;
  visit_pair(code, [&](auto p) {
    using P = decltype(p);
    bits = to_bits<typename P::T>(Op<P::op>::template identity<typename P::T>());
  });
  return bits;
}

__device__ uint64_t fold(uint8_t code, uint64_t a, uint64_t b) {
  uint64_t bits = a;
  visit_pair(code, [&](auto p) {
    using P = decltype(p);
    using T = typename P::T;
    bits = to_bits<T>(Op<P::op>::template apply<T>(from_bits<T>(a), from_bits<T>(b)));
  });
  return bits;
}

__device__ __forceinline__ uint64_t load_bits(const void* base, int64_t i, bool wide) {
  return wide ? static_cast<const uint64_t*>(base)[i] : static_cast<const uint32_t*>(base)[i];
}

__device__ __forceinline__ void store_bits(void* base, int64_t i, bool wide, uint64_t bits) {
  if (wide)
    static_cast<uint64_t*>(base)[i] = bits;
  else
    static_cast<uint32_t*>(base)[i] = uint32_t(bits);
}

__device__ __forceinline__ ReduceData private_copies(const tb_omp_clause& clause) {
  ReduceData d;
  d.num_vars = clause.num_vars;
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v) {
    d.code[v] = clause.code[v];
    d.value[v] = v < clause.num_vars ? identity(clause.code[v]) : 0;
  }
  return d;
}

// ---- the two callbacks -----------------------------------------------------

__device__ __forceinline__ uint64_t shuffle_down(uint64_t bits, int offset, bool wide) {
  const unsigned lanes = __activemask();
  const uint64_t lo = __shfl_down_sync(lanes, uint32_t(bits), offset);
  if (!wide) return lo;
  const uint64_t hi = __shfl_down_sync(lanes, uint32_t(bits >> 32), offset);
  return hi << 32 | lo;
}

// Whether this lane folds the remote data into its own (or takes it), per Version.
__device__ __forceinline__ bool keeps_own(int16_t lane_id, int16_t offset, int16_t version) {
  return version == kFullWarp || (version == kContiguous && lane_id < offset) ||
         (version == kDispersed && lane_id % 2 == 0 && offset > 0);
}

__device__ void shuffle_reduce(void* data, int16_t lane_id, int16_t offset, int16_t version) {
  ReduceData& d = *static_cast<ReduceData*>(data);
  const bool keep = keeps_own(lane_id, offset, version);
#pragma unroll
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v) {
    if (v >= d.num_vars) break;
    const uint64_t remote = shuffle_down(d.value[v], offset, is_wide(d.code[v]));
    d.value[v] = keep ? fold(d.code[v], d.value[v], remote) : remote;
  }
}

// One 32-word transfer medium, reused word by word: the shared memory a block
// reduction needs does not grow with the clause.
__device__ void inter_warp_copy(void* data, int32_t warp_num) {
  __shared__ uint32_t medium[32];
  ReduceData& d = *static_cast<ReduceData*>(data);
  const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
#pragma unroll
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v) {
    if (v >= d.num_vars) break;
    uint32_t* words = reinterpret_cast<uint32_t*>(&d.value[v]);
    for (int w = 0; w < (is_wide(d.code[v]) ? 2 : 1); ++w) {
      if (lane == 0) medium[warp] = words[w];
      __syncthreads();
      if (warp == 0 && lane < warp_num) words[w] = medium[lane];
      __syncthreads();
    }
  }
}

// The addresses the host hands back to the kernels (tb_omp_generated_callbacks).
__device__ ShuffleReduceFn generated_shuffle_reduce = shuffle_reduce;
__device__ InterWarpCopyFn generated_inter_warp_copy = inter_warp_copy;

// ---- a clause of one variable -------------------------------------------------

// What a compiler emits for `reduction(op:x)` with one variable of a known
// type: the private data is x itself and the callbacks are typed, so a
// shuffle step is two or three instructions instead of a walk over the
// clause's codes. The runtime is the same; only the generated side differs.
template <typename T, tb_op OP>
__device__ void typed_shuffle_reduce(void* data, int16_t lane_id, int16_t offset, int16_t version) {
  T& x = *static_cast<T*>(data);
  const T remote = __shfl_down_sync(__activemask(), x, offset);
  x = keeps_own(lane_id, offset, version) ? Op<OP>::template apply<T>(x, remote) : remote;
}

template <typename T>
__device__ void typed_inter_warp_copy(void* data, int32_t warp_num) {
  __shared__ T medium[32];
  T& x = *static_cast<T*>(data);
  const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
  if (lane == 0) medium[warp] = x;
  __syncthreads();
  if (warp == 0 && lane < warp_num) x = medium[lane];
  __syncthreads();
}

// ---- the region's loop body ------------------------------------------------

template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// Folds this thread's share of in[0, n) into acc. The body goes in 16-byte
// vectors, VT of them in flight per thread and step, NT apart so that a
// warp's loads are contiguous; the grid strides over tiles of NT * VT
// vectors. The few items before the first 16-byte boundary and after the
// last whole vector (fewer than 2V) go one per thread, striding over the
// grid like the body: a grid of a single thread still reads them all.
template <typename T, tb_op OP, int VT>
__device__ __forceinline__ T fold_range(const T* __restrict__ in, int64_t n, T acc) {
  constexpr int V = 16 / sizeof(T);
  using Vector = Vec<T, V>;
  const int64_t nt = blockDim.x;
  const int64_t thread = int64_t(blockIdx.x) * nt + threadIdx.x;
  const int64_t threads = int64_t(gridDim.x) * nt;
  const int64_t misaligned = int64_t(reinterpret_cast<uintptr_t>(in) % 16) / int64_t(sizeof(T));
  const int64_t head = min(n, misaligned ? V - misaligned : 0);
  const int64_t vectors = (n - head) / V;
  const int64_t tail = head + vectors * V;
  const int64_t edge = head + (n - tail);  // the head's items, then the tail's
  for (int64_t k = thread; k < edge; k += threads)
    acc = Op<OP>::template apply<T>(acc, in[k < head ? k : tail + (k - head)]);

  const Vector* body = reinterpret_cast<const Vector*>(in + head);
  const int64_t stride = int64_t(gridDim.x) * nt * VT;
  int64_t i = int64_t(blockIdx.x) * nt * VT + threadIdx.x;
  for (; i + (VT - 1) * nt < vectors; i += stride) {
    Vector x[VT];
#pragma unroll
    for (int j = 0; j < VT; ++j) x[j] = body[i + j * nt];
#pragma unroll
    for (int j = 0; j < VT; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) acc = Op<OP>::template apply<T>(acc, x[j].v[k]);
  }
  // At most one partial tile is left for this thread.
#pragma unroll
  for (int j = 0; j < VT; ++j)
    if (i + j * nt < vectors) {
      const Vector x = body[i + j * nt];
#pragma unroll
      for (int k = 0; k < V; ++k) acc = Op<OP>::template apply<T>(acc, x.v[k]);
    }
  return acc;
}

// One pass per variable: the variables are independent arrays, so reading
// them one after the other moves the same bytes as interleaving them.
template <int VT>
__device__ __forceinline__ void fold_inputs(ReduceData& d, const tb_omp_clause& clause, int64_t n) {
#pragma unroll
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v) {
    if (v >= clause.num_vars) break;
    visit_pair(clause.code[v], [&](auto p) {
      using T = typename decltype(p)::T;
      d.value[v] = to_bits<T>(fold_range<T, decltype(p)::op, VT>(
          static_cast<const T*>(clause.in[v]), n, from_bits<T>(d.value[v])));
    });
  }
}

// The master thread folds the reduced value into each variable: foo = foo op total.
__device__ __forceinline__ void write_back(const tb_omp_clause& clause, const ReduceData& d,
                                           int64_t i) {
#pragma unroll
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v) {
    if (v >= clause.num_vars) break;
    const bool wide = is_wide(clause.code[v]);
    const uint64_t old = load_bits(clause.result[v], i, wide);
    store_bits(clause.result[v], i, wide, fold(clause.code[v], old, d.value[v]));
  }
}

// ---- kernels -----------------------------------------------------------------

// The combine is launched as a programmatic dependent of the region kernel
// (kernels/device/dependent_launch.cuh): it may be scheduled once every
// region block has called let_dependents_start, and its first step,
// wait_for_prior_kernel, returns only when the region kernel has completed
// and its writes are visible. So the stream order the combine relies on
// still holds; only its launch latency is hidden.

// Kernels take the callbacks as pointers. Those instantiated with kGenerated
// use the generated ones instead: the pointers are then constants, and once
// the runtime is inlined the compiler turns the indirect calls into direct,
// inlined ones (kernel and callbacks are in one translation unit).
template <bool kGenerated>
__device__ __forceinline__ void resolve(ShuffleReduceFn& shuffle, InterWarpCopyFn& copy) {
  if constexpr (kGenerated) shuffle = shuffle_reduce, copy = inter_warp_copy;
}

// The region: every thread folds its share, the block reduces through the
// runtime, and thread 0 writes the block's partial to slot blockIdx.x (or,
// when the block is the whole grid, straight into the variables).
template <int VT, bool kGenerated>
__global__ void region_kernel(tb_omp_clause clause, int64_t n, ShuffleReduceFn shuffle,
                              InterWarpCopyFn copy, ReduceData* partials) {
  resolve<kGenerated>(shuffle, copy);
  ReduceData d = private_copies(clause);
  fold_inputs<VT>(d, clause, n);
  let_dependents_start();
  if (!block_reduce(&d, shuffle, copy)) return;
  if (gridDim.x == 1)
    write_back(clause, d, 0);
  else
    store_partial(&d, sizeof d, partials, blockIdx.x);
}

// The final combine, one block. It reads the partials only after
// wait_for_prior_kernel, that is after region_kernel, the previous kernel in its
// stream, has completed and its global writes are visible device-wide (as
// plain stream order gives where there is no dependent launch), so every
// partial is here, whole, without a fence, atomic counter or flag.
template <bool kGenerated>
__global__ void combine_kernel(tb_omp_clause clause, const ReduceData* partials,
                               int64_t num_slots, ShuffleReduceFn shuffle, InterWarpCopyFn copy) {
  resolve<kGenerated>(shuffle, copy);
  wait_for_prior_kernel();
  const ReduceData identity = private_copies(clause);
  ReduceData d;
  fold_partials(&d, &identity, partials, num_slots, sizeof d, shuffle, copy);
  if (threadIdx.x == 0) write_back(clause, d, 0);
}

// The same two kernels for a clause of one variable, with its typed
// callbacks; a partial is one T. The combine is generated code too, so it
// folds the slots a thread can reach with the clause's own operator before
// the runtime reduces the block: one block reduction, however many slots.
template <typename T, tb_op OP, int VT>
__global__ void typed_region_kernel(const T* in, int64_t n, T* result, T* partials) {
  T x = fold_range<T, OP, VT>(in, n, Op<OP>::template identity<T>());
  let_dependents_start();
  if (!block_reduce(&x, typed_shuffle_reduce<T, OP>, typed_inter_warp_copy<T>)) return;
  if (gridDim.x == 1)
    *result = Op<OP>::template apply<T>(*result, x);
  else
    partials[blockIdx.x] = x;
}

template <typename T, tb_op OP>
__global__ void typed_combine_kernel(const T* partials, int64_t num_slots, T* result) {
  wait_for_prior_kernel();
  T x = Op<OP>::template identity<T>();
#pragma unroll 4
  for (int64_t slot = threadIdx.x; slot < num_slots; slot += blockDim.x)
    x = Op<OP>::template apply<T>(x, partials[slot]);
  if (block_reduce(&x, typed_shuffle_reduce<T, OP>, typed_inter_warp_copy<T>))
    *result = Op<OP>::template apply<T>(*result, x);
}

// ---- the atomics path ----------------------------------------------------------

template <typename T, typename W, tb_op OP>
__device__ __forceinline__ void atomic_fold_cas(T* addr, T v) {
  W* word = reinterpret_cast<W*>(addr);
  W seen = *word, expected;
  do {
    expected = seen;
    const W next = W(to_bits<T>(Op<OP>::template apply<T>(from_bits<T>(expected), v)));
    if (next == expected) return;
    seen = atomicCAS(word, expected, next);
  } while (seen != expected);
}

// One atomic per thread and variable: the hardware's own operation where
// there is one, a compare-and-swap loop for the rest (float min/max,
// multiplies).
template <typename T, tb_op OP>
__device__ __forceinline__ void atomic_fold(T* addr, T v) {
  using W = typename cuda::std::conditional<sizeof(T) == 4, unsigned, unsigned long long>::type;
  constexpr bool is_int = cuda::std::is_integral<T>::value;
  if constexpr (OP == TB_OP_PLUS) {
    if constexpr (is_int)
      atomicAdd(reinterpret_cast<W*>(addr), W(v));  // unsigned: wraps like the tree path
    else
      atomicAdd(addr, v);
  } else if constexpr (is_int && OP == TB_OP_MIN) {
    atomicMin(addr, v);
  } else if constexpr (is_int && OP == TB_OP_MAX) {
    atomicMax(addr, v);
  } else if constexpr (is_int && OP == TB_OP_BIT_AND) {
    atomicAnd(reinterpret_cast<W*>(addr), W(v));
  } else if constexpr (is_int && OP == TB_OP_BIT_OR) {
    atomicOr(reinterpret_cast<W*>(addr), W(v));
  } else if constexpr (is_int && OP == TB_OP_BIT_XOR) {
    atomicXor(reinterpret_cast<W*>(addr), W(v));
  } else {
    atomic_fold_cas<T, W, OP>(addr, v);
  }
}

// The path the tree replaces: every thread folds its share, then folds its
// private copy into each variable with an atomic.
template <int VT>
__global__ void region_atomics_kernel(tb_omp_clause clause, int64_t n) {
  ReduceData d = private_copies(clause);
  fold_inputs<VT>(d, clause, n);
#pragma unroll
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v) {
    if (v >= clause.num_vars) break;
    visit_pair(clause.code[v], [&](auto p) {
      using T = typename decltype(p)::T;
      atomic_fold<T, decltype(p)::op>(static_cast<T*>(clause.result[v]), from_bits<T>(d.value[v]));
    });
  }
}

// ---- one warp at a time, for the tests -------------------------------------------

// Warp w reduces element 32w + lane of each input over the lanes in masks[w]
// with the given warp algorithm and folds it into element w of each result.
__global__ void warp_kernel(tb_omp_clause clause, const uint32_t* masks, int num_warps,
                            int version, ShuffleReduceFn shuffle) {
  const int64_t warp = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = lane_of_thread();
  if (warp >= num_warps) return;
  const uint32_t members = masks[warp];
  if (!(members >> lane & 1u)) return;
  ReduceData d = private_copies(clause);
#pragma unroll
  for (int v = 0; v < TB_OMP_MAX_VARS; ++v)
    if (v < clause.num_vars) d.value[v] = load_bits(clause.in[v], warp * 32 + lane, is_wide(clause.code[v]));
  bool master;
  if (version == kFullWarp) {
    warp_reduce_full(&d, shuffle);
    master = lane == 0;
  } else if (version == kContiguous) {
    warp_reduce_contiguous(&d, shuffle, __popc(members));
    master = lane == 0;
  } else {
    master = warp_reduce_dispersed(&d, shuffle, members);
  }
  if (master) write_back(clause, d, warp);
}

// ---- host side --------------------------------------------------------------------

#define TB_OMP_VTS(X) X(1) X(2) X(4) X(8)

tb_status bad_vt(int vt) {
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "omp_reduce: vt %d is not one of 1, 2, 4, 8", vt);
}

// Whether a clause runs the typed kernels: the tree path with the generated
// callbacks, one variable.
bool runs_typed(const tb_omp_clause& clause, tb_omp_method method, bool generated) {
  return method == TB_OMP_TREE && generated && clause.num_vars == 1;
}

// Calls f(Pair<T, OP>{}) on the host for the pair that code names; false
// for a code that names none.
template <class F>
bool visit_pair_host(uint8_t code, F&& f) {
  switch (code) {
#define TB_CASE(TT, T, OP) \
  case code_of(TT, OP): f(Pair<T, OP>{}); return true;
    TB_OMP_PAIRS(TB_CASE)
#undef TB_CASE
  }
  return false;
}

// TB_OK, or the launch error that cudaGetLastError reports.
tb_status launched(const char* kernel) {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? TB_OK : tb_cuda_error(e, kernel, __FILE__, __LINE__);
}

tb_status bad_code(uint8_t code) {
  return tb_fail(TB_ERR_INVALID_ARGUMENT, "omp_reduce: clause code %d names no (type, op)", code);
}

template <int VT>
tb_status launch_typed(const tb_omp_clause& clause, int64_t n, int nt, int64_t blocks,
                       void* partials, cudaStream_t stream) {
  tb_status st = TB_OK;
  const bool known = visit_pair_host(clause.code[0], [&](auto p) {
    using T = typename decltype(p)::T;
    constexpr tb_op OP = decltype(p)::op;
    const T* in = static_cast<const T*>(clause.in[0]);
    T* result = static_cast<T*>(clause.result[0]);
    T* slots = static_cast<T*>(partials);
    typed_region_kernel<T, OP, VT><<<unsigned(blocks), nt, 0, stream>>>(in, n, result, slots);
    st = launched("typed_region_kernel");
    if (st != TB_OK || blocks == 1) return;
    const int combine_nt = int(blocks >= 256 ? 256 : (blocks + 31) / 32 * 32);
    st = launch_dependent(typed_combine_kernel<T, OP>, 1, combine_nt, 0, stream, slots, blocks,
                          result);
  });
  return known ? st : bad_code(clause.code[0]);
}

template <int VT, bool kGenerated>
tb_status launch_tree(const tb_omp_clause& clause, int64_t n, int nt, int64_t blocks,
                      const tb_omp_callbacks& cb, void* partials, cudaStream_t stream) {
  const ShuffleReduceFn shuffle = reinterpret_cast<ShuffleReduceFn>(cb.shuffle_reduce);
  const InterWarpCopyFn copy = reinterpret_cast<InterWarpCopyFn>(cb.inter_warp_copy);
  ReduceData* slots = static_cast<ReduceData*>(partials);
  region_kernel<VT, kGenerated><<<unsigned(blocks), nt, 0, stream>>>(clause, n, shuffle, copy,
                                                                      slots);
  TB_CUDA_TRY(cudaGetLastError());
  if (blocks == 1) return TB_OK;
  const int combine_nt = int(blocks >= 1024 ? 1024 : (blocks + 31) / 32 * 32);
  return launch_dependent(combine_kernel<kGenerated>, 1, combine_nt, 0, stream, clause, slots,
                          blocks, shuffle, copy);
}

template <int VT>
tb_status launch_atomics(const tb_omp_clause& clause, int64_t n, int nt, int64_t blocks,
                         cudaStream_t stream) {
  region_atomics_kernel<VT><<<unsigned(blocks), nt, 0, stream>>>(clause, n);
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}

template <int VT>
tb_status residency(const tb_omp_clause& clause, tb_omp_method method, bool generated, int nt,
                    int* per_sm, int* sm_count) {
  const void* kernel = method == TB_OMP_ATOMICS
                           ? reinterpret_cast<const void*>(region_atomics_kernel<VT>)
                       : generated ? reinterpret_cast<const void*>(region_kernel<VT, true>)
                                   : reinterpret_cast<const void*>(region_kernel<VT, false>);
  if (runs_typed(clause, method, generated) &&
      !visit_pair_host(clause.code[0], [&](auto p) {
        kernel = reinterpret_cast<const void*>(
            typed_region_kernel<typename decltype(p)::T, decltype(p)::op, VT>);
      }))
    return bad_code(clause.code[0]);
  return tb_kernel_residency(kernel, nt, 0, per_sm, sm_count);
}

}  // namespace
}  // namespace omp
}  // namespace tb

extern "C" tb_status tb_omp_device_callbacks(tb_omp_callbacks* out) {
  using namespace tb::omp;
  TB_CUDA_TRY(cudaMemcpyFromSymbol(&out->shuffle_reduce, generated_shuffle_reduce,
                                   sizeof(ShuffleReduceFn)));
  TB_CUDA_TRY(cudaMemcpyFromSymbol(&out->inter_warp_copy, generated_inter_warp_copy,
                                   sizeof(InterWarpCopyFn)));
  return TB_OK;
}

extern "C" size_t tb_omp_partial_bytes(void) { return sizeof(tb::omp::ReduceData); }

extern "C" tb_status tb_omp_residency(const tb_omp_clause* clause, tb_omp_method method,
                                      bool generated, int nt, int vt, int* per_sm, int* sm_count) {
  using namespace tb::omp;
#define TB_VT(VT) \
  if (vt == VT) return residency<VT>(*clause, method, generated, nt, per_sm, sm_count);
  TB_OMP_VTS(TB_VT)
#undef TB_VT
  return bad_vt(vt);
}

extern "C" tb_status tb_omp_launch(const tb_omp_clause* clause, int64_t n, tb_omp_method method,
                                   int nt, int vt, int64_t blocks, const tb_omp_callbacks* cb,
                                   bool generated, void* partials, cudaStream_t stream) {
  using namespace tb::omp;
#define TB_VT(VT)                                                                           \
  if (vt == VT)                                                                             \
    return method == TB_OMP_ATOMICS                                                         \
               ? launch_atomics<VT>(*clause, n, nt, blocks, stream)                         \
           : runs_typed(*clause, method, generated)                                         \
               ? launch_typed<VT>(*clause, n, nt, blocks, partials, stream)                 \
           : generated ? launch_tree<VT, true>(*clause, n, nt, blocks, *cb, partials, stream) \
                       : launch_tree<VT, false>(*clause, n, nt, blocks, *cb, partials, stream);
  TB_OMP_VTS(TB_VT)
#undef TB_VT
  return bad_vt(vt);
}

extern "C" tb_status tb_omp_launch_warps(const tb_omp_clause* clause, const uint32_t* d_masks,
                                         int num_warps, int version, const tb_omp_callbacks* cb,
                                         cudaStream_t stream) {
  using namespace tb::omp;
  const int nt = 256;
  const int64_t blocks = (int64_t(num_warps) * 32 + nt - 1) / nt;
  warp_kernel<<<unsigned(blocks), nt, 0, stream>>>(
      *clause, d_masks, num_warps, version, reinterpret_cast<ShuffleReduceFn>(cb->shuffle_reduce));
  TB_CUDA_TRY(cudaGetLastError());
  return TB_OK;
}
