#!/usr/bin/env bash
# tools/commit_stamp.sh: a clean tree, a changed source, changed results
# only, a staged change, outside a checkout.
. tools/testing.sh
stamp=$1
repo=$TMP/repo
mkdir -p "$repo/results" "$repo/kernels"
git -C "$repo" init -q
git -C "$repo" config user.email t@example.org
git -C "$repo" config user.name t
echo a >"$repo/kernels/k.cu"
echo r >"$repo/results/r.json"
git -C "$repo" add -A && git -C "$repo" commit -qm one
head=$(git -C "$repo" rev-parse --short HEAD)
[ "$("$stamp" "$repo")" = "$head" ] || fail "clean tree: '$("$stamp" "$repo")', not $head"
echo rr >"$repo/results/r.json"
[ "$("$stamp" "$repo")" = "$head" ] || fail "results only changed: '$("$stamp" "$repo")', not $head"
echo b >"$repo/kernels/k.cu"
[ "$("$stamp" "$repo")" = "$head-dirty" ] || fail "source changed: '$("$stamp" "$repo")', not $head-dirty"
git -C "$repo" add kernels/k.cu
[ "$("$stamp" "$repo")" = "$head-dirty" ] || fail "source staged: '$("$stamp" "$repo")', not $head-dirty"
mkdir -p "$TMP/plain"
[ "$("$stamp" "$TMP/plain")" = unknown ] || fail "outside a checkout: '$("$stamp" "$TMP/plain")'"
finish commit_stamp_test
