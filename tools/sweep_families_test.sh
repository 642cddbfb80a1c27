#!/bin/bash
# sweep_families_test TILEBENCH FAKE: `./tilebench sweep FAMILY...` runs the
# named families only, goes on past a failing one, and says which failed
# (exit 1), with sweep binaries replaced by test doubles (TB_SWEEP_BIN); a
# command line's mistakes are refused (exit 2) before anything is installed,
# built or run; --out DIR and the files written; every flag a sweep's --help
# lists passes (FAKE: core/sweep_fake.c, the sweep runtime without a GPU).
. tools/testing.sh
TILEBENCH=$(realpath "$1")
FAKE=$(realpath "$2")
BIN=$TMP/bin
mkdir -p "$BIN"

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

# An option without its value: a message naming it, exit 2, no shell errors.
for opt in --devices --work --resume --out --partition --sbatch; do
  for form in "$opt" "$opt="; do
    TB_SWEEP_BIN=$BIN "$TILEBENCH" sweep reduce "$form" >"$TMP/out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "'sweep reduce $form' exited $rc, want 2"
    grep -q -- "^tilebench sweep: $opt needs " "$TMP/out" || fail "'$form' without a value: $(cat "$TMP/out")"
    grep -qE 'unbound variable|line [0-9]+:|shift count' "$TMP/out" && fail "'$form' leaks shell errors: $(cat "$TMP/out")"
  done
done
TB_SWEEP_BIN=$BIN "$TILEBENCH" sweep --devices --slurm >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- "--devices needs .*, not '--slurm'" "$TMP/out" || fail "--devices --slurm: $(cat "$TMP/out")"

# Mistakes are refused before anything is installed, built, or a GPU looked
# for: stand-ins for those tools record any call.
TOOLS=$TMP/tools
mkdir -p "$TOOLS"
for t in bazel dpkg-query apt-get sudo nvidia-smi; do
  printf '#!/bin/sh\necho %s >>"%s/called"\nexit 1\n' "$t" "$TMP" >"$TOOLS/$t"
  chmod +x "$TOOLS/$t"
done
refused() { # refused PATTERN ARGS...: exit 2, PATTERN in the message, no tool called
  local want=$1
  shift
  rm -f "$TMP/called"
  env -u TB_SWEEP_BIN PATH="$TOOLS:$PATH" "$TILEBENCH" "$@" >"$TMP/out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2: $(cat "$TMP/out")"
  grep -q -- "$want" "$TMP/out" || fail "'$*' does not say '$want': $(cat "$TMP/out")"
  [ -f "$TMP/called" ] && fail "'$*' called $(tr '\n' ' ' <"$TMP/called")before refusing"
}
refused "unknown sweep flag '--tb_boxs=none'" sweep reduce -- --tb_boxs=none
refused "--tb_boxes=all|none" sweep reduce -- --tb_boxs=none # the good ones named
refused "unknown sweep flag '--benchmark_fliter=scan'" sweep -- --benchmark_fliter=scan
refused "unknown sweep flag '--tb_qiuck'" sweep --tb_qiuck
refused "--tb_repetitions takes 1..1000" sweep -- --tb_repetitions=0
refused "--tb_boxes takes all or none" sweep -- --tb_boxes=some
refused "--tb_progress takes 0 or 1" sweep -- --tb_progress=yes
refused "--tb_trace takes no value" sweep -- --tb_trace=yes
refused "--benchmark_format takes console, json or csv" sweep -- --benchmark_format=xml
refused "give --out DIR" sweep -- --tb_results=/tmp/x
refused "for CSV give --benchmark_format=csv" sweep -- --benchmark_out=x.csv
refused "leave out --benchmark_filter" sweep --devices all -- --benchmark_filter=scan
refused "--tb_lengths takes uniform, lognormal:SIGMA" sweep segreduce -- --tb_lengths=gauss:1
refused "--tb_lengths takes uniform" sweep segreduce -- --tb_lengths=lognormal:3.5
refused "--tb_lengths takes uniform" sweep segreduce -- --tb_lengths=zipf:0
refused "--tb_lengths takes uniform" sweep segreduce -- --tb_lengths=zipf:
refused "--tb_segments: cannot read 'nowhere.txt'" sweep segreduce -- --tb_segments=nowhere.txt
refused "--tb_segments needs a segment file" sweep segreduce -- --tb_segments=
refused "only the interval segreduce sweeps have segment lengths, not scan" sweep segreduce scan -- --tb_lengths=zipf:1.5
refused "--tb_matrix: only the interval segreduce spmv sweeps take matrices, not reduce" sweep spmv reduce -- --tb_matrix=.
refused "--tb_matrix: no such file or folder" sweep segreduce -- --tb_matrix=nowhere
refused "unknown option '--device'" sweep --device all
refused "unknown family 'reduc'" sweep reduc
refused "families go before --" sweep -- scan
refused "--devices needs all, or GPU indices" sweep --devices 0,x
refused "--devices and --slurm" sweep --devices 0 --slurm
refused "--partition and --sbatch need --slurm" sweep --partition gpu
refused "holds no sharded sweep" sweep --resume "$TMP/nowhere"
refused "test: takes no arguments" test //core:all
refused "defaults: takes no arguments" defaults sm_90
refused "install: needs one PREFIX" install
refused "install: needs one PREFIX" install --prefix=/opt
refused "stage: takes at most one folder" stage a b
refused "plot: names no result file" plot
refused "plot: --out needs a folder" plot --out
refused "plot: no file" plot nothing.json

# Every flag a sweep's --help lists passes to the sweeps, but those that name
# the output, which the sweep owns.
"$FAKE" --help >"$TMP/help" 2>&1
grep -oE '\[--[a-z_]+[^] ]*\]' "$TMP/help" | tr -d '[]' | sort -u >"$TMP/flags"
[ "$(wc -l <"$TMP/flags")" -ge 20 ] || fail "too few flags in --help: $(cat "$TMP/flags")"
while read -r spec; do
  name=${spec%%=*}
  case "$spec" in
    *=*) value=${spec#*=}; value=${value#[\{<]}; value=${value%%[|\}>]*} ;;
    *) value= ;;
  esac
  [[ "$value" =~ ^[a-z]+$ ]] || value=1 # a placeholder (N, DIR, <filename>, ...)
  flag=$name${spec//[!=]/}
  [ "$flag" = "$name" ] || flag=$name=$value
  rm -f "$TMP/ran"
  TB_SWEEP_BIN=$BIN TB_RESULTS=$TMP/results "$TILEBENCH" sweep interval -- "$flag" >"$TMP/out" 2>&1
  case "$name" in
    --tb_results | --benchmark_out | --benchmark_out_format)
      grep -q -- "--out DIR" "$TMP/out" || fail "$flag: not refused for --out DIR: $(cat "$TMP/out")" ;;
    *) grep -qF -- " $flag" "$TMP/ran" 2>/dev/null || fail "$flag (from --help) did not reach the sweep: $(cat "$TMP/out")" ;;
  esac
done <"$TMP/flags"

# Segment lengths and matrices: without families named, the sweeps that
# take them run alone; a path is the caller's, handed on whole.
# takes_path FLAG FILE FAMILIES
takes_path() {
  rm -f "$TMP/ran"
  (cd "$TMP/cwd" && TB_SWEEP_BIN=$BIN TB_RESULTS=$TMP/results "$TILEBENCH" sweep -- "$1=$2" \
    >"$TMP/out" 2>&1) || fail "a sweep with $1 exited $?: $(cat "$TMP/out")"
  [ "$(cut -d' ' -f1 "$TMP/ran" | tr '\n' ' ')" = "$3" ] || fail "$1 ran '$(cat "$TMP/ran")', want $3"
  grep -q -- "$1=$TMP/cwd/$2" "$TMP/ran" || fail "$1: the path not made whole: $(cat "$TMP/ran")"
}
mkdir -p "$TMP/cwd"
printf '# offsets\n0\n5\n' >"$TMP/cwd/segs.txt"
touch "$TMP/cwd/m.mtx"
takes_path --tb_segments segs.txt "interval segreduce "
takes_path --tb_matrix m.mtx "interval segreduce spmv "

# --out DIR, from the caller's folder: the results there, each file written
# named, what else the folder held left as it was.
FBIN=$TMP/fbin
mkdir -p "$FBIN" "$TMP/cwd/rel/sm_00/fake-gpu" "$TMP/cwd/rel/sm_00/other-gpu"
for f in reduce scan; do ln -sf "$FAKE" "$FBIN/${f}_bench"; done
echo '{"kept": 1}' >"$TMP/cwd/rel/sm_00/fake-gpu/interval.json"
echo '{"kept": 2}' >"$TMP/cwd/rel/sm_00/other-gpu/reduce.json"
(cd "$TMP/cwd" && TB_SWEEP_BIN=$FBIN "$TILEBENCH" sweep reduce scan --out rel -- --tb_repetitions=2 \
  --tb_progress=0 >"$TMP/stdout" 2>"$TMP/out") || fail "sweep --out exited $?: $(cat "$TMP/out")"
D=$TMP/cwd/rel/sm_00/fake-gpu
[ -f "$D/reduce.json" ] && [ -f "$D/scan.json" ] || fail "--out rel: no results in $D: $(cat "$TMP/out")"
grep -q "^tilebench sweep: results into $TMP/cwd/rel/" "$TMP/out" || fail "the results folder not said first"
grep -q "^tilebench sweep: results written in $TMP/cwd/rel:" "$TMP/out" || fail "the results folder not said last"
grep -q "^tilebench sweep:   sm_00/fake-gpu/reduce.json" "$TMP/out" || fail "reduce.json not named"
grep -q "^tilebench sweep:   sm_00/fake-gpu/scan.json" "$TMP/out" || fail "scan.json not named"
grep -q "interval.json" "$TMP/out" && fail "a file not written named as written"
[ "$(cat "$D/interval.json")" = '{"kept": 1}' ] || fail "--out: another family's result touched"
[ "$(cat "$TMP/cwd/rel/sm_00/other-gpu/reduce.json")" = '{"kept": 2}' ] || fail "--out: another GPU's result touched"
grep -q '^tilebench sweep' "$TMP/stdout" && fail "tilebench's messages on stdout"
TB_SWEEP_BIN=$FBIN TB_RESULTS=$TMP/r2 "$TILEBENCH" sweep scan --out "$TMP/r3" -- --tb_repetitions=2 >/dev/null 2>&1
[ -f "$TMP/r3/sm_00/fake-gpu/scan.json" ] && [ ! -e "$TMP/r2" ] || fail "--out does not win over TB_RESULTS"

# CSV: stdout holds the table and nothing else.
TB_SWEEP_BIN=$FBIN TB_RESULTS=$TMP/r4 "$TILEBENCH" sweep reduce -- --benchmark_format=csv --tb_repetitions=2 \
  >"$TMP/csv" 2>"$TMP/out" || fail "CSV sweep exited $?: $(cat "$TMP/out")"
head -1 "$TMP/csv" | grep -q '^name,' || fail "CSV on stdout lacks its header: $(head -2 "$TMP/csv")"
[ "$(grep -vc '^"fake/' "$TMP/csv")" = 1 ] || fail "stdout holds more than the CSV: $(cat "$TMP/csv")"
grep -q '^\[1/6\] fake/' "$TMP/out" || fail "no progress lines on stderr"

finish sweep_families_test
