// How many of the program's locks served by glibc the calling dstd thread
// holds: counted by the interposer (dstd/interpose/route.hpp), read by the
// sleep family (sleep_shim.cpp).
//
// Why: a dstd thread that sleeps parks, so its worker runs other threads.
// But a thread that waits for a lock glibc serves (a std::mutex in a
// one-node run, a static local's guard, a lock in node-private memory)
// blocks its worker in the kernel; if the sleeper holds that lock and is
// bound to the same worker, it can never resume to release it (a slow
// singleton's constructor that sleeps hung its run at one node). So a
// thread holding such a lock sleeps in the kernel, as with std::thread,
// and keeps its worker until it wakes.
//
// Per dstd thread, since thread_local is (fiber_tls.hpp); initial-exec, as
// libdstd is loaded with the program, so a count costs one instruction.
#pragma once

namespace dstd::rt::sched {

[[gnu::tls_model("initial-exec")]] inline thread_local int glibc_locks_held = 0;

inline void glibc_lock_taken() noexcept { ++glibc_locks_held; }
// A lock released by another thread than its holder (undefined for a
// mutex, allowed for nothing counted here) cannot push the count negative.
inline void glibc_lock_released() noexcept {
  if (glibc_locks_held > 0) --glibc_locks_held;
}
inline bool holds_glibc_lock() noexcept { return glibc_locks_held > 0; }

}  // namespace dstd::rt::sched
