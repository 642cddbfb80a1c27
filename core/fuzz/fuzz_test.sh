#!/bin/bash
# fuzz_test: the Matrix Market reader (core/mtx.c) and the segment-file
# reader (tb_segments_parse, core/geometry.c) under libFuzzer with
# AddressSanitizer, LeakSanitizer and UBSan. Each harness (core/fuzz/*_fuzz.c)
# is built with Debian's clang (packages clang and libclang-rt-dev) straight
# from the sources, CHOLMOD linked from the system, then run for
# TB_FUZZ_SECONDS seconds (default 10; both at once) on a corpus seeded with
# the fixtures (core/testdata/mtx, core/testdata/segments). A crash, leak,
# timeout, out-of-memory or a disagreement with the harness's oracle fails
# the test; the input that did it is kept in TB_FUZZ_OUT (under Bazel, the
# test's outputs: bazel-testlogs/core/fuzz_test/test.outputs/).
#
#   bazel test //core:fuzz_test                       # CI: 10 s each
#   bazel test //core:fuzz_test --test_env=TB_FUZZ_SECONDS=600 --test_timeout=900
#   TB_FUZZ_SECONDS=3600 TB_FUZZ_CORPUS=~/fuzz core/fuzz/fuzz_test.sh   # from a checkout
#
# TB_FUZZ_CORPUS=DIR keeps the corpus each run grows (DIR/mtx, DIR/segments)
# for the next; without it the corpus starts from the fixtures each time.
# TB_FUZZ_CC names another clang (clang-16, say).
set -u
# Under Bazel the test starts in its runfiles' workspace; by hand, the checkout.
[ -n "${TEST_SRCDIR:-}" ] || cd "$(dirname "$0")/../.." || exit 2
budget=${TB_FUZZ_SECONDS:-10}
TMP=${TEST_TMPDIR:-}
[ -n "$TMP" ] || { TMP=$(mktemp -d) && own_tmp=1; } # removed after a clean run
OUT=${TB_FUZZ_OUT:-${TEST_UNDECLARED_OUTPUTS_DIR:-$TMP}}
CC=${TB_FUZZ_CC:-clang}
case $budget in '' | *[!0-9]*) echo "fuzz_test: TB_FUZZ_SECONDS='$budget' is not a number of seconds" >&2; exit 2 ;; esac
command -v "$CC" >/dev/null || {
  echo "fuzz_test: no $CC: install Debian's clang and libclang-rt-dev (./tilebench test does)" >&2
  exit 1
}
mkdir -p "$OUT"

# What each harness links: the reader and what it calls, all instrumented
# (coverage guides the fuzzer through them); CHOLMOD is the system's.
BASE=(core/geometry.c core/rng.c core/status.c core/types.c)
# shellcheck disable=SC2054 # the commas are -fsanitize's own
FLAGS=(-g -O1 -fno-omit-frame-pointer -std=c11 -Wall -Wextra -I.
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
build() { # build NAME SOURCES... LIBS...
  local name=$1
  shift
  "$CC" "${FLAGS[@]}" "$@" -o "$TMP/$name" 2>"$TMP/$name.build" || {
    echo "FAIL: $name does not build:" >&2
    cat "$TMP/$name.build" >&2
    grep -q "libclang_rt.fuzzer" "$TMP/$name.build" &&
      echo "fuzz_test: libFuzzer's runtime is missing: install libclang-rt-dev" >&2
    return 1
  }
}
build mtx_fuzz core/fuzz/mtx_fuzz.c core/mtx.c core/matrix.c "${BASE[@]}" -lcholmod -lm &
mtx=$!
build segments_fuzz core/fuzz/segments_fuzz.c "${BASE[@]}" -lm &
segments=$!
built=0
wait $mtx && wait $segments && built=1
[ $built -eq 1 ] || exit 1

# run NAME SEEDS: the fuzzer for the budget; its exit status.
run() {
  local name=$1 seeds=$2 corpus
  corpus=${TB_FUZZ_CORPUS:+$TB_FUZZ_CORPUS/${name%_fuzz}}
  corpus=${corpus:-$TMP/${name%_fuzz}-corpus}
  mkdir -p "$corpus"
  # New inputs go to the first folder, the fixtures are only read. An input
  # may take 10 s (more is a hang) and 2 GiB, in all or in one allocation.
  "$TMP/$name" -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 \
    -dict="core/fuzz/${name%_fuzz}.dict" -artifact_prefix="$OUT/$name-" \
    -print_final_stats=1 "$corpus" "$seeds" >"$TMP/$name.log" 2>&1
}
run mtx_fuzz core/testdata/mtx &
mtx=$!
run segments_fuzz core/testdata/segments &
segments=$!
declare -A rc
wait $mtx
rc[mtx_fuzz]=$?
wait $segments
rc[segments_fuzz]=$?
failures=0
for name in mtx_fuzz segments_fuzz; do
  log=$TMP/$name.log
  if [ "${rc[$name]}" -ne 0 ]; then
    echo "FAIL: $name exited ${rc[$name]}:" >&2
    # Bazel's sandbox hides the binary's frames from the sanitizers' stacks:
    # the harness is kept beside the input, to be run on it for the whole one.
    cp "$log" "$TMP/$name" "$OUT/"
    grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED)' "$log" | tail -60 >&2
    for input in "$OUT/$name"-*; do
      [ -e "$input" ] && echo "fuzz_test: the input: $input (the stack: $name INPUT)" >&2
    done
    failures=$((failures + 1))
  else
    echo "$name: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") inputs in" \
      "$budget s, no crash, leak, timeout or disagreement"
  fi
done
if [ "$failures" -ne 0 ]; then
  echo "fuzz_test: the fuzzers' logs and what failed are in $OUT" >&2
  exit 1
fi
[ -z "${own_tmp:-}" ] || rm -rf "$TMP"
