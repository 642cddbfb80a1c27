// Operators as types, with identities, for the element types of core/types.h.
//
// Integer plus and multiplies wrap (computed unsigned: signed overflow is
// undefined in C++). Float min/max follow IEEE 754 minNum/maxNum (fminf): a
// NaN operand is ignored, so the result does not depend on the order of the
// reduction; an input of only NaNs gives the identity, as an empty one does.
#pragma once

#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include "core/types.h"

namespace tb {

template <typename T>
using unsigned_of = typename cuda::std::make_unsigned<T>::type;

template <tb_op OP> struct Op;

template <> struct Op<TB_OP_PLUS> {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __device__ __forceinline__ static T apply(T a, T b) {
    if constexpr (cuda::std::is_integral<T>::value)
      return T(unsigned_of<T>(a) + unsigned_of<T>(b));
    else
      return a + b;
  }
};

template <> struct Op<TB_OP_MULTIPLIES> {
  template <typename T> __host__ __device__ static T identity() { return T(1); }
  template <typename T> __device__ __forceinline__ static T apply(T a, T b) {
    if constexpr (cuda::std::is_integral<T>::value)
      return T(unsigned_of<T>(a) * unsigned_of<T>(b));
    else
      return a * b;
  }
};

// Min and max, one definition: kMax picks the direction.
template <bool kMax> struct MinMaxOp {
  template <typename T> __host__ __device__ static T identity() {
    using limits = cuda::std::numeric_limits<T>;
    if constexpr (cuda::std::is_floating_point<T>::value)
      return kMax ? -limits::infinity() : limits::infinity();
    else
      return kMax ? limits::lowest() : limits::max();
  }
  // PTX's min and max (what fmax and a compare-and-select compile to) kept
  // opaque to the compiler: it rewrote chains of them so that the scan's
  // tile held more values at once (int64 at 128x31: 168 registers against
  // plus's 90; double 132 against 94), two CTAs an SM fewer.
  template <typename T> __device__ __forceinline__ static T apply(T a, T b) {
    T r;
    if constexpr (cuda::std::is_same<T, int>::value) {
      if (kMax) asm("max.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
      else asm("min.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    } else if constexpr (cuda::std::is_same<T, long long>::value ||
                         cuda::std::is_same<T, long>::value) {
      static_assert(sizeof(T) == 8, "64-bit integers");
      if (kMax) asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
      else asm("min.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
    } else if constexpr (cuda::std::is_same<T, float>::value) {
      if (kMax) asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
      else asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    } else if constexpr (cuda::std::is_same<T, double>::value) {
      if (kMax) asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
      else asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
    } else if constexpr (cuda::std::is_floating_point<T>::value) {
      r = kMax ? fmax(a, b) : fmin(a, b);
    } else {
      r = (kMax ? a < b : b < a) ? b : a;
    }
    return r;
  }
};

template <> struct Op<TB_OP_MIN> : MinMaxOp<false> {};
template <> struct Op<TB_OP_MAX> : MinMaxOp<true> {};

template <> struct Op<TB_OP_BIT_AND> {
  template <typename T> __host__ __device__ static T identity() { return T(~T(0)); }
  template <typename T> __device__ __forceinline__ static T apply(T a, T b) { return a & b; }
};

template <> struct Op<TB_OP_BIT_OR> {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __device__ __forceinline__ static T apply(T a, T b) { return a | b; }
};

template <> struct Op<TB_OP_BIT_XOR> {
  template <typename T> __host__ __device__ static T identity() { return T(0); }
  template <typename T> __device__ __forceinline__ static T apply(T a, T b) { return a ^ b; }
};

// *p = max(*p, v) in shared memory when `pred`, as one predicated
// instruction: an `if` around atomicMax made a branch and its
// reconvergence (BSSY/BSYNC) per call.
__device__ __forceinline__ void shared_max_if(bool pred, int* p, int v) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.u32 p, %0, 0;\n @p red.shared.max.s32 [%1], %2;\n}" ::"r"(
          unsigned(pred)),
      "r"(unsigned(__cvta_generic_to_shared(p))), "r"(v)
      : "memory");
}

// *p |= v in shared memory when `pred`, predicated as shared_max_if.
__device__ __forceinline__ void shared_or_if(bool pred, unsigned* p, unsigned v) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.u32 p, %0, 0;\n @p red.shared.or.b32 [%1], %2;\n}" ::"r"(
          unsigned(pred)),
      "r"(unsigned(__cvta_generic_to_shared(p))), "r"(v)
      : "memory");
}

}  // namespace tb
