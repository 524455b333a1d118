// sem_*: a semaphore the cluster serves (route.hpp) is dstd's
// counting_semaphore (bits/semaphore.hpp: the count in the low bits of a
// home word and a gate in its top two, which waiters take in turn through
// a fair line at the word's home; post releases, a successful wait
// acquires) laid over the first 8 bytes of glibc's sem_t. glibc keeps the
// value in their low 32 bits and its waiter count in the high 32, which is
// 0 when nobody waits: so a semaphore initialized (sem_init, glibc's, kept
// for every semaphore) or used before boot holds its count after it.
#include <errno.h>
#include <semaphore.h>

#include <cstdint>
#include <dstd/atomic>
#include <dstd/sync>

#include "dstd/interpose/deadline.hpp"
#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<int(sem_t*)> glibc_wait{"sem_wait"};
constinit next_definition<int(sem_t*) noexcept> glibc_trywait{"sem_trywait"};
constinit next_definition<int(sem_t*, const timespec*)> glibc_timedwait{"sem_timedwait"};
constinit next_definition<int(sem_t*, clockid_t, const timespec*)> glibc_clockwait{"sem_clockwait"};
constinit next_definition<int(sem_t*) noexcept> glibc_post{"sem_post"};
constinit next_definition<int(sem_t*, int*) noexcept> glibc_getvalue{"sem_getvalue"};

using semaphore = counting_semaphore<>;

semaphore& semaphore_of(sem_t* s) noexcept {
  static_assert(sizeof(semaphore) == 8 && alignof(sem_t) >= 8);
  return *reinterpret_cast<semaphore*>(s);
}

int failed(int error) noexcept {
  errno = error;
  return -1;
}

int timed_wait(sem_t* s, clockid_t clock, const timespec* abstime) {
  if (semaphore_of(s).try_acquire()) return 0;
  std::chrono::steady_clock::time_point until;
  if (!waitable_clock(clock) || !steady_deadline(clock, abstime, until)) return failed(EINVAL);
  return semaphore_of(s).try_acquire_until(until) ? 0 : failed(ETIMEDOUT);
}

}  // namespace

}  // namespace dstd::interpose

using dstd::interpose::on_cluster;
using dstd::interpose::semaphore_of;

extern "C" {

[[gnu::visibility("default")]] int sem_wait(sem_t* s) {
  if (!on_cluster(s, __builtin_return_address(0))) return dstd::interpose::glibc_wait.get()(s);
  semaphore_of(s).acquire();
  return 0;
}

[[gnu::visibility("default")]] int sem_trywait(sem_t* s) {
  if (!on_cluster(s, __builtin_return_address(0))) return dstd::interpose::glibc_trywait.get()(s);
  return semaphore_of(s).try_acquire() ? 0 : dstd::interpose::failed(EAGAIN);
}

[[gnu::visibility("default")]] int sem_timedwait(sem_t* s, const timespec* abstime) {
  if (!on_cluster(s, __builtin_return_address(0))) {
    return dstd::interpose::glibc_timedwait.get()(s, abstime);
  }
  return dstd::interpose::timed_wait(s, CLOCK_REALTIME, abstime);
}

[[gnu::visibility("default")]] int sem_clockwait(sem_t* s, clockid_t clock,
                                                 const timespec* abstime) {
  if (!on_cluster(s, __builtin_return_address(0))) {
    return dstd::interpose::glibc_clockwait.get()(s, clock, abstime);
  }
  return dstd::interpose::timed_wait(s, clock, abstime);
}

[[gnu::visibility("default")]] int sem_post(sem_t* s) {
  if (!on_cluster(s, __builtin_return_address(0))) return dstd::interpose::glibc_post.get()(s);
  semaphore_of(s).release();
  return 0;
}

[[gnu::visibility("default")]] int sem_getvalue(sem_t* s, int* value) {
  if (!on_cluster(s, __builtin_return_address(0))) {
    return dstd::interpose::glibc_getvalue.get()(s, value);
  }
  const std::uint64_t count =
      reinterpret_cast<dstd::atomic<std::uint64_t>*>(s)->load(dstd::memory_order_relaxed);
  *value = static_cast<int>(count & 0x7fffffff);
  return 0;
}

}  // extern "C"
