#!/usr/bin/env bash
# Misusing dstd::thread ends the whole run, at once, with a message that
# names the node: an exception escaping a thread on another node, a
# joinable thread destroyed, a thread asked for on a node that does not
# exist (and a runtime wake naming a waiter that does not exist). At 1 node
# (no dstdrun) and at 4 nodes. And, as with std, the run ends when main
# returns, even with a detached thread still running.
# usage: thread_faults_test.sh DSTDRUN THREAD_FAULTS
set -uo pipefail
dstdrun=$1
program=$2
failures=0

# check LABEL WANT_STATUS PATTERNS COMMAND...
#   WANT_STATUS: 0 or "nonzero"; PATTERNS: extended regexes joined by " && ",
#   each of which some line of the output must match.
check() {
  local label=$1 want=$2 pattern=$3
  shift 3
  local out status start elapsed
  start=$(date +%s)
  out=$(timeout 60 "$@" 2>&1)
  status=$?
  elapsed=$(($(date +%s) - start))
  local ok=1
  if [ "$want" = 0 ]; then [ "$status" -eq 0 ] || ok=0; else
    { [ "$status" -ne 0 ] && [ "$status" -ne 124 ]; } || ok=0; fi
  local p
  while IFS= read -r p; do
    grep -Eq -- "$p" <<<"$out" || ok=0
  done < <(sed 's/ \&\& /\n/g' <<<"$pattern")
  [ "$elapsed" -le 10 ] || ok=0
  if [ "$ok" -eq 1 ]; then
    echo "ok   $label (status $status, ${elapsed}s)"
  else
    echo "FAIL $label: status $status (want $want), ${elapsed}s, output must match: $pattern"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

run4=("$dstdrun" -n 4 --timeout 30 "$program")
check "1 node, exception in a thread" nonzero \
  "thread 0\.[0-9]+ on node 0 ended with an uncaught exception \(std::runtime_error: the answer was not 42\)" \
  "$program" throw-on-last-node
check "4 nodes, exception in a thread on node 3" nonzero \
  "on node 3 ended with an uncaught exception \(std::runtime_error: the answer was not 42\) && dstdrun: node 3 .*SIGABRT" \
  "${run4[@]}" throw-on-last-node
check "1 node, joinable thread destroyed" nonzero "terminate called" "$program" drop-joinable
check "4 nodes, joinable thread destroyed" nonzero "dstdrun: node 0 .*SIGABRT" \
  "${run4[@]}" drop-joinable
check "1 node, spawn_on a node that does not exist" nonzero \
  "spawn_on: node 1 does not exist \(the run has 1\)" "$program" spawn-on-missing-node
check "4 nodes, spawn_on a node that does not exist" nonzero \
  "spawn_on: node 4 does not exist \(the run has 4\)" "${run4[@]}" spawn-on-missing-node
check "4 nodes, a wake for a waiter node 0 never had" nonzero \
  "node 3 asked to wake waiter 268435455 of node 0, which never had it" \
  "${run4[@]}" wake-unknown-waiter
check "4 nodes, correct use" 0 "main returned" "${run4[@]}" ok
check "4 nodes, main returns while a detached thread sleeps on node 3" 0 "main returned" \
  "${run4[@]}" detached-still-running
[ "$failures" -eq 0 ]
