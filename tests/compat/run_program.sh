#!/usr/bin/env bash
# One program of tests/compat/programs/, built twice: runs the plain build,
# then the compat/ build through dstdrun at 1, 2 and 4 nodes (each run
# bounded by --timeout), and checks that every run printed exactly what the
# plain build printed and, above one node, that the program's threads ran
# on a node other than 0: its counters (dstdrun --stats=json) show pages
# fetched from the homes there. A node with no thread of the program fetches
# nothing (tests/compat/CMakeLists.txt checks that with a program that
# starts no thread).
# usage: run_program.sh DSTDRUN PLAIN_BUILD COMPAT_BUILD [--no-threads]
set -uo pipefail
dstdrun=$1
plain=$2
compat=$3
expect_threads=yes
[ "${4:-}" = --no-threads ] && expect_threads=no
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! timeout 120 "$plain" >"$work/expected"; then
  echo "the plain build failed (status $?)"
  exit 1
fi
echo "plain: $(head -c 300 "$work/expected")"

for n in 1 2 4; do
  "$dstdrun" -n "$n" --stats=json "$work/stats.$n" --timeout 150 "$compat" >"$work/out.$n" \
    2>"$work/err.$n"
  status=$?
  if [ $status -ne 0 ]; then
    echo "compat build at -n $n: exit status $status"
    cat "$work/err.$n"
    exit 1
  fi
  if ! cmp -s "$work/expected" "$work/out.$n"; then
    echo "compat build at -n $n printed something else than the plain build:"
    diff "$work/expected" "$work/out.$n"
    exit 1
  fi
  # Nodes other than 0 that fetched pages: where the program's threads ran.
  busy=$(grep -cE '"node": [1-9][0-9]*, .*"pages_fetched": [1-9]' "$work/stats.$n")
  echo "compat -n $n: same output; nodes other than 0 that fetched pages: $busy"
  if [ "$n" -gt 1 ] && [ "$expect_threads" = yes ] && [ "$busy" -eq 0 ]; then
    echo "compat build at -n $n: no thread ran on a node other than 0"
    cat "$work/stats.$n"
    exit 1
  fi
  if [ "$expect_threads" = no ] && [ "$busy" -ne 0 ]; then
    echo "compat build at -n $n: a program without threads fetched pages on another node"
    cat "$work/stats.$n"
    exit 1
  fi
done
