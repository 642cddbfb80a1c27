#!/usr/bin/env bash
# install.sh PREFIX LIB CUDA_ROOT HEADER...: lays out an installed
# tilebench (./tilebench install): PREFIX/include/ (the public headers),
# PREFIX/lib/libtilebench.so and PREFIX/lib/pkgconfig/tilebench.pc, so that
# `cc prog.c $(pkg-config --cflags --libs tilebench)` builds a program.
# libtilebench.so carries its own (static) CUDA runtime and exports none of
# it; the program links the toolkit's libcudart for its own CUDA calls, and
# device pointers pass between the two (both use the primary context).
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: install.sh PREFIX LIB CUDA_ROOT HEADER..." >&2; exit 2; }
prefix=$1 lib=$2 cuda=$3
shift 3
mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
prefix=$(cd "$prefix" && pwd)
cp "$@" "$prefix/include/"
install -m 0755 "$lib" "$prefix/lib/libtilebench.so"
version=$(sed -n 's/^#define TILEBENCH_VERSION "\(.*\)"/\1/p' "$prefix/include/tilebench_base.h")
cat >"$prefix/lib/pkgconfig/tilebench.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: tilebench
Description: Load-balanced GPU primitives: reduce, scan, segmented reduction, SpMV, load-balancing search, intervals
Version: $version
Cflags: -I\${includedir} -I$cuda/include
Libs: -L\${libdir} -ltilebench -Wl,-rpath,\${libdir} -L$cuda/lib64 -lcudart -Wl,-rpath,$cuda/lib64
PC
echo "install: tilebench $version in $prefix (include/, lib/libtilebench.so, lib/pkgconfig/tilebench.pc)" >&2
