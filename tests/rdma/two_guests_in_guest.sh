#!/usr/bin/env bash
# Runs inside the two guests of two_guests.sh.
#
#   serve                   guest B: guest_rsh.py's server, until A stops it
#   drive DSTDRUN ACCUMULATOR OUTPUT_PROGRAM
#                           guest A: 2 nodes here and 2 on B over verbs:
#     accumulator     exits 0 with the right sum;
#     node_killed     output_program hang; once node 3 waits, one node on B
#                     is killed (SIGKILL): the run ends within 5 s, naming
#                     that node and host B;
#     link_down       the same, but A's NIC goes down (B is cut off): the run
#                     ends within 5 s naming a node and a host.
# A leaves a stop file in the shared directory for B when it is done.
set -u
ulimit -l unlimited 2>/dev/null || echo "note: cannot lift the locked-memory limit ($(ulimit -l) KiB)"
rsh="/usr/bin/python3 $PWD/rdma_guest_rsh.py"
stop_file=$PWD/rdma-two-guests.stop  # both guests see the current directory
if [ "$1" = serve ]; then
  $rsh serve 1500 &
  server=$!
  while kill -0 $server 2>/dev/null && [ ! -e "$stop_file" ]; do sleep 0.2; done
  kill $server 2>/dev/null
  exit 0
fi
dstdrun=$2 accumulator=$3 output_program=$4
b=192.0.2.2
hosts=localhost:2,$b:2  # nodes 0 and 1 here, started by dstdrun itself
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
failed=0
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# The first connection waits for B to boot.
$rsh $b true || { echo "guest B never answered"; exit 1; }

t=$EPOCHREALTIME
"$dstdrun" --hosts $hosts --transport verbs --rsh "$rsh" --timeout 600 "$accumulator" \
  > rdma-two-guests-accumulator.log 2>&1
status=$?
cat rdma-two-guests-accumulator.log
if [ $status -ne 0 ]; then
  fail accumulator "exit $status"
elif ! grep -q "sum of 1..1000000 = 500000500000 (expected 500000500000)" rdma-two-guests-accumulator.log; then
  fail accumulator "no right sum in its output"
else
  echo "PASS accumulator ($(since "$t") s)"
fi

# fault MODE: output_program hang across the guests, then the fault on B.
fault() {
  local mode=$1 log=rdma-two-guests-$1.log
  "$dstdrun" --hosts $hosts --transport verbs --rsh "$rsh" --timeout 600 "$output_program" hang \
    > "$log" 2>&1 &
  local run=$! k=0
  until grep -q "waiting on node 3" "$log"; do
    k=$((k + 1))
    if [ $k -gt 3000 ] || ! kill -0 $run 2>/dev/null; then
      cat "$log"
      kill -9 $run 2>/dev/null
      fail "$mode" "the program did not start on every node"
      return
    fi
    sleep 0.1
  done
  local start=$EPOCHREALTIME
  case $mode in
    # (the clock started before guest_rsh.py did: its start-up is counted too)
    node_killed) $rsh $b "pkill -9 -o -f '[o]utput_program hang' || echo 'no node to kill'" ;;
    # Our own link: the same as B's for the run (the nodes on B are cut
    # off), and its moment is known here.
    link_down) for d in /sys/class/net/*; do [ -e "$d/device" ] && ip link set "${d##*/}" down; done ;;
  esac
  while kill -0 $run 2>/dev/null && awk -v t="$(since "$start")" 'BEGIN { exit !(t < 30) }'; do
    sleep 0.05
  done
  local took; took=$(since "$start")
  if kill -0 $run 2>/dev/null; then
    kill -9 $run
    cat "$log"
    fail "$mode" "dstdrun still runs $took s after the fault"
    return
  fi
  wait $run
  local status=$?
  cat "$log"
  echo "$mode: dstdrun exited with $status after $took s"
  if [ $status -eq 0 ]; then fail "$mode" "expected a failing exit status"; return; fi
  if awk -v t="$took" 'BEGIN { exit !(t > 5) }'; then fail "$mode" "took $took s to end (more than 5)"; return; fi
  if ! grep -Eq "^dstdrun: node [0-9]+ (\(host 192\.0\.2\.2\) )?" "$log"; then
    fail "$mode" "no node and host named"; return
  fi
  if [ "$mode" = node_killed ] &&
     ! grep -Eq "^dstdrun: node [23] \(host 192\.0\.2\.2\) was killed by signal 9" "$log"; then
    fail "$mode" "the killed node on 192.0.2.2 not named"; return
  fi
  echo "PASS $mode ($took s to end)"
}
fault node_killed
fault link_down   # last: B is unreachable after it
touch "$stop_file"  # B's server leaves (after link_down it cannot be told over the link)
echo "two guests: $failed failed"
[ $failed -eq 0 ]
