#!/bin/bash
# lengths_list_test SEGREDUCE INTERVAL: the rows the segmented sweeps list
# (no GPU needed) with --tb_lengths, --tb_segments and --tb_matrix: uniform
# keeps today's names, a model, a file or a matrix renames every row it
# changes and only those, and
# a mistake is refused (exit 2) with the rule or the file's line.
. tools/testing.sh
SEGREDUCE=$1
INTERVAL=$2
# rows BIN FLAGS...: the listed row names, without Google Benchmark's segments.
rows() { "$@" --tb_list 2>"$TMP/err" | sed 's|/iterations:.*||'; }
# algorithms: the distinct algorithms of the rows on stdin.
algorithms() { cut -d/ -f1 | sort -u | tr '\n' ' '; }

for bin in "$SEGREDUCE" "$INTERVAL"; do
  name=$(basename "$bin")
  rows "$bin" >"$TMP/uniform"
  rows "$bin" --tb_lengths=uniform >"$TMP/uniform2"
  [ -s "$TMP/uniform" ] || fail "$name lists no rows: $(cat "$TMP/err")"
  cmp -s "$TMP/uniform" "$TMP/uniform2" || fail "$name: --tb_lengths=uniform changes the rows"
  grep -qE '_(lognormal|zipf|file)' "$TMP/uniform" && fail "$name: uniform rows renamed"
  for model in lognormal:1.5 zipf:1.2; do
    tag=_${model%%:*}
    rows "$bin" --tb_lengths=$model >"$TMP/model"
    [ -s "$TMP/model" ] || fail "$name $model lists no rows: $(cat "$TMP/err")"
    # Names keep their form; every algorithm carries the tag, before _apply
    # or _indirect; every uniform row of a drawn geometry is there renamed.
    grep -vqE "^[a-z0-9_]+/[a-z0-9_]+/[a-z0-9]+/n:[0-9]+/seg:[0-9]+(/nt:[0-9]+/vt:[0-9]+)?$" "$TMP/model" &&
      fail "$name $model: a row out of form: $(grep -vE '^[a-z0-9_]+/' "$TMP/model" | head -1)"
    grep -v "^[a-z_]*$tag\(_apply\|_indirect\)\?/" "$TMP/model" | head -1 | grep -q . &&
      fail "$name $model: a row without its tag: $(grep -v "$tag" "$TMP/model" | head -1)"
    want=$(grep -v '^segreduce_fixed/' "$TMP/uniform" |
      sed -E "s#^([a-z_]+)(_apply|_indirect)/#\\1$tag\\2/#; t; s#^([a-z_]+)/#\\1$tag/#")
    [ "$want" = "$(cat "$TMP/model")" ] || fail "$name $model: not the uniform rows renamed: $(diff <(echo "$want") "$TMP/model" | head -4)"
  done
done
[ "$(rows "$SEGREDUCE" --tb_lengths=lognormal:1 | algorithms)" = \
  "reduce_by_key_lognormal reduce_by_key_lognormal_apply segreduce_lognormal segreduce_lognormal_apply segreduce_lognormal_indirect " ] ||
  fail "segreduce lognormal algorithms: $(rows "$SEGREDUCE" --tb_lengths=lognormal:1 | algorithms)"

# Zipf reaches a mean only so far: zipf:2 keeps L = 1 and 4, and says so.
rows "$SEGREDUCE" --tb_lengths=zipf:2 >"$TMP/zipf2"
[ "$(sed 's|.*/seg:\([0-9]*\).*|\1|' "$TMP/zipf2" | sort -nu | tr '\n' ' ')" = "1 4 " ] ||
  fail "zipf:2 rows of L: $(sed 's|.*/seg:\([0-9]*\).*|\1|' "$TMP/zipf2" | sort -nu | tr '\n' ' ')"
grep -q 'zipf:2 reaches a mean length of 13.41 at most: rows of L > 4 left out' "$TMP/err" ||
  fail "zipf:2 does not say what it leaves out: $(cat "$TMP/err")"

# A file: its size and mean length only, every row renamed _file.
printf '# offsets\n0\n3\n3   # empty\n\n10\n12\n100000\n' >"$TMP/segs.txt"
for bin in "$SEGREDUCE" "$INTERVAL"; do
  rows "$bin" --tb_segments="$TMP/segs.txt" --tb_boxes=none >"$TMP/file"
  [ -s "$TMP/file" ] || fail "$(basename "$bin") lists no rows of the file: $(cat "$TMP/err")"
  grep -v '^[a-z_]*_file\(_apply\|_indirect\)\?/[a-z0-9_]*/[a-z0-9]*/n:100000/seg:20000$' "$TMP/file" | head -1 | grep -q . &&
    fail "$(basename "$bin") file rows: $(grep -v '/n:100000/seg:20000$' "$TMP/file" | head -1)"
done
[ "$(rows "$SEGREDUCE" --tb_segments="$TMP/segs.txt" --tb_boxes=none | wc -l)" = 40 ] ||
  fail "segreduce: want 40 default rows of the file (10 a type)"
printf '# lengths\n4\n0\n' >"$TMP/lengths.txt"
[ "$(rows "$INTERVAL" --tb_segments="$TMP/lengths.txt" --tb_boxes=none | sed -n 1p)" = \
  "lbs_file/tb/int32/n:4/seg:2" ] || fail "interval: a lengths file's first row"

# Matrices: each one's rows at its nonzeros and mean row length, renamed
# _mtx_<name>, no box sweep; a folder gives every matrix in it, in order.
export TB_MATRIX_CACHE=$TMP/cache
mkdir -p "$TMP/mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 4 5\n1 1\n1 2\n1 4\n3 2\n3 3\n' >"$TMP/mtx/Web-A.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1.0\n2 1 2.0\n' >"$TMP/mtx/sym.mtx"
rows "$SEGREDUCE" --tb_matrix="$TMP/mtx/Web-A.mtx" >"$TMP/m"
[ "$(algorithms <"$TMP/m")" = \
  "reduce_by_key_mtx_web_a reduce_by_key_mtx_web_a_apply segreduce_mtx_web_a segreduce_mtx_web_a_apply segreduce_mtx_web_a_indirect " ] ||
  fail "segreduce matrix algorithms: $(algorithms <"$TMP/m")"
[ "$(wc -l <"$TMP/m")" = 40 ] || fail "segreduce: want 40 rows of a matrix (10 a type), got $(wc -l <"$TMP/m")"
grep -v '/n:5/seg:2$' "$TMP/m" | head -1 | grep -q . && fail "segreduce matrix rows: $(grep -v '/n:5/seg:2$' "$TMP/m" | head -1)"
rows "$INTERVAL" --tb_matrix="$TMP/mtx" >"$TMP/m"
[ "$(algorithms <"$TMP/m")" = "interval_expand_mtx_sym interval_expand_mtx_web_a lbs_mtx_sym lbs_mtx_web_a " ] ||
  fail "interval matrix algorithms: $(algorithms <"$TMP/m")"
# In path order (Web-A.mtx first); sym.mtx expanded: 3 nonzeros over 2 rows.
[ "$(sed -n 1p "$TMP/m")" = "lbs_mtx_web_a/tb/int32/n:5/seg:2" ] || fail "interval: the first matrix row: $(sed -n 1p "$TMP/m")"
grep -qx "lbs_mtx_sym/tb/int32/n:3/seg:2" "$TMP/m" || fail "interval: no row of sym.mtx at its 3 nonzeros"
[ "$(grep -c '^interval_expand_mtx_web_a/' "$TMP/m")" = 12 ] || fail "interval: want 12 expand rows of a matrix (3 a type)"

# Mistakes: exit 2, the rule or the file's line named.
refused() { # refused PATTERN BIN FLAGS...
  local want=$1
  shift
  "$@" --tb_list >"$TMP/out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
  grep -qF -- "$want" "$TMP/out" || fail "'$*' does not say '$want': $(cat "$TMP/out")"
}
refused "segreduce: --tb_lengths: lengths are uniform, lognormal:SIGMA (0 < SIGMA <= 3) or zipf:S (0 < S <= 10), not 'zipf:0'" \
  "$SEGREDUCE" --tb_lengths=zipf:0
refused "not 'lognormal'" "$INTERVAL" --tb_lengths=lognormal
refused "give --tb_matrix or --tb_segments, not both" "$SEGREDUCE" --tb_matrix="$TMP/mtx" --tb_segments="$TMP/segs.txt"
refused "give --tb_lengths or --tb_matrix, not both" "$INTERVAL" --tb_matrix="$TMP/mtx" --tb_lengths=zipf:1.5
refused "$TMP/nowhere: No such file" "$SEGREDUCE" --tb_matrix="$TMP/nowhere"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n' >"$TMP/bad.mtx"
refused "$TMP/bad.mtx:3" "$INTERVAL" --tb_matrix="$TMP/bad.mtx"
printf '# offsets\n0\n5\n4\n' >"$TMP/bad.txt"
refused "$TMP/bad.txt:4: offsets must not decrease (4 after 5)" "$SEGREDUCE" --tb_segments="$TMP/bad.txt"
printf '# lengths\n2147483000\n647\n1\n' >"$TMP/over.txt"
refused "$TMP/over.txt:4: the lengths pass INT32_MAX (2147483647) items in all" "$INTERVAL" \
  --tb_segments="$TMP/over.txt"
refused "give --tb_lengths or --tb_segments, not both" "$SEGREDUCE" --tb_segments="$TMP/segs.txt" --tb_lengths=zipf:1.5

finish lengths_list_test
