#!/usr/bin/env bash
# bench/verbs_rxe.sh BUILD_DIR: the transport benchmark over verbs in one
# Soft-RoCE guest (scripts/rxe-vm.sh; both nodes on rxe0), then perftest's
# latency tests for the same operations on the same device in the same
# guest: the floor dstd's numbers stand on. The guest's CPU is emulated
# (TCG): the numbers compare dstd with perftest, they are not RDMA speed.
# docs/BENCHMARKS.md quotes it. Needs `scripts/rxe-vm.sh setup` once.
set -eu
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$build"
cat > rdma_bench_in_guest.sh <<'GUEST'
set -u
build=$1
ulimit -l unlimited
echo "== dstd transport_bench over verbs, 2 nodes on rxe0"
"$build/bin/dstdrun" -n 2 --transport verbs --timeout 900 "$build/bin/transport_bench"
echo "== perftest on rxe0 (server and client in this guest); t_typical is the median, in µs"
# perftest's latency tests print one row: bytes, iterations, t_min, t_max,
# t_typical, t_avg, ... (the ping-pong ones, send and write, report half
# the round trip).
perf() {
  local label=$1
  shift
  "$@" -d rxe0 -x 1 -F -n 1000 > /dev/null 2>&1 &
  local server=$!
  sleep 2
  local row
  row=$("$@" -d rxe0 -x 1 -F -n 1000 192.0.2.1 2>&1 | awk '$1 ~ /^[0-9]+$/ && NF >= 6 { r = $0 } END { print r }')
  wait "$server" || true
  echo "$label: $(echo "$row" | awk '{ print "typical " $5 " µs, min " $3 ", avg " $6 }')"
}
perf "ib_read_lat 8 B" ib_read_lat -s 8
perf "ib_read_lat 4096 B" ib_read_lat -s 4096
perf "ib_atomic_lat FETCH_AND_ADD" ib_atomic_lat -A FETCH_AND_ADD
perf "ib_atomic_lat CMP_AND_SWAP" ib_atomic_lat -A CMP_AND_SWAP
# Messages: SEND into a shared receive queue (what dstd does) against an
# RDMA write into a ring the receiver polls (the other design issue 17
# names; ib_write_lat polls the buffer's last byte), at message sizes.
for size in 8 64 1024 4096 65536; do
  perf "ib_send_lat $size B (half round trip)" ib_send_lat -s "$size"
  perf "ib_write_lat $size B (half round trip)" ib_write_lat -s "$size"
done
GUEST
RXE_VM_NO_INSTALL=1 "$here/scripts/rxe-vm.sh" run bash ./rdma_bench_in_guest.sh "$build"
