// pthread_mutex_*: see mutex_route.hpp.
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

namespace dstd::detail {
std::uint64_t current_thread_id() noexcept;
}

namespace dstd::interpose {

namespace {

constinit next_definition<int(pthread_mutex_t*) noexcept> glibc_lock{"pthread_mutex_lock"};
constinit next_definition<int(pthread_mutex_t*) noexcept> glibc_trylock{"pthread_mutex_trylock"};
constinit next_definition<int(pthread_mutex_t*) noexcept> glibc_unlock{"pthread_mutex_unlock"};
constinit next_definition<int(pthread_mutex_t*, const timespec*) noexcept> glibc_timedlock{"pthread_mutex_timedlock"};
constinit next_definition<int(pthread_mutex_t*, clockid_t, const timespec*) noexcept> glibc_clocklock{"pthread_mutex_clocklock"};

enum class kind { normal, recursive, errorcheck, glibc_only };

// glibc's __kind: the type in the low bits, then robust (16), priority
// inheritance (32) and protection (64) flags; higher bits (process-shared,
// lock elision) do not change what the cluster does. Read at its home, not
// through this node's copy of the page: each lock acquires, which may
// invalidate that copy, and a plain read would fetch the page again every
// time (15 µs per lock+unlock of a mutex homed elsewhere, against 0.2).
kind kind_of(const pthread_mutex_t* m) noexcept {
  static_assert(offsetof(pthread_mutex_t, __data.__kind) == 16);
  const auto& word = *reinterpret_cast<const atomic<int>*>(reinterpret_cast<const char*>(m) + 16);
  const int k = word.load(memory_order_relaxed) & 127;
  switch (k) {
    case PTHREAD_MUTEX_NORMAL:
    case PTHREAD_MUTEX_ADAPTIVE_NP:
      return kind::normal;
    case PTHREAD_MUTEX_RECURSIVE:
      return kind::recursive;
    case PTHREAD_MUTEX_ERRORCHECK:
      return kind::errorcheck;
    default:
      return kind::glibc_only;
  }
}

template <class T>
T& at_offset(pthread_mutex_t* m, std::size_t offset) noexcept {
  return *reinterpret_cast<T*>(reinterpret_cast<char*>(m) + offset);
}

// dstd's timed_mutex is its lock word at offset 0 (plus empty members that
// take no bytes it ever touches).
timed_mutex& lock_of(pthread_mutex_t* m) noexcept {
  static_assert(sizeof(timed_mutex) <= 16 && offsetof(pthread_mutex_t, __data.__lock) == 0);
  return at_offset<timed_mutex>(m, 0);
}
atomic<std::uint64_t>& owner_of(pthread_mutex_t* m) noexcept {
  static_assert(offsetof(pthread_mutex_t, __data.__owner) == 8);
  return at_offset<atomic<std::uint64_t>>(m, 8);
}
atomic<std::uint64_t>& depth_of(pthread_mutex_t* m) noexcept {
  static_assert(offsetof(pthread_mutex_t, __data.__list) == 24);
  return at_offset<atomic<std::uint64_t>>(m, 24);
}

// Routing: the entry points below inline the one-node check
// (sharing_with_peers), a one-node run pays it on top of glibc's call.
[[gnu::noinline]] bool served_here(const pthread_mutex_t* m, const void* return_address) noexcept {
  return cluster_serves(m, return_address) && kind_of(m) != kind::glibc_only;
}
inline bool on_cluster_here(const pthread_mutex_t* m, const void* return_address) noexcept {
  return rt::sharing_with_peers() && served_here(m, return_address);
}

// The cluster's lock: blocking (until == nullptr), a try (try_only: no
// wait, and the word is not marked waited for), or until a time.
int lock_cluster(pthread_mutex_t* m, bool try_only,
                 const std::chrono::steady_clock::time_point* until) {
  const kind k = kind_of(m);
  const std::uint64_t me = k == kind::normal ? 0 : detail::current_thread_id();
  if (k != kind::normal && owner_of(m).load(memory_order_relaxed) == me) {
    if (k == kind::errorcheck) return EDEADLK;
    depth_of(m).fetch_add(1, memory_order_relaxed);
    return 0;
  }
  timed_mutex& lock = lock_of(m);
  if (try_only) {
    if (!lock.try_lock()) return EBUSY;
  } else if (until == nullptr) {
    lock.lock();
  } else if (!lock.try_lock_until(*until)) {
    return ETIMEDOUT;
  }
  if (k != kind::normal) {
    owner_of(m).store(me, memory_order_relaxed);
    depth_of(m).store(1, memory_order_relaxed);
  }
  return 0;
}

// As glibc: the deadline is checked only if the lock is not free.
int timed_lock(pthread_mutex_t* m, clockid_t clock, const timespec* abstime) {
  const int now = lock_cluster(m, true, nullptr);
  if (now != EBUSY) return now;
  std::chrono::steady_clock::time_point until;
  if (!waitable_clock(clock) || !steady_deadline(clock, abstime, until)) return EINVAL;
  return lock_cluster(m, false, &until);
}

}  // namespace

bool mutex_on_cluster(const pthread_mutex_t* m, const void* return_address) noexcept {
  return on_cluster_here(m, return_address);
}

[[gnu::noinline]] int cluster_mutex_lock(pthread_mutex_t* m,
                                       const std::chrono::steady_clock::time_point* until) {
  return lock_cluster(m, false, until);
}

[[gnu::noinline]] int cluster_mutex_unlock(pthread_mutex_t* m) {
  if (kind_of(m) != kind::normal) {
    if (owner_of(m).load(memory_order_relaxed) != detail::current_thread_id()) return EPERM;
    if (depth_of(m).fetch_sub(1, memory_order_relaxed) != 1) return 0;
    owner_of(m).store(0, memory_order_relaxed);
  }
  lock_of(m).unlock();
  return 0;
}

namespace {

// Counted before glibc's call, which can then be a tail call (a count
// after it cost 2–3 ns per lock+unlock at one node): lock fails only on a
// program error (a relock of an error-checking mutex, a recursion count
// overflow), unlock only on one too (not the owner), and a count off by one
// after such an error only changes whether that thread's sleeps park.
[[gnu::always_inline]] inline int lock_for(pthread_mutex_t* m, const void* return_address) {
  if (on_cluster_here(m, return_address)) return cluster_mutex_lock(m, nullptr);
  count_glibc_acquire(0, return_address);
  return glibc_lock.get()(m);
}

[[gnu::always_inline]] inline int unlock_for(pthread_mutex_t* m, const void* return_address) {
  if (on_cluster_here(m, return_address)) return cluster_mutex_unlock(m);
  count_glibc_release(0, return_address);
  return glibc_unlock.get()(m);
}

}  // namespace

int lock_mutex_for(pthread_mutex_t* m, const void* return_address) {
  return lock_for(m, return_address);
}

int unlock_mutex_for(pthread_mutex_t* m, const void* return_address) {
  return unlock_for(m, return_address);
}

}  // namespace dstd::interpose

using dstd::interpose::on_cluster_here;

extern "C" {

[[gnu::visibility("default")]] int pthread_mutex_lock(pthread_mutex_t* m) {
  return dstd::interpose::lock_for(m, __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_mutex_unlock(pthread_mutex_t* m) {
  return dstd::interpose::unlock_for(m, __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_mutex_trylock(pthread_mutex_t* m) {
  if (on_cluster_here(m, __builtin_return_address(0))) return dstd::interpose::lock_cluster(m, true, nullptr);
  return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_trylock.get()(m),
                                              __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_mutex_timedlock(pthread_mutex_t* m,
                                                           const timespec* abstime) {
  if (on_cluster_here(m, __builtin_return_address(0))) {
    return dstd::interpose::timed_lock(m, CLOCK_REALTIME, abstime);
  }
  return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_timedlock.get()(m, abstime),
                                              __builtin_return_address(0));
}

[[gnu::visibility("default")]] int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                                           const timespec* abstime) {
  if (on_cluster_here(m, __builtin_return_address(0))) {
    return dstd::interpose::timed_lock(m, clock, abstime);
  }
  return dstd::interpose::count_glibc_acquire(
      dstd::interpose::glibc_clocklock.get()(m, clock, abstime), __builtin_return_address(0));
}

}  // extern "C"
