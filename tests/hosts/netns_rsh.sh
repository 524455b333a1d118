#!/bin/sh
# netns_rsh.sh PREFIX HOST COMMAND: dstdrun's --rsh for the namespaces of
# netns.sh: host 10.77.0.K is namespace PREFIX_K. Runs COMMAND there with sh,
# as ssh HOST COMMAND would, with an environment of PATH only (what the node
# gets, it gets through COMMAND). Use as --rsh "netns_rsh.sh PREFIX".
prefix=$1
host=$2
shift 2
case "$host" in
  10.77.0.[0-9]*) ;;
  *) echo "netns_rsh.sh: unknown host $host (expected 10.77.0.K)" >&2; exit 255;;
esac
exec ip netns exec "${prefix}_${host##*.}" env -i PATH=/usr/bin:/bin sh -c "$*"
