/* libFuzzer harness of the segment-file reader (core/geometry.h,
 * tb_segments_parse: the sweeps' --tb_segments): any bytes, read as a file.
 * Beside ASan's and LSan's checks, a plain second reading of the rules (the
 * oracle below, from geometry.h's statement of the format) must agree with
 * the reader: refused by both, or the same lengths. Built and run by
 * core/fuzz/fuzz_test.sh. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/geometry.h"

/* The lengths the rules make of text[0..size) into *out (counts of num); false
 * for a file they refuse. */
static bool read_oracle(const char *data, size_t size, int64_t **out, int64_t *num) {
  *out = NULL, *num = 0;
  if (memchr(data, '\0', size)) return false;
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  int64_t *len = malloc(sizeof *len * (size + 1)), n = 0, values = 0, prev = 0, total = 0;
  int form = 0; /* 'o' offsets, 'l' lengths, 0 before the header */
  bool ok = true;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); ok && line;
       line = strtok_r(NULL, "\n", &save)) {
    if (!form) {
      /* The header: '#' and a word, white space (blanks, tabs; a '\r' at
       * the end) around each. */
      const char *p = line + strspn(line, " \t");
      if (*p == '\0' || strspn(p, " \t\r") == strlen(p)) continue;
      if (*p++ != '#') {
        ok = false;
        break;
      }
      p += strspn(p, " \t");
      const char *word = p;
      p += strcspn(p, " \t\r");
      const size_t n_word = (size_t)(p - word);
      if (strspn(p, " \t\r") != strlen(p) || n_word != 7 ||
          (strncmp(word, "offsets", 7) != 0 && strncmp(word, "lengths", 7) != 0)) {
        ok = false;
        break;
      }
      form = word[0];
      continue;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    line += strspn(line, " \t");
    size_t end = strlen(line);
    while (end > 0 && strchr(" \t\r", line[end - 1])) --end;
    line[end] = '\0';
    if (end == 0) continue;
    if (strspn(line, "0123456789") != end) {
      ok = false;
      break;
    }
    int64_t v = 0;
    for (const char *d = line; *d && v <= INT32_MAX; ++d) v = v * 10 + (*d - '0');
    if (v > INT32_MAX || (form == 'o' && ++values == 1 && v != 0) || (form == 'o' && v < prev)) {
      ok = false;
      break;
    }
    if (form == 'o' && values == 1) continue;
    len[n++] = form == 'o' ? v - prev : v;
    total += len[n - 1];
    prev = v;
    if (total > INT32_MAX || n > INT32_MAX - 1) ok = false;
  }
  free(text);
  ok = ok && form && n > 0 && total > 0;
  if (!ok) free(len), len = NULL, n = 0;
  *out = len, *num = n;
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char empty[1]; /* an empty input may come without a buffer */
  FILE *f = fmemopen(size > 0 ? (void *)data : empty, size, "r");
  if (!f) return 0;
  tb_segments s;
  const tb_status st = tb_segments_parse(f, "fuzz.txt", &s);
  fclose(f);
  int64_t *len, num;
  const bool ok = read_oracle((const char *)data, size, &len, &num);
  if ((st == TB_OK) != ok) {
    fprintf(stderr, "segments_fuzz: the reader %s a file the rules %s (%s)\n",
            ok ? "refused" : "took", ok ? "take" : "refuse", tb_last_error());
    abort();
  }
  if (st != TB_OK && strncmp(tb_last_error(), "fuzz.txt", 8) != 0) {
    fprintf(stderr, "segments_fuzz: a message that does not name the file: %s\n",
            tb_last_error());
    abort();
  }
  if (ok) {
    int64_t total = 0, zero = 0, longest = 0;
    bool same = s.num == num;
    for (int64_t k = 0; same && k < num; ++k) {
      same = s.counts[k] == len[k];
      total += len[k], zero += len[k] == 0, longest = len[k] > longest ? len[k] : longest;
    }
    if (!same || s.total != total || s.empty != zero || s.longest != longest) {
      fprintf(stderr, "segments_fuzz: the reader's lengths are not the file's\n");
      abort();
    }
  }
  tb_segments_free(&s);
  free(len);
  return 0;
}
