#!/usr/bin/env bash
# The executable's static constructors and destructors run once for the
# whole run, on node 0, as in one process (static_init_program.cpp): one
# construction of a global thread pool that starts a thread on every node,
# its work done, a constructor-built string read by every node through
# std::cout, and one destruction that joins the threads of every node at
# exit — at 1 node without dstdrun, and at 2 and 4 nodes.
# usage: static_init_test.sh DSTDRUN PROGRAM
set -uo pipefail
dstdrun=$1
program=$2
source "$(dirname "$0")/../support/script_checks.sh"

check() {  # check NODES COMMAND...
  local nodes=$1
  shift
  local out status problems=""
  out=$("$@" 2>&1)
  status=$?
  [ "$status" -eq 0 ] || problems+=" status $status;"
  [ "$(count "pool constructed" "$out")" -eq 1 ] &&
    [ "$(count "pool constructed on node 0" "$out")" -eq 1 ] ||
    problems+=" want one 'pool constructed on node 0';"
  [ "$(count "^constructions=1$" "$out")" -eq 1 ] || problems+=" constructions is not 1;"
  [ "$(count "^sum=338350$" "$out")" -eq 1 ] || problems+=" wrong sum;"
  for ((n = 0; n < nodes; n++)); do
    [ "$(count "^node $n sees: built by a static constructor on node 0$" "$out")" -eq 1 ] ||
      problems+=" node $n did not print the global;"
  done
  [ "$(count "pool destroyed" "$out")" -eq 1 ] &&
    [ "$(count "pool destroyed on node 0 after 100 tasks" "$out")" -eq 1 ] ||
    problems+=" want one 'pool destroyed on node 0 after 100 tasks';"
  [ "$(count "dstdrun:\|dstd:" "$out")" -eq 0 ] || problems+=" a failure was reported;"
  report "$nodes node(s)" "$problems" "$out"
}

check 1 "$program"
check 2 "$dstdrun" -n 2 --timeout 30 "$program"
check 4 "$dstdrun" -n 4 --timeout 30 "$program"
[ "$failures" -eq 0 ]
