#!/usr/bin/env bash
# Single-node Slurm "cluster" on this machine, for testing the sweep/array
# tooling without a real cluster. Runs as root, needs no systemd and no GPU.
#
#   tools/slurm/local_cluster.sh start    # install if missing, configure, start, wait until idle
#   tools/slurm/local_cluster.sh stop     # cancel all jobs, stop slurmd, slurmctld, munged
#   tools/slurm/local_cluster.sh status   # sinfo; exit 0 if up, 1 if not
#
#   eval "$(tools/slurm/local_cluster.sh start)"   # start prints only the SLURM_CONF export
#
# Environment: TB_SLURM_DIR (default /tmp/tilebench-slurm) holds config, state,
# logs and pid files; TB_SLURM_TIMEOUT (default 60) is how long start waits for the node.
set -euo pipefail

DIR=${TB_SLURM_DIR:-/tmp/tilebench-slurm}
TIMEOUT=${TB_SLURM_TIMEOUT:-60}
GRACE=30 # seconds stop waits for jobs to end and for each daemon to exit on TERM
CONF=$DIR/slurm.conf
SOCK=$DIR/munge/munge.socket.2
export SLURM_CONF=$CONF

say() { echo "local_cluster: $*" >&2; }
alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
up() { alive "$DIR/slurmctld.pid" && sinfo -h >/dev/null 2>&1; }
node_state() { sinfo -h -N -n "$HOST" -o %T 2>/dev/null | head -n1 || true; }

install_missing() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null && return
    say "installing slurm-wlm and munge"
    local pkgs=(slurm-wlm munge)
    apt-get install -y --no-install-recommends "${pkgs[@]}" >&2 ||
        { apt-get update >&2 && apt-get install -y --no-install-recommends "${pkgs[@]}" >&2; }
}

write_config() {
    # Old state would resurrect earlier jobs (and job ids); logs are per run so failure tails mean something.
    rm -rf "$DIR/state" "$DIR/spool" "$DIR"/*.log
    mkdir -p "$DIR/state" "$DIR/spool" "$DIR/munge" "$DIR/dev"
    # munged refuses a socket folder that others cannot traverse.
    chmod 0755 "$DIR" "$DIR/munge"
    if [[ ! -s $DIR/munge/munge.key ]]; then
        if command -v mungekey >/dev/null; then
            mungekey -c -k "$DIR/munge/munge.key"
        else
            dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
        fi
    fi
    chmod 0400 "$DIR/munge/munge.key"
    # Slurm 22.05 drops file-less GPUs ("Removing file-less GPU") and marks the
    # node INVAL, so give each fake GPU a device file.
    ln -sfn /dev/null "$DIR/dev/gpu0"
    ln -sfn /dev/null "$DIR/dev/gpu1"
    echo "NodeName=$HOST Name=gpu File=$DIR/dev/gpu[0-1]" >"$DIR/gres.conf"
    cat >"$CONF" <<EOF
ClusterName=tilebench
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
AuthInfo=socket=$SOCK
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
GresTypes=gpu
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
ReturnToService=2
# Keep finished jobs visible: with a short MinJobAge, sbatch --wait returned 0
# for an array with a failing task, and squeue could no longer show FAILED.
MinJobAge=86400
$(slurmd -C | head -n1) NodeAddr=127.0.0.1 Gres=gpu:2
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

# stop_pid PIDFILE NAME: TERM, wait, then KILL; returns 1 if it was not running.
stop_pid() {
    alive "$1" || { rm -f "$1"; return 1; }
    local pid i
    pid=$(cat "$1")
    say "stopping $2 ($pid)"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < GRACE * 5; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && { say "$2 ignored TERM, killing"; kill -9 "$pid" 2>/dev/null || true; sleep 0.5; }
    rm -f "$1"
}

stop() {
    local did=0 i
    if up; then
        # Cancel first: slurmstepd and job processes outlive a stopped slurmd.
        squeue -h -o %A | xargs -r scancel || true
        for ((i = 0; i < GRACE * 5; i++)); do
            [[ -z $(squeue -h -o %A 2>/dev/null) ]] && ! pgrep -x slurmstepd >/dev/null && break
            sleep 0.2
        done
    fi
    stop_pid "$DIR/slurmd.pid" slurmd && did=1
    # slurmscriptd is slurmctld's child and exits with it.
    stop_pid "$DIR/slurmctld.pid" slurmctld && did=1
    stop_pid "$DIR/munge/munged.pid" munged && did=1
    ((did)) || say "stopped nothing"
}

fail() {
    say "FAILED: $*"
    sinfo -R >&2 2>/dev/null || true
    local f
    for f in munged.log slurmctld.log slurmd.log; do
        echo "--- $DIR/$f" >&2
        # No libpmix here; its plugin errors are noise.
        grep -vi pmix "$DIR/$f" 2>/dev/null | tail -n 20 >&2 || true
    done
    stop
    exit 1
}

start() {
    if up && [[ $(node_state) =~ ^(idle|mix|alloc) ]]; then
        say "already up"
        echo "export SLURM_CONF=$CONF"
        return
    fi
    install_missing
    # Anything half-started from an earlier run goes, so this start is clean.
    stop 2>/dev/null
    write_config
    say "starting munged"
    munged --force --key-file="$DIR/munge/munge.key" --socket="$SOCK" \
        --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munged.log" \
        --seed-file="$DIR/munge/munged.seed" >&2 || fail "munged did not start"
    say "starting slurmctld and slurmd"
    slurmctld -f "$CONF" >&2 || fail "slurmctld did not start"
    slurmd -f "$CONF" >&2 || fail "slurmd did not start"
    local i s=
    for ((i = 0; i < TIMEOUT * 2; i++)); do
        s=$(node_state)
        [[ $s == idle* ]] && break
        sleep 0.5
    done
    [[ $s == idle* ]] || fail "node $HOST not idle after ${TIMEOUT}s (state: ${s:-none})"
    say "up: node $HOST idle"
    echo "export SLURM_CONF=$CONF"
}

HOST=$(hostname -s)
case ${1:-} in
start) start ;;
stop) stop ;;
status) if sinfo && up; then exit 0; else exit 1; fi ;;
*) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
