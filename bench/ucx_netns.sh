#!/usr/bin/env bash
# bench/ucx_netns.sh BUILD_DIR: the transport benchmark over ucx on TCP
# between two network namespaces joined by a veth pair (two "hosts" on one
# machine: tests/hosts/netns.sh), then UCX's own ucx_perftest on the same
# link for the same operations: the floor dstd's numbers stand on. Root only
# (it makes namespaces). docs/BENCHMARKS.md quotes it.
set -eu
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=dstdbench$$
netns=$here/tests/hosts/netns.sh
trap '"$netns" down "$prefix"' EXIT
"$netns" up "$prefix"
export UCX_TLS=tcp UCX_NET_DEVICES=dstd0 UCX_ATOMIC_MODE=cpu

# on_hosts SLOTS PROGRAM [ARGS]: dstdrun in the first namespace, SLOTS
# nodes in each.
on_hosts() {
  slots=$1
  shift
  ip netns exec "${prefix}_1" "$build/bin/dstdrun" --hosts "10.77.0.1:$slots,10.77.0.2:$slots" \
    --rsh "$here/tests/hosts/netns_rsh.sh $prefix" --launcher-address 10.77.0.1 --timeout 600 "$@"
}
echo "== dstd transport_bench: node 0 in ${prefix}_1, node 1 in ${prefix}_2, ucx on TCP"
on_hosts 1 "$build/bin/transport_bench"
echo "== dstd coherence_bench: node 0 in ${prefix}_1, node 1 in ${prefix}_2"
on_hosts 1 "$build/bin/coherence_bench"
echo "== dstd sync_bench: nodes 0-1 in ${prefix}_1, nodes 2-3 in ${prefix}_2"
on_hosts 2 "$build/bin/sync_bench"

echo "== ucx_perftest on the same link (server in ${prefix}_2); median latency in µs"
# The ping-pong tests (ucp_am_lat, tag_lat) report half the round trip.
# The one-sided ones (ucp_get, ucp_fadd, ...) took about 1.1 ms per
# operation here, 40 times dstd's own reads over the same UCX: not a floor.
for test in "ucp_am_lat 8" "ucp_am_lat 4096" "tag_lat 8" "ucp_get 8"; do
  set -- $test
  ip netns exec "${prefix}_2" ucx_perftest -p 13337 > /dev/null 2>&1 &
  server=$!
  sleep 1
  line=$(ip netns exec "${prefix}_1" ucx_perftest 10.77.0.2 -p 13337 -t "$1" -s "$2" -n 20000 \
           -w 2000 2>&1 | grep '^Final:' | tail -1)
  wait "$server" || true
  # Final: iterations, then latency typical (median), average, overall.
  echo "$1 $2 B: $(echo "$line" | awk '{print "median " $3 " µs, average " $4 " µs"}')"
done
