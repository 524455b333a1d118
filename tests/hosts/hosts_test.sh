#!/bin/sh
# hosts_test.sh MODE DSTDRUN PROGRAM [ARGS...]: dstdrun --hosts across two
# network namespaces (netns.sh), 2 nodes on each "host", over ucx on TCP
# through the veth pair. dstdrun itself runs in the first namespace.
#
#   run PATTERN   the program must exit 0 and its output match PATTERN
#                 (grep -E, "" for none)
#   kill          the program must print "waiting on node 3" (output_program
#                 hang); then one node in the second namespace is killed
#                 (SIGKILL): the run must end within 5 s naming that host
#   link_down     as kill, but the second namespace's veth goes down: the
#                 run must end within 5 s (no hang) naming a node and host
#
# Exit 77 (skip) when namespaces cannot be made. Namespaces are removed on
# every exit.
set -u
mode=$1
here=$(cd "$(dirname "$0")" && pwd)
pattern=""
if [ "$mode" = run ]; then
  pattern=$2
  shift
fi
dstdrun=$2
shift 2

prefix=dh$$_$mode
out=$(mktemp)
trap '"$here/netns.sh" down "$prefix"; rm -f "$out"' EXIT
trap 'exit 1' INT TERM
"$here/netns.sh" up "$prefix" || exit $?

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

ip netns exec "${prefix}_1" env UCX_TLS=tcp UCX_NET_DEVICES=dstd0 \
  "$dstdrun" --hosts 10.77.0.1:2,10.77.0.2:2 --rsh "$here/netns_rsh.sh $prefix" \
  --timeout 100 "$@" > "$out" 2>&1 &
run=$!

if [ "$mode" = run ]; then
  wait $run
  status=$?
  cat "$out"
  [ $status = 0 ] || { echo "hosts_test.sh: dstdrun exited with $status" >&2; exit 1; }
  if [ -n "$pattern" ] && ! grep -Eq "$pattern" "$out"; then
    echo "hosts_test.sh: the output does not match: $pattern" >&2
    exit 1
  fi
  exit 0
fi

# Wait until every node runs the program (at most 60 s).
k=0
until grep -q "waiting on node 3" "$out"; do
  k=$((k + 1))
  if [ $k -gt 600 ] || ! kill -0 $run 2>/dev/null; then
    cat "$out"
    echo "hosts_test.sh: the program did not start on every node" >&2
    exit 1
  fi
  sleep 0.1
done

start=$(now)
case "$mode" in
  kill)
    victim=$(ip netns pids "${prefix}_2" | head -n 1)
    echo "hosts_test.sh: killing pid $victim in ${prefix}_2"
    kill -9 "$victim";;
  link_down)
    echo "hosts_test.sh: taking dstd0 down in ${prefix}_2"
    ip -n "${prefix}_2" link set dstd0 down;;
  *) echo "hosts_test.sh: unknown mode $mode" >&2; exit 2;;
esac

# The run must end within 5 s; 20 s at most before we stop waiting.
k=0
while kill -0 $run 2>/dev/null && [ $k -lt 200 ]; do
  sleep 0.1
  k=$((k + 1))
done
took=$(elapsed "$start" "$(now)")
if kill -0 $run 2>/dev/null; then
  kill -9 $run
  cat "$out"
  echo "hosts_test.sh: dstdrun still runs 20 s after the fault" >&2
  exit 1
fi
wait $run
status=$?
cat "$out"
echo "hosts_test.sh: dstdrun exited with $status after $took s"
[ $status != 0 ] || { echo "hosts_test.sh: expected a failing exit status" >&2; exit 1; }
if awk -v t="$took" 'BEGIN { exit !(t > 5) }'; then
  echo "hosts_test.sh: the run took more than 5 s to end" >&2
  exit 1
fi
if ! grep -Eq "^dstdrun: node [0-9]+ \(host 10\.77\.0\.[12]\) " "$out"; then
  echo "hosts_test.sh: dstdrun did not name a node and its host" >&2
  exit 1
fi
if [ "$mode" = kill ] && ! grep -Eq "^dstdrun: node [23] \(host 10\.77\.0\.2\) was killed by signal 9" "$out"; then
  echo "hosts_test.sh: dstdrun did not name the killed node on 10.77.0.2" >&2
  exit 1
fi
exit 0
