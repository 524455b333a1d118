#!/bin/sh
# fake_rsh.sh HOST COMMAND: a stand-in for ssh in the --hosts tests (dstdrun
# --rsh): it ignores HOST and runs COMMAND here with sh, as ssh would run it
# there with the remote user's shell. Every "host" is this machine, which is
# enough to test what dstdrun does with remote nodes: the command line, the
# lifeline, the token, output and supervision.
#
# COMMAND starts with an environment of PATH only, as a fresh login there
# would: what the node gets, it gets through COMMAND.
#
# FAKE_RSH_PIDS=FILE: instead of becoming the node, start it in the
# background, append its pid to FILE and wait for it; the node then does not
# die with dstdrun through PR_SET_PDEATHSIG (only this shell does), as a
# node on another host would not.
shift
if [ -n "$FAKE_RSH_PIDS" ]; then
  env -i PATH=/usr/bin:/bin sh -c "$*" &
  echo $! >> "$FAKE_RSH_PIDS"
  wait $!
  exit $?
fi
exec env -i PATH=/usr/bin:/bin sh -c "$*"
