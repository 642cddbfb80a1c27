// The version of the CUB this unit is compiled against (TB_CUB names it).
#include <cub/version.cuh>
#include <cstdio>

#define TB_STR_(x) #x
#define TB_STR(x) TB_STR_(x)
#define TB_CAT_(a, b) a##b
#define TB_CAT(a, b) TB_CAT_(a, b)

extern "C" const char* TB_CAT(TB_CUB, _version)(void) {
  static char text[32];
  if (!text[0])
    snprintf(text, sizeof text, "%d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
  return text;
}
