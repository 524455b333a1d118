#!/usr/bin/env bash
# hunt_hang.sh - for diagnosing, not a test: runs one program over verbs at 2
# nodes in a loop inside the rxe guest, each run with its own DSTD_CHAOS
# seed (the iteration number), and when a run outlives LIMIT seconds dumps
# every node's thread stacks and dstd state (hang_state.py) with gdb and
# the device's counters into hang-I.txt (its output in hang-I.log) and
# stops. Found the rare hang of
# Atomics.LargeObjectsStayWholeUnderContentionFromEveryNode at seed 54
# (2026-11-28).
# START: the first seed (default 1).
#   cd DIR && RXE_VM_ENV="N FILTER LIMIT START" N=60 FILTER='Atomics.LargeObjects*' \
#     scripts/rxe-vm.sh run bash tests/rdma/hunt_hang.sh BUILD_BIN PROGRAM
set -u
bin=$1
program=$2
ulimit -l unlimited
here=$(cd "$(dirname "$0")" && pwd)
for i in $(seq "${START:-1}" "${N:-40}"); do
  start=$EPOCHREALTIME
  DSTD_CHAOS=$i "$bin/dstdrun" -n 2 --transport verbs --timeout 900 "$bin/$program" \
    ${FILTER:+"--gtest_filter=$FILTER"} > run.log 2>&1 &
  pid=$!
  t=0
  while kill -0 "$pid" 2>/dev/null && [ "$t" -lt "${LIMIT:-120}" ]; do sleep 1; t=$((t + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    echo "HANG at iteration $i (DSTD_CHAOS=$i)"
    for p in $(pgrep -f "$bin/$program"); do
      [ "$p" = "$pid" ] && continue
      echo "=== pid $p $(tr '\0' ' ' < "/proc/$p/cmdline")"
      gdb -batch -p "$p" -ex "thread apply all bt" -x "$here/hang_state.py" 2>&1 |
        grep -v '^\[New LWP'
    done > "hang-$i.txt"
    { rdma statistic show; rdma res show qp; } >> "hang-$i.txt" 2>&1
    cp run.log "hang-$i.log"
    kill "$pid"
    wait "$pid"
    exit 1
  fi
  wait "$pid"
  status=$?
  echo "iteration $i exit $status $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
  [ "$status" -ne 0 ] && { cp run.log "fail-$i.log"; exit 2; }
done
echo "no hang in ${N:-40} runs"
