#!/bin/bash
# shard_sweep_test TILEBENCH FAKE MERGE: `./tilebench sweep --devices` on
# sweeps that need no GPU (core/sweep_fake.c standing in for two families) and
# three pretend GPUs of two models: every shard merged per model with the
# board that measured each row; a failing shard, a killed run and a truncated
# result are named, the rest merged, and --resume re-runs only what was lost.
. tools/testing.sh
TILEBENCH=$(realpath "$1")
FAKE=$(realpath "$2")
MERGE=$(realpath "$3")
BIN=$TMP/bin R=$TMP/results W=$TMP/work
mkdir -p "$BIN"
for f in reduce scan; do ln -sf "$FAKE" "$BIN/${f}_bench"; done
export TB_SWEEP_BIN=$BIN TB_RESULTS=$R TB_RESULTS_MERGE=$MERGE TB_COMMIT=shards
export TB_DEVICE_LIST="0, Fake H200;1, Fake H200;2, Fake B200"
H200=$R/sm_00/fake-h200 B200=$R/sm_00/fake-b200
rows() { grep -cE "\"name\":\"$2\"" "$1" 2>/dev/null; }
sweep() { "$TILEBENCH" sweep reduce scan "$@" -- --tb_repetitions=2 >"$TMP/out" 2>&1; }

# Every GPU: both models get every shard, rows name their board.
rm -rf "$R" "$W"
sweep --devices all --work "$W" || fail "sharded sweep exited $?: $(tail -5 "$TMP/out")"
[ "$(wc -l <"$W/plan")" = 4 ] || fail "want 4 shards (2 families x 2 types), got $(cat "$W/plan")"
for d in "$H200" "$B200"; do
  for f in reduce scan; do
    [ "$(rows "$d/$f.json" 'fake/tb/int32/n:1024')" = 2 ] || fail "$d/$f.json lacks int32 rows"
    [ "$(rows "$d/$f.json" 'fake/cub/float/n:1024')" = 2 ] || fail "$d/$f.json lacks float rows"
  done
done
grep -qE '"device":"[^"]*:fake-2"' "$B200/reduce.json" || fail "B200 rows do not name board 2"
grep -qE '"device":"[^"]*:fake-2"' "$H200/reduce.json" "$H200/scan.json" && fail "H200 rows name the B200's board"
grep -qE '"device":"[^"]*:fake-[01]"' "$H200/scan.json" || fail "H200 rows do not name their board"
grep -q 'every shard merged' "$TMP/out" || fail "last line: $(tail -1 "$TMP/out")"

# A device that does not exist: a clear message, nothing run.
rm -rf "$W"
sweep --devices 0,7 --work "$W" && fail "--devices 0,7 accepted"
grep -q 'no GPU 7 on this host (it has 0 1 2)' "$TMP/out" || fail "bad device not named: $(cat "$TMP/out")"
sweep --devices x --work "$TMP/w2" && fail "--devices x accepted"

# A failing shard: named, the others merged, exit 1; --resume re-runs it only.
rm -rf "$R" "$W"
TB_FAKE_FAIL_TYPE=float sweep --devices 0 --work "$W" && fail "a failing shard exited 0"
grep -q 'LOST reduce/float \[fake-h200\]: exit 1' "$TMP/out" || fail "failed shard not named: $(cat "$TMP/out")"
grep -q 'LOST scan/float' "$TMP/out" || fail "second failed shard not named"
grep -q -- "--resume $W" "$TMP/out" || fail "no re-run hint"
[ "$(rows "$H200/reduce.json" 'fake/tb/int32/n:1024')" = 2 ] || fail "good shards not merged"
[ "$(rows "$H200/reduce.json" 'fake/tb/float/n:1024')" = 0 ] || fail "failed shard merged"
int32_status=$(cat "$W/shards/fake-h200/1/status")
"$TILEBENCH" sweep --resume "$W" --devices 0 >"$TMP/out" 2>&1 || fail "resume exited $?: $(tail -5 "$TMP/out")"
[ "$(cat "$W/shards/fake-h200/1/status")" = "$int32_status" ] || fail "resume re-ran a finished shard"
[ "$(rows "$H200/reduce.json" 'fake/tb/float/n:1024')" = 2 ] || fail "resume did not merge the lost shard"

# A run killed mid-shard: the unfinished shards are named, nothing half-written.
rm -rf "$R" "$W"
setsid bash -c 'echo $$ >"$0/pgid"; exec "$1" sweep reduce --devices 0 --work "$0/work" -- --tb_repetitions=2 --fake_sleep=30' \
  "$TMP" "$TILEBENCH" >"$TMP/out" 2>&1 &
for _ in $(seq 100); do [ -d "$W/shards/fake-h200/1" ] && break; sleep 0.1; done
sleep 0.5
kill -KILL -- "-$(cat "$TMP/pgid")"
wait 2>/dev/null
[ -f "$W/shards/fake-h200/1/status" ] && fail "the killed shard has a status"
sed -i '/--fake_sleep/d' "$W/flags"
TB_SWEEP_BIN=$BIN "$(dirname "$TILEBENCH")/tools/shard_sweep.sh" merge "$W" "$R" >"$TMP/out" 2>&1 &&
  fail "merge of a killed run exited 0"
grep -q 'never finished' "$TMP/out" || fail "killed shard not named: $(cat "$TMP/out")"
"$TILEBENCH" sweep --resume "$W" --devices 0 >"$TMP/out" 2>&1 || fail "resume after kill exited $?"
[ "$(rows "$H200/reduce.json" 'fake/tb/float/n:1024')" = 2 ] || fail "resume after kill incomplete"

# A truncated shard result: named, the rest merged, the result not touched by it.
rm -rf "$R" "$W"
"$(dirname "$TILEBENCH")/tools/shard_sweep.sh" plan "$W" "$BIN" reduce -- --tb_repetitions=2 2>/dev/null
TB_DEVICE_LIST="0, Fake H200" "$(dirname "$TILEBENCH")/tools/shard_sweep.sh" local "$W" 0 2>/dev/null
json=$(find "$W/shards/fake-h200/2/results" -name '*.json')
head -c 300 "$json" >"$json.cut" && mv "$json.cut" "$json"
"$(dirname "$TILEBENCH")/tools/shard_sweep.sh" merge "$W" "$R" >"$TMP/out" 2>&1 && fail "truncated shard merged with exit 0"
grep -q "LOST reduce/float \[fake-h200\]: its result cannot be merged" "$TMP/out" || fail "truncated shard not named: $(cat "$TMP/out")"
[ "$(rows "$H200/reduce.json" 'fake/tb/int32/n:1024')" = 2 ] || fail "good shard not merged beside a truncated one"

# --benchmark_filter cannot be combined with shards.
"$TILEBENCH" sweep reduce --devices all --work "$TMP/w3" -- --benchmark_filter=x >"$TMP/out" 2>&1 &&
  fail "--benchmark_filter accepted"
grep -q 'leave out --benchmark_filter' "$TMP/out" || fail "filter refusal unclear"

finish shard_sweep_test
