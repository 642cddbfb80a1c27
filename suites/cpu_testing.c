#include "suites/cpu_testing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

bool tb_test_fits(tb_type t, tb_op op) {
  const bool ok = tb_check_type_op(t, op) == TB_OK;
  tb_clear_error();
  return ok;
}

void tb_test_expect_invalid(const char *what, tb_status st, const char *text) {
  const char *msg = tb_last_error();
  const bool ok = st == TB_ERR_INVALID_ARGUMENT && msg[0] != '\0' && (!text || strstr(msg, text));
  CU_ASSERT(ok);
  if (!ok)
    printf("\n  %s: status %s, message \"%s\"%s%s\n", what, tb_status_string(st), msg,
           text ? ", expected to contain " : "", text ? text : "");
  tb_clear_error();
}

tb_value tb_test_from_i64(tb_type t, int64_t x) {
  tb_value v;
  memset(&v, 0, sizeof v);
  switch (t) {
    case TB_INT32: v.i32 = (int32_t)x; break;
    case TB_INT64: v.i64 = x; break;
    case TB_FLOAT: v.f32 = (float)x; break;
    case TB_DOUBLE: v.f64 = (double)x; break;
    default: break;
  }
  return v;
}

double tb_test_as_double(tb_type t, tb_value v) {
  switch (t) {
    case TB_INT32: return (double)v.i32;
    case TB_INT64: return (double)v.i64;
    case TB_FLOAT: return (double)v.f32;
    case TB_DOUBLE: return v.f64;
    default: return 0.0;
  }
}

void *tb_test_convert(tb_type t, const int32_t *src, int n) {
  void *dst = malloc((size_t)(n > 0 ? n : 1) * tb_type_size(t));
  if (!dst) return NULL;
  for (int i = 0; i < n; ++i) tb_store(t, dst, i, tb_test_from_i64(t, src[i]));
  return dst;
}

int tb_test_mismatch_i32(const char *what, const int32_t *got, const int32_t *want, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      printf("\n  %s: index %d expected %d got %d\n", what, i, want[i], got[i]);
      return i;
    }
  return -1;
}

/* ---- Golden vectors from data files. ------------------------------------- */

typedef struct golden_vec {
  struct golden_vec *next;
  char *file, *name;
  int n;
  int32_t *v;
} golden_vec;

static golden_vec *g_golden; /* every vector read so far, of every file */

static golden_vec *golden_find(golden_vec *list, const char *file, const char *name) {
  for (golden_vec *g = list; g; g = g->next)
    if (strcmp(g->file, file) == 0 && (!name || strcmp(g->name, name) == 0)) return g;
  return NULL;
}

static char *copy_string(const char *s) {
  char *c = malloc(strlen(s) + 1);
  return c ? strcpy(c, s) : NULL;
}

static void golden_free(golden_vec *g) {
  free(g->v);
  free(g->name);
  free(g->file);
  free(g);
}

/* Puts a new, empty vector on *list. */
static golden_vec *golden_add(golden_vec **list, const char *file, const char *name) {
  if (golden_find(*list, file, name)) {
    printf("\n  %s: vector %s named twice\n", file, name);
    return NULL;
  }
  golden_vec *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->next = *list;
  *list = g; /* freed with the list, whole or not */
  return (g->file = copy_string(file)) && (g->name = copy_string(name)) ? g : NULL;
}

static bool golden_push(golden_vec *g, int32_t x) {
  if ((g->n & (g->n - 1)) == 0) { /* full at 0, 1, 2, 4, ...: double */
    int32_t *v = realloc(g->v, (size_t)(g->n ? 2 * g->n : 1) * sizeof *v);
    if (!v) return false;
    g->v = v;
  }
  g->v[g->n++] = x;
  return true;
}

/* The vectors of file, parsed from f onto *list; false, with a message, when
 * a line breaks the format. */
static bool golden_parse(const char *file, FILE *f, golden_vec **list) {
  golden_vec *g = NULL;
  char line[1024];
  for (int at = 1; fgets(line, sizeof line, f); ++at) {
    if (!strchr(line, '\n') && !feof(f)) {
      printf("\n  %s:%d: line longer than %d characters\n", file, at, (int)sizeof line - 2);
      return false;
    }
    line[strcspn(line, "#")] = '\0';
    for (char *word = strtok(line, " \t\r\n"); word; word = strtok(NULL, " \t\r\n")) {
      size_t len = strlen(word);
      char *end;
      errno = 0;
      long x = strtol(word, &end, 10);
      if (word[len - 1] == ':') {
        word[len - 1] = '\0';
        if (!(g = golden_add(list, file, word))) return false;
      } else if (*end != '\0' || errno || x < INT32_MIN || x > INT32_MAX || !g) {
        printf("\n  %s:%d: \"%s\" is not an int32 of a named vector\n", file, at, word);
        return false;
      } else if (!golden_push(g, (int32_t)x)) {
        return false;
      }
    }
  }
  return true;
}

/* Reads every vector of file onto g_golden; false, with a message, when the
 * file cannot be read or breaks the format (then none is kept). */
static bool golden_read(const char *file) {
  FILE *f = fopen(file, "r");
  if (!f) {
    printf("\n  %s: cannot open (%s)\n", file, strerror(errno));
    return false;
  }
  golden_vec *list = NULL;
  bool ok = golden_parse(file, f, &list);
  fclose(f);
  while (list) {
    golden_vec *g = list;
    list = g->next;
    if (ok) {
      g->next = g_golden;
      g_golden = g;
    } else {
      golden_free(g);
    }
  }
  return ok;
}

const int32_t *tb_golden(const char *file, const char *name, int n) {
  if (!golden_find(g_golden, file, NULL) && !golden_read(file)) CU_FAIL_FATAL("golden file");
  const golden_vec *g = golden_find(g_golden, file, name);
  if (!g)
    printf("\n  %s: no vector %s\n", file, name);
  else if (g->n != n)
    printf("\n  %s: vector %s holds %d values, not %d\n", file, name, g->n, n);
  if (!g || g->n != n) CU_FAIL_FATAL("golden vector");
  return g->v;
}

void tb_golden_expect(const char *file, const char *name, const int32_t *got, int n) {
  CU_ASSERT_EQUAL(tb_test_mismatch_i32(name, got, tb_golden(file, name, n), n), -1);
}
