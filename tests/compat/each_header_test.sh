#!/usr/bin/env bash
# Each C++17/C++20 standard header alone, first in its translation unit,
# with compat/: it compiles, and every replaced type it brings with plain
# libstdc++ (seen in the plain compile's include list, -H) is dstd's. (A
# header first in a TU reaches compat/'s files in an order no other test
# does: <shared_mutex> alone once failed to compile.)
# usage: each_header_test.sh CXX COMPAT_DIR DSTD_INCLUDE_DIR
set -uo pipefail
cxx=$1
compat=$2
include=$3
# libstdc++ header that defines a replaced type -> "std type|dstd type"
declare -A brings=(
  [bits/shared_ptr.h]="std::shared_ptr<int>|dstd::shared_ptr<int>"
  [bits/unique_ptr.h]="std::unique_ptr<int>|dstd::unique_ptr<int>"
  [bits/std_thread.h]="std::thread|dstd::thread"
  [bits/std_mutex.h]="std::mutex|dstd::mutex"
  [bits/atomic_base.h]="std::atomic_flag|dstd::atomic_flag"
  [bits/this_thread_sleep.h]="decltype(&std::this_thread::sleep_for<long, std::ratio<1>>)|decltype(&dstd::this_thread::sleep_for<long, std::ratio<1>>)"
  [atomic]="std::atomic<int>|dstd::atomic<int>"
  [stop_token]="std::stop_token|dstd::stop_token"
  [mutex]="std::recursive_mutex|dstd::recursive_mutex"
  [shared_mutex]="std::shared_mutex|dstd::shared_mutex"
  [semaphore]="std::binary_semaphore|dstd::binary_semaphore"
  [latch]="std::latch|dstd::latch"
  [barrier]="std::barrier<>|dstd::barrier<>"
  [condition_variable]="std::condition_variable|dstd::condition_variable"
)
headers="algorithm any array atomic barrier bit bitset charconv chrono codecvt compare complex
  concepts condition_variable deque exception execution filesystem forward_list fstream
  functional initializer_list iomanip ios iosfwd iostream istream iterator latch limits list
  locale map memory memory_resource mutex new numbers numeric optional ostream queue random
  ranges ratio regex scoped_allocator semaphore set shared_mutex source_location span sstream
  stack stdexcept stop_token streambuf string string_view syncstream system_error thread tuple
  type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector"
[ -f "$compat/future" ] && headers="$headers future"
failures=0
checked=0
for h in $headers; do
  plain_includes=$(echo "#include <$h>" | "$cxx" -std=c++20 -x c++ -H -fsyntax-only - 2>&1 |
                   sed -n 's|^\.\+ .*/c++/[0-9]*/||p')
  src="#include <$h>
#include <type_traits>"
  for defining in "${!brings[@]}"; do
    if grep -qx "$defining" <<<"$plain_includes"; then
      IFS='|' read -r std_type dstd_type <<<"${brings[$defining]}"
      src="$src
static_assert(std::is_same_v<$std_type, $dstd_type>, \"<$h> brings $std_type\");"
      checked=$((checked + 1))
    fi
  done
  if ! out=$(echo "$src" | "$cxx" -std=c++20 -x c++ -isystem "$compat" -I"$include" -fsyntax-only - 2>&1); then
    echo "<$h> alone with compat/:"
    echo "$out" | head -5
    failures=$((failures + 1))
  fi
done
echo "each header alone: $(wc -w <<<"$headers") headers, $checked replaced types they bring checked, $failures failed"
[ $failures -eq 0 ]
