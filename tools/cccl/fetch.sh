#!/usr/bin/env bash
# The newest CUB, beside the toolkit's: CCCL's headers from the
# nvidia-cuda-cccl wheel, pinned by version and checksum, unpacked into
# tools/cccl/dist/include (what //tools/cccl:headers serves; git ignores it).
#
#   tools/cccl/fetch.sh     fetch (or take from the cache), check, unpack
#
# The wheel is kept in ${TB_CACHE:-~/.cache/tilebench}/wheels: once there, no
# network is needed. The headers are compiled into the baseline binaries
# only, so nothing travels with a staged sweep.
set -euo pipefail
cd "$(dirname "$0")"

VERSION=13.3.5.0.6 # CCCL 3.5.0
SHA256=d5230098fa2df5021e1a00c0c4eee41797671a91119d31e892463e5ccf3ee326
WHEEL=nvidia_cuda_cccl-$VERSION-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
CACHE=${TB_CACHE:-$HOME/.cache/tilebench}/wheels

[ "$(cat dist/VERSION 2>/dev/null)" = "$VERSION" ] && exit 0

mkdir -p "$CACHE"
if [ ! -f "$CACHE/$WHEEL" ]; then
  echo "tilebench: fetching CCCL headers (nvidia-cuda-cccl==$VERSION)" >&2
  python3 -m pip --version >/dev/null 2>&1 || {
    echo "tilebench: pip is needed to fetch CCCL (apt-get install python3-pip)" >&2
    exit 1
  }
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
    --python-version 3.11 -d "$CACHE" "nvidia-cuda-cccl==$VERSION" >&2
fi
echo "$SHA256  $CACHE/$WHEEL" | sha256sum -c --quiet - || {
  echo "tilebench: $CACHE/$WHEEL does not match its pinned checksum: remove it and run again" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m zipfile -e "$CACHE/$WHEEL" "$tmp"
rm -rf dist.new
mkdir -p dist.new
mv "$tmp/nvidia/cu13/include/cccl" dist.new/include
cp "$tmp/nvidia/cu13/cccl/LICENSE" dist.new/LICENSE
echo "$VERSION" >dist.new/VERSION
rm -rf dist
mv dist.new dist
echo "tilebench: CCCL $VERSION headers in tools/cccl/dist" >&2
