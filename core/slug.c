#include "core/slug.h"

#include <ctype.h>
#include <string.h>

void tb_gpu_slug(const char *name, char *out, size_t cap) {
  if (out == NULL || cap == 0) return;
  if (name == NULL) name = "";
  /* Every GPU we chart is NVIDIA's: the vendor word only lengthens paths. */
  static const char vendor[] = "nvidia";
  size_t k = 0;
  while (k < 6 && tolower((unsigned char)name[k]) == vendor[k]) ++k;
  if (k == 6 && name[6] != '\0' && !isalnum((unsigned char)name[6])) name += 6;
  size_t len = 0;
  int pending_dash = 0;
  for (const char *p = name; *p != '\0' && len + 1 < cap; ++p) {
    unsigned char c = (unsigned char)*p;
    if (!isalnum(c)) {
      pending_dash = len > 0;  /* never a leading '-' */
      continue;
    }
    if (pending_dash) {
      if (len + 2 >= cap) break;  /* no room for '-' plus a character */
      out[len++] = '-';
      pending_dash = 0;
    }
    out[len++] = (char)tolower(c);
  }
  out[len] = '\0';
  if (len == 0) {
    strncpy(out, "unknown", cap - 1);
    out[cap - 1] = '\0';
  }
}
