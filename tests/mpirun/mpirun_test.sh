#!/bin/sh
# mpirun_test.sh MPIRUN N PROGRAM [ARGS...]
#
# Runs a dstd program on N processes under Open MPI's mpirun, as the
# mpirun tests want it, prints what it printed, then one line:
#   mpirun status=S
# and, when the program said "node_fault: stopping node K at T ms" (the
# wall clock, tests/launch/node_fault.cpp), one more:
#   run ended E ms after node K was stopped
#
# Why one script: the options are the same for every test (as root Open
# MPI wants --allow-run-as-root; 4 processes on 2 cores need
# --oversubscribe, and unbound processes share them better; ucx over TCP,
# the path a network takes; mpirun's own --timeout below CTest's), and
# CTest's regular expressions can then check the status and the time.
mpirun=$1
n=$2
shift 2
out=$(mktemp)
# Open MPI's session directories, under a fresh TMPDIR per run: their names
# come from the host name and a job family number, and the "hosts" of the
# namespace tests share this machine's /tmp and name, so a daemon failed
# with "File exists" (netns_hosts.sh's agent gives each "host" its own
# directory below this one).
session=$(mktemp -d)
trap 'rm -rf "$out" "$session"' EXIT
TMPDIR=$session "$mpirun" --allow-run-as-root --oversubscribe --bind-to none --timeout 100 \
  -x UCX_TLS=tcp -n "$n" "$@" >"$out" 2>&1
status=$?
ended=$(date +%s%3N)
cat "$out"
echo "mpirun status=$status"
stopped=$(sed -n 's/^node_fault: stopping node \([0-9]*\) at \([0-9]*\) ms$/\1 \2/p' "$out" | head -n 1)
if [ -n "$stopped" ]; then
  set -- $stopped
  echo "run ended $((ended - $2)) ms after node $1 was stopped"
fi
