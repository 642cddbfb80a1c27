#!/bin/bash
# example_test INSTALL LIB CUDA_HEADER EXAMPLE HEADER...: installs the library
# into a temporary prefix, builds the example with plain cc and pkg-config,
# as a program outside the workspace would, and runs it: on a machine without
# a GPU it must say TB_ERR_NO_DEVICE (exit 77), on a GPU get the right sum.
set -u
install=$1 lib=$2 cuda_header=$3 example=$4
shift 4
TMP=${TEST_TMPDIR:-$(mktemp -d)}
# The toolkit root as the runfiles see it: include/ and lib64/ under it.
cuda=$(cd "$(dirname "$cuda_header")/.." && pwd)
"$install" "$TMP/prefix" "$lib" "$cuda" "$@" || exit 1
export PKG_CONFIG_PATH=$TMP/prefix/lib/pkgconfig
grep -q '#include "core/' "$TMP/prefix/include/"*.h && { echo "FAIL: installed headers include internal ones"; exit 1; }
cc -std=c11 -Wall -Werror "$example" $(pkg-config --cflags --libs tilebench) -o "$TMP/reduce_sum" ||
  { echo "FAIL: the example does not build against the installed library"; exit 1; }
"$TMP/reduce_sum" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  [ $rc -eq 0 ] && grep -q '(ok)' "$TMP/out" || { echo "FAIL: on a GPU the example exited $rc"; exit 1; }
else
  [ $rc -eq 77 ] && grep -q 'TB_ERR_NO_DEVICE' "$TMP/out" ||
    { echo "FAIL: without a GPU the example exited $rc, want 77 and TB_ERR_NO_DEVICE"; exit 1; }
fi
echo "example_test: passed"
