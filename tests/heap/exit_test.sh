#!/usr/bin/env bash
# Exit status and static destructors behave as in a plain program: the
# status of main (or of exit) is the run's status, and static destructors
# run exactly once, on node 0 — at 1 node without dstdrun, and at 4 nodes.
# usage: exit_test.sh DSTDRUN EXIT_PROGRAM
set -uo pipefail
dstdrun=$1
program=$2
failures=0

check() {  # check LABEL EXPECTED_STATUS COMMAND...
  local label=$1 expected=$2
  shift 2
  local out status
  out=$("$@" 2>&1)
  status=$?
  local destructors
  destructors=$(grep -c "static destructor ran" <<<"$out")
  if [ "$status" -ne "$expected" ] || [ "$destructors" -ne 1 ] ||
     ! grep -q "static destructor ran on node 0" <<<"$out"; then
    echo "FAIL $label: status $status (want $expected), $destructors destructor lines (want 1 on node 0)"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok   $label"
  fi
}

check "1 node, main returns 3" 3 "$program" return 3
check "1 node, exit(4)" 4 "$program" exit 4
check "1 node, main returns 0" 0 "$program" return 0
check "4 nodes, main returns 3" 3 "$dstdrun" -n 4 --timeout 30 "$program" return 3
check "4 nodes, exit(4)" 4 "$dstdrun" -n 4 --timeout 30 "$program" exit 4
check "4 nodes, main returns 0" 0 "$dstdrun" -n 4 --timeout 30 "$program" return 0
[ "$failures" -eq 0 ]
