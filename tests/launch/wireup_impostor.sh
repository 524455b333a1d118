#!/usr/bin/env bash
# Stands in for a node of a `dstdrun --transport ucx` run and sends dstdrun's
# wire-up server (DSTD_WIREUP, format runtime/transport/wireup/wireup_wire.hpp)
# a hello it must refuse, then prints the refusal it got back:
#   version  node 0 speaks wire-up version 9
#   range    node 0 says it is node 7 of the run
#   twice    every node says it is node 0 (the second to arrive is refused)
# Nodes other than 0 do nothing (but for "twice") and wait to be stopped.
set -u
mode=$1
u32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))\\x$(printf %02x $((($1 >> 16) & 255)))\\x$(printf %02x $((($1 >> 24) & 255)))"; }
hello() {  # version node nodes
  printf 'DSWU'; u32 "$1"; u32 "$2"; u32 "$3"; u32 0
}
id=$DSTD_NODE_ID
nodes=$DSTD_NODE_COUNT
case $mode in
  version) [ "$id" = 0 ] || exec sleep 30; fields=(9 0 "$nodes") ;;
  range) [ "$id" = 0 ] || exec sleep 30; fields=(1 7 "$nodes") ;;
  twice) fields=(1 0 "$nodes") ;;
  *) echo "wireup_impostor: unknown mode $mode" >&2; exit 2 ;;
esac
exec 3<>"/dev/tcp/${DSTD_WIREUP%:*}/${DSTD_WIREUP##*:}" || exit 1
hello "${fields[@]}" >&3  # binary: never through a variable (NUL bytes)
# A refusal is a table of 0 nodes, then the message; an accepted hello
# waits for the whole table, which never comes (the run is stopped).
reply=$(timeout 5 cat <&3 | tail -c +13)  # skip magic, node count (0) and length
echo "node $id got: $reply"
exit 1
