#!/bin/bash
# compare_test COMPARE A B OLD SAME_A SAME_B: runs the comparison tool on the fixtures and checks
# its report, its chart, its verdicts against the baseline control, its exit status and its
# handling of bad input and of runs that do not compare.
# A (testdata/compare_a.json, H100) and B (compare_b.json, H200) are new-format results (names
# without Google Benchmark's segments, repetitions with mean/median/stddev/cv aggregates,
# "params"); OLD (compare_old.json, H100) has /iterations:N/manual_time, /repeats:N and
# /min_time names. Against B, A's rows are: tb/int32 faster beyond noise, cub/int32 within noise
# (same), thrust/int32 a single repetition (noise unknown), tb/float noise from its iteration rows
# (no aggregates; B in ns), tb/double 2.0% slower, tb/double at 2^24 0.3% slower (same),
# tb/int32 at 4096 only in A, cub/float at 4096 failed in A; B has tb/int64 at 4096 only. Two
# baseline rows are too few for a control (MIN_CONTROL), so these rows are judged by their noise
# and the 2% threshold alone. The cv aggregates are set by hand, apart from the rows' spread: they
# take precedence over it.
# SAME_A and SAME_B (testdata/compare_same_{a,b}/, one file per family) are two runs of the same
# code: the baseline rows (every impl but tb: CUB, Thrust, cuSPARSE, atomics, whose code did not
# change) of the H100 default rows measured at 33b8f29 (committed in ae1fc2b) and at 561fcdf
# (86d3a99), their median and cv aggregates as the sweeps wrote them. No two committed runs share
# a commit, and between these two the tb kernels changed, so only the baselines make a same-code
# pair; unlike two halves of one run's repetitions, they carry the real run-to-run drift.
. tools/testing.sh
COMPARE=$1
A=$2
B=$3
OLD=$4
SAME_A=$(dirname "$5")
SAME_B=$(dirname "$6")
SAME_COMMIT_A=$7
SAME_COMMIT_B=$8

# has_line FILE LINE: FILE contains LINE exactly.
# has_text FILE TEXT: FILE contains TEXT.
has_text() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"; }
# expect_rc WANT WHAT ARGS...: compare ARGS exits WANT; its stdout goes to $TMP/run.md, its
# stderr to $TMP/run.err.
expect_rc() {
  local want=$1 what=$2
  shift 2
  "$COMPARE" "$@" >"$TMP/run.md" 2>"$TMP/run.err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "$what: exit status $rc, want $want: $(cat "$TMP/run.err")"
}
tab=$'\t'

# gnuplot is installed by the project's setup: without it the chart cannot be checked.
command -v gnuplot >/dev/null || fail "gnuplot not found on PATH ($PATH): install gnuplot-nox"

# --- two files of two GPUs: refused, then compared with --force, with a chart ---
expect_rc 2 "two GPUs without --force" "$A" "$B"
has_text "$TMP/run.err" "gpu differs: A NVIDIA H100 80GB HBM3, B NVIDIA H200 (compare_a vs compare_b): the runs are not comparable; --force compares them anyway"
[ -s "$TMP/run.md" ] && fail "a refused comparison printed a report"
out=$TMP/out
# Options anywhere: before, between and after A and B.
expect_rc 1 "the fixtures (tb/double slower)" --out "$out" "$A" --title "fixture A vs B" "$B" --force
has_line "$TMP/run.err" "compare: 1 tb row slower in B: reduce/tb/double/n:1048576 (net 0.980)"
has_line "$TMP/run.err" "compare: warning: gpu differs: A NVIDIA H100 80GB HBM3, B NVIDIA H200 (compare_a vs compare_b), compared with --force"
md=$TMP/stdout
mv "$TMP/run.md" "$md"
has_line "$md" "# fixture A vs B"
has_line "$md" "> warning: gpu differs: A NVIDIA H100 80GB HBM3, B NVIDIA H200 (compare_a vs compare_b), compared with --force"
has_text "$md" "| NVIDIA H100 80GB HBM3 | 3f2c1a9 | 2025-11-21T18:42:07+00:00 | 2983.1 | no | unknown |"
has_text "$md" "| NVIDIA H200 | 9d8e7f6 | 2025-12-02T09:15:00+00:00 | 4212.7 | no | unknown |"
# No control (two baseline rows): net = A/B, and twice the noise and the 2% threshold decide.
has_line "$md" "| reduce/tb/int32/n:1048576 | 10.00 us | 8.00 us | 1.250 | 1.250 | 1.00% | 1.00% | faster |"
has_line "$md" "| reduce/cub/int32/n:1048576 | 12.00 us | 11.80 us | 1.017 | 1.017 | 2.00% | 2.00% | same |"
has_line "$md" "| reduce/thrust/int32/n:1048576 | 20.00 us | 16.00 us | 1.250 | 1.250 | ? | ? | ? |"
has_line "$md" "| reduce/tb/float/n:1048576 | 5.00 us | 4.00 us | 1.250 | 1.250 | 2.00% | 0.50% | faster |"
has_line "$md" "| reduce/tb/double/n:1048576 | 10.00 us | 10.20 us | 0.980 | 0.980 | 0.10% | 0.10% | slower |"
has_line "$md" "| reduce/tb/double/n:16777216 | 100.00 us | 100.30 us | 0.997 | 0.997 | 0.01% | 0.01% | same |"
has_line "$md" "- only in A (1): reduce/tb/int32/n:4096"
has_line "$md" "- only in B (1): reduce/tb/int64/n:4096"
has_line "$md" "- failed in A (1): reduce/cub/float/n:4096 (validation failed: 3 of 4096 items differ)"
grep -q "^| reduce/cub/float/n:4096 |" "$md" && fail "the failed row was matched"
grep -q "^| reduce/tb/int32/n:4096 |" "$md" && fail "a row only in A was matched"
# Rows in natural order of their names (n:1048576 before n:16777216), in the family's table and
# in the list of changes.
order=$(grep -o '^| reduce/[^ ]*' "$md" | cut -c3- | tr '\n' ' ')
want="reduce/cub/int32/n:1048576 reduce/tb/double/n:1048576 reduce/tb/double/n:16777216 \
reduce/tb/float/n:1048576 reduce/tb/int32/n:1048576 reduce/thrust/int32/n:1048576 \
reduce/tb/double/n:1048576 reduce/tb/float/n:1048576 reduce/tb/int32/n:1048576 "
[ "$order" = "$want" ] || fail "rows out of order: $order"
# Geometric means over the 6 matched rows only: (1.25 * 12/11.8 * 1.25 * 1.25 * 10/10.2 *
# 100/100.3)^(1/6) = 1.1169; tb (4 rows) 1.1117; baselines cub, thrust 1.1275.
has_line "$md" "| compare_a vs compare_b | 6 | 1 | 1 | 1 | 0 | 1.1169 | 1.1117 (4) | 1.1275 (2) | 2 | 1 | 2 | 1 |"
has_line "$md" "Overall geomean A/B over 6 matched rows: 1.1169 (tb 1.1117 (4), baselines 1.1275 (2))"
has_line "$md" "| compare_a vs compare_b | 2^20 <= n < 2^21 (2^20 <= n < 2^25) | 5 | none | 0 | - | - |"
has_line "$md" "| compare_a vs compare_b | 2^24 <= n < 2^25 (2^20 <= n < 2^25) | 1 | none | 0 | - | - |"
has_line "$md" "| reduce/tb/double/n:1048576 | 0.980 | 0.980 | slower |"
has_line "$md" "Rows called changed: 3; tb rows slower (regressions): 1."
grep -q '^Verdict (B against A).*fences of its control.*by more than 2%' "$md" || fail "no verdict footer"
cmp -s "$md" "$out/compare.md" || fail "$out/compare.md differs from stdout"
has_line "$out/compare.dat" "0${tab}compare_a vs compare_b${tab}1.11692${tab}1.11168${tab}1.12747${tab}6"
magic=$(head -c 8 "$out/compare.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
[ "$magic" = 89504e470d0a1a0a ] || fail "$out/compare.png is not a PNG file (magic '$magic')"
[ "$(ls -A "$out" | wc -l)" = 3 ] || fail "$out holds more than compare.{md,dat,png}: $(ls -A "$out")"

# --- the old format: Google Benchmark's segments are stripped for matching ---
expect_rc 0 "the old format" "$A" "$OLD"
has_line "$TMP/run.md" "| reduce/tb/int32/n:1048576 | 10.00 us | 8.00 us | 1.250 | 1.250 | 1.00% | ? | faster |"
has_line "$TMP/run.md" "| reduce/cub/int32/n:1048576 | 12.00 us | 11.00 us | 1.091 | 1.091 | 2.00% | 1.00% | faster |"
has_line "$TMP/run.md" "| reduce/tb/float/n:1048576 | 5.00 us | 4.00 us | 1.250 | 1.250 | 2.00% | ? | faster |"
has_line "$TMP/run.md" "- failed in B (1): reduce/thrust/int32/n:1048576 (validation failed: 3 of 4096 items differ)"
has_line "$TMP/run.md" "Overall geomean A/B over 3 matched rows: 1.1945 (tb 1.2500 (2), baselines 1.0909 (1))"

# --- folders: matched by file name; scan only in A, segreduce only in B ---
mkdir -p "$TMP/da/sub.json" "$TMP/db"
cp "$A" "$TMP/da/reduce.json"
cp "$OLD" "$TMP/da/scan.json"
echo "not a result" >"$TMP/da/notes.txt"
cp "$B" "$TMP/db/reduce.json"
cp "$OLD" "$TMP/db/segreduce.json"
expect_rc 1 "folders" --force --out "$TMP/fout" "$TMP/da" "$TMP/db"
has_line "$TMP/run.md" "## reduce"
has_line "$TMP/run.md" "| reduce | 6 | 1 | 1 | 1 | 0 | 1.1169 | 1.1117 (4) | 1.1275 (2) | 2 | 1 | 2 | 1 |"
has_line "$TMP/run.md" "- family only in A: scan (4 benchmarks)"
has_line "$TMP/run.md" "- family only in B: segreduce (4 benchmarks)"
has_line "$TMP/run.md" "| reduce/tb/int32/n:1048576 | 10.00 us | 8.00 us | 1.250 | 1.250 | 1.00% | 1.00% | faster |"
grep -q "^## scan\|^## segreduce" "$TMP/run.md" && fail "a family on one side only was compared"
has_line "$TMP/fout/compare.dat" "0${tab}reduce${tab}1.11692${tab}1.11168${tab}1.12747${tab}6"
[ -s "$TMP/fout/compare.png" ] || fail "no chart for folders"
# A file against a folder: the folder's file of the same name.
expect_rc 1 "file vs folder" --force "$TMP/da/reduce.json" "$TMP/db"
has_line "$TMP/run.md" "| reduce | 6 | 1 | 1 | 1 | 0 | 1.1169 | 1.1117 (4) | 1.1275 (2) | 2 | 1 | 2 | 1 |"

# --- two runs of the same code: at most 2% of the rows called changed ---
# changed_ok FILE: FILE's rows called changed are at most 2% of its matched rows.
changed_ok() {
  local changed matched
  changed=$(sed -n 's/^Rows called changed: \([0-9]*\);.*/\1/p' "$1")
  matched=$(sed -n 's/^Overall geomean A\/B over \([0-9]*\) matched rows.*/\1/p' "$1")
  [ -n "$changed" ] && [ -n "$matched" ] && [ $((changed * 50)) -le "$matched" ] ||
    fail "$1: ${changed:-?} of ${matched:-?} rows called changed, want at most 2%"
}
expect_rc 0 "the same code" "$SAME_A" "$SAME_B"
changed_ok "$TMP/run.md"
# omp_reduce's atomics rows are tilebench's own method: judged as tb rows, not a control.
has_line "$TMP/run.md" "Overall geomean A/B over 249 matched rows: 0.9989 (tb 1.0069 (19), baselines 0.9982 (230))"
has_line "$TMP/run.md" "| reduce | 2^28 <= n < 2^29 (n >= 2^25) | 8 | family, size | 8 | 1.0004 | 0.9959 - 1.0044 |"
# Two H100 runs of one commit (ef93680), tb rows included: segreduce's default rows, int32 and
# double, 2^20 to 2^26 items (testdata/compare_same_commit_{a,b}.json, their median and cv).
# A few microsecond rows drift between runs beyond what their baselines did, so compare may exit
# 1 here; what is held is the rate.
"$COMPARE" "$SAME_COMMIT_A" "$SAME_COMMIT_B" >"$TMP/run.md" 2>"$TMP/run.err"
[ $? -le 1 ] || fail "the same commit: $(cat "$TMP/run.err")"
changed_ok "$TMP/run.md"
has_line "$TMP/run.md" "Overall geomean A/B over 728 matched rows: 0.9923 (tb 0.9891 (336), baselines 0.9950 (392))"
# The control alone, without the threshold.
expect_rc 0 "the same code, threshold 0" "$SAME_A" "$SAME_B" --threshold 0
changed_ok "$TMP/run.md"

# --- a 5% slowdown of one tb row in every family is caught ---
# Each planted tb row is a copy of a baseline row of both runs (FAMILY:NAME) renamed to impl tb,
# its time in B multiplied by FACTOR: it keeps the baseline's real run-to-run change and adds
# the slowdown. Its source stays a baseline, so the control is the same.
sources="interval:interval_move/cub/int64/n:67108864/seg:1 \
omp_reduce:omp_reduce/atomics/int32_x3/n:67108864 reduce:reduce_max/cub/int64/n:268435456 \
scan:scan_exclusive/cub/float/n:268435456 segreduce:segreduce/cub/float/n:67108864/seg:64 \
spmv:spmv/cusparse_alg2/double/n:67108864/seg:256"
tb_name() { sed 's#^\([^/]*\)/[^/]*/#\1/tb/#' <<<"$1"; }
# plant DIR FACTOR: SAME_A and SAME_B copied to DIR/a and DIR/b with the planted rows.
plant() {
  local p fam src side factor
  rm -rf "$1"
  mkdir -p "$1"
  cp -rL "$SAME_A" "$1/a" && cp -rL "$SAME_B" "$1/b" && chmod -R u+w "$1"
  for p in $sources; do
    fam=${p%%:*} src=${p#*:}
    for side in a b; do
      factor=1
      [ "$side" = b ] && factor=$2
      # The copy goes before its source row: it ends in a comma whichever row that is.
      awk -v src="\"name\": \"${src}_" -v dst="\"name\": \"$(tb_name "$src")_" -v f="$factor" '
        index($0, src) {
          row = $0
          i = index(row, src)
          row = substr(row, 1, i - 1) dst substr(row, i + length(src))
          if (row ~ /"aggregate_name": "median"/ && match(row, /"real_time": [^,]*/))
            row = substr(row, 1, RSTART + 12) sprintf("%.7g", substr(row, RSTART + 13, RLENGTH - 13) * f) \
                  substr(row, RSTART + RLENGTH)
          sub(/,$/, "", row)
          print row ","
        }
        { print }' "$1/$side/$fam.json" >"$1/$side/$fam.tmp" && mv "$1/$side/$fam.tmp" "$1/$side/$fam.json"
    done
  done
}
plant "$TMP/p5" 1.05
expect_rc 1 "5% slower" "$TMP/p5/a" "$TMP/p5/b"
has_text "$TMP/run.err" "compare: 6 tb rows slower in B:"
for p in $sources; do
  name=$(tb_name "${p#*:}")
  has_text "$TMP/run.err" "$name (net 0.9"
  grep -q "^| $name | 0\.9[0-9]* | 0\.9[0-9]* | slower |\$" "$TMP/run.md" || fail "$name: not listed slower"
done
has_line "$TMP/run.md" "Rows called changed: 6; tb rows slower (regressions): 6."
# The same copies without the slowdown: nothing called.
plant "$TMP/p0" 1
expect_rc 0 "planted copies, not slower" "$TMP/p0/a" "$TMP/p0/b"
has_line "$TMP/run.md" "Rows called changed: 0; tb rows slower (regressions): 0."

# --- --filter and --threshold ---
# The filter picks the rows shown and judged; the control keeps every baseline of the family.
expect_rc 1 "a filter" "$TMP/p5/a" --filter '^reduce_max/tb/' "$TMP/p5/b"
has_text "$TMP/run.err" "compare: 1 tb row slower in B: reduce_max/tb/int64/n:268435456 (net 0.9"
has_line "$TMP/run.md" "| reduce | 2^28 <= n < 2^29 (n >= 2^25) | 1 | family, size | 8 | 1.0004 | 0.9959 - 1.0044 |"
has_text "$TMP/run.md" "| reduce | 1 | 0 | 0 | 0 | 0 |"
[ "$(grep -c '^## ' "$TMP/run.md")" = 4 ] || fail "a filter: families other than reduce shown"
expect_rc 2 "a filter matching nothing" "$TMP/p5/a" "$TMP/p5/b" --filter 'no such row'
has_text "$TMP/run.err" "matches --filter"
[ -s "$TMP/run.md" ] && fail "a filter matching nothing printed a report"
expect_rc 0 "a threshold above the slowdown" "$TMP/p5/a" "$TMP/p5/b" --threshold 8
has_line "$TMP/run.md" "Rows called changed: 0; tb rows slower (regressions): 0."
expect_rc 1 "a threshold below the slowdown" "$TMP/p5/a" "$TMP/p5/b" --threshold 3.5%
has_text "$TMP/run.err" "compare: 6 tb rows slower in B:"

# --- contexts: L2 flush refused, repetitions warned about; boards, clocks, throttling ---
ctx=$TMP/ctx
plant "$ctx" 1
sed -i 's/"l2_flush": "no"/"l2_flush": "yes"/' "$ctx/b/reduce.json"
expect_rc 2 "L2 flush differs" "$ctx/a" "$ctx/b"
has_line "$TMP/run.err" "compare: l2_flush differs: A no, B yes (reduce): the runs are not comparable; --force compares them anyway"
[ -s "$TMP/run.md" ] && fail "L2 flush differs: printed a report"
expect_rc 0 "L2 flush differs, --force" "$ctx/a" "$ctx/b" --force
has_line "$TMP/run.md" "> warning: l2_flush differs: A no, B yes (reduce), compared with --force"
sed -i 's/"l2_flush": "yes"/"l2_flush": "no"/; s/"repetitions": "5"/"repetitions": "3"/' "$ctx/b/reduce.json"
sed -i 's/"repetitions": "5"/"repetitions": "3"/' "$ctx/b/scan.json"
sed -i 's/"time_unit": "ns"}/"time_unit": "ns", "device": "h1:0000:00:06.0", "sm_clock_mhz": 1980, "mem_clock_mhz": 2619}/' \
  "$ctx/a/spmv.json"
sed -i 's/"time_unit": "ns"}/"time_unit": "ns", "device": "h2:0000:00:07.0", "sm_clock_mhz": 1755, "mem_clock_mhz": 2619, "throttle_reasons": 4}/' \
  "$ctx/b/spmv.json"
expect_rc 0 "repetitions, boards, clocks differ" "$ctx/a" "$ctx/b"
has_line "$TMP/run.md" "> warning: repetitions differs: A 5, B 3 (reduce and 1 more)"
has_line "$TMP/run.md" "> warning: 40 of 255 matched rows ran on different boards (spmv/cusparse_alg1/double/n:67108864/seg:4: A h1:0000:00:06.0, B h2:0000:00:07.0)"
has_line "$TMP/run.md" "> warning: SM clock differs: B's is 0.886 times A's (geometric mean over 40 matched rows)"
has_line "$TMP/run.md" "> warning: throttled rows (throttle_reasons): 0 in A, 40 in B of 255 matched"
grep -q "memory clock" "$TMP/run.md" && fail "equal memory clocks warned about"
has_text "$TMP/run.err" "compare: warning: SM clock differs"

# --- bad input: a message naming the file, exit 2 (never a signal), nothing written ---
bad_out=$TMP/bad_out
# expect_bad WHAT NAMED ARGS...: compare ARGS fails cleanly and its message names NAMED.
expect_bad() {
  local what=$1 named=$2
  shift 2
  "$COMPARE" --out "$bad_out" "$@" >"$TMP/bad.stdout" 2>"$TMP/bad.stderr"
  local rc=$?
  [ "$rc" = 2 ] || fail "$what: exit status $rc, want 2"
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
GNUPLOT=false expect_bad "gnuplot failing" "false failed" "$A" "$OLD"
GNUPLOT=$TMP/no-gnuplot expect_bad "gnuplot missing" "no-gnuplot" "$A" "$OLD"

# --- usage errors: status 2 ---
for args in "" "$A" "$A $B $OLD" "--bogus $A $B" "--out" "$A $B --out" "$A $B --threshold x" \
  "$A $B --threshold -1" "$A $B --threshold 100" "$A $B --filter (" "$A $B --filter a --filter b"; do
  # shellcheck disable=SC2086 # the arguments are meant to split
  "$COMPARE" $args >/dev/null 2>&1
  rc=$?
  [ "$rc" = 2 ] || fail "compare $args: exit status $rc, want 2"
done

finish compare_test
