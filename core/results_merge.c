/* results_merge: folds a sweep's output into a committed result, as a
 * partial sweep does (core/results.h): the rows it measured replace theirs,
 * every other row stays, and the result is replaced in one rename.
 *
 *   results_merge RUN.json RESULT.json
 *
 * For output that did not come from --tb_results on this machine (a staged
 * run on another one, say). RUN.json is left in place. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/results.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: results_merge RUN.json RESULT.json\n");
    return 2;
  }
  /* tb_results_commit consumes its input: give it a copy. */
  char copy[4200];
  snprintf(copy, sizeof copy, "%s.merging", argv[2]);
  FILE *in = fopen(argv[1], "rb"), *out = in ? fopen(copy, "wb") : NULL;
  if (!in || !out) {
    fprintf(stderr, "results_merge: cannot read %s or write %s\n", argv[1], copy);
    if (in) fclose(in);
    return 1;
  }
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) fwrite(buf, 1, n, out);
  fclose(in);
  if (fclose(out) != 0) return 1;
  if (tb_results_commit(copy, argv[2], true) != TB_OK) {
    fprintf(stderr, "results_merge: %s\n", tb_last_error());
    remove(copy);
    return 1;
  }
  fprintf(stderr, "results_merge: %s merged into %s\n", argv[1], argv[2]);
  return 0;
}
