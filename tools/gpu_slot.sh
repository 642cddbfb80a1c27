#!/usr/bin/env bash
# gpu_slot.sh COMMAND [ARGS...]: runs COMMAND on a GPU that no other
# gpu_slot command holds, so that GPU suites run side by side, one per GPU
# (Bazel's --run_under, see .bazelrc; the staged runner's `tests --parallel`).
#
# A GPU is held through a lock file, $TB_GPU_LOCK_DIR/tilebench-gpu-<i>.lock
# (default /tmp), taken with flock(1) and kept open across exec: the lock
# lasts as long as the command, and a killed command frees it. When every
# GPU is held it waits. The GPUs are those CUDA_VISIBLE_DEVICES lists, else
# every one nvidia-smi finds; the command sees only its own. Commands that do
# not set TB_GPU_TEST=1 (Bazel's CPU tests) and machines without a GPU run
# the command as it is.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: gpu_slot.sh COMMAND [ARGS...]" >&2; exit 2; }
if [ "${TB_GPU_TEST:-0}" != 1 ] || ! command -v nvidia-smi >/dev/null 2>&1; then exec "$@"; fi
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  gpus=${CUDA_VISIBLE_DEVICES//,/ }
else
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr '\n' ' ')
fi
[ -n "${gpus// /}" ] || exec "$@"
dir=${TB_GPU_LOCK_DIR:-/tmp}
waited=0
while :; do
  for g in $gpus; do
    exec {fd}>>"$dir/tilebench-gpu-$g.lock" || { echo "gpu_slot: cannot open $dir/tilebench-gpu-$g.lock" >&2; exit 2; }
    if flock -n "$fd"; then
      [ $waited -eq 0 ] || echo "gpu_slot: GPU $g free after ${waited} s" >&2
      export CUDA_VISIBLE_DEVICES=$g
      exec "$@"
    fi
    exec {fd}>&-
  done
  [ $waited -eq 0 ] && echo "gpu_slot: every GPU ($gpus) is held; waiting" >&2
  sleep 1
  waited=$((waited + 1))
done
