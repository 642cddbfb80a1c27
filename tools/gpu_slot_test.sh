#!/bin/bash
# gpu_slot_test SLOT: four GPU "tests" on two pretend GPUs run two at a time,
# never two on one GPU; a CPU test and a GPU-less machine run unwrapped.
. tools/testing.sh
SLOT=$(realpath "$1")
mkdir -p "$TMP/path" "$TMP/locks"
printf '#!/bin/sh\nprintf "0\\n1\\n"\n' >"$TMP/path/nvidia-smi"
chmod +x "$TMP/path/nvidia-smi"
export TB_GPU_LOCK_DIR=$TMP/locks
unset CUDA_VISIBLE_DEVICES
# Each job logs "start|end <gpu> <time>" around a 1 s sleep.
job='echo "start $CUDA_VISIBLE_DEVICES $(date +%s.%N)" >>"$0"; sleep 1; echo "end $CUDA_VISIBLE_DEVICES $(date +%s.%N)" >>"$0"'
: >"$TMP/log"
for _ in 1 2 3 4; do
  PATH=$TMP/path:$PATH TB_GPU_TEST=1 "$SLOT" bash -c "$job" "$TMP/log" 2>>"$TMP/err" &
done
wait
[ "$(grep -c '^start' "$TMP/log")" = 4 ] || fail "not every job ran: $(cat "$TMP/log")"
# Replay the log in time order: at most one job per GPU, two at once.
sort -k3,3n "$TMP/log" | awk '
  $1 == "start" { if (busy[$2]++) bad = "two jobs on GPU " $2; if (++n > 2) bad = "more jobs than GPUs" }
  $1 == "end" { busy[$2]--; n-- }
  $2 != "0" && $2 != "1" { bad = "job saw CUDA_VISIBLE_DEVICES=" $2 }
  END { if (bad) { print bad; exit 1 } }' || fail "$(sort -k3,3n "$TMP/log")"
grep -q 'waiting' "$TMP/err" || fail "the jobs that waited did not say so"
# CPU tests and machines without nvidia-smi: the command, unwrapped.
out=$(PATH=$TMP/path:$PATH CUDA_VISIBLE_DEVICES=7 "$SLOT" sh -c 'echo $CUDA_VISIBLE_DEVICES')
[ "$out" = 7 ] || fail "a CPU test got CUDA_VISIBLE_DEVICES=$out"
out=$(PATH=/usr/bin:/bin TB_GPU_TEST=1 "$SLOT" sh -c 'echo ran')
[ "$out" = ran ] || fail "without nvidia-smi: '$out'"
"$SLOT" false && fail "the command's exit status is lost"
finish gpu_slot_test
