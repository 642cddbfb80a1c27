#!/bin/bash
# sweep_test FAKE: the rules that keep results from being lost, on a sweep
# that needs no GPU (sweep_fake.c).
set -u
FAKE=$1
TMP=${TEST_TMPDIR:-$(mktemp -d)}
R=$TMP/results
OUT=$R/sm_00/fake-gpu/fake.json
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# has KEY VALUE: the result holds "KEY": "VALUE" (any spacing).
has() { grep -qE "\"$1\":[[:space:]]*\"$2\"" "$OUT"; }
rows() { grep -cE "\"name\":[[:space:]]*\"$1\"" "$OUT"; }  # exactly that name
fresh() { rm -rf "$R"; }

# A full run writes the result, rows named as registered whatever the flags,
# with repetitions, aggregates and params.
fresh
TB_COMMIT=one "$FAKE" --tb_results="$R" --tb_repetitions=3 >"$TMP/log" 2>&1 \
  || fail "full run exited $?: $(cat "$TMP/log")"
[ -f "$OUT" ] || fail "no result written"
[ "$(rows 'fake/tb/int32/n:1024')" = 3 ] || fail "want 3 repetition rows of fake/tb/int32/n:1024"
[ "$(rows 'fake/tb/int32/n:1024_median')" = 1 ] || fail "no median aggregate"
[ "$(rows 'fake/tb/int32/n:1024_cv')" = 1 ] || fail "no cv aggregate"
grep -q 'iterations:\|manual_time\|repeats:' "$OUT" && fail "Google Benchmark segments in row names"
has algorithm fake || fail "rows lack params"
has repetitions 3 || fail "context lacks the repetitions"
ls -a "$(dirname "$OUT")" | grep -q running && fail "temporary file left behind"
# Each row's output is checked on its first repetition only (tb_sweep_checked).
grep -qE '"checks":[[:space:]]*1' "$OUT" || fail "rows do not report their checks"
grep -qE '"checks":[[:space:]]*([2-9]|1[0-9])' "$OUT" && fail "a row checked other than once"
cp "$OUT" "$TMP/full.json"

# --tb_list writes nothing and leaves the result as it was.
"$FAKE" --tb_results="$R" --tb_list >"$TMP/list" 2>&1 || fail "--tb_list exited $?"
grep -q 'fake/cub/int32/n:1024' "$TMP/list" || fail "--tb_list does not list the rows"
cmp -s "$OUT" "$TMP/full.json" || fail "--tb_list changed the result"

# --help lists the sweep flags and exits 0 without a GPU.
"$FAKE" --help >"$TMP/help" 2>&1 || fail "--help exited $?"
grep -q -- '--tb_repetitions' "$TMP/help" || fail "--help does not list --tb_repetitions"

# A failing run leaves the result untouched and exits non-zero.
TB_COMMIT=two "$FAKE" --tb_results="$R" --fake_fail >"$TMP/log" 2>&1 && fail "failing run exited 0"
cmp -s "$OUT" "$TMP/full.json" || fail "a failing run changed the result"
grep -q "left as it was" "$TMP/log" || fail "a failing run does not say the result was kept"

# A filtered run replaces only the rows it measured.
TB_COMMIT=three "$FAKE" --tb_results="$R" --tb_repetitions=2 \
  --benchmark_filter='fake/cub' >"$TMP/log" 2>&1 || fail "filtered run exited $?"
[ "$(rows 'fake/cub/int32/n:1024')" = 2 ] || fail "filtered row not replaced (want 2 repetitions)"
[ "$(rows 'fake/tb/int32/n:1024')" = 3 ] || fail "unmeasured rows lost by a filtered run"
has commit three || fail "context not updated"
grep -q 'rows kept from the run of commit one' "$OUT" || fail "partial update not recorded"

# --tb_boxes=none is partial too: box rows are kept.
TB_COMMIT=four "$FAKE" --tb_results="$R" --tb_boxes=none >"$TMP/log" 2>&1 || fail "boxes=none exited $?"
[ "$(rows 'fake/tb/int32/n:1024/nt:128/vt:4_median')" = 1 ] || fail "box rows lost by --tb_boxes=none"
[ "$(rows 'fake/tb/int32/n:1024/nt:128/vt:4')" = 0 ] || fail "box rows keep their repetitions"

# An interrupted run leaves the result untouched.
cp "$OUT" "$TMP/before.json"
"$FAKE" --tb_results="$R" --fake_sleep=30 >"$TMP/log" 2>&1 &
pid=$!
sleep 2
kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
cmp -s "$OUT" "$TMP/before.json" || fail "an interrupted run changed the result"

# An unknown sweep flag is an error that names it.
"$FAKE" --tb_nonsense >"$TMP/log" 2>&1 && fail "unknown flag accepted"
grep -q 'unknown flag --tb_nonsense' "$TMP/log" || fail "unknown flag not named"

# A progress line per row on stderr, --tb_progress=0 for none; both measure.
"$FAKE" --tb_results="$R" --tb_repetitions=2 >"$TMP/log" 2>"$TMP/err" || fail "run with progress exited $?"
[ "$(grep -c '^\[[0-9]*/6\] fake/' "$TMP/err")" = 6 ] || fail "want 6 progress lines: $(cat "$TMP/err")"
"$FAKE" --tb_results="$R" --tb_repetitions=2 --tb_progress=0 >"$TMP/log" 2>"$TMP/err" || fail "--tb_progress=0 exited $?"
grep -q '^\[[0-9]*/[0-9]*\] ' "$TMP/err" && fail "--tb_progress=0 printed progress"

# The result file is the sweep's: --benchmark_out beside --tb_results is refused, the result kept.
cp "$OUT" "$TMP/before.json"
"$FAKE" --tb_results="$R" --benchmark_out="$TMP/x.json" >"$TMP/log" 2>&1 && fail "--benchmark_out with --tb_results accepted"
grep -q 'leave out --benchmark_out' "$TMP/log" || fail "--benchmark_out refusal unclear: $(cat "$TMP/log")"
cmp -s "$OUT" "$TMP/before.json" || fail "a refused run changed the result"

# CSV on stdout, the result still JSON.
"$FAKE" --tb_results="$R" --benchmark_format=csv --tb_progress=0 >"$TMP/csv" 2>"$TMP/err" || fail "CSV run exited $?"
head -1 "$TMP/csv" | grep -q '^name,iterations,' || fail "CSV lacks its header: $(head -2 "$TMP/csv")"
grep -q '^"fake/tb/int32/n:1024_median",' "$TMP/csv" || fail "CSV rows not named as registered"
has suite fake || fail "the result is no longer the JSON file"

[ $failures -eq 0 ] && echo "sweep_test: all checks passed"
exit $((failures > 0))
