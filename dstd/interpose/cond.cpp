// pthread_cond_*: a condition variable the cluster serves (route.hpp) is
// dstd's (bits/condition_variable.hpp: a sequence word that a signal bumps
// after a release; a waiter reads it, unlocks, parks on the cluster futex
// while it is unchanged, relocks). The sequence is the 8 bytes at offset 0
// (glibc's __wseq): any starting value works, so a variable initialized or
// used before boot works after it. The waiter's mutex is unlocked and
// relocked as the waiter's own call would (mutex_route.hpp), so a global
// condition variable with a node-private mutex works.
//
// The reverse, a node-private condition variable waited on with a mutex the
// cluster serves, cannot use glibc's wait: glibc would unlock the mutex
// with its own internal call, not through the cluster. Such a waiter waits
// on a node-private sequence word picked by the variable's address instead
// (a small table, so unrelated variables may share one: a spurious wake-up,
// which POSIX allows), and while this node shares memory with peers every
// program signal of a node-private variable also bumps that word. The
// runtime's own condition variables (rt::node_condition_variable) never
// come here: their calls are libdstd's.
#include <errno.h>
#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/sync>

#include "dstd/interpose/deadline.hpp"
#include "dstd/interpose/mutex_route.hpp"
#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<int(pthread_cond_t*) noexcept> glibc_signal{"pthread_cond_signal"};
constinit next_definition<int(pthread_cond_t*) noexcept> glibc_broadcast{"pthread_cond_broadcast"};
constinit next_definition<int(pthread_cond_t*, pthread_mutex_t*)> glibc_wait{"pthread_cond_wait"};
constinit next_definition<int(pthread_cond_t*, pthread_mutex_t*, const timespec*)> glibc_timedwait{
    "pthread_cond_timedwait"};
constinit next_definition<int(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*)> glibc_clockwait{"pthread_cond_clockwait"};

detail::notify_sequence& sequence_of(pthread_cond_t* c) noexcept {
  static_assert(sizeof(detail::notify_sequence) == 8 && offsetof(pthread_cond_t, __data) == 0);
  return *reinterpret_cast<detail::notify_sequence*>(c);
}

// Node-private sequences for node-private variables waited on with a
// cluster mutex (see the top of this file).
constexpr std::size_t shadows = 64;
detail::notify_sequence shadow[shadows];

detail::notify_sequence& shadow_of(const pthread_cond_t* c) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(c) / alignof(pthread_cond_t);
  return shadow[(a ^ (a >> 6)) % shadows];
}

// The waiter's mutex, unlocked and relocked as its own call would.
struct callers_mutex {
  pthread_mutex_t* m;
  const void* caller;
  void lock() { lock_mutex_for(m, caller); }
  void unlock() { unlock_mutex_for(m, caller); }
};

// The cluster's wait on `seq` (until `until` when not null): 0 or ETIMEDOUT.
int wait_on(detail::notify_sequence& seq, callers_mutex lock,
            const std::chrono::steady_clock::time_point* until) {
  const std::uint64_t seen = seq.current();
  if (until == nullptr) {
    seq.wait(lock, seen);
    return 0;
  }
  return seq.wait_until(lock, seen, *until) == detail::cv_timeout ? ETIMEDOUT : 0;
}

// Which wait serves a waiter, or nullptr for glibc's.
detail::notify_sequence* cluster_sequence(pthread_cond_t* c, pthread_mutex_t* m,
                                          const void* caller) noexcept {
  if (!program_on_cluster(caller)) return nullptr;
  if (rt::locate(c).global) return &sequence_of(c);
  if (mutex_on_cluster(m, caller)) return &shadow_of(c);
  return nullptr;
}

// The clock pthread_cond_timedwait measures against: the one
// pthread_condattr_setclock gave pthread_cond_init, which glibc keeps in
// bit 1 of __wrefs (set: CLOCK_MONOTONIC; bit 0 is process-shared). Read
// at its home, as a mutex's kind (mutex.cpp).
clockid_t clock_of(pthread_cond_t* c) noexcept {
  static_assert(offsetof(pthread_cond_t, __data.__wrefs) == 36);
  const auto& wrefs = *reinterpret_cast<const atomic<unsigned>*>(reinterpret_cast<char*>(c) + 36);
  return (wrefs.load(memory_order_relaxed) & 2) != 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

int cluster_timed_wait(detail::notify_sequence& seq, callers_mutex lock, clockid_t clock,
                       const timespec* abstime) {
  std::chrono::steady_clock::time_point until;
  if (!waitable_clock(clock) || !steady_deadline(clock, abstime, until)) return EINVAL;
  return wait_on(seq, lock, &until);
}

int notify(pthread_cond_t* c, bool all, const void* caller) {
  if (program_on_cluster(caller)) {
    if (rt::locate(c).global) {
      sequence_of(c).notify(all);
      return 0;
    }
    shadow_of(c).notify(true);  // shared by other variables: wake all
  }
  return all ? glibc_broadcast.get()(c) : glibc_signal.get()(c);
}

}  // namespace

}  // namespace dstd::interpose

extern "C" {

[[gnu::visibility("default")]] int pthread_cond_signal(pthread_cond_t* c) {
  return dstd::interpose::notify(c, false, __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_cond_broadcast(pthread_cond_t* c) {
  return dstd::interpose::notify(c, true, __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  const void* caller = __builtin_return_address(0);
  dstd::detail::notify_sequence* seq = dstd::interpose::cluster_sequence(c, m, caller);
  if (seq == nullptr) return dstd::interpose::glibc_wait.get()(c, m);
  return dstd::interpose::wait_on(*seq, {m, caller}, nullptr);
}

[[gnu::visibility("default")]] int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                                          const timespec* abstime) {
  const void* caller = __builtin_return_address(0);
  dstd::detail::notify_sequence* seq = dstd::interpose::cluster_sequence(c, m, caller);
  if (seq == nullptr) return dstd::interpose::glibc_timedwait.get()(c, m, abstime);
  return dstd::interpose::cluster_timed_wait(*seq, {m, caller}, dstd::interpose::clock_of(c),
                                             abstime);
}

[[gnu::visibility("default")]] int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m,
                                                          clockid_t clock,
                                                          const timespec* abstime) {
  const void* caller = __builtin_return_address(0);
  dstd::detail::notify_sequence* seq = dstd::interpose::cluster_sequence(c, m, caller);
  if (seq == nullptr) return dstd::interpose::glibc_clockwait.get()(c, m, clock, abstime);
  return dstd::interpose::cluster_timed_wait(*seq, {m, caller}, clock, abstime);
}

}  // extern "C"
