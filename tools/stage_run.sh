#!/usr/bin/env bash
# Runner for a folder made by tools/stage.sh, on a GPU machine without Bazel.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The CUDA toolkit's shared libraries (libcusparse.so.12 and its libnvJitLink,
# which stage.sh does not copy) come from this machine's toolkit, after
# anything staged.
for d in ${TB_CUDA_PATH:+"$TB_CUDA_PATH/lib64"} /usr/local/cuda/lib64; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
export TB_COMMIT=${TB_COMMIT:-$(cat "$here/commit.txt")}
cmd=${1:-tests}; shift || true

case "$cmd" in
  tests)
    # --parallel: every suite at once, each holding a GPU of its own
    # (gpu_slot.sh), so N GPUs run N suites side by side.
    parallel=0
    [ "${1:-}" = --parallel ] && { parallel=1; shift; }
    failed=0 start=$(date +%s)
    if [ $parallel -eq 1 ]; then
      mkdir -p /tmp/tb-tests
      declare -A pid
      for t in $(cat "$here/tests.txt"); do
        TB_GPU_TEST=1 "$here/gpu_slot.sh" "$here/bin/$t" "$@" >"/tmp/tb-tests/$t.log" 2>&1 &
        pid[$t]=$!
      done
      for t in $(cat "$here/tests.txt"); do
        if wait "${pid[$t]}"; then echo "=== $t passed"; else echo "=== $t FAILED"; tail -20 "/tmp/tb-tests/$t.log"; failed=$((failed + 1)); fi
      done
    else
      for t in $(cat "$here/tests.txt"); do
        echo "=== $t $*"
        "$here/bin/$t" "$@" || { echo "=== $t FAILED"; failed=$((failed + 1)); }
      done
    fi
    echo "=== GPU suites: $(wc -l <"$here/tests.txt") run, $failed failed, $(( $(date +%s) - start )) s"
    [ "$failed" -eq 0 ] ;;
  sweep-devices)
    # sweep-devices OUT DEVICES [FAMILY...] [-- FLAGS]: the sharded sweep
    # (shard_sweep.sh), one process per GPU, merged into OUT/<arch>/<gpu>/.
    out=${1:?sweep-devices needs an output folder}
    devices=${2:?sweep-devices needs all or a list of GPU indices}
    shift 2
    fams=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do fams+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    [ ${#fams[@]} -gt 0 ] || fams=($(sed 's/_bench$//' "$here/sweeps.txt"))
    # TB_WORK=DIR: the work folder; one that already holds a plan is
    # resumed (only its lost shards run again, then everything merges).
    work=${TB_WORK:-/tmp/tb-shards-$(date +%s)}
    if [ ! -f "$work/plan" ]; then
      "$here/shard_sweep.sh" plan "$work" "$here/bin" "${fams[@]}" -- "$@" || exit 2
    fi
    "$here/shard_sweep.sh" local "$work" "$devices"
    "$here/shard_sweep.sh" merge "$work" "$out" ;;
  sanitize)
    failed=0
    for tool in ${TB_SANITIZERS:-memcheck racecheck synccheck initcheck}; do
      for t in $(cat "$here/sanitize.txt"); do
        echo "=== compute-sanitizer --tool $tool $t --sanitizer"
        compute-sanitizer --tool "$tool" --error-exitcode 99 "$here/bin/$t" --sanitizer "$@" >"/tmp/san-$tool-$t.log" 2>&1
        rc=$?
        tail -n 3 "/tmp/san-$tool-$t.log"
        [ $rc -eq 0 ] || { echo "=== $tool $t FAILED ($rc)"; failed=$((failed + 1)); }
      done
    done
    echo "=== sanitizer runs failed: $failed"
    [ "$failed" -eq 0 ] ;;
  sweep)
    out=${1:?sweep needs an output folder}; shift
    failed=0
    for s in $(cat "$here/sweeps.txt"); do
      echo "=== $s"
      "$here/bin/$s" --tb_results="$out" "$@" || { echo "=== $s FAILED"; failed=$((failed + 1)); }
    done
    [ "$failed" -eq 0 ] ;;
  *)
    exec "$here/bin/$cmd" "$@" ;;
esac
