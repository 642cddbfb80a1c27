#!/bin/bash
# sweep_test FAKE FAKE_NVML FAKE_CUPTI: the rules that keep results from being
# lost, and what every row records of its run and of the GPU's state, on a
# sweep that needs no GPU (sweep_fake.c), a stand-in NVML (nvml_fake.c) and,
# for --tb_trace, a stand-in CUPTI (cupti_fake.c).
. tools/testing.sh
FAKE=$1
export TB_NVML_LIBRARY=$PWD/$2
FAKE_CUPTI=$PWD/$3
R=$TMP/results
OUT=$R/sm_00/fake-gpu/fake.json
# has KEY VALUE: the result holds "KEY": "VALUE" (any spacing).
has() { grep -qE "\"$1\":[[:space:]]*\"$2\"" "$OUT"; }
rows() { grep -cE "\"name\":[[:space:]]*\"$1\"" "$OUT"; }  # exactly that name
fresh() { rm -rf "$R"; }
# rows_with TEXT: how many rows (one a line) hold TEXT; all_rows: how many rows.
rows_with() { grep '^{"name"' "$OUT" | grep -cF -- "$1"; }
all_rows() { grep -c '^{"name"' "$OUT"; }
# run_id: the run the result's context names.
run_id() { sed -n 's/^[[:space:]]*"run_id":[[:space:]]*"\([^"]*\)".*/\1/p' "$OUT"; }
# runs: the ids of the result's "runs" entries, one a line, sorted.
runs() { sed -n '/^"runs": {/,/^}/{/^"runs"/d;s/^"\([^"]*\)": {.*/\1/p}' "$OUT" | sort; }

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
grep -q 'trace_' "$OUT" && fail "trace counters without --tb_trace"
ls "$(dirname "$OUT")" | grep -q _trace && fail "a timeline written without --tb_trace"

# Every row, aggregates included, names its run and carries the GPU's state
# after its timing loop and before it; "runs" describes the run.
ONE=$(run_id)
n=$(all_rows)
[ -n "$ONE" ] || fail "the context names no run_id"
[ "$(rows_with "\"commit\":\"one\",\"run_id\":\"$ONE\",\"run_date\":\"20")" = "$n" ] \
  || fail "not every row names its commit, run_id and run_date"
for counter in sm_clock_mhz mem_clock_mhz temp_c power_w throttle_reasons; do
  [ "$(rows_with "\"$counter\":")" = "$n" ] || fail "not every row has $counter"
  [ "$(rows_with "\"${counter}_before\":")" = "$n" ] || fail "not every row has ${counter}_before"
done
[ "$(rows_with '"sm_clock_mhz":1755,')" -gt 0 ] || fail "sm_clock_mhz is not NVML's reading"
[ "$(rows_with '"throttle_reasons":4,')" -gt 0 ] || fail "throttle_reasons is not NVML's bitmask"
[ "$(rows_with '"power_w":123.5,')" -gt 0 ] || fail "power_w is not NVML's milliwatts in watts"
[ "$(runs)" = "$ONE" ] || fail "runs is not the one run: $(runs)"
grep -q "^\"$ONE\": {\"commit\":\"one\",\"date\":\"20[0-9-]*T[0-9:]*Z\",\"gpu\":\"Fake GPU\",\"device\":\"[^\"]*:fake-0\",\"driver\":\"000.00.01\",.*\"libraries\":{\"fakelib\":\"1.2.3\"}}" "$OUT" \
  || fail "the run's entry lacks commit, date, gpu, device, driver or libraries"
has driver 000.00.01 || fail "the context lacks the driver's version"

# Without NVML nothing is made up: no readings, no driver version, and the
# sweep says so.
TB_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$FAKE" --tb_results="$TMP/absent" \
  >"$TMP/log" 2>&1 || fail "a run without NVML exited $?"
grep -q "rows record no clocks" "$TMP/log" || fail "a run without NVML does not say so"
A=$TMP/absent/sm_00/fake-gpu/fake.json
grep -qE 'sm_clock_mhz|temp_c|power_w|throttle_reasons|"driver"' "$A" && fail "readings written without NVML"
[ "$(grep '^{"name"' "$A" | grep -c '"run_id"')" = "$(grep -c '^{"name"' "$A")" ] \
  || fail "rows without NVML do not name their run"
# A board without a power sensor: power left out, the rest there.
TB_FAKE_NVML_NO_POWER=1 "$FAKE" --tb_results="$TMP/nopower" >"$TMP/log" 2>&1 || fail "no-power run exited $?"
grep -q power_w "$TMP/nopower/sm_00/fake-gpu/fake.json" && fail "power written by a board without it"
grep -q '"temp_c":41' "$TMP/nopower/sm_00/fake-gpu/fake.json" || fail "temperature lost with the power"

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
THREE=$(run_id)
[ "$(rows_with "\"run_id\":\"$THREE\"")" = "$(rows_with '"name":"fake/cub/')" ] \
  || fail "the measured rows do not name the filtered run"
[ "$(rows_with "\"commit\":\"one\",\"run_id\":\"$ONE\"")" = "$(rows_with '"name":"fake/tb/')" ] \
  || fail "the kept rows lost their run"
[ "$(runs)" = "$(printf '%s\n' "$ONE" "$THREE" | sort)" ] || fail "runs is not both runs: $(runs)"

# --tb_boxes=none is partial too: box rows are kept.
TB_COMMIT=four "$FAKE" --tb_results="$R" --tb_boxes=none >"$TMP/log" 2>&1 || fail "boxes=none exited $?"
[ "$(rows 'fake/tb/int32/n:1024/nt:128/vt:4_median')" = 1 ] || fail "box rows lost by --tb_boxes=none"
[ "$(rows 'fake/tb/int32/n:1024/nt:128/vt:4')" = 0 ] || fail "box rows keep their repetitions"
# The filtered run's rows were all measured again: its entry goes.
[ "$(runs)" = "$(printf '%s\n' "$ONE" "$(run_id)" | sort)" ] || fail "runs is not the runs rows name: $(runs)"

# at_row K: waits (up to 20 s) until the run in the background has finished row K.
at_row() {
  for _ in $(seq 200); do grep -q "^\[$1/6\]" "$TMP/log" && return 0; sleep 0.1; done
  fail "the run never finished row $1: $(cat "$TMP/log")"
}
run_of() { grep "\"name\":\"$1\"" "$OUT" | sed -n 's/.*"run_id":"\([^"]*\)".*/\1/p'; }

# A run stopped by one signal finishes the row under way (row 4 sleeps) and commits the rows measured as a partial
# run; the rows it never started keep their old measurements.
cp "$OUT" "$TMP/before.json"
OLD=$(run_of 'fake/tb/float/n:1024_median')
[ -n "$OLD" ] || fail "no float row before the stopped run"
"$FAKE" --tb_results="$R" --tb_repetitions=1 --fake_sleep=1.5 >"$TMP/log" 2>&1 &
pid=$!
at_row 3
kill -TERM $pid
wait $pid
status=$?
[ "$status" = 143 ] || fail "a stopped run exited $status, not 143 (SIGTERM): $(cat "$TMP/log")"
grep -q 'stopping after the row under way' "$TMP/log" || fail "no note on the first signal"
grep -q 'stopped by a signal: 2 row(s) not measured' "$TMP/log" || fail "unmeasured rows not counted: $(cat "$TMP/log")"
grep -q "wrote $OUT (measured rows updated)" "$TMP/log" || fail "the measured rows were not written"
NEW=$(run_of 'fake/tb/int32/n:4096')
[ -n "$NEW" ] && [ "$NEW" != "$OLD" ] || fail "the row under way was not committed"
[ "$(run_of 'fake/tb/int32/n:1024')" = "$NEW" ] || fail "a row measured before the signal was lost"
[ "$(run_of 'fake/tb/float/n:1024_median')" = "$OLD" ] || fail "a row never started lost its old measurement"
[ "$(run_of 'fake/cub/float/n:1024_median')" = "$OLD" ] || fail "a row never started lost its old measurement"
grep -q 'not measured' "$OUT" && fail "a row never started was written"
ls -a "$(dirname "$OUT")" | grep -q running && fail "temporary file left behind"

# A second signal ends the run at once: the result stays as it was.
cp "$OUT" "$TMP/before.json"
"$FAKE" --tb_results="$R" --tb_repetitions=1 --fake_sleep=30 >"$TMP/log" 2>&1 &
pid=$!
at_row 3
kill -INT $pid
sleep 0.2
kill -INT $pid
wait $pid
status=$?
[ "$status" = 130 ] || fail "a twice-interrupted run exited $status, not 130 (SIGINT)"
cmp -s "$OUT" "$TMP/before.json" || fail "a twice-interrupted run changed the result"
ls -a "$(dirname "$OUT")" | grep -q running && fail "temporary file left behind"

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

# --tb_trace: every row, repetitions and aggregates, carries the counters of
# its traced launch (the stand-in CUPTI's made-up call: cupti_fake.c), and
# each row's timeline is written once, beside the result.
T=$TMP/traced/sm_00/fake-gpu
TB_CUPTI_LIBRARY=$FAKE_CUPTI "$FAKE" --tb_results="$TMP/traced" --tb_repetitions=2 --tb_trace \
  >"$TMP/log" 2>&1 || fail "traced run exited $?: $(cat "$TMP/log")"
OUT=$T/fake.json
n=$(all_rows)
for counter in trace_kernels trace_memsets trace_memcpys trace_api_calls trace_syncs trace_first_us \
  trace_span_us trace_kernel_us trace_gap_us trace_api_us trace_host_us; do
  [ "$(rows_with "\"$counter\":")" = "$n" ] || fail "not every traced row has $counter"
done
for kv in trace_kernels:2 trace_memsets:1 trace_memcpys:1 trace_api_calls:4 trace_syncs:1 \
  trace_first_us:12 trace_span_us:22 trace_kernel_us:16 trace_gap_us:4 trace_api_us:12 trace_host_us:50; do
  [ "$(grep '^{"name":"fake/tb/int32/n:1024",' "$OUT" | grep -c "\"${kv%%:*}\":${kv#*:},")" = 2 ] \
    || fail "the repetitions of fake/tb/int32/n:1024 do not have ${kv%%:*} ${kv#*:}"
done
has trace cupti || fail "the context does not say the run was traced"
grep -q "wrote $T/fake_trace.txt" "$TMP/log" || fail "the timeline's file is not named"
[ "$(grep -c '^== fake/' "$T/fake_trace.txt")" = 6 ] || fail "want one timeline per row: $(grep '^==' "$T/fake_trace.txt")"
grep -A3 '^== fake/cub/float/n:1024$' "$T/fake_trace.txt" | grep -q '^# host_us=50.000 first_us=12.000 span_us=22.000 ' \
  || fail "a timeline lacks its summary line"
grep -qE '^ +15\.000 +8\.000 +2\.000  kernel  tb::reduce<int, 4>$' "$T/fake_trace.txt" \
  || fail "a timeline lacks its kernel, demangled: $(head -20 "$T/fake_trace.txt")"
grep -qE '^ +50\.000 +- +-  returned$' "$T/fake_trace.txt" || fail "a timeline does not mark the return"
# Without --tb_results, on stderr.
TB_CUPTI_LIBRARY=$FAKE_CUPTI "$FAKE" --tb_trace --tb_repetitions=1 --tb_progress=0 \
  --benchmark_filter=fake/cub >"$TMP/log" 2>"$TMP/err" || fail "traced run without results exited $?"
[ "$(grep -c '^== fake/cub/' "$TMP/err")" = 2 ] || fail "no timelines on stderr: $(cat "$TMP/err")"
# Without CUPTI a traced sweep fails before any row, and says why; listing
# needs no CUPTI; the flag takes no value.
TB_CUPTI_LIBRARY=/nonexistent/libcupti.so "$FAKE" --tb_results="$TMP/nocupti" --tb_trace \
  >"$TMP/log" 2>&1 && fail "a traced run without CUPTI exited 0"
grep -q -- '--tb_trace: CUPTI not loaded (tried /nonexistent/libcupti.so' "$TMP/log" \
  || fail "a traced run without CUPTI does not say so: $(cat "$TMP/log")"
[ -e "$TMP/nocupti" ] && fail "a traced run without CUPTI wrote something"
TB_CUPTI_LIBRARY=/nonexistent/libcupti.so "$FAKE" --tb_list --tb_trace >"$TMP/log" 2>&1 \
  || fail "--tb_list --tb_trace needs CUPTI"
"$FAKE" --tb_trace=yes >"$TMP/log" 2>&1 && fail "--tb_trace=yes accepted"
grep -q -- '--tb_trace' "$TMP/help" || fail "--help does not list --tb_trace"

finish sweep_test
