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

echo "== dstd transport_bench: node 0 in ${prefix}_1, node 1 in ${prefix}_2, ucx on TCP"
ip netns exec "${prefix}_1" "$build/bin/dstdrun" --hosts 10.77.0.1:1,10.77.0.2:1 \
  --rsh "$here/tests/hosts/netns_rsh.sh $prefix" --launcher-address 10.77.0.1 --timeout 300 \
  "$build/bin/transport_bench"

echo "== ucx_perftest on the same link (server in ${prefix}_2); median latency in µs"
for test in "ucp_get 8" "ucp_get 4096" "ucp_put_lat 4096" "ucp_fadd 8" "ucp_cswap 8" \
            "ucp_am_lat 8" "ucp_am_lat 4096"; do
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
