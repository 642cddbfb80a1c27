#!/usr/bin/env bash
# Gathers the built GPU suites and sweeps, with the shared libraries they need
# that a bare CUDA machine lacks, into one folder that runs without Bazel:
#
#   tools/stage.sh [DIR]          (default .stage; builds first; also packs
#                                 it as DIR.tar.xz, one file to copy)
#   DIR/run.sh tests [--parallel] [--quick]
#                                 every GPU test suite (--parallel: one per GPU at once)
#   DIR/run.sh sanitize           the suites under compute-sanitizer (quick sizes)
#   DIR/run.sh sweep OUT [FLAGS]  every sweep, JSON into OUT/<arch>/<gpu>/
#   DIR/run.sh sweep-devices OUT all|0,1 [FAMILY...] [-- FLAGS]
#                                 the same sharded over the GPUs (shard_sweep.sh);
#                                 TB_WORK=DIR resumes DIR's lost shards
#   DIR/run.sh NAME [ARGS]        one binary
#
# TB_STAGE_ONLY="limits_test segreduce_bench ..." stages those binaries only:
# a smaller tarball, for when the working tree (results included) and the
# whole stage are more than a copy to the GPU machine should take.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/.stage}
cd "$top"

tests=$(bazel query 'attr(tags, "gpu", tests(//...))' 2>/dev/null)
sweeps=$(bazel query 'attr(tags, "sweep", //...)' 2>/dev/null)
sanitize=$(bazel query 'attr(tags, "sanitize", tests(//...))' 2>/dev/null)
if [ -n "${TB_STAGE_ONLY:-}" ]; then
  keep() { local t; for t in "$@"; do [[ " $TB_STAGE_ONLY " == *" ${t##*:} "* ]] && echo "$t"; done; true; }
  tests=$(keep $tests) sweeps=$(keep $sweeps) sanitize=$(keep $sanitize)
  [ -n "$tests$sweeps" ] || { echo "stage: TB_STAGE_ONLY names no suite or sweep" >&2; exit 2; }
fi
bazel build $tests $sweeps //core:results_merge >&2
bin=$(bazel info bazel-bin 2>/dev/null)

rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
for t in $tests $sweeps; do
  pkg=${t#//}; pkg=${pkg%%:*}; name=${t##*:}
  cp "$bin/$pkg/$name" "$dir/bin/$name"
done
cp "$bin/core/results_merge" "$dir/bin/results_merge" # the sharded sweep's merge
# Libraries from Debian packages that the GPU machine's image does not have.
# The CUDA runtime is linked statically; libcuda comes with the driver there,
# and the toolkit's own (cuSPARSE, nvJitLink: 260 MB) with its CUDA install.
for exe in "$dir"/bin/*; do
  ldd "$exe" | awk '/=> \// {print $3}'
done | sort -u | grep -vE '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' |
  grep -v '/cuda[^/]*/' |
  while read -r lib; do cp -L "$lib" "$dir/lib/"; done
cp tools/stage_run.sh "$dir/run.sh"
cp tools/shard_sweep.sh tools/gpu_slot.sh "$dir/"
for t in $tests; do echo "${t##*:}"; done >"$dir/tests.txt"
for t in $sweeps; do echo "${t##*:}"; done >"$dir/sweeps.txt"
for t in $sanitize; do echo "${t##*:}"; done >"$dir/sanitize.txt"
tools/commit_stamp.sh >"$dir/commit.txt"
# One compressed file to copy: the suites share most of their device code,
# which a dictionary larger than any one binary finds (five suites of about
# 70 MB each: 61 MB packed with -9, 23 MB so).
tar -C "$dir" -cf - . | xz --lzma2=preset=6,dict=512MiB -T1 >"$dir.tar.xz"
echo "staged $(wc -l <"$dir/tests.txt") suites and $(wc -l <"$dir/sweeps.txt") sweeps in $dir, packed as $dir.tar.xz ($(du -h "$dir.tar.xz" | cut -f1))" >&2
