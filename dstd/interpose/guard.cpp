// __cxa_guard_acquire/release/abort: a function-local static in shared
// memory is initialized once in the whole run.
//
// Why: the guard of a static local in the executable is in its .bss, which
// dstd shares between nodes (homed at node 0), but libstdc++'s guard waits
// on the process's own futex: two nodes raced the first use and both
// constructed, or one hung. A guard the cluster serves (route.hpp) follows
// the once protocol of dstd::call_once on its 64-bit word
// (detail::once_gate): one caller in the run initializes, the others park
// on the cluster futex and then acquire what it wrote.
//
// The encoding stays libstdc++'s, whose inline check the compiler emits
// before calling here: byte 0 is 1 once initialized (the word is 1),
// "in progress" is 0x100 (libstdc++'s pending byte). So a guard that
// libstdc++ completed before boot reads as done here, and one done here
// passes the inline check. Guards elsewhere (a shared library's statics),
// and every guard in a one-node run, are libstdc++'s.
#include <cxxabi.h>

#include <cstdint>
#include <dstd/atomic>
#include <dstd/bits/call_once.hpp>

#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<decltype(__cxxabiv1::__cxa_guard_acquire)> libstdcxx_acquire{
    "__cxa_guard_acquire"};
constinit next_definition<decltype(__cxxabiv1::__cxa_guard_release)> libstdcxx_release{
    "__cxa_guard_release"};
constinit next_definition<decltype(__cxxabiv1::__cxa_guard_abort)> libstdcxx_abort{
    "__cxa_guard_abort"};

constexpr std::uint64_t not_run = 0, in_progress = 0x100, done = 1;

detail::once_gate<std::uint64_t> gate(__cxxabiv1::__guard* g) {
  static_assert(sizeof(__cxxabiv1::__guard) == sizeof(atomic<std::uint64_t>));
  return {*reinterpret_cast<atomic<std::uint64_t>*>(g), not_run, in_progress, done};
}

}  // namespace

}  // namespace dstd::interpose

namespace __cxxabiv1 {

using dstd::interpose::on_cluster;

extern "C" [[gnu::visibility("default")]] int __cxa_guard_acquire(__guard* g) {
  if (on_cluster(g, __builtin_return_address(0))) return dstd::interpose::gate(g).enter() ? 1 : 0;
  const int first = dstd::interpose::libstdcxx_acquire.get()(g);  // 1: this caller builds it
  if (first == 1) dstd::interpose::count_glibc_acquire(0, __builtin_return_address(0));
  return first;
}

extern "C" [[gnu::visibility("default")]] void __cxa_guard_release(__guard* g) noexcept {
  if (on_cluster(g, __builtin_return_address(0))) {
    dstd::interpose::gate(g).finish();
    return;
  }
  dstd::interpose::libstdcxx_release.get()(g);
  dstd::interpose::count_glibc_release(0, __builtin_return_address(0));
}

extern "C" [[gnu::visibility("default")]] void __cxa_guard_abort(__guard* g) noexcept {
  if (on_cluster(g, __builtin_return_address(0))) {
    dstd::interpose::gate(g).abandon();
    return;
  }
  dstd::interpose::libstdcxx_abort.get()(g);
  dstd::interpose::count_glibc_release(0, __builtin_return_address(0));
}

}  // namespace __cxxabiv1
