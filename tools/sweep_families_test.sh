#!/bin/bash
# sweep_families_test TILEBENCH: `./tilebench sweep FAMILY...` runs the named
# families only, goes on past a failing one, and says which failed (exit 1),
# with sweep binaries replaced by test doubles (TB_SWEEP_BIN).
set -u
TILEBENCH=$1
TMP=${TEST_TMPDIR:-$(mktemp -d)}
BIN=$TMP/bin
mkdir -p "$BIN"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for f in reduce scan omp_reduce interval segreduce spmv; do
  cat >"$BIN/${f}_bench" <<DOUBLE
#!/bin/bash
echo "$f \$*" >>"$TMP/ran"
[ "$f" != scan ]
DOUBLE
  chmod +x "$BIN/${f}_bench"
done

rm -f "$TMP/ran"
TB_SWEEP_BIN=$BIN TB_RESULTS=$TMP/results "$TILEBENCH" sweep reduce scan omp_reduce -- \
  --tb_boxes=none >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "exit $rc with a failing family, want 1"
[ "$(cut -d' ' -f1 "$TMP/ran" | tr '\n' ' ')" = "reduce scan omp_reduce " ] \
  || fail "ran '$(cat "$TMP/ran")', want reduce, scan, omp_reduce in order"
grep -q -- "--tb_results=$TMP/results --tb_boxes=none" "$TMP/ran" || fail "flags not passed on"
[ "$(tail -1 "$TMP/out")" = "tilebench sweep: 2 of 3 families done; FAILED: scan" ] \
  || fail "last line: '$(tail -1 "$TMP/out")'"

rm -f "$TMP/ran"
TB_SWEEP_BIN=$BIN TB_RESULTS=$TMP/results "$TILEBENCH" sweep interval >"$TMP/out" 2>&1 \
  || fail "one good family exited $?"
[ "$(cat "$TMP/ran")" = "interval --tb_results=$TMP/results" ] || fail "ran '$(cat "$TMP/ran")'"

TB_SWEEP_BIN=$BIN "$TILEBENCH" sweep nonsense >"$TMP/out" 2>&1 && fail "unknown family accepted"
grep -q "unknown family 'nonsense'" "$TMP/out" || fail "unknown family not named"

"$TILEBENCH" help >"$TMP/out" 2>&1 || fail "help exited $?"
grep -q "tilebench compare A B" "$TMP/out" || fail "help lacks compare"
"$TILEBENCH" >/dev/null 2>&1 || fail "no command exited $?"
"$TILEBENCH" --help >/dev/null 2>&1 || fail "--help exited $?"
"$TILEBENCH" nonsense >/dev/null 2>&1 && fail "unknown command exited 0"

[ $failures -eq 0 ] && echo "sweep_families_test: all checks passed"
exit $((failures > 0))
