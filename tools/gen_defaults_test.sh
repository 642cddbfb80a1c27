#!/bin/bash
# gen_defaults_test GEN SOURCES: every checked-in table kernels/tuned/<arch>.inc
# (and a GPU's own kernels/tuned/<arch>_<gpu>.inc) is what tools/gen_defaults
# derives from the committed sweep it names in kernels/tuned/sources.txt
# ("<arch> <gpu folder> [FAMILY...]"): a new sweep or a table edited by hand
# fails here until `./tilebench defaults` regenerates it. A rule whose boxes
# come from several runs is refused, and taken with --mixed-runs.
. tools/testing.sh
GEN=$1
SOURCES=$2
while read -r arch gpu families; do
  [ -n "$arch" ] || continue
  name=$arch${families:+_$gpu}
  table=kernels/tuned/$name.inc
  # shellcheck disable=SC2086 # the families are words
  if ! "$GEN" "results/$arch/$gpu" $families >"$TMP/$name.inc" 2>"$TMP/err"; then
    echo "FAIL: gen_defaults on results/$arch/$gpu: $(cat "$TMP/err")" >&2
    failures=$((failures + 1))
  elif ! diff -u "$table" "$TMP/$name.inc" >"$TMP/diff"; then
    echo "FAIL: $table disagrees with results/$arch/$gpu (run ./tilebench defaults):" >&2
    cat "$TMP/diff" >&2
    failures=$((failures + 1))
  fi
done <"$SOURCES"
# A folder without sweeps is an error that names the file.
mkdir -p "$TMP/empty"
"$GEN" "$TMP/empty" >/dev/null 2>"$TMP/err" && { echo "FAIL: empty folder accepted" >&2; failures=$((failures + 1)); }
grep -q "$TMP/empty/reduce.json" "$TMP/err" || { echo "FAIL: missing file not named" >&2; failures=$((failures + 1)); }
# An unknown family is refused, not ignored.
"$GEN" "$TMP/empty" BOGUS >/dev/null 2>"$TMP/err" && { echo "FAIL: unknown family accepted" >&2; failures=$((failures + 1)); }
grep -q "unknown family BOGUS" "$TMP/err" || { echo "FAIL: unknown family not named" >&2; failures=$((failures + 1)); }
# Boxes measured in different runs are not compared unless asked: int32's
# two boxes come from two runs (the faster from the second), the other
# types' from one.
M=$TMP/mixed
mkdir -p "$M"
for family in scan segreduce omp_reduce interval spmv; do
  echo '{"context": {}, "benchmarks": []}' >"$M/$family.json"
done
box() { # TYPE NT GIPS RUN COMMIT
  printf '{"name": "reduce/tb/%s/n:1024/nt:%s/vt:4_median", "items_per_second": %s000000000, "commit": "%s", "run_id": "%s", "run_date": "2026-11-27T00:00:00Z"}' \
    "$1" "$2" "$3" "$5" "$4"
}
{
  echo '{"context": {"gpu": "Fake GPU"}, "benchmarks": ['
  box int32 128 100 R1 aaa1111; echo ,; box int32 256 120 R2 bbb2222
  for t in int64 float double; do echo ,; box $t 128 100 R1 aaa1111; echo ,; box $t 256 90 R1 aaa1111; done
  echo ']}'
} >"$M/reduce.json"
if "$GEN" "$M" REDUCE >"$TMP/mixed.inc" 2>"$TMP/err"; then
  echo "FAIL: boxes of two runs compared without --mixed-runs" >&2; failures=$((failures + 1))
fi
grep -q 'REDUCE int32: the boxes to compare come from more than one run, commits aaa1111, bbb2222 (2 runs).*--mixed-runs' "$TMP/err" \
  || { echo "FAIL: refusal does not name the commits: $(cat "$TMP/err")" >&2; failures=$((failures + 1)); }
grep -q 'int64\|float\|double' "$TMP/err" && { echo "FAIL: one-run rules refused: $(cat "$TMP/err")" >&2; failures=$((failures + 1)); }
if ! "$GEN" --mixed-runs "$M" REDUCE >"$TMP/mixed.inc" 2>"$TMP/err"; then
  echo "FAIL: --mixed-runs refused: $(cat "$TMP/err")" >&2; failures=$((failures + 1))
fi
grep -q '^TB_TUNED(REDUCE, TB_INT32, 0, 1024, 256, 4)  // 120.0 G items/s, across runs of commits aaa1111, bbb2222 (2 runs)$' "$TMP/mixed.inc" \
  || { echo "FAIL: --mixed-runs does not pick across runs and say so:" >&2; cat "$TMP/mixed.inc" >&2; failures=$((failures + 1)); }
grep -q '^TB_TUNED(REDUCE, TB_INT64, 0, 1024, 128, 4)  // 100.0 G items/s$' "$TMP/mixed.inc" \
  || { echo "FAIL: a one-run rule is marked or wrong:" >&2; cat "$TMP/mixed.inc" >&2; failures=$((failures + 1)); }
# Size bands: at a smaller size with box rows, largest first, a length's
# fastest box where it beats by more than 5% the box a call of that size
# gets without it (int32: 256x11 by 10% at 2^16, by 1% at 2^20, which
# stays the length's box; int64: 256x11 at 2^20, then 512x11 again at
# 2^16, where it beats the 2^20 band's box), with the size.
B=$TMP/bands
mkdir -p "$B"
for family in reduce scan omp_reduce interval spmv; do cp "$M/$family.json" "$B/"; done
seg_box() { # TYPE N NT GIPS
  printf '{"name": "segreduce/tb/%s/n:%s/seg:16/nt:%s/vt:11_median", "items_per_second": %s000000000, "commit": "aaa1111", "run_id": "R1", "run_date": "2026-11-27T00:00:00Z"}' \
    "$1" "$2" "$3" "$4"
}
{
  echo '{"context": {"gpu": "Fake GPU"}, "benchmarks": ['
  sep=""
  for t in int32 int64 float double; do
    for n in 65536 1048576 67108864; do
      case $t/$n in
        int32/65536) fast=110 ;; int32/1048576) fast=101 ;; int64/1048576) fast=120 ;; *) fast=90 ;;
      esac
      printf '%s' "$sep"; seg_box $t $n 512 100; echo ,; seg_box $t $n 256 $fast
      sep=,
    done
  done
  echo ']}'
} >"$B/segreduce.json"
"$GEN" "$B" SEGREDUCE >"$TMP/bands.inc" 2>"$TMP/err" || fail "size bands: gen_defaults failed: $(cat "$TMP/err")"
has_line "$TMP/bands.inc" "TB_TUNED(SEGREDUCE, TB_INT32, 16, 67108864, 512, 11)  // 100.0 G items/s"
has_line "$TMP/bands.inc" "TB_TUNED(SEGREDUCE, TB_INT32, 16, 65536, 256, 11)  // 110.0 G items/s"
has_line "$TMP/bands.inc" "TB_TUNED(SEGREDUCE, TB_INT64, 16, 1048576, 256, 11)  // 120.0 G items/s"
has_line "$TMP/bands.inc" "TB_TUNED(SEGREDUCE, TB_INT64, 16, 65536, 512, 11)  // 100.0 G items/s"
[ "$(grep -c '^TB_TUNED' "$TMP/bands.inc")" = 7 ] || fail "size bands: want 4 rows of every size and 3 bands: $(cat "$TMP/bands.inc")"
finish gen_defaults_test
