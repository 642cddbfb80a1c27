/* tilebench's base declarations: status codes, element types, operators and
 * scratch buffers. Self-contained (the C standard library only), so that a
 * program outside this workspace compiles against the installed headers;
 * tilebench.h includes it, and the library's internal headers in core/
 * build on it. */
#ifndef TILEBENCH_BASE_H
#define TILEBENCH_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, as its pkg-config file also says. */
#define TILEBENCH_VERSION "0.1.0"

/* Every tb_ entry point returns one; on failure it also leaves a message for
 * the calling thread (tb_last_error) and never prints or aborts. */
typedef enum tb_status {
  TB_OK = 0,
  TB_ERR_INVALID_ARGUMENT,
  TB_ERR_OUT_OF_MEMORY,
  TB_ERR_CUDA,
  TB_ERR_NO_DEVICE, /* no usable GPU, or no driver for one */
  TB_ERR_MISMATCH,  /* a validation found the output wrong */
  TB_ERR_IO,
} tb_status;

/* Short constant name of a status ("TB_ERR_CUDA"). */
const char *tb_status_string(tb_status s);

/* The message left by the last failing tb_ call on this thread ("" if none). */
const char *tb_last_error(void);

typedef enum tb_type { TB_INT32, TB_INT64, TB_FLOAT, TB_DOUBLE, TB_TYPE_COUNT } tb_type;

typedef enum tb_op {
  TB_OP_PLUS, TB_OP_MIN, TB_OP_MAX, TB_OP_MULTIPLIES,
  TB_OP_BIT_AND, TB_OP_BIT_OR, TB_OP_BIT_XOR,  /* integers only */
  TB_OP_COUNT
} tb_op;

/* One value of any tb_type. */
typedef union tb_value {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
} tb_value;

/* A device allocation that remembers its size: the scratch that entry points
 * grow and callers keep across calls. Zero-initialise before first use;
 * tb_buffer_free on a zeroed or freed buffer is a no-op. */
typedef struct tb_buffer { void *ptr; size_t bytes; } tb_buffer;

void tb_buffer_free(tb_buffer *b);

/* TB_OK when the current CUDA device can be used; TB_ERR_NO_DEVICE, with the
 * reason in tb_last_error(), when there is no GPU or no driver for one. Any
 * entry point that reaches the GPU says the same; this asks first. */
tb_status tb_device_check(void);

#ifdef __cplusplus
}
#endif
#endif
