#!/bin/sh
# netns_mpirun_test.sh MPIRUN N PROGRAM [ARGS...]
#
# mpirun_test.sh across two "hosts": network namespaces made by
# netns_hosts.sh for this run (N/2 processes each, mpirun's daemons
# started in them through its rsh agent), removed at the end. UCX and
# Open MPI's daemons use only the namespaces' link. Exits 77 (CTest's
# skip) where namespaces cannot be made (not root).
#
# Why: across hosts nothing is shared but the file system: no loopback, no
# same network stack. The wire-up (PMIx's fence between two daemons), UCX's
# connections and the failure detection then cross a real link.
# NODE_FAULT_LINK names the namespaces' interface for node_fault link_down.
# Open MPI's keepalive on its own connections (defaults: first probe after
# 300 s) is what lets mpirun see a daemon whose host dropped off; the dstd
# nodes see it through their lifelines (peer_lifelines.hpp) in about 3 s
# either way, and mpirun waits for its daemons before it exits.
here=$(dirname "$0")
mpirun=$1
n=$2
shift 2
id=$$
subnet="10.231.$((id % 200 + 20))"
cleanup() { "$here/netns_hosts.sh" down "$id" 2 >/dev/null 2>&1; }
if ! "$here/netns_hosts.sh" up "$id" 2 2>/dev/null; then
  cleanup
  echo "netns_mpirun_test.sh: cannot make network namespaces here (needs root): skipped"
  exit 77
fi
trap cleanup EXIT
trap 'exit 143' TERM INT
per_host=$((n / 2))
"$here/mpirun_test.sh" "$mpirun" "$n" \
  --mca plm_rsh_agent "$here/netns_hosts.sh agent" \
  --mca oob_tcp_if_include "$subnet.0/24" \
  --mca oob_tcp_keepalive_time 1 --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 2 \
  --host "$subnet.1:$per_host,$subnet.2:$((n - per_host))" \
  -x UCX_NET_DEVICES=dstd0 -x NODE_FAULT_LINK=dstd0 "$@"
