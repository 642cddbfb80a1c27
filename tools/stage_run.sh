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
    failed=0
    for t in $(cat "$here/tests.txt"); do
      echo "=== $t $*"
      "$here/bin/$t" "$@" || { echo "=== $t FAILED"; failed=$((failed + 1)); }
    done
    echo "=== GPU suites: $(wc -l <"$here/tests.txt") run, $failed failed"
    [ "$failed" -eq 0 ] ;;
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
