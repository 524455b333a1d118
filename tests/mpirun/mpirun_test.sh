#!/bin/sh
# mpirun_test.sh MPIRUN N PROGRAM [ARGS...]
#
# Runs a dstd program on N processes under Open MPI's mpirun, as the
# mpirun tests want it, prints what it printed, then one line:
#   mpirun status=S
# and, when the program said "node_fault: stopping node K at T ms" (the
# wall clock, tests/launch/node_fault.cpp), one more, after one saying when
# a node first reported a lost peer ("dstd: node N: lost node ..."), if any:
#   a node said it lost one L ms after node K was stopped
#   run ended E ms after node K was stopped
#
# Why one script: the options are the same for every test (as root Open
# MPI wants --allow-run-as-root; 4 processes on 2 cores need
# --oversubscribe, and unbound processes share them better; ucx over TCP,
# the path a network takes, on loopback only (tests/CMakeLists.txt,
# dstd_ucx_test, says why); mpirun's own --timeout below CTest's), and
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
  -x UCX_TLS=tcp -x UCX_NET_DEVICES=lo -n "$n" "$@" >"$out" 2>&1 &
run=$!
# When a node first said it lost another: the nodes' own detection, which
# the launcher's end may follow much later (mpirun waits for its daemon on
# a host that dropped off by its own keepalive rules).
lost=""
while kill -0 $run 2>/dev/null; do
  if [ -z "$lost" ] && grep -q "^dstd: node [0-9]*: lost node" "$out"; then
    lost=$(date +%s%3N)
  fi
  sleep 0.05
done
wait $run
status=$?
ended=$(date +%s%3N)
[ -n "$lost" ] || ! grep -q "^dstd: node [0-9]*: lost node" "$out" || lost=$ended
cat "$out"
echo "mpirun status=$status"
stopped=$(sed -n 's/^node_fault: stopping node \([0-9]*\) at \([0-9]*\) ms$/\1 \2/p' "$out" | head -n 1)
if [ -n "$stopped" ]; then
  set -- $stopped
  [ -z "$lost" ] || echo "a node said it lost one $((lost - $2)) ms after node $1 was stopped"
  echo "run ended $((ended - $2)) ms after node $1 was stopped"
fi
