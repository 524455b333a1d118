#!/usr/bin/env bash
# libdstd's own code never reaches an interposed sync function by a tail
# call (a jmp): the interposer tells the runtime's locks from the program's
# by the return address (dstd/interpose/route.hpp), and after a tail call
# that would be libdstd's caller's. cmake/layers.cmake compiles the runtime
# with -fno-optimize-sibling-calls; this checks the built library.
# Usage: no_sync_tail_calls.sh path/to/libdstd.so
set -euo pipefail
lib="$1"
jumps=$(objdump -d --no-show-raw-insn "$lib" |
        grep -E 'jmp +[0-9a-f]+ <(pthread_(mutex|cond|rwlock|once|barrier|spin)_?[a-z]*|sem_[a-z]+|__cxa_guard_[a-z]+)(@plt)?>' || true)
if [ -n "$jumps" ]; then
  echo "FAIL: libdstd reaches interposed sync functions by tail calls:"
  echo "$jumps" | sed 's/^/  /'
  exit 1
fi
echo "no tail calls to interposed sync functions in $lib"
