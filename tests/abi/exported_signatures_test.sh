#!/bin/sh
# libdstd's exported functions take and return no std type that compat/
# redefines (docs/DESIGN.md, "The header rule"): with compat/ in front, an
# application's std::unique_ptr is another type than the one libdstd was
# built with, so such a signature could never be called correctly.
# Usage: exported_signatures_test.sh LIBDSTD.so
set -eu
lib=$1
[ -f "$lib" ] || { echo "no library at $lib" >&2; exit 2; }
# Every defined dynamic symbol in namespace dstd, demangled (std's templates
# instantiated for dstd types are not dstd's signatures).
symbols=$(nm -DC --defined-only "$lib" | sed -n 's/^[0-9a-f]* [A-Za-z] //p' | grep '^dstd::' || true)
[ -n "$symbols" ] || { echo "$lib exports no dstd:: symbol: wrong library?" >&2; exit 2; }
redefined='std::(unique_ptr|shared_ptr|weak_ptr|function|thread|jthread|mutex|recursive_mutex|timed_mutex|shared_mutex|atomic|atomic_ref|atomic_flag|condition_variable|future|shared_future|promise|packaged_task|stop_token|stop_source|latch|barrier|counting_semaphore|once_flag)\b'
bad=$(printf '%s\n' "$symbols" | grep -E "$redefined" || true)
if [ -n "$bad" ]; then
  echo "libdstd exports functions whose signatures use std types that compat/ redefines:" >&2
  printf '  %s\n' "$bad" >&2
  exit 1
fi
echo "$(printf '%s\n' "$symbols" | wc -l) dstd:: symbols, none with a std type compat/ redefines"
