#!/bin/sh
# leave_loop.sh DSTDRUN PROGRAM N [MODE]: runs `DSTDRUN -n 3 --transport
# ucx PROGRAM MODE` (MODE: ok unless given) N times; every run must end
# cleanly.
#
# Why a loop: the end of a run is a race. Node 0 exits as soon as every
# other node has answered its shutdown message; the others then leave on
# their own. A node that touches memory homed at node 0 after answering
# (once: stdio's `stdout` pointer, a copy relocation in the executable's
# shared .bss) fetches from a node that may be gone, which over ucx fails
# ("a read (ucp_get_nbx) failed") in some runs, not all. Likewise a node
# that sends to another after that one has left, before its own shutdown
# message arrived (node_fault chatter: "cannot send to node 2 ...: Endpoint
# timeout" on the first run of each loop before the fix).
dstdrun=$1
program=$2
runs=$3
mode=${4:-ok}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
  i=$((i + 1))
  if ! UCX_TLS=tcp UCX_NET_DEVICES=lo "$dstdrun" -n 3 --transport ucx --timeout 30 "$program" "$mode" > "$out" 2>&1; then
    cat "$out"
    echo "leave_loop.sh: run $i of $runs failed" >&2
    exit 1
  fi
done
echo "leave_loop.sh: $runs runs ended cleanly"
