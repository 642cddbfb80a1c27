#!/bin/bash
# cross_gpu_test CROSS_GPU TEMPLATES_DIR: the per-family share-of-copy data
# across two GPUs, and a clear failure on a broken file.
set -u
BIN=$1
TEMPLATES=$2
TMP=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
mkdir -p "$TMP/a" "$TMP/b" "$TMP/out"
row() { # name copy_bw_pct
  echo "{\"name\": \"$1\", \"run_name\": \"${1%_median}\", \"run_type\": \"aggregate\", \"aggregate_name\": \"median\", \"copy_bw_pct\": $2}"
}
for side in a b; do
  s=$([ $side = a ] && echo 1 || echo 2)
  {
    echo "{\"context\": {\"gpu\": \"GPU $side\"}, \"benchmarks\": ["
    row "reduce/tb/int32/n:1024_median" "1$s"; echo ","
    row "reduce/tb/int32/n:4096_median" "8$s"; echo ","
    row "reduce/cub/int32/n:4096_median" "7$s"; echo ","
    row "reduce/cub_other/int32/n:4096_median" "6$s"; echo ","
    row "reduce/tb/int32/n:4096/nt:64/vt:1_median" "99"
    echo "]}"
  } >"$TMP/$side/reduce.json"
done
"$BIN" --templates "$TEMPLATES" "$TMP/a" "$TMP/b" "$TMP/out" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
tab=$'\t'
grep -qxF "reduce/int32${tab}81.00${tab}82.00${tab}71.00${tab}72.00" "$TMP/out/reduce_cross_gpu.dat" \
  || fail "data line: $(tail -1 "$TMP/out/reduce_cross_gpu.dat")"
[ -s "$TMP/out/reduce_cross_gpu.png" ] || fail "no chart"
echo '{"benchmarks": [' >"$TMP/b/reduce.json"
"$BIN" --templates "$TEMPLATES" "$TMP/a" "$TMP/b" "$TMP/out" 2>"$TMP/err" && fail "a broken file was accepted"
grep -q "$TMP/b/reduce.json" "$TMP/err" || fail "the broken file is not named"
[ $failures -eq 0 ] && echo "cross_gpu_test: all checks passed"
exit $((failures > 0))
