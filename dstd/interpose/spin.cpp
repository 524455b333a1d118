// pthread_spin_*: a spin lock the cluster serves (route.hpp) is its 4-byte
// word taken with a compare-and-swap at its home, in glibc's x86 encoding
// (pthread_spin_init, kept glibc's, stores 1 for free; glibc's lock
// decrements it, so held is 0 or below): 1 -> 0 takes it and acquires,
// unlock releases and stores 1. A caller that finds it held parks on the
// cluster futex until the word changes (unlock wakes one). glibc's spin
// lock would spin on this node's cached copy of the word forever.
#include <errno.h>
#include <pthread.h>

#include <dstd/atomic>

#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<int(pthread_spinlock_t*) noexcept> glibc_lock{"pthread_spin_lock"};
constinit next_definition<int(pthread_spinlock_t*) noexcept> glibc_trylock{"pthread_spin_trylock"};
constinit next_definition<int(pthread_spinlock_t*) noexcept> glibc_unlock{"pthread_spin_unlock"};

atomic<int>& word_of(pthread_spinlock_t* s) noexcept {
  static_assert(sizeof(pthread_spinlock_t) == sizeof(atomic<int>));
  return *reinterpret_cast<atomic<int>*>(const_cast<int*>(s));
}

constexpr int free_value = 1, held_value = 0;

// False with the value it saw when the lock is held.
bool try_take(pthread_spinlock_t* s, int& seen) noexcept {
  seen = free_value;
  return word_of(s).compare_exchange_strong(seen, held_value, memory_order_acquire,
                                            memory_order_relaxed);
}

}  // namespace

}  // namespace dstd::interpose

using dstd::interpose::on_cluster;

extern "C" {

[[gnu::visibility("default")]] int pthread_spin_lock(pthread_spinlock_t* s) {
  if (!on_cluster(const_cast<int*>(s), __builtin_return_address(0))) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_lock.get()(s),
                                         __builtin_return_address(0));
  for (int seen; !dstd::interpose::try_take(s, seen);) {
    dstd::interpose::word_of(s).wait(seen, dstd::memory_order_relaxed);
  }
  return 0;
}

[[gnu::visibility("default")]] int pthread_spin_trylock(pthread_spinlock_t* s) {
  if (!on_cluster(const_cast<int*>(s), __builtin_return_address(0))) return dstd::interpose::count_glibc_acquire(dstd::interpose::glibc_trylock.get()(s),
                                         __builtin_return_address(0));
  int seen;
  return dstd::interpose::try_take(s, seen) ? 0 : EBUSY;
}

[[gnu::visibility("default")]] int pthread_spin_unlock(pthread_spinlock_t* s) {
  if (!on_cluster(const_cast<int*>(s), __builtin_return_address(0))) return dstd::interpose::count_glibc_release(dstd::interpose::glibc_unlock.get()(s),
                                         __builtin_return_address(0));
  dstd::interpose::word_of(s).store(dstd::interpose::free_value, dstd::memory_order_release);
  dstd::interpose::word_of(s).notify_one();
  return 0;
}

}  // extern "C"
