#!/bin/bash
# plot_test PLOT FIXTURE SEGMENTED MATRICES: runs the plot driver on the fixtures and checks what it
# writes.
# The fixture (testdata/fixture.json) holds reduce int32/float at n = 2^12..2^24, swept boxes
# NT {128,256,512} x VT {1,7,15} (512x15 pruned) at 2^20 and 2^24, the tuned default, cub, two
# repetitions of one entry with their aggregate, and one failed cub entry (float, n = 4096).
# SEGMENTED (testdata/segmented.json) holds segreduce int32 at L = 4 and 64 with two baselines
# (cub, alt), repetitions (median and cv aggregates), rows from two runs (their commits in the
# file's "runs" object, one row's own "commit") and a segreduce_apply row without baselines of
# its own.
# MATRICES (testdata/matrices/spmv.json) holds real-matrix SpMV rows: float zeta (1000 nonzeros,
# plain and _apply), mid_t (3000, its _apply rows as median and cv aggregates) and alpha (5000,
# plain only), double zeta (plain only).
. tools/testing.sh
PLOT=$1
FIXTURE=$2
SEGMENTED=$3
MATRICES=$4
MATRIX_ROWS=$5 # segmented reduction and reduce-by-key over matrices' rows

# has_line FILE LINE: FILE contains LINE exactly.

# gnuplot is installed by the project's setup: without it the charts cannot be checked.
command -v gnuplot >/dev/null || fail "gnuplot not found on PATH ($PATH): install gnuplot-nox"

# --- full run: charts, data, table ---
out=$TMP/out
"$PLOT" --out "$out" "$FIXTURE" 2>"$TMP/stderr" || fail "plot exited $? on the fixture: $(cat "$TMP/stderr")"
grep -q "reduce/cub/float/n:4096.*validation failed" "$TMP/stderr" || fail "the failed benchmark is not reported"
grep -q "1 failed benchmark(s) left out" "$TMP/stderr" || fail "the failure count is not reported"

p=$out/fixture_reduce
tab=$'\t'
# Best box at the largest size is the fastest one in the fixture; 655.3 is the mean of two repetitions.
has_line "${p}_int32_throughput.dat" "16777216${tab}256x15${tab}655.3${tab}681.9${tab}640.1${tab}0${tab}0${tab}0${tab}1.02375${tab}1.0653${tab}0${tab}cub"
has_line "${p}_int32_throughput.dat" "1048576${tab}128x7${tab}310.2${tab}352.7${tab}265.4${tab}0${tab}0${tab}0${tab}1.1688${tab}1.32894${tab}0${tab}cub"
has_line "${p}_int32_throughput.dat" "4096${tab}-${tab}2.1${tab}-${tab}1.6${tab}0${tab}-${tab}0${tab}1.3125${tab}-${tab}0${tab}cub"
has_line "${p}_int32_throughput.dat" "n${tab}best_box${tab}tb (tuned default)${tab}tb (best box)${tab}cub${tab}+-${tab}+-${tab}+-${tab}tb (tuned default) / best baseline${tab}tb (best box) / best baseline${tab}ratio +-${tab}best baseline"
has_line "${p}_float_throughput.dat" "16777216${tab}512x7${tab}650.8${tab}671.4${tab}638.2${tab}0${tab}0${tab}0${tab}1.01974${tab}1.05202${tab}0${tab}cub"
has_line "${p}_float_throughput.dat" "4096${tab}-${tab}2${tab}-${tab}-${tab}0${tab}-${tab}-${tab}-${tab}-${tab}-${tab}-"  # cub failed there
has_line "${p}_int32_bandwidth.dat" "16777216${tab}256x15${tab}87.8683${tab}91.4351${tab}85.8302${tab}0${tab}0${tab}0"
has_line "${p}_int32_heatmap.dat" "2${tab}1${tab}15${tab}256${tab}681.9"
has_line "${p}_float_heatmap.dat" "1${tab}2${tab}7${tab}512${tab}671.4"
rows=$(grep -vc '^#' "${p}_int32_heatmap.dat")
[ "$rows" = 8 ] || fail "heat map has $rows boxes, want 8 (512x15 was pruned)"

md=$out/fixture_tuning.md
has_line "$md" "| NVIDIA H100 80GB HBM3 | sm_90 | 550.54.15 | 12.4 | 3f2c1a9 | 2983.1 GB/s |"
has_line "$md" "| reduce | int32 | - | 2^24 | 256x15 | 681.9 | 655.3 | cub 640.1 | 1.02 | commit 3f2c1a9 |"
has_line "$md" "| reduce | int32 | - | 2^20 | 128x7 | 352.7 | 310.2 | cub 265.4 | 1.17 | commit 3f2c1a9 |"
has_line "$md" "| reduce | float | - | 2^24 | 512x7 | 671.4 | 650.8 | cub 638.2 | 1.02 | commit 3f2c1a9 |"
has_line "$md" "| reduce | float | - | 2^20 | 128x7 | 340.1 | 301.7 | cub 258.9 | 1.17 | commit 3f2c1a9 |"
[ "$(grep -c '^| reduce | [a-z0-9]* | - | ' "$md")" = 4 ] || fail "$md: want 4 box rows (2 types x 2 swept sizes)"
# Every size swept, not the box sizes alone: 4 int32 sizes, 3 float ones (cub failed at 4096).
has_line "$md" "| reduce | int32 | 4 | 1.19 | 1.02 (2^24, cub) | 1.31 (2^12, cub) | ? (not repeated) | cub 4 |"
has_line "$md" "| reduce | float | 3 | 1.15 | 1.02 (2^24, cub) | 1.27 (2^16, cub) | ? (not repeated) | cub 3 |"
has_line "$out/fixture_ratio_int32.dat" "3${tab}0${tab}2^24${tab}reduce${tab}1.0237${tab}0${tab}1.02${tab}cub"

for t in int32 float; do
  for png in ${p}_${t}_{throughput,bandwidth,heatmap}.png $out/fixture_ratio_${t}.png; do
    magic=$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    [ "$magic" = 89504e470d0a1a0a ] || fail "$png is not a PNG file (magic '$magic')"
  done
done

# A single commit: the title says it, with the run's date.
has_line "$out/fixture_ratio_int32.dat" "# fixture int32: tb / best baseline on NVIDIA H100 80GB HBM3 (sm_90), commit 3f2c1a9, 2025-11-21"

# --- the best-baseline rule, the ratio map, ties and mixed commits (segmented fixture) ---
seg=$TMP/seg
"$PLOT" --out "$seg" "$SEGMENTED" 2>"$TMP/stderr" || fail "plot exited $? on $SEGMENTED: $(cat "$TMP/stderr")"
map=$seg/segmented_ratio_int32.dat
# Rows from runs r1 (aaa1111) and r2 (bbb2222), one with its own commit, the rest the file's.
has_line "$map" "# segmented int32: tb / best baseline on Test GPU (sm_90), commits mixed (aaa1111, ccc3333, bbb2222, ctx0001)"
# The fastest baseline wins and is named (alt 9 over cub 8); 20 against 20.5 with a cv of 5%
# each is a tie; the apply row, without baselines, meets its plain form's, named so.
has_line "$map" "0${tab}2${tab}2^10${tab}segreduce L=4${tab}1.1111${tab}0${tab}1.11${tab}alt"
has_line "$map" "1${tab}2${tab}2^12${tab}segreduce L=4${tab}0.9756${tab}1${tab}0.98${tab}cub"
has_line "$map" "0${tab}1${tab}2^10${tab}segreduce L=64${tab}0.5000${tab}0${tab}0.50${tab}cub"
has_line "$map" "0${tab}0${tab}2^10${tab}segreduce_apply L=4${tab}1.3333${tab}0${tab}1.33${tab}alt (segreduce)"
has_line "$map" "# 1 of 4 cells lose; hatched: a tie, within the combined cv of the repetitions"
# By length at every n: the largest without a suffix, the others with theirs.
has_line "$seg/segmented_segreduce_int32_by_seg.dat" "4${tab}20${tab}-${tab}20.5${tab}0.97561${tab}0.068986${tab}cub"
has_line "$seg/segmented_segreduce_int32_by_seg_n1024.dat" "64${tab}5${tab}-${tab}10${tab}0.5${tab}0${tab}cub"
has_line "$seg/segmented_segreduce_apply_int32_by_seg.dat" "seg${tab}tb${tab}alt (segreduce)${tab}cub (segreduce)${tab}tb / best baseline${tab}ratio +-${tab}best baseline"
# The table: every size, the minimum and maximum named with their baseline, ties among the
# repeated rows.
md=$seg/segmented_tuning.md
has_line "$md" "| segreduce | int32 | 3 | 0.82 | 0.50 (2^10, L = 64, cub) | 1.11 (2^10, L = 4, alt) | 1 of 2 | alt 1, cub 2 |"
has_line "$md" "| segreduce_apply | int32 | 1 | 1.33 | 1.33 (2^10, L = 4, alt (segreduce)) | 1.33 (2^10, L = 4, alt (segreduce)) | ? (not repeated) | alt (segreduce) 1 |"
# Boxes swept in run r1 beside a tuned default of run r2: the table row says mixed.
has_line "$md" "| segreduce | int32 | 4 | 2^12 | 256x15 | 21.0 | 20.0 | cub 20.5 | 0.98 | commits mixed (aaa1111, bbb2222) |"
for png in "$seg"/segmented_{ratio_int32,segreduce_int32_by_seg,segreduce_int32_by_seg_n1024}.png; do
  [ -s "$png" ] || fail "no chart $png"
done

# --- the real-matrix chart: tb / best baseline per matrix, sorted by nonzeros ---
ls "$out"/*matrices_ratio* >/dev/null 2>&1 && fail "a matrices chart drawn for a file without spmv_mtx rows"
mtx=$TMP/mtx
"$PLOT" --out "$mtx" "$MATRICES" 2>"$TMP/stderr" || fail "plot exited $? on $MATRICES: $(cat "$TMP/stderr")"
dat=$mtx/spmv_matrices_ratio_float.dat
has_line "$dat" "# spmv float per matrix: tb / best baseline on Test GPU (sm_90), commit mtx0001, 2026-11-27"
has_line "$dat" "# ratio of medians (best baseline time / tb time), > 1: tb faster; line at 1.0; tb loses on 1 of 3 (plain), 1 of 2 (apply)"
# The better of the two cuSPARSE algorithms in each form (plain 2 / 1.6, apply 3 / 4); the
# aggregates' median and combined cv (sqrt(0.03^2 + 0.04^2)); a form not measured is "-".
has_line "$dat" "zeta${tab}1000${tab}1.25${tab}0${tab}0.75${tab}0${tab}cusparse_alg2${tab}cusparse_pre_alg1"
has_line "$dat" "mid_t${tab}3000${tab}2${tab}0${tab}1${tab}0.05${tab}cusparse_alg1${tab}cusparse_pre_alg1"
has_line "$dat" "alpha${tab}5000${tab}0.5${tab}0${tab}-${tab}-${tab}cusparse_alg1${tab}-"
order=$(grep -v '^#' "$dat" | tail -n +2 | cut -f1 | tr '\n' ' ')
[ "$order" = "zeta mid_t alpha " ] || fail "$dat: matrices in the order '$order', want by nonzeros"
has_line "$mtx/spmv_matrices_ratio_double.dat" "zeta${tab}1000${tab}1${tab}0${tab}-${tab}-${tab}cusparse_alg1${tab}-"
for png in "$mtx"/spmv_matrices_ratio_{float,double}.png; do
  magic=$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
  [ "$magic" = 89504e470d0a1a0a ] || fail "$png is not a PNG file (magic '$magic')"
done

# The other families' matrix rows: one chart per family, the suite's own unprefixed; the
# _indirect rows are no form of it; the apply form against its plain form's best baseline.
"$PLOT" --out "$mtx" "$MATRIX_ROWS" 2>"$TMP/stderr" || fail "plot exited $? on $MATRIX_ROWS: $(cat "$TMP/stderr")"
has_line "$mtx/segreduce_matrices_ratio_int32.dat" "zeta${tab}1000${tab}1.25${tab}0${tab}2${tab}0${tab}cub35_hint${tab}cub35_hint (segreduce_mtx_zeta)"
has_line "$mtx/segreduce_reduce_by_key_matrices_ratio_int32.dat" "zeta${tab}1000${tab}0.5${tab}0${tab}-${tab}-${tab}cub${tab}-"
ls "$mtx"/*_mtx_* >/dev/null 2>&1 && fail "a one-point chart drawn for a matrix's rows"
[ "$(grep -vc '^#' "$mtx/segreduce_matrices_ratio_int32.dat")" = 2 ] || fail "segreduce chart: want its header and one matrix"

# --- --no-render, default output directory = the JSON's directory ---
mkdir -p "$TMP/res"
cp "$FIXTURE" "$TMP/res/reduce_bench.json"
"$PLOT" --no-render "$TMP/res/reduce_bench.json" 2>/dev/null || fail "--no-render exited non-zero"
[ -s "$TMP/res/reduce_bench_reduce_int32_throughput.dat" ] || fail "--no-render wrote no .dat beside the JSON"
[ -s "$TMP/res/reduce_bench_tuning.md" ] || fail "--no-render wrote no table beside the JSON"
ls "$TMP/res"/*.png >/dev/null 2>&1 && fail "--no-render rendered PNGs"

# --- robustness: odd names are skipped or warned about, bad input fails cleanly ---
cat >"$TMP/odd.json" <<'EOF'
{"context": {"gpu": "Test GPU"}, "benchmarks": [
 {"name": "scan_exclusive/tb/int64/n:1024/l2flush:1/manual_time", "run_type": "iteration", "items_per_second": 2e9},
 {"name": "scan_exclusive/cub/int64/n:1024/manual_time", "run_type": "iteration", "real_time": 1.0, "time_unit": "us"},
 {"name": "not_a_sweep_name", "run_type": "iteration", "items_per_second": 1e9},
 {"name": "reduce/cub/int32/n:1024/nt:128/vt:7", "run_type": "iteration", "items_per_second": 1e9}
]}
EOF
"$PLOT" --no-render --out "$TMP/odd" "$TMP/odd.json" 2>"$TMP/stderr" || fail "plot failed on odd names"
grep -q "unknown name segment 'l2flush:1'" "$TMP/stderr" || fail "no warning about an unknown segment"
grep -q "skipping 'not_a_sweep_name'" "$TMP/stderr" || fail "no warning about a malformed name"
grep -q "skipping 'reduce/cub/int32/n:1024/nt:128/vt:7'" "$TMP/stderr" || fail "a baseline box was accepted"
# items/s derived from the time when the counter is missing: 1024 items in 1 us.
has_line "$TMP/odd/odd_scan_exclusive_int64_throughput.dat" "1024${tab}-${tab}2${tab}1.024${tab}0${tab}0${tab}1.95312${tab}-${tab}0${tab}cub"

# Repetitions: the median aggregate stands for its row and the cv gives the
# spread column (value x cv); box rows written as aggregates only still count.
cat >"$TMP/reps.json" <<'EOF'
{"context": {"gpu": "Test GPU", "commit": "abc1234", "date": "2026-11-23T01:00:00+00:00"}, "benchmarks": [
 {"name": "reduce/tb/int32/n:1024", "run_name": "reduce/tb/int32/n:1024", "run_type": "iteration", "repetitions": 3, "items_per_second": 1e9},
 {"name": "reduce/tb/int32/n:1024", "run_name": "reduce/tb/int32/n:1024", "run_type": "iteration", "repetitions": 3, "items_per_second": 4e9},
 {"name": "reduce/tb/int32/n:1024", "run_name": "reduce/tb/int32/n:1024", "run_type": "iteration", "repetitions": 3, "items_per_second": 2e9},
 {"name": "reduce/tb/int32/n:1024_mean", "run_name": "reduce/tb/int32/n:1024", "run_type": "aggregate", "aggregate_name": "mean", "items_per_second": 2.333e9},
 {"name": "reduce/tb/int32/n:1024_median", "run_name": "reduce/tb/int32/n:1024", "run_type": "aggregate", "aggregate_name": "median", "items_per_second": 2e9},
 {"name": "reduce/tb/int32/n:1024_cv", "run_name": "reduce/tb/int32/n:1024", "run_type": "aggregate", "aggregate_name": "cv", "real_time": 0.25, "items_per_second": 0.25},
 {"name": "reduce/tb/int32/n:1024/nt:64/vt:1_median", "run_name": "reduce/tb/int32/n:1024/nt:64/vt:1", "run_type": "aggregate", "aggregate_name": "median", "items_per_second": 3e9},
 {"name": "reduce/tb/int32/n:1024/nt:64/vt:1_cv", "run_name": "reduce/tb/int32/n:1024/nt:64/vt:1", "run_type": "aggregate", "aggregate_name": "cv", "real_time": 0.1}
]}
EOF
"$PLOT" --no-render --out "$TMP/reps" "$TMP/reps.json" 2>"$TMP/stderr" || fail "plot failed on repetitions"
has_line "$TMP/reps/reps_reduce_int32_throughput.dat" "1024${tab}64x1${tab}2${tab}3${tab}0.5${tab}0.3"

echo '{"context": {}, "benchmarks": [' >"$TMP/bad.json"
for input in "$TMP/bad.json" "$TMP/missing.json"; do
  "$PLOT" --no-render --out "$TMP/bad" "$input" 2>"$TMP/stderr"
  rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "plot exited $rc on $input, want a plain failure"
  grep -q "plot: .*$(basename "$input")" "$TMP/stderr" || fail "no message naming $input"
done
"$PLOT" >/dev/null 2>&1 && fail "plot without arguments succeeded"

# A failing gnuplot is an error, not a silent success.
GNUPLOT=false "$PLOT" --out "$TMP/nogp" "$FIXTURE" 2>/dev/null && fail "plot succeeded although gnuplot failed"

finish plot_test
