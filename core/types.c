#include "core/types.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const type_names[TB_TYPE_COUNT] = {"int32", "int64", "float", "double"};
static const char *const op_names[TB_OP_COUNT] = {
    "plus", "min", "max", "multiplies", "bit_and", "bit_or", "bit_xor"};

bool tb_type_valid(tb_type t) { return (int)t >= 0 && t < TB_TYPE_COUNT; }
bool tb_op_valid(tb_op op) { return (int)op >= 0 && op < TB_OP_COUNT; }
bool tb_type_is_float(tb_type t) { return t == TB_FLOAT || t == TB_DOUBLE; }

size_t tb_type_size(tb_type t) {
  switch (t) {
    case TB_INT32: return sizeof(int32_t);
    case TB_INT64: return sizeof(int64_t);
    case TB_FLOAT: return sizeof(float);
    case TB_DOUBLE: return sizeof(double);
    default: return 0;
  }
}

const char *tb_type_name(tb_type t) { return tb_enum_name(type_names, TB_TYPE_COUNT, t); }
const char *tb_op_name(tb_op op) { return tb_enum_name(op_names, TB_OP_COUNT, op); }

const char *tb_enum_name(const char *const *names, int count, int i) {
  return i >= 0 && i < count ? names[i] : "invalid";
}

int tb_enum_index(const char *const *names, int count, const char *s) {
  if (s == NULL) return -1;
  for (int i = 0; i < count; ++i)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

bool tb_type_parse(const char *s, tb_type *out) {
  const int i = tb_enum_index(type_names, TB_TYPE_COUNT, s);
  if (i >= 0 && out) *out = (tb_type)i;
  return i >= 0;
}

bool tb_op_parse(const char *s, tb_op *out) {
  const int i = tb_enum_index(op_names, TB_OP_COUNT, s);
  if (i >= 0 && out) *out = (tb_op)i;
  return i >= 0;
}

static bool is_bitwise(tb_op op) {
  return op == TB_OP_BIT_AND || op == TB_OP_BIT_OR || op == TB_OP_BIT_XOR;
}

tb_status tb_check_type_op(tb_type t, tb_op op) {
  if (!tb_type_valid(t)) return tb_fail(TB_ERR_INVALID_ARGUMENT, "invalid element type %d", (int)t);
  if (!tb_op_valid(op)) return tb_fail(TB_ERR_INVALID_ARGUMENT, "invalid operator %d", (int)op);
  if (is_bitwise(op) && tb_type_is_float(t))
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "operator %s does not apply to %s", tb_op_name(op),
                   tb_type_name(t));
  return TB_OK;
}

static bool pair_ok(tb_type t, tb_op op) {
  return tb_type_valid(t) && tb_op_valid(op) && !(is_bitwise(op) && tb_type_is_float(t));
}

tb_value tb_identity(tb_type t, tb_op op) {
  tb_value v;
  memset(&v, 0, sizeof v);
  if (!pair_ok(t, op)) return v;
  switch (op) {
    case TB_OP_PLUS:
    case TB_OP_BIT_OR:
    case TB_OP_BIT_XOR:
      break;  /* zero of every type */
    case TB_OP_MULTIPLIES:
      switch (t) {
        case TB_INT32: v.i32 = 1; break;
        case TB_INT64: v.i64 = 1; break;
        case TB_FLOAT: v.f32 = 1.0f; break;
        default: v.f64 = 1.0; break;
      }
      break;
    case TB_OP_BIT_AND:
      if (t == TB_INT32) v.i32 = -1; else v.i64 = -1;
      break;
    case TB_OP_MIN:
      switch (t) {
        case TB_INT32: v.i32 = INT32_MAX; break;
        case TB_INT64: v.i64 = INT64_MAX; break;
        case TB_FLOAT: v.f32 = INFINITY; break;
        default: v.f64 = INFINITY; break;
      }
      break;
    case TB_OP_MAX:
      switch (t) {
        case TB_INT32: v.i32 = INT32_MIN; break;
        case TB_INT64: v.i64 = INT64_MIN; break;
        case TB_FLOAT: v.f32 = -INFINITY; break;
        default: v.f64 = -INFINITY; break;
      }
      break;
    default:
      break;
  }
  return v;
}

/* Unsigned -> signed without relying on implementation-defined conversion. */
static int32_t from_u32(uint32_t u) {
  return u <= (uint32_t)INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}
static int64_t from_u64(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

/* Both integer types: int32 wraps as int64 does, in the low 32 bits. */
static int64_t apply_int(tb_op op, int64_t a, int64_t b) {
  switch (op) {
    case TB_OP_PLUS: return from_u64((uint64_t)a + (uint64_t)b);
    case TB_OP_MULTIPLIES: return from_u64((uint64_t)a * (uint64_t)b);
    case TB_OP_MIN: return b < a ? b : a;
    case TB_OP_MAX: return a < b ? b : a;
    case TB_OP_BIT_AND: return a & b;
    case TB_OP_BIT_OR: return a | b;
    case TB_OP_BIT_XOR: return a ^ b;
    default: return 0;
  }
}

tb_value tb_apply(tb_type t, tb_op op, tb_value a, tb_value b) {
  tb_value v;
  memset(&v, 0, sizeof v);
  if (!pair_ok(t, op)) return v;
  switch (t) {
    case TB_INT32: v.i32 = from_u32((uint32_t)apply_int(op, a.i32, b.i32)); break;
    case TB_INT64: v.i64 = apply_int(op, a.i64, b.i64); break;
    /* Rounding the double result gives float arithmetic's: double has more than 2 * 24 + 2
     * bits, so the second rounding cannot differ (and float products are exact in double). */
    case TB_FLOAT: v.f32 = (float)tb_apply_double(op, a.f32, b.f32); break;
    default: v.f64 = tb_apply_double(op, a.f64, b.f64); break;
  }
  return v;
}

tb_value tb_load(tb_type t, const void *base, int64_t i) {
  tb_value v;
  memset(&v, 0, sizeof v);
  switch (t) {
    case TB_INT32: v.i32 = ((const int32_t *)base)[i]; break;
    case TB_INT64: v.i64 = ((const int64_t *)base)[i]; break;
    case TB_FLOAT: v.f32 = ((const float *)base)[i]; break;
    case TB_DOUBLE: v.f64 = ((const double *)base)[i]; break;
    default: break;
  }
  return v;
}

void tb_store(tb_type t, void *base, int64_t i, tb_value v) {
  switch (t) {
    case TB_INT32: ((int32_t *)base)[i] = v.i32; break;
    case TB_INT64: ((int64_t *)base)[i] = v.i64; break;
    case TB_FLOAT: ((float *)base)[i] = v.f32; break;
    case TB_DOUBLE: ((double *)base)[i] = v.f64; break;
    default: break;
  }
}
