/* The binary cache of parsed Matrix Market files (core/mtx.h): an entry is
 * used only when everything in it checks out, else rebuilt. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/mtx.h"

/* Bump when the layout changes or the reader's result does (another rule
 * for duplicates, say): older entries are then rebuilt, never misread.
 * 2: files that version 1 took are refused (both triangles of a symmetric
 * file, text after an entry's numbers, a value read as infinite, ...). */
enum { kVersion = 2 };
static const char kMagic[8] = "TBCSR\x1a\n";
static const uint32_t kByteOrder = 0x01020304u;

/* The entry's header; the source's absolute path (path_len bytes, no NUL)
 * follows it, then row_offsets (rows + 1 int32), col (nnz int32) and, unless
 * TB_MTX_PATTERN, values (nnz double), all native-endian. */
typedef struct {
  char magic[8];
  uint32_t version;
  uint32_t byte_order;
  uint32_t flags;
  uint32_t path_len;
  int64_t rows, cols, nnz, file_nnz;
  int64_t src_size, src_mtime_s, src_mtime_ns; /* the source as it was read */
  uint64_t data_hash;                          /* the path and the arrays */
  uint64_t header_hash;                        /* every field above */
} entry_header;
_Static_assert(sizeof(entry_header) == 96, "entry_header has no padding");

/* Word-at-a-time multiply-xorshift. Each step is a bijection of the state for
 * a given word and of the word for a given state, so any one changed word
 * changes the result; it guards against damage, not against an adversary. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t n) {
  const unsigned char *b = data;
  for (; n >= 8; b += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
  }
  for (; n > 0; ++b, --n) h = (h ^ *b) * 0x100000001b3ull;
  return h;
}
static const uint64_t kSeed = 0xcbf29ce484222325ull;

static uint64_t header_hash(const entry_header *h) {
  return hash_bytes(kSeed, h, offsetof(entry_header, header_hash));
}

static size_t values_bytes(unsigned flags, int64_t nnz) {
  return flags & TB_MTX_PATTERN ? 0 : sizeof(double) * (size_t)nnz;
}

static uint64_t data_hash(const char *abs, const tb_mtx *m) {
  uint64_t h = hash_bytes(kSeed, abs, strlen(abs));
  h = hash_bytes(h, m->csr.row_offsets, sizeof(int32_t) * ((size_t)m->csr.rows + 1));
  h = hash_bytes(h, m->csr.col, sizeof(int32_t) * (size_t)m->csr.nnz);
  return hash_bytes(h, m->values, values_bytes(m->flags, m->csr.nnz));
}

/* ---- where entries live --------------------------------------------------- */

tb_status tb_mtx_cache_dir(char *out, size_t cap) {
  if (!out || cap == 0) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_cache_dir: no buffer");
  const char *env = getenv("TB_MATRIX_CACHE"), *home = getenv("HOME");
  int n;
  if (env && env[0]) n = snprintf(out, cap, "%s", env);
  else if (home && home[0]) n = snprintf(out, cap, "%s/.cache/tilebench/matrices", home);
  else
    return tb_fail(TB_ERR_INVALID_ARGUMENT,
                   "no matrix cache: neither TB_MATRIX_CACHE nor HOME is set");
  if (n < 0 || (size_t)n >= cap)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "the matrix cache's path is too long");
  return TB_OK;
}

static tb_status entry_path(const char *abs, const char *dir, char *out, size_t cap) {
  char name[TB_MTX_NAME_MAX + 1], defdir[4096];
  if (!dir) {
    TB_TRY(tb_mtx_cache_dir(defdir, sizeof defdir));
    dir = defdir;
  }
  tb_mtx_name(abs, name, sizeof name);
  const int n = snprintf(out, cap, "%s/%s.%016llx.tbcsr", dir, name,
                         (unsigned long long)hash_bytes(kSeed, abs, strlen(abs)));
  if (n < 0 || (size_t)n >= cap)
    return tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: the cache entry's path is too long", abs);
  return TB_OK;
}

tb_status tb_mtx_cache_path(const char *path, const char *dir, char *out, size_t cap) {
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_cache_path: NULL argument");
  char *abs = realpath(path, NULL);
  if (!abs) return tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno));
  const tb_status s = entry_path(abs, dir, out, cap);
  free(abs);
  return s;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return errno = ENAMETOOLONG, -1;
  for (char *p = buf + 1;; ++p) {
    if (*p != '/' && *p != '\0') continue;
    const char c = *p;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    if (c == '\0') return 0;
    *p = c;
  }
}

/* ---- reading an entry ----------------------------------------------------- */

/* The CSR invariants (core/matrix.h), so that a damaged entry whose checksum
 * happened to survive still cannot send an index out of bounds. */
static bool csr_sound(const tb_csr_matrix *m) {
  const int32_t *ro = m->row_offsets;
  if (ro[0] != 0 || ro[m->rows] != m->nnz) return false;
  for (int32_t r = 0; r < m->rows; ++r) {
    if (ro[r + 1] < ro[r]) return false;
    for (int32_t k = ro[r]; k < ro[r + 1]; ++k)
      if (m->col[k] < 0 || m->col[k] >= m->cols || (k > ro[r] && m->col[k] <= m->col[k - 1]))
        return false;
  }
  return true;
}

typedef enum { ENTRY_HIT, ENTRY_ABSENT, ENTRY_BAD } entry_result;

static entry_result bad(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static entry_result bad(char *why, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
  return ENTRY_BAD;
}

/* The header's own checks: this version's, this source's as it is now. */
static entry_result check_header(const entry_header *h, const char *abs, const struct stat *src,
                                 char *why, size_t cap) {
  if (memcmp(h->magic, kMagic, sizeof kMagic) != 0) return bad(why, cap, "not a cache entry");
  if (h->version != kVersion || h->byte_order != kByteOrder)
    return bad(why, cap, "written by another version or byte order");
  if (h->header_hash != header_hash(h)) return bad(why, cap, "its header is corrupt");
  if (h->path_len != strlen(abs)) return bad(why, cap, "it is another file's (another path)");
  if (h->src_size != (int64_t)src->st_size || h->src_mtime_s != (int64_t)src->st_mtim.tv_sec ||
      h->src_mtime_ns != (int64_t)src->st_mtim.tv_nsec)
    return bad(why, cap, "stale: the source changed since (size or modification time)");
  const unsigned known = TB_MTX_PATTERN | TB_MTX_INTEGER | TB_MTX_SYMMETRIC | TB_MTX_SKEW;
  if (h->rows < 0 || h->rows > INT32_MAX || h->cols < 0 || h->cols > INT32_MAX || h->nnz < 0 ||
      h->nnz > INT32_MAX || h->file_nnz < 0 || (h->flags & ~known) != 0)
    return bad(why, cap, "its header is corrupt");
  return ENTRY_HIT;
}

static entry_result read_entry(const char *entry, const char *abs, const struct stat *src,
                               tb_mtx *m, char *why, size_t cap) {
  FILE *f = fopen(entry, "rb");
  if (!f) {
    if (errno == ENOENT) return ENTRY_ABSENT;
    return bad(why, cap, "unreadable: %s", strerror(errno));
  }
  entry_header h;
  struct stat st;
  entry_result r = ENTRY_HIT;
  char *path = NULL;
  if (fread(&h, sizeof h, 1, f) != 1) r = bad(why, cap, "truncated (no header)");
  if (r == ENTRY_HIT) r = check_header(&h, abs, src, why, cap);
  if (r == ENTRY_HIT) {
    const uint64_t want = sizeof h + h.path_len + sizeof(int32_t) * ((uint64_t)h.rows + 1) +
                          sizeof(int32_t) * (uint64_t)h.nnz + values_bytes(h.flags, h.nnz);
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size != want)
      r = bad(why, cap, "truncated or overlong");
  }
  if (r == ENTRY_HIT) {
    path = calloc((size_t)h.path_len + 1, 1);
    if (!path || fread(path, 1, h.path_len, f) != h.path_len) r = bad(why, cap, "a short read");
    else if (strcmp(path, abs) != 0) r = bad(why, cap, "it is another file's (%s)", path);
  }
  if (r == ENTRY_HIT) {
    tb_csr_matrix *a = &m->csr;
    a->rows = (int32_t)h.rows, a->cols = (int32_t)h.cols, a->nnz = h.nnz;
    m->flags = h.flags, m->file_nnz = h.file_nnz;
    a->row_offsets = malloc(sizeof(int32_t) * ((size_t)h.rows + 1));
    a->col = malloc(sizeof(int32_t) * (size_t)(h.nnz > 0 ? h.nnz : 1));
    m->values = malloc(sizeof(double) * (size_t)(h.nnz > 0 ? h.nnz : 1));
    if (!a->row_offsets || !a->col || !m->values) {
      r = bad(why, cap, "out of memory reading it");
    } else if (fread(a->row_offsets, sizeof(int32_t), (size_t)h.rows + 1, f) !=
                   (size_t)h.rows + 1 ||
               fread(a->col, sizeof(int32_t), (size_t)h.nnz, f) != (size_t)h.nnz ||
               (!(h.flags & TB_MTX_PATTERN) &&
                fread(m->values, sizeof(double), (size_t)h.nnz, f) != (size_t)h.nnz)) {
      r = bad(why, cap, "a short read");
    } else if (data_hash(abs, m) != h.data_hash) {
      r = bad(why, cap, "corrupt: its checksum does not match");
    } else if (!csr_sound(a)) {
      r = bad(why, cap, "corrupt: not a sorted CSR matrix");
    } else if (h.flags & TB_MTX_PATTERN) {
      for (int64_t k = 0; k < h.nnz; ++k) m->values[k] = 1.0;
    }
  }
  free(path);
  fclose(f);
  if (r != ENTRY_HIT) tb_mtx_free(m);
  return r;
}

/* ---- writing an entry ----------------------------------------------------- */

static bool write_all(FILE *f, const void *p, size_t size, size_t n) {
  return n == 0 || fwrite(p, size, n, f) == n;
}

/* Written aside and renamed into place: a reader never sees half an entry. */
static bool write_entry(const char *entry, const char *dir, const char *abs,
                        const struct stat *src, const tb_mtx *m, char *why, size_t cap) {
  if (make_dirs(dir) != 0) {
    snprintf(why, cap, "cannot create its folder: %s", strerror(errno));
    return false;
  }
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", entry, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    snprintf(why, cap, "cannot write it: %s", strerror(errno));
    return false;
  }
  entry_header h = {.version = kVersion,
                    .byte_order = kByteOrder,
                    .flags = m->flags,
                    .path_len = (uint32_t)strlen(abs),
                    .rows = m->csr.rows,
                    .cols = m->csr.cols,
                    .nnz = m->csr.nnz,
                    .file_nnz = m->file_nnz,
                    .src_size = (int64_t)src->st_size,
                    .src_mtime_s = (int64_t)src->st_mtim.tv_sec,
                    .src_mtime_ns = (int64_t)src->st_mtim.tv_nsec,
                    .data_hash = data_hash(abs, m)};
  memcpy(h.magic, kMagic, sizeof kMagic);
  h.header_hash = header_hash(&h);
  bool ok = write_all(f, &h, sizeof h, 1) && write_all(f, abs, 1, h.path_len) &&
            write_all(f, m->csr.row_offsets, sizeof(int32_t), (size_t)m->csr.rows + 1) &&
            write_all(f, m->csr.col, sizeof(int32_t), (size_t)m->csr.nnz) &&
            write_all(f, m->values, 1, values_bytes(m->flags, m->csr.nnz));
  const int err = errno;
  ok = (fclose(f) == 0) && ok;
  if (ok && rename(tmp, entry) != 0) {
    snprintf(why, cap, "cannot move it into place: %s", strerror(errno));
    remove(tmp);
    return false;
  }
  if (!ok) {
    snprintf(why, cap, "cannot write it: %s", strerror(err ? err : errno));
    remove(tmp);
  }
  return ok;
}

/* ---- the entry point ------------------------------------------------------ */

tb_status tb_mtx_load(const char *path, const char *dir, tb_mtx *out, tb_mtx_cache_info *info) {
  tb_mtx_cache_info scratch;
  if (!info) info = &scratch;
  *info = (tb_mtx_cache_info){.event = TB_MTX_CACHE_UNUSABLE};
  if (out) *out = (tb_mtx){0};
  if (!path || !out) return tb_fail(TB_ERR_INVALID_ARGUMENT, "tb_mtx_load: NULL argument");

  /* The source's state before it is read: if it changes while being read,
   * the entry records the older state and the next load rebuilds it. */
  struct stat src;
  char *abs = stat(path, &src) == 0 ? realpath(path, NULL) : NULL;
  if (!abs) return tb_fail(TB_ERR_IO, "%s: %s", path, strerror(errno));
  char defdir[4096];
  tb_status s = TB_OK;
  if (!dir) {
    s = tb_mtx_cache_dir(defdir, sizeof defdir);
    dir = defdir;
  }
  if (s == TB_OK) s = entry_path(abs, dir, info->entry, sizeof info->entry);
  if (s != TB_OK) { /* no cache, still a matrix */
    snprintf(info->why, sizeof info->why, "%s", tb_last_error());
    s = tb_mtx_read(path, out);
    free(abs);
    return s;
  }

  const entry_result r = read_entry(info->entry, abs, &src, out, info->why, sizeof info->why);
  if (r == ENTRY_HIT) {
    info->event = TB_MTX_CACHE_HIT;
    free(abs);
    return TB_OK;
  }
  s = tb_mtx_read(path, out);
  if (s == TB_OK) {
    char why[sizeof info->why];
    if (write_entry(info->entry, dir, abs, &src, out, why, sizeof why))
      info->event = r == ENTRY_ABSENT ? TB_MTX_CACHE_WRITTEN : TB_MTX_CACHE_REBUILT;
    else
      snprintf(info->why, sizeof info->why, "%s", why);
  }
  free(abs);
  return s;
}

static void say_loaded(const char *who, const char *path, const tb_mtx *m,
                       const tb_mtx_cache_info *info) {
  const char *how = info->event == TB_MTX_CACHE_HIT       ? "from the cache"
                    : info->event == TB_MTX_CACHE_WRITTEN ? "parsed, cached"
                    : info->event == TB_MTX_CACHE_REBUILT ? "parsed, cache entry rebuilt:"
                                                          : "parsed, not cached:";
  fprintf(stderr, "%s: %s: %d x %d, %lld nonzeros%s (%s%s%s)\n", who, path, m->csr.rows,
          m->csr.cols, (long long)m->csr.nnz,
          m->flags & TB_MTX_SKEW        ? ", skew-symmetric expanded"
          : m->flags & TB_MTX_SYMMETRIC ? ", symmetric expanded"
                                        : "",
          how, info->why[0] ? " " : "", info->why);
}

tb_status tb_mtx_load_each(const char *path, const char *who, tb_mtx_each_fn each, void *ctx) {
  tb_mtx_files found;
  TB_TRY(tb_mtx_find(path, &found));
  for (int i = 0; i < found.nskipped; ++i) fprintf(stderr, "%s: left out %s\n", who, found.skipped[i]);
  char(*names)[TB_MTX_NAME_MAX + 1] = calloc((size_t)found.count, sizeof *names);
  tb_status s = names ? TB_OK : tb_fail(TB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
  int kept = 0;
  for (int i = 0; s == TB_OK && i < found.count; ++i) {
    const char *file = found.paths[i];
    tb_mtx m;
    tb_mtx_cache_info info;
    if ((s = tb_mtx_load(file, NULL, &m, &info)) != TB_OK) break;
    say_loaded(who, file, &m, &info);
    tb_mtx_name(file, names[kept], sizeof names[kept]);
    for (int j = 0; j < kept && s == TB_OK; ++j)
      if (strcmp(names[j], names[kept]) == 0)
        s = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: a second matrix named %s (its rows would "
                    "have that name): rename one", file, names[kept]);
    if (s == TB_OK && m.csr.nnz == 0) fprintf(stderr, "%s: left out %s: no nonzeros\n", who, file);
    else if (s == TB_OK && (s = each(ctx, file, names[kept], &m)) == TB_OK) ++kept;
    tb_mtx_free(&m);
  }
  if (s == TB_OK && kept == 0)
    s = tb_fail(TB_ERR_INVALID_ARGUMENT, "%s: no matrix with nonzeros", path);
  free(names);
  tb_mtx_files_free(&found);
  return s;
}
