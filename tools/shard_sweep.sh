#!/usr/bin/env bash
# Sweeps split into shards (one family × element type each) and run on every
# GPU of a host, or as a Slurm job array across hosts, then merged into
# results/<arch>/<gpu>/<family>.json, each row naming the board that
# measured it. `./tilebench sweep --devices ...` and `--slurm` call this;
# staged folders have it as run.sh's `sweep-devices`.
#
#   shard_sweep.sh plan WORK BIN FAMILY... [-- FLAGS]
#       list the shards of the families (BIN/<family>_bench --tb_list),
#       largest first, into WORK/plan; FLAGS go to every shard
#   shard_sweep.sh local WORK DEVICES     DEVICES: all, or indices as 0,1,3
#       run the shards not yet done, one process per GPU (CUDA_VISIBLE_DEVICES);
#       GPUs of one model share the shards, each model runs all of them
#   shard_sweep.sh slurm WORK [SBATCH ARGS...]
#       the same as a job array, one GPU per task (--gres=gpu:1 unless the
#       arguments name --gres), waiting for it; WORK must be on a file
#       system that every node sees
#   shard_sweep.sh task WORK ID [GROUP]   run shard ID (what each task does)
#   shard_sweep.sh merge WORK RESULTS
#       merge every finished shard into RESULTS; name the lost ones
#
# Every step can be repeated: a shard counts as done once its status file
# says it exited 0 and its result was written, so running `local` or `slurm`
# again on the same WORK re-runs only the shards that failed or never ran.
# TB_DEVICE_LIST="0, NAME;1, NAME" stands in for nvidia-smi (tests).
set -uo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

die() { echo "shard_sweep: $*" >&2; exit 2; }
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }

# plan fields: ID FAMILY TYPE ROWS
plan_ids() { awk '{print $1}' "$1/plan"; }
shard_field() { awk -v id="$2" -v f="$3" '$1 == id {print $f}' "$1/plan"; }
shard_name() { echo "$(shard_field "$1" "$2" 2)/$(shard_field "$1" "$2" 3)"; }
done_ok() { [ -f "$1/status" ] && [ "$(cut -d' ' -f1 "$1/status")" = 0 ]; }

cmd_plan() {
  local work=$1 bin=$2 f
  shift 2
  local families=() flags=()
  while [ $# -gt 0 ]; do
    [ "$1" = -- ] && { shift; flags=("$@"); break; }
    families+=("$1")
    shift
  done
  [ ${#families[@]} -gt 0 ] || die "plan: no family named"
  for f in "${flags[@]}"; do
    case "$f" in
      --benchmark_filter*) die "a sharded sweep makes its own filters (one per family and type); leave out --benchmark_filter, name the families instead" ;;
      --tb_results*) die "a sharded sweep writes its own results; leave out --tb_results" ;;
    esac
  done
  mkdir -p "$work" || die "cannot create $work"
  [ -f "$work/plan" ] && die "$work already holds a plan: resume it, or choose another folder"
  local tmp=$work/plan.tmp id=0
  : >"$tmp"
  for f in "${families[@]}"; do
    [ -x "$bin/${f}_bench" ] || die "no sweep $bin/${f}_bench"
    # Types in the order the sweep lists them, with their row counts.
    "$bin/${f}_bench" --tb_list "${flags[@]}" 2>"$work/list.err" |
      awk -F/ -v fam="$f" 'NF >= 3 { if (!($3 in n)) order[k++] = $3; n[$3]++ }
        END { for (i = 0; i < k; i++) print fam, order[i], n[order[i]] }' >"$work/list.out"
    [ "${PIPESTATUS[0]}" -eq 0 ] && [ -s "$work/list.out" ] ||
      die "$f: cannot list its rows: $(head -3 "$work/list.err")"
    cat "$work/list.out" >>"$tmp"
  done
  # Largest shards first, so that the last ones to finish are small.
  sort -s -k3,3nr "$tmp" | while read -r fam type rows; do
    id=$((id + 1))
    echo "$id $fam $type $rows"
  done >"$work/plan"
  rm -f "$tmp" "$work/list.out" "$work/list.err"
  printf '%s\n' "$bin" >"$work/bin"
  printf '%s\n' "${flags[@]}" >"$work/flags"
  echo "shard_sweep: $(wc -l <"$work/plan") shards of ${families[*]} in $work/plan" >&2
}

# task WORK ID [GROUP]: runs on whatever GPU CUDA_VISIBLE_DEVICES names.
cmd_task() {
  local work=$1 id=$2 group=${3:-slurm}
  [ -f "$work/plan" ] || die "no plan in $work"
  local fam type bin flags=()
  fam=$(shard_field "$work" "$id" 2)
  type=$(shard_field "$work" "$id" 3)
  [ -n "$fam" ] || die "no shard $id in $work/plan"
  bin=$(cat "$work/bin")
  mapfile -t flags <"$work/flags"
  local dir=$work/shards/$group/$id
  rm -rf "$dir"
  mkdir -p "$dir"
  local start rc
  start=$(now)
  "$bin/${fam}_bench" --tb_results="$dir/results" --benchmark_filter="^[^/]+/[^/]+/${type}/" \
    "${flags[@]}" >"$dir/log" 2>&1
  rc=$?
  echo "$rc $(since "$start") $(hostname) ${CUDA_VISIBLE_DEVICES:-unset}" >"$dir/status"
  return $rc
}

# The host's GPUs as "index<TAB>model" lines.
list_devices() {
  if [ -n "${TB_DEVICE_LIST:-}" ]; then
    tr ';' '\n' <<<"$TB_DEVICE_LIST"
  else
    command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no GPUs to shard over"
    nvidia-smi --query-gpu=index,name --format=csv,noheader
  fi | sed 's/, */\t/' | grep -v '^\s*$'
}

# worker WORK GROUP INDEX MODEL: takes pending shards until none is left.
worker() {
  local work=$1 group=$2 dev=$3 model=$4 id total
  total=$(wc -l <"$work/plan")
  for id in $(plan_ids "$work"); do
    done_ok "$work/shards/$group/$id" && continue
    mkdir "$work/claims/$group/$id" 2>/dev/null || continue
    echo "shard_sweep: [$id/$total] $(shard_name "$work" "$id") on GPU $dev ($model)" >&2
    if CUDA_VISIBLE_DEVICES=$dev "$self" task "$work" "$id" "$group"; then
      echo "shard_sweep: [$id/$total] $(shard_name "$work" "$id") done in $(cut -d' ' -f2 "$work/shards/$group/$id/status" | xargs printf '%.0f') s" >&2
    else
      echo "shard_sweep: [$id/$total] $(shard_name "$work" "$id") FAILED (log: $work/shards/$group/$id/log)" >&2
    fi
  done
}

cmd_local() {
  local work=$1 want=$2
  [ -f "$work/plan" ] || die "no plan in $work"
  local all idx model chosen=()
  all=$(list_devices) || exit 2
  [ -n "$all" ] || die "no GPU found"
  if [ "$want" = all ]; then
    mapfile -t chosen <<<"$all"
  else
    for idx in ${want//,/ }; do
      [[ "$idx" =~ ^[0-9]+$ ]] || die "--devices: '$idx' is not a GPU index (give all, or indices as 0,1)"
      model=$(awk -F'\t' -v i="$idx" '$1 == i {print $2}' <<<"$all")
      [ -n "$model" ] || die "--devices: no GPU $idx on this host (it has $(cut -f1 <<<"$all" | tr '\n' ' '| sed 's/ $//'))"
      chosen+=("$idx	$model")
    done
  fi
  rm -rf "$work/claims"
  local pids=() line group
  for line in "${chosen[@]}"; do
    idx=${line%%	*}
    model=${line#*	}
    group=$(tr 'A-Z' 'a-z' <<<"$model" | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
    mkdir -p "$work/claims/$group"
    worker "$work" "$group" "$idx" "$model" &
    pids+=($!)
  done
  echo "shard_sweep: ${#chosen[@]} GPU(s): $(for l in "${chosen[@]}"; do printf '%s (%s) ' "${l%%	*}" "${l#*	}"; done)" >&2
  local start
  start=$(now)
  wait "${pids[@]}"
  since "$start" >"$work/wall_s"
  echo "shard_sweep: ran in $(cat "$work/wall_s") s" >&2
}

cmd_slurm() {
  local work=$1
  shift
  [ -f "$work/plan" ] || die "no plan in $work"
  command -v sbatch >/dev/null || die "sbatch not found: Slurm's client commands are needed (Debian: slurm-client)"
  local pending=() id
  for id in $(plan_ids "$work"); do
    done_ok "$work/shards/slurm/$id" || pending+=("$id")
  done
  [ ${#pending[@]} -gt 0 ] || { echo "shard_sweep: every shard is done" >&2; return 0; }
  local gres=(--gres=gpu:1)
  [[ " $* " == *" --gres"* ]] && gres=()
  mkdir -p "$work/slurm"
  local job start
  start=$(now)
  job=$(sbatch --parsable --job-name=tilebench-sweep --array="$(IFS=,; echo "${pending[*]}")" \
    "${gres[@]}" -o "$work/slurm/%A_%a.out" "$@" \
    --wrap "\"$self\" task \"$work\" \$SLURM_ARRAY_TASK_ID slurm") ||
    die "sbatch refused the job array (see above)"
  job=${job%%;*}
  echo "shard_sweep: job array $job, ${#pending[@]} tasks" >&2
  # sbatch --wait polls slowly and can miss tasks cancelled while pending:
  # poll squeue, then judge each shard by its own status file.
  local left last=-1
  while left=$(squeue -h -j "$job" -t PENDING,RUNNING,CONFIGURING,COMPLETING,SUSPENDED 2>/dev/null | wc -l); [ "$left" -gt 0 ]; do
    [ "$left" != "$last" ] && echo "shard_sweep: $((${#pending[@]} - left)) of ${#pending[@]} tasks finished" >&2
    last=$left
    sleep "${TB_SLURM_POLL_S:-5}"
  done
  since "$start" >"$work/wall_s"
  echo "shard_sweep: job array $job finished in $(cat "$work/wall_s") s" >&2
}

cmd_merge() {
  local work=$1 results=$2
  [ -f "$work/plan" ] || die "no plan in $work"
  local bin merge
  bin=$(cat "$work/bin")
  merge=${TB_RESULTS_MERGE:-$bin/results_merge}
  [ -x "$merge" ] || die "no results_merge at $merge"
  local total groups=() g id dir lost=() merged=0 json rel
  total=$(wc -l <"$work/plan")
  for g in "$work"/shards/*/; do [ -d "$g" ] && groups+=("$(basename "$g")"); done
  [ ${#groups[@]} -gt 0 ] || { echo "shard_sweep: no shard has run in $work" >&2; return 1; }
  for g in "${groups[@]}"; do
    for id in $(plan_ids "$work"); do
      dir=$work/shards/$g/$id
      if ! [ -f "$dir/status" ]; then
        lost+=("$(shard_name "$work" "$id") [$g]: never finished (killed, or never started)")
        continue
      elif ! done_ok "$dir"; then
        lost+=("$(shard_name "$work" "$id") [$g]: exit $(cut -d' ' -f1 "$dir/status"), log $dir/log")
        continue
      fi
      local found=0
      while IFS= read -r -d '' json; do
        found=1
        rel=${json#"$dir/results/"}
        mkdir -p "$results/$(dirname "$rel")"
        cp "$json" "$dir/merging.json"
        if "$merge" "$dir/merging.json" "$results/$rel" >/dev/null 2>"$dir/merge.err"; then
          merged=$((merged + 1))
        else
          lost+=("$(shard_name "$work" "$id") [$g]: its result cannot be merged: $(head -1 "$dir/merge.err")")
          rm -f "$dir/merging.json"
        fi
      done < <(find "$dir/results" -name '*.json' -print0 2>/dev/null)
      [ $found -eq 1 ] || lost+=("$(shard_name "$work" "$id") [$g]: exited 0 but wrote no result")
    done
  done
  echo "shard_sweep: $merged shard results merged into $results ($total shards × ${#groups[@]} GPU model(s))" >&2
  if [ ${#lost[@]} -gt 0 ]; then
    printf 'shard_sweep: LOST %s\n' "${lost[@]}" >&2
    echo "shard_sweep: ${#lost[@]} shard(s) lost; re-run only those with ./tilebench sweep --resume $work (staged: TB_WORK=$work ./run.sh sweep-devices ...)" >&2
    return 1
  fi
}

case "${1:-}" in
  plan | local | slurm | task | merge)
    c=$1
    shift
    [ $# -ge 1 ] || die "$c: WORK folder missing"
    "cmd_$c" "$@" ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ] && exit 2; exit 0 ;;
esac
