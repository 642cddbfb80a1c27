/* Status codes and the per-thread last-error message.
 *
 * Every tb_ entry point returns a tb_status. On failure it also leaves a
 * message for the calling thread, read with tb_last_error(); entry points
 * never print or abort. */
#ifndef TB_CORE_STATUS_H
#define TB_CORE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tb_status {
  TB_OK = 0,
  TB_ERR_INVALID_ARGUMENT,
  TB_ERR_OUT_OF_MEMORY,
  TB_ERR_CUDA,
  TB_ERR_NO_DEVICE,
  TB_ERR_MISMATCH,  /* a validation found the output wrong */
  TB_ERR_IO,
} tb_status;

/* Short constant name of a status ("TB_ERR_CUDA"). */
const char *tb_status_string(tb_status s);

/* The message left by the last failing tb_ call on this thread ("" if none). */
const char *tb_last_error(void);

/* Record a message for this thread and return s, so that call sites read
 * `return tb_fail(TB_ERR_INVALID_ARGUMENT, "n < 0 (%lld)", n);`. */
tb_status tb_fail(tb_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void tb_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
