// Which implementation serves a pthread or semaphore object, or a static
// local's guard: glibc's (libstdc++'s for guards), or the cluster's.
//
// Why by address: such an object in the global heap or the executable's
// shared static data is used by threads on every node, and glibc's futex
// is per process; one in node-private memory (libc's, a shared library's
// own data) is only ever this node's. So the cluster serves an object when
// rt::locate() says it is global and this node shares memory with peers
// (rt::sharing_with_peers(): connected to a run of more than one node, not
// before boot, not in a forked child); everything else goes to glibc at
// full speed. A one-node run pays one relaxed load per call.
//
// Why also by caller: every malloc is in the global heap, so the runtime's
// own std::mutex and condition variables (scheduler, transport, waiter
// registry, the cluster futex's own wait table) live there too. They must
// stay glibc's: the cluster path parks through those very locks, and the
// service thread and the fault handler must never wait on another node. A
// call whose return address is in libdstd's own code (or in a library the
// runtime drives, such as UCX) is the runtime's, so it goes to glibc. libdstd is compiled without sibling calls so that a
// return address is always its real caller (cmake/layers.cmake), and its
// condition variables are rt::node_condition_variable, whose calls come
// from libdstd's code (std::condition_variable's come from libstdc++'s).
#pragma once

#include <cstdint>

#include "runtime/common/runtime_libraries.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/sched/held_glibc_locks.hpp"

// The linker's marks for libdstd's own ELF header (its first byte) and the
// end of its code; hidden, so they name libdstd's and not another object's.
extern "C" {
[[gnu::visibility("hidden")]] extern const char __ehdr_start[];
[[gnu::visibility("hidden")]] extern const char etext[];
}

namespace dstd::interpose {

// True when `return_address` is inside libdstd's own code, or a library
// the runtime drives (runtime/common/runtime_libraries.hpp).
inline bool runtime_caller(const void* return_address) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(return_address);
  return (a >= reinterpret_cast<std::uintptr_t>(__ehdr_start) &&
          a < reinterpret_cast<std::uintptr_t>(etext)) ||
         rt::in_runtime_library(a);
}

// A program's lock that glibc served is counted as held by the calling
// dstd thread while it holds it, so that its sleeps do not park
// (runtime/sched/held_glibc_locks.hpp). `result` is glibc's; passed on.
inline int count_glibc_acquire(int result, const void* return_address) noexcept {
  if (result == 0 && !runtime_caller(return_address)) rt::sched::glibc_lock_taken();
  return result;
}
inline int count_glibc_release(int result, const void* return_address) noexcept {
  if (result == 0 && !runtime_caller(return_address)) rt::sched::glibc_lock_released();
  return result;
}

// True when a program's call (not the runtime's) in a run of several nodes.
inline bool program_on_cluster(const void* return_address) noexcept {
  return rt::sharing_with_peers() && !runtime_caller(return_address);
}

// The part of on_cluster() past the one-node check, out of line so that
// every entry point's inline fast path is a load, a test and glibc's call.
[[gnu::noinline]] bool cluster_serves(const void* p, const void* return_address) noexcept;

// True when the object at `p`, used from `return_address`, is the cluster's.
inline bool on_cluster(const void* p, const void* return_address) noexcept {
  return rt::sharing_with_peers() && cluster_serves(p, return_address);
}

}  // namespace dstd::interpose
