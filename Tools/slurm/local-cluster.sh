#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying and testing the job
# scripts beside this file (sweep.sh, shard.sbatch, merge.sbatch), which need
# nothing of it on a real cluster.
#
#   Tools/slurm/local-cluster.sh install                 # the Debian packages, when missing
#   Tools/slurm/local-cluster.sh start DIR [--until-exit PID] [--timeout SECONDS]
#   export SLURM_CONF=DIR/slurm.conf                     # then sbatch, squeue, scontrol ...
#   Tools/slurm/local-cluster.sh stop DIR
#
# Everything the cluster uses lives in DIR (a new or empty folder): its own
# munge key and socket, slurm.conf, state, spool, logs and process ids, on two
# free local ports. No systemd or cgroups are needed (proctrack/linuxproc,
# task/none, no accounting), so it starts in a container as root; the node's
# CPUs and memory are the machine's (`slurmd -C`). `start` waits until the
# node is idle (at most --timeout seconds, 60 by default). `stop` cancels the
# cluster's jobs and ends exactly the processes `start` started; with
# --until-exit PID, a watcher runs `stop` once that process has exited.
#
# Exit codes: 0 done, 64 bad command line, 69 the packages are missing and
# cannot be installed here, 1 anything else (the daemons' logs are printed).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

packages=(slurmctld slurmd slurm-client munge)
commands=(slurmctld slurmd slurmstepd sbatch squeue scontrol scancel sinfo munged mungekey perl)

usage() {
  echo "usage: $0 install | start DIR [--until-exit PID] [--timeout SECONDS] | stop DIR" >&2
  exit 64
}
fail() {
  echo "local-cluster: error: $*" >&2
  exit 1
}

missing_commands() {
  local c
  for c in "${commands[@]}"; do
    command -v "$c" >/dev/null 2>&1 || echo "$c"
  done
}

install_packages() {
  local missing
  missing=$(missing_commands)
  [[ -z "$missing" ]] && return 0
  local why=""
  if [[ $(id -u) -ne 0 ]]; then
    why="not root"
  elif ! command -v apt-get >/dev/null 2>&1; then
    why="no apt-get"
  else
    echo "local-cluster: installing ${packages[*]} (missing: $(echo $missing))" >&2
    export DEBIAN_FRONTEND=noninteractive
    local apt=(apt-get install -y -qq --no-install-recommends "${packages[@]}") log
    log=$(mktemp)
    # The package lists may be absent on a new machine: update only when needed.
    if "${apt[@]}" >"$log" 2>&1 || { apt-get update -qq >>"$log" 2>&1 && "${apt[@]}" >>"$log" 2>&1; }; then
      missing=$(missing_commands)
      why="still missing after apt-get install: $(echo $missing)"
    else
      why="apt-get install failed: $(tail -n 3 "$log" | tr '\n' ' ')"
    fi
    rm -f "$log"
    [[ -z "$missing" ]] && return 0
  fi
  echo "local-cluster: the Slurm packages (${packages[*]}) are missing and cannot be installed here ($why)" >&2
  exit 69
}

# A TCP port nobody listens on, between 20000 and 59999, other than those given.
free_port() {
  local listening="" hex port
  # /proc/net/tcp lists "local_address:port" in hex; state 0A is LISTEN.
  for hex in $(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
    listening+=" $((16#$hex))"
  done
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 40000))
    if [[ " $listening $* " != *" $port "* ]]; then
      echo "$port"
      return 0
    fi
  done
  fail "found no free TCP port"
}

# Whether process $1 is still one that this cluster started (not a reused id).
ours() {
  [[ -r /proc/$1/cmdline ]] && tr '\0' ' ' </proc/$1/cmdline | grep -qF -- "$dir/"
}

print_logs() {
  local f
  for f in "$dir"/log/*.log; do
    [[ -f "$f" ]] || continue
    echo "--- last lines of $f" >&2
    tail -n 15 "$f" >&2
  done
}

# Closes what the caller left open besides standard input, output and error (bash keeps its
# script on 255): a daemon holding the caller's pipe or socket would keep it waiting for this script.
close_inherited_files() {
  local fd
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if ((fd > 2 && fd != 255)); then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

# Runs a command with no signal blocked: a caller may start this script with SIGTERM blocked
# (a thread pool's worker does), and daemons inherit that mask, so `stop` could only kill them.
unblocked=(perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die "sigprocmask: $!"; exec { $ARGV[0] } @ARGV or die "cannot run $ARGV[0]: $!\n"')

start() {
  install_packages
  close_inherited_files
  [[ -e "$dir" && -n "$(ls -A "$dir")" ]] && fail "$dir is not empty; choose a new folder (or stop and remove the old cluster)"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # munged insists that everyone can reach its socket's folder; the key stays private (0600).
  chmod 755 "$dir"
  mkdir -p -m 755 "$dir/munge"
  mkdir -p "$dir/log" "$dir/state" "$dir/spool"
  : >"$dir/pids"

  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
  setsid "${unblocked[@]}" munged --foreground --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
    </dev/null >>"$dir/log/munged.log" 2>&1 &
  echo "$!" >>"$dir/pids"
  for _ in $(seq 100); do [[ -S "$dir/munge/socket" ]] && break; sleep 0.05; done
  [[ -S "$dir/munge/socket" ]] || { print_logs; stop_processes; fail "munged did not start"; }

  local user node controller_port node_port
  user=$(id -un)
  # `slurmd -C` prints this machine's node line: its name, CPUs, sockets, cores and memory.
  node=$(slurmd -C | head -n 1)
  [[ "$node" == NodeName=* ]] || fail "slurmd -C printed '$node', expected a NodeName= line"
  controller_port=$(free_port)
  node_port=$(free_port "$controller_port")
  cat >"$dir/slurm.conf" <<EOF
# Written by Tools/slurm/local-cluster.sh: a one-node cluster in $dir.
ClusterName=backtest-local
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
# A requeued job waits until its previous run's credential expires: 11 s here, 121 s by default.
AuthInfo=socket=$dir/munge/socket,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No systemd, no cgroups: processes tracked by parent id, tasks not pinned.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
# Start jobs at once, not in waves seconds apart; cancel a job whose dependency can never be met.
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,bf_interval=1,sched_interval=1
DependencyParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  setsid "${unblocked[@]}" slurmctld -D -f "$dir/slurm.conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
  echo "$!" >>"$dir/pids"
  setsid "${unblocked[@]}" slurmd -D -f "$dir/slurm.conf" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
  echo "$!" >>"$dir/pids"

  export SLURM_CONF="$dir/slurm.conf"
  local state="" deadline=$((SECONDS + timeout))
  while ((SECONDS < deadline)); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [[ "$state" == idle ]] && break
    sleep 0.2
  done
  if [[ "$state" != idle ]]; then
    print_logs
    stop_processes
    fail "the node was not idle after $timeout s (state '${state:-none}')"
  fi

  if [[ -n "$until_exit" ]]; then
    # The watcher keeps nothing of the caller's open: a caller reading this script's output is not held.
    setsid "${unblocked[@]}" bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec "$2" stop "$3"' \
      watcher "$until_exit" "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" "$dir/" </dev/null >>"$dir/log/watcher.out" 2>&1 &
    echo "$!" >>"$dir/pids"
  fi
  echo "local-cluster: node $(hostname -s) idle ($(sed -E 's/.* CPUs=([0-9]+) .*RealMemory=([0-9]+).*/\1 CPUs, \2 MB/' <<<"$node")); export SLURM_CONF=$dir/slurm.conf"
}

stop_processes() {
  local pid pids=() watcher="" left
  [[ -f "$dir/pids" ]] || return 0
  # The daemons in reverse order of start; the watcher (when it is not the caller) first.
  mapfile -t pids < <(tac "$dir/pids")
  for pid in "${pids[@]}"; do
    [[ "$pid" == "$$" || "$pid" == "$PPID" ]] && watcher=$pid && continue
    ours "$pid" && kill -TERM "$pid" 2>/dev/null || true
  done
  for _ in $(seq 100); do
    left=""
    for pid in "${pids[@]}"; do [[ "$pid" != "$watcher" ]] && ours "$pid" && left+=" $pid"; done
    [[ -z "$left" ]] && break
    sleep 0.1
  done
  for pid in $left; do
    echo "local-cluster: $(tr '\0' ' ' </proc/$pid/cmdline | cut -c1-60) did not stop within 10 s of SIGTERM: killed" >&2
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$dir/pids"
}

stop() {
  [[ -f "$dir/slurm.conf" ]] || fail "$dir has no slurm.conf: no cluster was started there"
  dir=$(cd "$dir" && pwd)
  export SLURM_CONF="$dir/slurm.conf"
  # Jobs first, so that no job step outlives its node daemon.
  if [[ -f "$dir/slurmctld.pid" ]] && ours "$(cat "$dir/slurmctld.pid")" && scancel --quiet --user="$(id -un)"; then
    for _ in $(seq 100); do
      [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
      sleep 0.1
    done
  fi
  stop_processes
  echo "local-cluster: stopped the cluster in $dir"
}

command=${1:-}
[[ $# -gt 0 ]] && shift
dir="" until_exit="" timeout=60
case "$command" in
  install) [[ $# -eq 0 ]] || usage; install_packages ;;
  start | stop)
    [[ $# -ge 1 ]] || usage
    dir=${1%/}
    shift
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --until-exit) [[ "$command" == start && $# -ge 2 ]] || usage; until_exit=$2; shift 2 ;;
        --timeout) [[ "$command" == start && $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; timeout=$2; shift 2 ;;
        *) usage ;;
      esac
    done
    "$command"
    ;;
  *) usage ;;
esac
