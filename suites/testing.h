/* What every GPU suite shares: a clear failure when there is no GPU, the
 * CUnit runner, and assertions that carry tilebench's error messages. */
#ifndef TB_SUITES_TESTING_H
#define TB_SUITES_TESTING_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cuda.h"
#include "core/rng.h"
#include "core/status.h"
#include "suites/cpu_testing.h"

/* Sizes the suites use: the full run, or a quick one (--quick, for the
 * compute-sanitizer runs, where every launch is many times slower). */
typedef struct tb_test_config {
  bool quick;
  bool sanitizer;       /* --sanitizer: quick, and no deliberately failing CUDA calls */
  int64_t max_random_n; /* largest random size: 2^24, quick 2^16 */
  uint64_t seed;        /* --seed=N, default fixed so failures reproduce */
} tb_test_config;

extern tb_test_config tb_test;

/* Parses --quick, --sanitizer, --seed=N and --only=TEXT (the tests whose
 * name contains TEXT), checks that a GPU is present (printing why
 * not and returning false otherwise: a GPU suite never passes without one),
 * runs the binary's tests (TB_TEST, core/cunit.h) and returns the process
 * exit code. */
int tb_test_main(int argc, char **argv, const char *suite);

/* CU_ASSERT that st is TB_OK, with tb_last_error() and `what` as the failure
 * text (printed too, so that the log shows the geometry). */
#define TB_ASSERT_OK(st, what) tb_assert_ok((st), (what), __LINE__, __FILE__, __func__)
bool tb_assert_ok(tb_status st, const char *what, int line, const char *file, const char *fn);

/* CU_ASSERT that st is `expected` and that a message was left. A rejected
 * argument (TB_ERR_INVALID_ARGUMENT) must also be reported the way every
 * entry point reports it: "tb_name: ...", the function's name once. */
#define TB_ASSERT_STATUS(st, expected, what) \
  tb_assert_status((st), (expected), (what), __LINE__, __FILE__, __func__)
bool tb_assert_status(tb_status st, tb_status expected, const char *what, int line,
                      const char *file, const char *fn);

/* TB_ASSERT_STATUS for TB_ERR_INVALID_ARGUMENT from entry point `api`, whose
 * message must also contain each of the NULL-terminated needles (the
 * argument and the rule it broke), e.g.
 *   TB_ASSERT_REJECTS(tb_scan(...), "tb_scan", "n = -1", "negative", NULL); */
#define TB_ASSERT_REJECTS(st, api, ...) \
  tb_assert_rejects((st), (api), __LINE__, __FILE__, __func__, __VA_ARGS__)
bool tb_assert_rejects(tb_status st, const char *api, int line, const char *file, const char *fn,
                       ...);

/* TB_ASSERT_REJECTS of a call made here, after the last message is
 * cleared: the call runs first, then the message it left is read. */
#define TB_EXPECT_REJECTS(call, api, ...) \
  TB_ASSERT_REJECTS((tb_clear_error(), (call)), api, __VA_ARGS__, NULL)

/* Whether msg is "tb_name: ..." with that name nowhere else in it; *name
 * (may be NULL) gets the name. */
bool tb_message_well_formed(const char *msg, char *name, size_t cap);

/* A generator seeded from tb_test.seed + stream: each test draws from a
 * stream of its own, and --seed=N reproduces them all. */
tb_rng tb_test_rng(uint64_t stream);

/* Log-uniform in [1, hi]: most random sizes small, some near hi. */
int64_t tb_test_random_size(tb_rng *r, int64_t hi);

/* A device copy of `bytes` of host data (at least 16 bytes are allocated, so
 * that an empty array is still a valid pointer), asserted. */
bool tb_test_upload(tb_buffer *b, const void *host, size_t bytes);

/* Fills all of a scratch buffer with what other work may leave there, for
 * kernels that zero nothing (a word counts only with the call's tag):
 * pattern 0 zeros, 1 0xff bytes, 2 16-byte words {2, 1} (a posted prefix of
 * 1 with no tag), 3 random bytes from r. Asserted. */
enum { TB_TEST_DIRTY_PATTERNS = 4 };
bool tb_test_dirty_scratch(tb_buffer *scratch, int pattern, tb_rng *r);

/* Free device memory now, to show that error paths leak nothing. */
size_t tb_test_free_device_bytes(void);

#endif
