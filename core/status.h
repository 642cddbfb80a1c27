/* Status codes and the per-thread last-error message.
 *
 * Every tb_ entry point returns a tb_status. On failure it also leaves a
 * message for the calling thread, read with tb_last_error(); entry points
 * never print or abort. */
#ifndef TB_CORE_STATUS_H
#define TB_CORE_STATUS_H

#include "core/tilebench_base.h" /* tb_status, tb_status_string, tb_last_error */

#ifdef __cplusplus
extern "C" {
#endif

/* Record a message for this thread and return s, so that call sites read
 * `return tb_fail(TB_ERR_INVALID_ARGUMENT, "n < 0 (%lld)", n);`. */
tb_status tb_fail(tb_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void tb_clear_error(void);

/* Propagate a failing tb_status. */
#define TB_TRY(expr)                                                        \
  do { tb_status tb_s_ = (expr); if (tb_s_ != TB_OK) return tb_s_; } while (0)

#ifdef __cplusplus
}
#endif
#endif
