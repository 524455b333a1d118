// pthread_rwlock_*: a read-write lock the cluster serves (route.hpp) is
// dstd's shared_timed_mutex (bits/shared_mutex.hpp: a gate that writers,
// and readers that must wait, take in turn through a fair line at the
// word's home, and the reader count, in one home word; locking acquires,
// unlocking releases) laid over the 8 bytes at
// offset 40, glibc's __pad2, which glibc never writes. So glibc's own state
// (and the writer-preference flags pthread_rwlock_init sets) is left
// alone, and a lock initialized before boot starts free after it.
#include <errno.h>
#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/sync>

#include "dstd/interpose/deadline.hpp"
#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<int(pthread_rwlock_t*) noexcept> glibc_rdlock{"pthread_rwlock_rdlock"};
constinit next_definition<int(pthread_rwlock_t*) noexcept> glibc_wrlock{"pthread_rwlock_wrlock"};
constinit next_definition<int(pthread_rwlock_t*) noexcept> glibc_tryrdlock{"pthread_rwlock_tryrdlock"};
constinit next_definition<int(pthread_rwlock_t*) noexcept> glibc_trywrlock{"pthread_rwlock_trywrlock"};
constinit next_definition<int(pthread_rwlock_t*) noexcept> glibc_unlock{"pthread_rwlock_unlock"};
constinit next_definition<int(pthread_rwlock_t*, const timespec*) noexcept> glibc_timedrdlock{"pthread_rwlock_timedrdlock"};
constinit next_definition<int(pthread_rwlock_t*, const timespec*) noexcept> glibc_timedwrlock{"pthread_rwlock_timedwrlock"};
constinit next_definition<int(pthread_rwlock_t*, clockid_t, const timespec*) noexcept> glibc_clockrdlock{"pthread_rwlock_clockrdlock"};
constinit next_definition<int(pthread_rwlock_t*, clockid_t, const timespec*) noexcept> glibc_clockwrlock{"pthread_rwlock_clockwrlock"};

shared_timed_mutex& lock_of(pthread_rwlock_t* l) noexcept {
  static_assert(sizeof(shared_timed_mutex) == 8 &&
                offsetof(pthread_rwlock_t, __data.__pad2) % 8 == 0);
  return *reinterpret_cast<shared_timed_mutex*>(reinterpret_cast<char*>(l) +
                                                offsetof(pthread_rwlock_t, __data.__pad2));
}

// The caller, who holds it, holds it for writing: no readers are in.
bool held_for_writing(pthread_rwlock_t* l) noexcept { return !lock_of(l).held_by_readers(); }

int timed(pthread_rwlock_t* l, bool write, clockid_t clock, const timespec* abstime) {
  shared_timed_mutex& lock = lock_of(l);
  if (write ? lock.try_lock() : lock.try_lock_shared()) return 0;
  std::chrono::steady_clock::time_point until;
  if (!waitable_clock(clock) || !steady_deadline(clock, abstime, until)) return EINVAL;
  const bool taken = write ? lock.try_lock_until(until) : lock.try_lock_shared_until(until);
  return taken ? 0 : ETIMEDOUT;
}

}  // namespace

}  // namespace dstd::interpose

using dstd::interpose::lock_of;
using dstd::interpose::on_cluster;

#define DSTD_CALLER __builtin_return_address(0)

extern "C" {

[[gnu::visibility("default")]] int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_rdlock.get()(l), DSTD_CALLER);
  lock_of(l).lock_shared();
  return 0;
}

[[gnu::visibility("default")]] int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_wrlock.get()(l), DSTD_CALLER);
  lock_of(l).lock();
  return 0;
}

[[gnu::visibility("default")]] int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_tryrdlock.get()(l), DSTD_CALLER);
  return lock_of(l).try_lock_shared() ? 0 : EBUSY;
}

[[gnu::visibility("default")]] int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_trywrlock.get()(l), DSTD_CALLER);
  return lock_of(l).try_lock() ? 0 : EBUSY;
}

[[gnu::visibility("default")]] int pthread_rwlock_timedrdlock(pthread_rwlock_t* l,
                                                              const timespec* abstime) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_timedrdlock.get()(l, abstime), DSTD_CALLER);
  return dstd::interpose::timed(l, false, CLOCK_REALTIME, abstime);
}

[[gnu::visibility("default")]] int pthread_rwlock_timedwrlock(pthread_rwlock_t* l,
                                                              const timespec* abstime) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_timedwrlock.get()(l, abstime), DSTD_CALLER);
  return dstd::interpose::timed(l, true, CLOCK_REALTIME, abstime);
}

[[gnu::visibility("default")]] int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock,
                                                              const timespec* abstime) {
  if (!on_cluster(l, DSTD_CALLER)) {
    return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_clockrdlock.get()(l, clock, abstime), DSTD_CALLER);
  }
  return dstd::interpose::timed(l, false, clock, abstime);
}

[[gnu::visibility("default")]] int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock,
                                                              const timespec* abstime) {
  if (!on_cluster(l, DSTD_CALLER)) {
    return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_clockwrlock.get()(l, clock, abstime), DSTD_CALLER);
  }
  return dstd::interpose::timed(l, true, clock, abstime);
}

[[gnu::visibility("default")]] int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  if (!on_cluster(l, DSTD_CALLER)) return dstd::interpose::count_glibc_release(dstd::interpose::glibc_unlock.get()(l), DSTD_CALLER);
  if (dstd::interpose::held_for_writing(l)) {
    lock_of(l).unlock();
  } else {
    lock_of(l).unlock_shared();
  }
  return 0;
}

}  // extern "C"
