#!/bin/bash
# cross_gpu_test CROSS_GPU TEMPLATES_DIR: tb / best baseline per row on two GPUs (the
# best-baseline rule: the fastest baseline, an _apply row's plain form's when it has none), the
# per-type table, and a clear failure on a broken file.
. tools/testing.sh
BIN=$1
TEMPLATES=$2
mkdir -p "$TMP/a" "$TMP/b" "$TMP/out"
row() { # name G items/s
  echo "{\"name\": \"$1_median\", \"run_name\": \"$1\", \"run_type\": \"aggregate\", \"aggregate_name\": \"median\", \"items_per_second\": $2e9}"
}
for side in a b; do
  s=$([ $side = a ] && echo 1 || echo 2)
  {
    echo "{\"context\": {\"gpu\": \"GPU $side\", \"commit\": \"c$s\"}, \"benchmarks\": ["
    row "reduce/tb/int32/n:1024" "1$s"; echo ","
    row "reduce/tb/int32/n:4096" "8$s"; echo ","
    row "reduce/cub/int32/n:4096" "4$s"; echo ","
    row "reduce/cub_other/int32/n:4096" "6$s"; echo ","
    row "reduce/tb/int32/n:4096/nt:64/vt:1" "99"
    echo "]}"
  } >"$TMP/$side/reduce.json"
  {
    echo "{\"context\": {\"gpu\": \"GPU $side\", \"commit\": \"c$s\"}, \"benchmarks\": ["
    row "segreduce/cub/int32/n:4096/seg:16" "2$s"; echo ","
    row "segreduce/tb/int32/n:4096/seg:16" "3$s"; echo ","
    row "segreduce_apply/tb/int32/n:4096/seg:16" "4$s"
    echo "]}"
  } >"$TMP/$side/segreduce.json"
done
"$BIN" --templates "$TEMPLATES" "$TMP/a" "$TMP/b" "$TMP/out" 2>"$TMP/err" || fail "exit $?: $(cat "$TMP/err")"
tab=$'\t'
has_line() { grep -qxF -- "$2" "$1" || fail "$1 lacks the line '$2': $(cat "$1")"; }
# 81/61 on A, 82/62 on B; the faster baseline wins and is named; n:1024 has none.
has_line "$TMP/out/reduce_cross_gpu.dat" "reduce/int32${tab}2^12${tab}0${tab}1.3279${tab}1.3226${tab}cub_other${tab}cub_other"
[ "$(grep -c '^reduce/' "$TMP/out/reduce_cross_gpu.dat")" = 1 ] || fail "a row without a baseline was drawn"
# The apply row against its plain form's baseline: 41/21, 42/22.
has_line "$TMP/out/segreduce_cross_gpu.dat" "segreduce_apply/int32/L16${tab}2^12${tab}1${tab}1.9524${tab}1.9091${tab}cub (segreduce)${tab}cub (segreduce)"
has_line "$TMP/out/cross_gpu.md" "| reduce | int32 | 1.33 | 1.33 (reduce 2^12, cub_other) | 1.32 | 1.32 (reduce 2^12, cub_other) |"
for f in reduce segreduce; do [ -s "$TMP/out/${f}_cross_gpu.png" ] || fail "no $f chart"; done
echo '{"benchmarks": [' >"$TMP/b/reduce.json"
"$BIN" --templates "$TEMPLATES" "$TMP/a" "$TMP/b" "$TMP/out" 2>"$TMP/err" && fail "a broken file was accepted"
grep -q "$TMP/b/reduce.json" "$TMP/err" || fail "the broken file is not named"
finish cross_gpu_test
