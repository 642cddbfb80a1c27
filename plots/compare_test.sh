#!/bin/bash
# compare_test COMPARE A B OLD: runs the comparison tool on the fixtures and checks its report,
# its chart and its handling of bad input.
# A (testdata/compare_a.json) and B (compare_b.json) are new-format results (names without
# Google Benchmark's segments, repetitions with mean/median/stddev/cv aggregates, "params");
# OLD (compare_old.json) has /iterations:N/manual_time, /repeats:N and /min_time names.
# Against B, A's rows are: tb/int32 faster beyond noise, cub/int32 within noise (same),
# thrust/int32 a single repetition (noise unknown), tb/float noise from its iteration rows
# (no aggregates; B in ns), tb/double slower, tb/double at 2^24 under the 0.5% floor (same),
# tb/int32 at 4096 only in A, cub/float at 4096 failed in A; B has tb/int64 at 4096 only.
# The cv aggregates are set by hand, apart from the rows' spread: they take precedence over it.
set -u
COMPARE=$1
A=$2
B=$3
OLD=$4
TMP=${TEST_TMPDIR:-$(mktemp -d)}
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# has_line FILE LINE: FILE contains LINE exactly.
has_line() { grep -qxF -- "$2" "$1" || fail "$1 lacks the line '$2'"; }
tab=$'\t'

# gnuplot is installed by the project's setup: without it the chart cannot be checked.
command -v gnuplot >/dev/null || fail "gnuplot not found on PATH ($PATH): install gnuplot-nox"

# --- two files, with a chart ---
out=$TMP/out
"$COMPARE" --out "$out" --title "fixture A vs B" "$A" "$B" >"$TMP/stdout" 2>"$TMP/stderr" ||
  fail "compare exited $? on the fixtures: $(cat "$TMP/stderr")"
md=$TMP/stdout
has_line "$md" "# fixture A vs B"
grep -qF "| NVIDIA H100 80GB HBM3 | 3f2c1a9 | 2025-11-21T18:42:07+00:00 | 2983.1 |" "$md" ||
  fail "A's context is missing"
grep -qF "| NVIDIA H200 | 9d8e7f6 | 2025-12-02T09:15:00+00:00 | 4212.7 |" "$md" ||
  fail "B's context is missing"
has_line "$md" "| reduce/tb/int32/n:1048576 | 10.00 us | 8.00 us | 1.250 | 1.00% | 1.00% | faster |"
has_line "$md" "| reduce/cub/int32/n:1048576 | 12.00 us | 11.80 us | 1.017 | 2.00% | 2.00% | same |"
has_line "$md" "| reduce/thrust/int32/n:1048576 | 20.00 us | 16.00 us | 1.250 | ? | ? | ? |"
has_line "$md" "| reduce/tb/float/n:1048576 | 5.00 us | 4.00 us | 1.250 | 2.00% | 0.50% | faster |"
has_line "$md" "| reduce/tb/double/n:1048576 | 10.00 us | 10.20 us | 0.980 | 0.10% | 0.10% | slower |"
has_line "$md" "| reduce/tb/double/n:16777216 | 100.00 us | 100.30 us | 0.997 | 0.01% | 0.01% | same |"
has_line "$md" "- only in A (1): reduce/tb/int32/n:4096"
has_line "$md" "- only in B (1): reduce/tb/int64/n:4096"
has_line "$md" "- failed in A (1): reduce/cub/float/n:4096 (validation failed: 3 of 4096 items differ)"
grep -q "^| reduce/cub/float/n:4096 |" "$md" && fail "the failed row was matched"
grep -q "^| reduce/tb/int32/n:4096 |" "$md" && fail "a row only in A was matched"
# Rows in natural order of their names (n:1048576 before n:16777216).
order=$(grep -o '^| reduce/[^ ]*' "$md" | cut -c3- | tr '\n' ' ')
want="reduce/cub/int32/n:1048576 reduce/tb/double/n:1048576 reduce/tb/double/n:16777216 \
reduce/tb/float/n:1048576 reduce/tb/int32/n:1048576 reduce/thrust/int32/n:1048576 "
[ "$order" = "$want" ] || fail "rows out of order: $order"
# Geometric means over the 6 matched rows only: (1.25 * 12/11.8 * 1.25 * 1.25 * 10/10.2 *
# 100/100.3)^(1/6) = 1.1169; tb (4 rows) 1.1117; baselines cub, thrust 1.1275.
has_line "$md" "| compare_a vs compare_b | 6 | 1 | 1 | 1 | 0 | 1.1169 | 1.1117 (4) | 1.1275 (2) | 2 | 1 | 2 | 1 |"
has_line "$md" "Overall geomean A/B over 6 matched rows: 1.1169 (tb 1.1117 (4), baselines 1.1275 (2))"
grep -q '^Verdict (B against A).*2\*sqrt(a^2 + b^2) and > 0.5%' "$md" || fail "no verdict footer"
cmp -s "$md" "$out/compare.md" || fail "$out/compare.md differs from stdout"
has_line "$out/compare.dat" "0${tab}compare_a vs compare_b${tab}1.11692${tab}1.11168${tab}1.12747${tab}6"
magic=$(head -c 8 "$out/compare.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
[ "$magic" = 89504e470d0a1a0a ] || fail "$out/compare.png is not a PNG file (magic '$magic')"
[ "$(ls -A "$out" | wc -l)" = 3 ] || fail "$out holds more than compare.{md,dat,png}: $(ls -A "$out")"

# --- the old format: Google Benchmark's segments are stripped for matching ---
"$COMPARE" "$A" "$OLD" >"$TMP/old.md" 2>"$TMP/stderr" || fail "compare exited $? on the old format"
has_line "$TMP/old.md" "| reduce/tb/int32/n:1048576 | 10.00 us | 8.00 us | 1.250 | 1.00% | ? | ? |"
has_line "$TMP/old.md" "| reduce/cub/int32/n:1048576 | 12.00 us | 11.00 us | 1.091 | 2.00% | 1.00% | faster |"
has_line "$TMP/old.md" "| reduce/tb/float/n:1048576 | 5.00 us | 4.00 us | 1.250 | 2.00% | ? | ? |"
has_line "$TMP/old.md" "- failed in B (1): reduce/thrust/int32/n:1048576 (validation failed: 3 of 4096 items differ)"
has_line "$TMP/old.md" "Overall geomean A/B over 3 matched rows: 1.1945 (tb 1.2500 (2), baselines 1.0909 (1))"

# --- folders: matched by file name; scan only in A, segreduce only in B ---
mkdir -p "$TMP/da/sub.json" "$TMP/db"
cp "$A" "$TMP/da/reduce.json"
cp "$OLD" "$TMP/da/scan.json"
echo "not a result" >"$TMP/da/notes.txt"
cp "$B" "$TMP/db/reduce.json"
cp "$OLD" "$TMP/db/segreduce.json"
"$COMPARE" --out "$TMP/fout" "$TMP/da" "$TMP/db" >"$TMP/dir.md" 2>"$TMP/stderr" ||
  fail "compare exited $? on folders: $(cat "$TMP/stderr")"
has_line "$TMP/dir.md" "## reduce"
has_line "$TMP/dir.md" "| reduce | 6 | 1 | 1 | 1 | 0 | 1.1169 | 1.1117 (4) | 1.1275 (2) | 2 | 1 | 2 | 1 |"
has_line "$TMP/dir.md" "- family only in A: scan (4 benchmarks)"
has_line "$TMP/dir.md" "- family only in B: segreduce (4 benchmarks)"
has_line "$TMP/dir.md" "| reduce/tb/int32/n:1048576 | 10.00 us | 8.00 us | 1.250 | 1.00% | 1.00% | faster |"
grep -q "^## scan\|^## segreduce" "$TMP/dir.md" && fail "a family on one side only was compared"
has_line "$TMP/fout/compare.dat" "0${tab}reduce${tab}1.11692${tab}1.11168${tab}1.12747${tab}6"
[ -s "$TMP/fout/compare.png" ] || fail "no chart for folders"
# A file against a folder: the folder's file of the same name.
"$COMPARE" "$TMP/da/reduce.json" "$TMP/db" >"$TMP/mixed.md" 2>/dev/null || fail "file vs folder failed"
has_line "$TMP/mixed.md" "| reduce | 6 | 1 | 1 | 1 | 0 | 1.1169 | 1.1117 (4) | 1.1275 (2) | 2 | 1 | 2 | 1 |"

# --- bad input: a message naming the file, exit 1 (never a signal), nothing written ---
bad_out=$TMP/bad_out
# expect_bad WHAT NAMED ARGS...: compare ARGS fails cleanly and its message names NAMED.
expect_bad() {
  local what=$1 named=$2
  shift 2
  "$COMPARE" --out "$bad_out" "$@" >"$TMP/bad.stdout" 2>"$TMP/bad.stderr"
  local rc=$?
  [ "$rc" = 1 ] || fail "$what: exit status $rc, want 1"
  grep -qF -- "$named" "$TMP/bad.stderr" || fail "$what: no message naming $named"
  [ -s "$TMP/bad.stdout" ] && fail "$what: printed a report"
  [ -e "$bad_out" ] && fail "$what: wrote $(ls -A "$bad_out")" && rm -rf "$bad_out"
  return 0
}
t=$TMP/trunc.json
size=$(wc -c <"$A")
# Every 37th byte; the last byte is the newline after the JSON text, which may go.
for ((k = 0; k < size - 1; k += 37)); do
  head -c "$k" "$A" >"$t"
  expect_bad "A cut at byte $k" "$t" "$t" "$B"
  ((k % 185 == 0)) && expect_bad "B cut at byte $k" "$t" "$A" "$t"
done
head -c 4096 /dev/urandom >"$TMP/random.json"
expect_bad "random bytes" "$TMP/random.json" "$A" "$TMP/random.json"
head -c 8192 /dev/urandom | tr -d '\000' | head -c 4096 >"$TMP/random2.json"
expect_bad "random bytes without NUL" "$TMP/random2.json" "$TMP/random2.json" "$B"
i=0
while IFS= read -r text; do
  i=$((i + 1))
  f=$TMP/shape$i.json
  printf '%s' "$text" >"$f"
  expect_bad "$text" "$f" "$A" "$f"
done <<'EOF'
[]
{}
"benchmarks"
{"benchmarks": 5}
{"benchmarks": []}
{"benchmarks": [1, "x", {"name": 3}]}
{"benchmarks": [{"name": 3, "real_time": 1, "time_unit": "us"}]}
{"benchmarks": [{"real_time": 1, "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": "10", "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": -10, "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": 0, "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": NaN, "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": "NaN", "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": 1e999, "time_unit": "us"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "real_time": 10, "time_unit": "days"}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576", "run_type": "aggregate", "real_time": 1}]}
{"benchmarks": [{"name": "reduce/tb/int32/n:1048576"}], "context": 1} trailing
EOF
: >"$TMP/empty.json"
expect_bad "an empty file" "$TMP/empty.json" "$TMP/empty.json" "$B"
expect_bad "a missing file" "$TMP/missing.json" "$A" "$TMP/missing.json"
mkdir -p "$TMP/nojson"
echo "no results here" >"$TMP/nojson/readme.txt"
expect_bad "a folder without JSON" "$TMP/nojson" "$TMP/nojson" "$TMP/db"
mkdir -p "$TMP/emptydir"
expect_bad "an empty folder" "$TMP/emptydir" "$TMP/da" "$TMP/emptydir"
cp "$TMP/random.json" "$TMP/db/scan.json"
expect_bad "a bad file in a folder" "$TMP/db/scan.json" "$TMP/da" "$TMP/db"
rm "$TMP/db/scan.json"
printf '{"benchmarks": [{"name": "x/tb/int32/n:1", "real_time": 1, "time_unit": "us"}]}' \
  >"$TMP/disjoint.json"
expect_bad "nothing in common" "no benchmark in common" "$A" "$TMP/disjoint.json"

# A chart that cannot be rendered is a failure that leaves nothing behind.
GNUPLOT=false expect_bad "gnuplot failing" "false failed" "$A" "$B"
GNUPLOT=$TMP/no-gnuplot expect_bad "gnuplot missing" "no-gnuplot" "$A" "$B"

# --- usage errors: status 2 ---
for args in "" "$A" "$A $B $OLD" "--bogus $A $B" "--out"; do
  # shellcheck disable=SC2086 # the arguments are meant to split
  "$COMPARE" $args >/dev/null 2>&1
  rc=$?
  [ "$rc" = 2 ] || fail "compare $args: exit status $rc, want 2"
done

[ "$failures" = 0 ] && echo "PASS" || { echo "$failures check(s) failed" >&2; exit 1; }
