#!/bin/bash
# gen_defaults_test GEN SOURCES: every checked-in table kernels/tuned/<arch>.inc
# (and a GPU's own kernels/tuned/<arch>_<gpu>.inc) is what tools/gen_defaults
# derives from the committed sweep it names in kernels/tuned/sources.txt
# ("<arch> <gpu folder> [FAMILY...]"): a new sweep or a table edited by hand
# fails here until `./tilebench defaults` regenerates it.
set -u
GEN=$1
SOURCES=$2
TMP=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
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
[ $failures -eq 0 ] && echo "gen_defaults_test: tables match the committed sweeps"
exit $((failures > 0))
