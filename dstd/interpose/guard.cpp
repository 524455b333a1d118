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
// The encoding: "in progress" is 0x100 (libstdc++'s pending byte), and
// done is bit 32, which leaves byte 0, the one the compiler's inline check
// reads, at 0 for good: every use of the static calls in, and each node
// acquires once, the first time it finds the guard done, and then answers
// from its own table (guards_done_here.hpp says why: the inline check could
// pass on a fresh guard page while the object's pages were stale). A guard
// libstdc++ completed before boot (byte 0 is 1, the word is 1) reads as
// done without an acquire: no other node had cached anything then. Guards
// elsewhere (a shared library's statics), and every guard in a one-node
// run, are libstdc++'s, with its inline fast path. Done must be a value
// libstdc++'s guard code never sees, since it reads the low 32 bits with
// its own bits (1 done, 0x100 pending, 0x10000 waiting: 0x10000 made a
// forked child wait forever): where the cluster does not serve a guard it
// built (a forked child, the end of the run), done is answered here.
#include <cxxabi.h>

#include <cstdint>
#include <dstd/atomic>
#include <dstd/bits/call_once.hpp>

#include "dstd/interpose/guards_done_here.hpp"
#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<decltype(__cxxabiv1::__cxa_guard_acquire)> libstdcxx_acquire{
    "__cxa_guard_acquire"};
constinit next_definition<decltype(__cxxabiv1::__cxa_guard_release)> libstdcxx_release{
    "__cxa_guard_release"};
constinit next_definition<decltype(__cxxabiv1::__cxa_guard_abort)> libstdcxx_abort{
    "__cxa_guard_abort"};

constexpr std::uint64_t not_run = 0, in_progress = 0x100, done = std::uint64_t{1} << 32;
constexpr std::uint64_t done_before_boot = 1;  // libstdc++'s

atomic<std::uint64_t>& word_of(__cxxabiv1::__guard* g) {
  static_assert(sizeof(__cxxabiv1::__guard) == sizeof(atomic<std::uint64_t>));
  return *reinterpret_cast<atomic<std::uint64_t>*>(g);
}

detail::once_gate<std::uint64_t> gate(__cxxabiv1::__guard* g) {
  return {word_of(g), not_run, in_progress, done};
}

constinit guards_done_here done_here;

// A guard the cluster finished, seen where the cluster does not serve it
// (this process's own copy of the word: a forked child, the run's end).
bool built_by_cluster(__cxxabiv1::__guard* g) {
  return __atomic_load_n(reinterpret_cast<const std::uint64_t*>(g), __ATOMIC_RELAXED) == done;
}

// __cxa_guard_acquire for a guard the cluster serves: 1 if the caller
// builds the object, 0 if it is built (and this node sees it built).
int cluster_guard_acquire(__cxxabiv1::__guard* g) {
  if (done_here.contains(g)) return 0;
  const std::uint64_t word = word_of(g).load(memory_order_relaxed);
  if (word == done_before_boot) return 0;
  // A message handler (the service thread) cannot acquire: that waits for
  // other nodes, which need this very thread. It uses the static as its
  // node's copy shows it, as the inline check would have let it.
  if (word == done && rt::current_transport()->on_service_thread()) return 0;
  if (gate(g).enter()) return 1;
  done_here.insert(g);
  return 0;
}

}  // namespace

}  // namespace dstd::interpose

namespace __cxxabiv1 {

using dstd::interpose::on_cluster;

extern "C" [[gnu::visibility("default")]] int __cxa_guard_acquire(__guard* g) {
  if (on_cluster(g, __builtin_return_address(0))) return dstd::interpose::cluster_guard_acquire(g);
  if (dstd::interpose::built_by_cluster(g)) return 0;
  const int first = dstd::interpose::libstdcxx_acquire.get()(g);  // 1: this caller builds it
  if (first == 1) dstd::interpose::count_glibc_acquire(0, __builtin_return_address(0));
  return first;
}

extern "C" [[gnu::visibility("default")]] void __cxa_guard_release(__guard* g) noexcept {
  if (on_cluster(g, __builtin_return_address(0))) {
    dstd::interpose::gate(g).finish();
    dstd::interpose::done_here.insert(g);  // built here: this node's copy is the object
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
