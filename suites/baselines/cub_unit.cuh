// What each CUB baseline unit (cub.cu, cub_seg.cu) shares: compiled once per
// element type (TB_ELEM) and CUB (TB_CUB), it names its exports after both
// (two CUBs link into one program), and sizes CUB's scratch the same way.
#pragma once

#include <stdint.h>

#include "core/cuda.h"

#define TB_CAT_(a, b) a##b
#define TB_CAT(a, b) TB_CAT_(a, b)
#define TB_NAME(what) TB_CAT(TB_CAT(TB_CAT(tb_, TB_CUB), _##what##_), TB_ELEM)

namespace {

using int32 = int32_t;
using int64 = long long;
using T = TB_ELEM;

// Runs f(temp, &bytes) once to size the scratch, grows it, and runs it again.
template <class F>
tb_status with_scratch(tb_buffer* scratch, F f) {
  size_t bytes = 0;
  TB_CUDA_TRY(f(nullptr, bytes));
  TB_TRY(tb_buffer_reserve(scratch, bytes));
  TB_CUDA_TRY(f(scratch->ptr, bytes));
  return TB_OK;
}

}  // namespace
