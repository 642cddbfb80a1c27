#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Per-thread so that concurrent callers never see each other's messages. */
static _Thread_local char tb_message[1024];

const char *tb_status_string(tb_status s) {
  switch (s) {
    case TB_OK: return "TB_OK";
    case TB_ERR_INVALID_ARGUMENT: return "TB_ERR_INVALID_ARGUMENT";
    case TB_ERR_OUT_OF_MEMORY: return "TB_ERR_OUT_OF_MEMORY";
    case TB_ERR_CUDA: return "TB_ERR_CUDA";
    case TB_ERR_NO_DEVICE: return "TB_ERR_NO_DEVICE";
    case TB_ERR_MISMATCH: return "TB_ERR_MISMATCH";
    case TB_ERR_IO: return "TB_ERR_IO";
  }
  return "TB_ERR_UNKNOWN";
}

const char *tb_last_error(void) { return tb_message; }

tb_status tb_fail(tb_status s, const char *fmt, ...) {
  /* Formatted aside first: an argument may be tb_last_error() itself, as
   * when a caller prefixes the message of the call that failed under it. */
  char text[sizeof tb_message];
  va_list ap;
  va_start(ap, fmt);
  /* vsnprintf truncates and always terminates. */
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  memcpy(tb_message, text, sizeof text);
  return s;
}

void tb_clear_error(void) { tb_message[0] = '\0'; }
