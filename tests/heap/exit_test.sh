#!/usr/bin/env bash
# Exit status, static destructors and atexit handlers behave as in a plain
# program: the status of main, or of exit or quick_exit called from any
# thread on any node, is the run's status, and static destructors and
# atexit handlers run exactly once, on node 0 (at_quick_exit handlers, and
# no static destructor, for quick_exit), after the exiting thread's output
# and (exit only) its thread_local destructors — at 1 node without dstdrun,
# and at 2 and 4 nodes.
# usage: exit_test.sh DSTDRUN EXIT_PROGRAM
set -uo pipefail
dstdrun=$1
program=$2
source "$(dirname "$0")/../support/script_checks.sh"

check() {  # check LABEL exit|thread_exit|quick_exit EXPECTED_STATUS COMMAND...
  local label=$1 kind=$2 expected=$3
  shift 3
  local out status
  out=$("$@" 2>&1)
  status=$?
  local want_destructor=1 want_atexit=1 want_quick=0 want_thread_local=0
  if [ "$kind" = quick_exit ]; then want_destructor=0 want_atexit=0 want_quick=1; fi
  if [ "$kind" = thread_exit ]; then want_thread_local=1; fi
  local problems=""
  [ "$status" -eq "$expected" ] || problems+=" status $status (want $expected);"
  [ "$(count "static destructor ran" "$out")" -eq "$want_destructor" ] &&
    [ "$(count "static destructor ran on node 0" "$out")" -eq "$want_destructor" ] ||
    problems+=" static destructor lines (want $want_destructor, on node 0);"
  [ "$(count "atexit handler ran" "$out")" -eq "$want_atexit" ] &&
    [ "$(count "atexit handler ran on node 0" "$out")" -eq "$want_atexit" ] ||
    problems+=" atexit handler lines (want $want_atexit, on node 0);"
  [ "$(count "at_quick_exit handler ran" "$out")" -eq "$want_quick" ] &&
    [ "$(count "at_quick_exit handler ran on node 0" "$out")" -eq "$want_quick" ] ||
    problems+=" at_quick_exit handler lines (want $want_quick, on node 0);"
  [ "$(count "thread_local destructor ran" "$out")" -eq "$want_thread_local" ] ||
    problems+=" thread_local destructor lines (want $want_thread_local);"
  [ "$(count "the thread came back" "$out")" -eq 0 ] || problems+=" exit returned;"
  # What the exiting thread printed comes before what the handlers print.
  local handler_line thread_line
  handler_line=$(grep -n "exit handler ran" <<<"$out" | head -1 | cut -d: -f1)
  thread_line=$(grep -n "thread exiting" <<<"$out" | head -1 | cut -d: -f1)
  if [ -n "$thread_line" ] && { [ -z "$handler_line" ] || [ "$thread_line" -gt "$handler_line" ]; }; then
    problems+=" the thread's line is not before the handler's;"
  fi
  local tls_line
  tls_line=$(grep -n "thread_local destructor ran" <<<"$out" | head -1 | cut -d: -f1)
  if [ -n "$tls_line" ] && { [ -z "$handler_line" ] || [ "$tls_line" -gt "$handler_line" ]; }; then
    problems+=" the thread_local destructor's line is not before the handler's;"
  fi
  [ "$(count "dstdrun:" "$out")" -eq 0 ] || problems+=" dstdrun reported a failure;"
  report "$label" "$problems" "$out"
}

check "1 node, main returns 3" exit 3 "$program" return 3
check "1 node, exit(4)" exit 4 "$program" exit 4
check "1 node, main returns 0" exit 0 "$program" return 0
check "1 node, exit(7) in a thread" thread_exit 7 "$program" thread_exit 7
check "1 node, quick_exit(5) in a thread" quick_exit 5 "$program" thread_quick_exit 5
for n in 2 4; do
  check "$n nodes, main returns 3" exit 3 "$dstdrun" -n $n --timeout 30 "$program" return 3
  check "$n nodes, exit(4)" exit 4 "$dstdrun" -n $n --timeout 30 "$program" exit 4
  check "$n nodes, main returns 0" exit 0 "$dstdrun" -n $n --timeout 30 "$program" return 0
  check "$n nodes, exit(0) in a thread on node $((n - 1))" thread_exit 0 \
    "$dstdrun" -n $n --timeout 30 "$program" thread_exit 0
  check "$n nodes, exit(7) in a thread on node $((n - 1))" thread_exit 7 \
    "$dstdrun" -n $n --timeout 30 "$program" thread_exit 7
  check "$n nodes, quick_exit(5) in a thread on node $((n - 1))" quick_exit 5 \
    "$dstdrun" -n $n --timeout 30 "$program" thread_quick_exit 5
done
[ "$failures" -eq 0 ]
