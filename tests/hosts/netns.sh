#!/bin/sh
# netns.sh up|down PREFIX: two "hosts" on this machine for the --hosts tests.
#
#   up    creates network namespaces PREFIX_1 and PREFIX_2 joined by a veth
#         pair; in each the veth end is called dstd0 (so UCX_NET_DEVICES=dstd0
#         names it on both), with 10.77.0.1/24 in PREFIX_1 and 10.77.0.2/24 in
#         PREFIX_2, and lo up. Exits 77 (skip) when namespaces cannot be made
#         (not root, no ip).
#   down  kills every process left in them and deletes both (and with them
#         the veth pair); never fails.
#
# Names are the caller's: a unique PREFIX per test lets tests run at once
# (each pair has its own 10.77.0.0/24, invisible to the others).
set -u
what=$1
prefix=$2

down() {
  for k in 1 2; do
    ns=${prefix}_$k
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  return 0
}

if [ "$what" = down ]; then
  down
  exit 0
fi

if ! command -v ip >/dev/null 2>&1; then
  echo "netns.sh: skipped: the ip command (iproute2) is not installed" >&2
  exit 77
fi
if ! ip netns add "${prefix}_1" 2>/dev/null; then
  echo "netns.sh: skipped: cannot create network namespaces (needs root: CAP_SYS_ADMIN and CAP_NET_ADMIN)" >&2
  exit 77
fi
fail() {
  echo "netns.sh: $*" >&2
  down
  exit 1
}
ip netns add "${prefix}_2" || fail "cannot create namespace ${prefix}_2"
# Temporary names in the root namespace, unique per caller (at most 15 chars).
tmp=dv$(printf '%s' "$prefix" | cksum | cut -d' ' -f1)
ip link add "${tmp}a" type veth peer name "${tmp}b" || fail "cannot create a veth pair"
for k in 1 2; do
  if [ $k = 1 ]; then end=${tmp}a; else end=${tmp}b; fi
  ns=${prefix}_$k
  ip link set "$end" netns "$ns" || fail "cannot move $end into $ns"
  ip -n "$ns" link set "$end" name dstd0 || fail "cannot rename $end in $ns"
  ip -n "$ns" addr add "10.77.0.$k/24" dev dstd0 || fail "cannot give $ns its address"
  ip -n "$ns" link set dstd0 up || fail "cannot bring up dstd0 in $ns"
  ip -n "$ns" link set lo up || fail "cannot bring up lo in $ns"
done
exit 0
