#!/bin/sh
# netns_hosts.sh up|down ID N, or netns_hosts.sh agent HOST COMMAND...
#
# "Hosts" for a multi-host mpirun on one machine: N network namespaces
# dstd<ID>h1..dstd<ID>hN, each with one interface dstd0 at 10.231.S.i
# (S from ID), joined by a bridge in the root namespace at 10.231.S.254,
# where mpirun runs. `agent` is mpirun's rsh agent (--mca plm_rsh_agent):
# called with a host (an address above) and orted's command line, it runs
# the command in that host's namespace, through a shell as ssh would.
#
# Why namespaces: each "host" has its own network stack (interfaces,
# addresses, ports, no shared loopback), so PMIx's fence, ORTE's daemons
# and UCX over TCP cross a real (virtual) link, as between machines; the
# processes still share the file system, so the binary is the same file.
# Needs root (CAP_NET_ADMIN).
set -eu
subnet() { echo "10.231.$(( $1 % 200 + 20 ))"; }

case "$1" in
up)
  id=$2 n=$3 s=$(subnet "$2")
  ip link add "brd$id" type bridge
  ip addr add "$s.254/24" dev "brd$id"
  ip link set "brd$id" up
  i=1
  while [ "$i" -le "$n" ]; do
    ns="dstd${id}h$i"
    ip netns add "$ns"
    ip link add "vd$id-$i" type veth peer name dstd0 netns "$ns"
    ip link set "vd$id-$i" master "brd$id" up
    ip -n "$ns" addr add "$s.$i/24" dev dstd0
    ip -n "$ns" link set dstd0 up
    ip -n "$ns" link set lo up
    i=$((i + 1))
  done
  ;;
down)
  id=$2 n=$3
  i=1
  while [ "$i" -le "$n" ]; do
    ip netns del "dstd${id}h$i" 2>/dev/null || true
    ip link del "vd$id-$i" 2>/dev/null || true
    i=$((i + 1))
  done
  ip link del "brd$id" 2>/dev/null || true
  ;;
agent)
  host=$2
  shift 2
  # 10.231.S.i -> the namespace whose interface has that address.
  for ns in $(ip netns list | sed -n 's/^\(dstd[0-9]*h[0-9]*\).*/\1/p'); do
    if ip -n "$ns" -o addr show dev dstd0 | grep -q "inet $host/"; then
      # A temporary directory of its own, as a host has: Open MPI's daemon
      # and mpirun would otherwise race to make the same session directory.
      tmp="${TMPDIR:-/tmp}/$ns"
      mkdir -p "$tmp"
      exec ip netns exec "$ns" env TMPDIR="$tmp" sh -c "$*"
    fi
  done
  echo "netns_hosts.sh: no namespace has the address $host" >&2
  exit 1
  ;;
*)
  echo "usage: netns_hosts.sh up|down ID N | agent HOST COMMAND..." >&2
  exit 2
  ;;
esac
