#!/bin/bash
# slurm_sweep_test TILEBENCH FAKE MERGE CLUSTER: `./tilebench sweep --slurm`
# end to end through a real single-node Slurm on the loopback address
# (tools/slurm/local_cluster.sh): a job array of shards, one pretend GPU a
# task, merged; a failed task and a cancelled one named, --resume finishing
# them; a partition that does not exist refused clearly. Needs root (the
# daemons run as root) and Debian's slurm-wlm and munge.
. tools/testing.sh
TILEBENCH=$(realpath "$1")
FAKE=$(realpath "$2")
MERGE=$(realpath "$3")
CLUSTER=$(realpath "$4")
[ "$(id -u)" = 0 ] || { echo "slurm_sweep_test: needs root (the test cluster's daemons run as root)" >&2; exit 1; }
# A short path: munged refuses socket paths over 108 bytes.
export TB_SLURM_DIR=$(mktemp -d /tmp/tb-slurm.XXXXXX)
cluster_env=$("$CLUSTER" start) || { echo "slurm_sweep_test: the test cluster did not start" >&2; exit 1; }
eval "$cluster_env"
trap '"$CLUSTER" stop >/dev/null 2>&1; rm -rf "$TB_SLURM_DIR"' EXIT

BIN=$TMP/bin W=$TMP/work R=$TMP/results
mkdir -p "$BIN"
for f in reduce scan; do ln -sf "$FAKE" "$BIN/${f}_bench"; done
export TB_SWEEP_BIN=$BIN TB_RESULTS=$R TB_RESULTS_MERGE=$MERGE TB_COMMIT=slurm TB_SLURM_POLL_S=1
OUT=$R/sm_00/fake-gpu
rows() { grep -cE "\"name\":\"$2\"" "$1" 2>/dev/null; }

# A failing task: the others merged, the failed shard named, exit 1.
TB_FAKE_FAIL_TYPE=float "$TILEBENCH" sweep reduce scan --slurm --partition debug --work "$W" -- \
  --tb_repetitions=2 >"$TMP/out" 2>&1 && fail "a failed task exited 0"
grep -q 'job array [0-9]*, 4 tasks' "$TMP/out" || fail "no job array: $(cat "$TMP/out")"
grep -q 'LOST reduce/float \[slurm\]: exit 1' "$TMP/out" || fail "failed task not named: $(cat "$TMP/out")"
[ "$(rows "$OUT/reduce.json" 'fake/tb/int32/n:1024')" = 2 ] || fail "finished tasks not merged"
grep -qE '"device":"[^"]*:fake-[01]"' "$OUT/scan.json" || fail "rows do not name the GPU Slurm gave the task"

# --resume submits the lost shards only.
"$TILEBENCH" sweep --resume "$W" --slurm --partition debug >"$TMP/out" 2>&1 || fail "resume exited $?: $(cat "$TMP/out")"
grep -q 'job array [0-9]*, 2 tasks' "$TMP/out" || fail "resume did not submit just the 2 lost shards: $(cat "$TMP/out")"
[ "$(rows "$OUT/scan.json" 'fake/cub/float/n:1024')" = 2 ] || fail "resume did not merge the lost shards"

# A task cancelled mid-run: named as never finished, the rest merged.
rm -rf "$W" "$R"
"$TILEBENCH" sweep reduce --slurm --partition debug --work "$W" -- --tb_repetitions=2 --fake_sleep=30 \
  >"$TMP/out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -n "$(squeue -h -t RUNNING -n tilebench-sweep 2>/dev/null)" ] && break; sleep 0.2; done
sleep 1
scancel -n tilebench-sweep
wait $pid && fail "a cancelled job array exited 0"
grep -q 'never finished' "$TMP/out" || fail "cancelled task not named: $(cat "$TMP/out")"

# A partition that does not exist: sbatch's reason, exit non-zero.
rm -rf "$W"
"$TILEBENCH" sweep reduce --slurm --partition nosuch --work "$W" >"$TMP/out" 2>&1 && fail "bad partition exited 0"
grep -qi 'invalid partition' "$TMP/out" || fail "bad partition not explained: $(cat "$TMP/out")"

finish slurm_sweep_test
