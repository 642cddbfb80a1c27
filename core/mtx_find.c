/* The matrix files under a path (core/mtx.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/mtx.h"

typedef struct {
  char **items;
  int count, cap;
} list;

static bool push(list *l, const char *fmt, const char *a, const char *b) {
  if (l->count == l->cap) {
    const int cap = l->cap ? 2 * l->cap : 16;
    char **grown = realloc(l->items, sizeof *grown * (size_t)cap);
    if (!grown) return false;
    l->items = grown, l->cap = cap;
  }
  const int n = snprintf(NULL, 0, fmt, a, b);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s) return false;
  snprintf(s, (size_t)n + 1, fmt, a, b);
  l->items[l->count++] = s;
  return true;
}

static void list_free(list *l) {
  for (int i = 0; i < l->count; ++i) free(l->items[i]);
  free(l->items);
  *l = (list){0};
}

static bool ends_with(const char *s, const char *suffix) {
  const size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* nftw takes no context: the walk in progress (one per thread). */
static _Thread_local struct {
  list found, skipped;
  bool out_of_memory;
} walk;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  if (type != FTW_F) return 0;
  bool ok = true;
  if (ends_with(path, ".mtx.gz")) {
    ok = push(&walk.skipped, "%s: %s", path, "compressed: gunzip it to use it");
  } else if (ends_with(path, ".mtx")) {
    tb_mtx_banner b;
    if (tb_mtx_read_banner(path, &b) == TB_OK && b.format == TB_MTX_FORMAT_ARRAY)
      ok = push(&walk.skipped, "%s: %s", path, "array (dense) format: a vector, not a matrix");
    else /* anything else wrong with it is the reader's to say */
      ok = push(&walk.found, "%s%s", path, "");
  }
  if (!ok) walk.out_of_memory = true;
  return ok ? 0 : 1;
}

static int by_path(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void tb_mtx_files_free(tb_mtx_files *f) {
  if (!f) return;
  list a = {f->paths, f->count, f->count}, b = {f->skipped, f->nskipped, f->nskipped};
  list_free(&a), list_free(&b);
  *f = (tb_mtx_files){0};
}

tb_status tb_mtx_find(const char *path, tb_mtx_files *out) {
  if (out) *out = (tb_mtx_files){0};
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_find: NULL argument");
  struct stat st;
  if (stat(path, &st) != 0) return tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno));
  walk.found = (list){0}, walk.skipped = (list){0}, walk.out_of_memory = false;
  tb_status s = TB_OK;
  if (!S_ISDIR(st.st_mode)) { /* a file named is taken as it is */
    if (!push(&walk.found, "%s%s", path, "")) s = TB_ERR_OUT_OF_MEMORY;
  } else if (nftw(path, visit, 16, 0) != 0) {
    s = walk.out_of_memory ? TB_ERR_OUT_OF_MEMORY
                           : tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno));
  } else if (walk.found.count == 0) {
    s = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: no .mtx file under it (%d left out)", path,
                walk.skipped.count);
  }
  if (s == TB_ERR_OUT_OF_MEMORY) tb_fail(s, "%s: out of memory listing its files", path);
  if (s != TB_OK) {
    list_free(&walk.found), list_free(&walk.skipped);
    return s;
  }
  qsort(walk.found.items, (size_t)walk.found.count, sizeof(char *), by_path);
  *out = (tb_mtx_files){walk.found.items, walk.found.count, walk.skipped.items, walk.skipped.count};
  walk.found = (list){0}, walk.skipped = (list){0};
  return TB_OK;
}
