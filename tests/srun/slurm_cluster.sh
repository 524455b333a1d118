#!/bin/sh
# slurm_cluster.sh up DIR | down DIR
#
# A SLURM cluster of one machine, all of it under DIR (a new directory):
# its own munge key and munged (on a socket in DIR), slurmctld and slurmd
# in the foreground of background processes, a slurm.conf naming this host
# as the one node, their state, spool, logs and pids. `up` returns once the
# node is idle (srun can start a job), with the variables for srun in
# DIR/env (`. DIR/env`: SLURM_CONF); `down` cancels what still runs, stops
# the daemons it started (by their pids) and removes DIR. Exits 77 (CTest's
# skip) where SLURM cannot run: its daemons or munge not installed (Debian:
# slurmctld slurmd slurm-client munge), or not root.
#
# Why a cluster of our own: dstd under `srun --mpi=pmix` takes its rank and
# its peers' addresses from the PMIx server that slurmd's step daemon runs,
# and only a real slurmd gives that; the machine's own /etc/slurm and munge
# (if any) are left alone. Why these settings: no systemd or cgroup setup
# is assumed (proctrack/linuxproc, task/none, no accounting); the node
# declares 8 CPUs (config_overrides lets slurmd take that on 2 cores) so a
# job of 4 tasks fits, as mpirun's --oversubscribe does; ports are taken
# from this script's pid, so a cluster left over from a killed run does not
# hold them; KillWait=1 so a job ends within a second of being cancelled;
# the daemons meet at 127.0.0.1, so the host's name need not resolve.
set -eu

usage() { echo "usage: slurm_cluster.sh up DIR | down DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
dir=$2

# Whether the process PID runs (a zombie does not: the daemons, orphaned
# when `up` returned, are reaped by pid 1, which can take seconds).
running() {
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  case "$state" in Z*) return 1 ;; esac
}

# Stops the processes whose pids are in FILES: TERM to all, then KILL to
# those still running after 5 s.
stop_pid_files() {
  pids=
  for f in "$@"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids="$pids $pid"
  done
  i=0
  for pid in $pids; do
    while running "$pid" && [ "$i" -lt 50 ]; do
      sleep 0.1
      i=$((i + 1))
    done
    kill -9 "$pid" 2>/dev/null || true
  done
}

case "$1" in
up)
  for c in slurmctld slurmd srun scontrol sinfo munged; do
    if ! command -v "$c" >/dev/null 2>&1; then
      echo "slurm_cluster.sh: $c is not installed (Debian: slurmctld slurmd slurm-client munge): skipped"
      exit 77
    fi
  done
  if [ "$(id -u)" -ne 0 ]; then
    echo "slurm_cluster.sh: the daemons run as root here (SlurmUser=root), and this is not root: skipped"
    exit 77
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 711 "$dir"
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
  chmod 711 "$dir/munge"

  # munge: a fresh key, munged on a socket of its own.
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  munged --force -F --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/seed" --num-threads=2 >>"$dir/log/munged.out" 2>&1 &
  echo $! >"$dir/munged.pid"

  host=$(hostname -s)
  port=$((17000 + ($$ % 7000) * 2))
  cat >"$dir/slurm.conf" <<EOF
ClusterName=dstd
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid.own
SlurmdPidFile=$dir/slurmd.pid.own
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
MailProg=/bin/true
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=1
InactiveLimit=0
MinJobAge=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 State=UNKNOWN
PartitionName=dstd Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  echo "SLURM_CONF=$dir/slurm.conf; export SLURM_CONF" >"$dir/env"
  export SLURM_CONF="$dir/slurm.conf"

  # munged answers before the daemons start: they authenticate through it.
  i=0
  until [ -S "$dir/munge/socket" ]; do
    i=$((i + 1))
    if [ "$i" -gt 100 ]; then
      echo "slurm_cluster.sh: munged did not start:" >&2
      cat "$dir/log/munged.out" "$dir/log/munged.log" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.1
  done

  slurmctld -D -c -i -f "$dir/slurm.conf" >>"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/slurmctld.pid"
  slurmd -D -f "$dir/slurm.conf" >>"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/slurmd.pid"

  # Up when the node is idle: slurmd registered and the partition takes jobs.
  i=0
  until [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = "idle" ]; do
    i=$((i + 1))
    if [ "$i" -gt 300 ]; then
      echo "slurm_cluster.sh: the node did not become idle within 30 s:" >&2
      sinfo -N -l >&2 2>&1 || true
      tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/slurmctld.out" \
        "$dir/log/slurmd.out" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.1
  done
  ;;
down)
  [ -d "$dir" ] || exit 0
  # Jobs still running end first (their step daemons are slurmd's children
  # no more once started, so stopping slurmd alone would leave them).
  if [ -f "$dir/slurm.conf" ] && [ -f "$dir/slurmctld.pid" ] &&
    running "$(cat "$dir/slurmctld.pid")"; then
    export SLURM_CONF="$dir/slurm.conf"
    scancel --quiet --full --state=RUNNING 2>/dev/null || true
    scancel --quiet 2>/dev/null || true
    i=0
    while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ "$i" -lt 100 ]; do
      sleep 0.1
      i=$((i + 1))
    done
  fi
  stop_pid_files "$dir/slurmd.pid" "$dir/slurmctld.pid"
  stop_pid_files "$dir/munged.pid"
  rm -rf "$dir"
  ;;
*)
  usage
  ;;
esac
