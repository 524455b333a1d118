// pthread_barrier_wait: a barrier the cluster serves (route.hpp) keeps
// dstd::barrier's state word (bits/latch_barrier.hpp: phase in the high 32
// bits, arrivals in the low 32) in the 8 bytes at offset 0 (glibc's __in
// and __current_round, both 0 after pthread_barrier_init, which stays
// glibc's) and reads the count glibc's init wrote at offset 8. Arriving
// releases; the last arrival starts the next phase and is the serial
// thread; every waiter acquires when its phase is over.
#include <pthread.h>

#include <cstdint>
#include <dstd/atomic>

#include "dstd/interpose/next_definition.hpp"
#include "dstd/interpose/route.hpp"

namespace dstd::interpose {

namespace {

constinit next_definition<int(pthread_barrier_t*) noexcept> glibc_wait{"pthread_barrier_wait"};

atomic<std::uint64_t>& state_of(pthread_barrier_t* b) noexcept {
  return *reinterpret_cast<atomic<std::uint64_t>*>(b);
}

// The count pthread_barrier_init stored (glibc: unsigned int at offset 8),
// read at its home (as a mutex's kind, mutex.cpp).
std::uint64_t count_of(pthread_barrier_t* b) noexcept {
  return reinterpret_cast<atomic<unsigned>*>(reinterpret_cast<char*>(b) + 8)
      ->load(memory_order_relaxed);
}

int wait(pthread_barrier_t* b) {
  constexpr std::uint64_t arrivals = 0xffffffffu;
  atomic<std::uint64_t>& state = state_of(b);
  detail::sync_release();
  const std::uint64_t old = state.fetch_add(1, memory_order_relaxed);
  const std::uint64_t phase = old >> 32;
  if ((old & arrivals) + 1 == count_of(b)) {
    state.store((phase + 1) << 32, memory_order_relaxed);
    detail::wake_waiters(state.ptr(), true);
    detail::sync_acquire();
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  for (std::uint64_t s; ((s = state.load(memory_order_relaxed)) >> 32) == phase;) {
    detail::wait_while_equal(state.ptr(), 8, s);
  }
  detail::sync_acquire();
  return 0;
}

}  // namespace

}  // namespace dstd::interpose

extern "C" [[gnu::visibility("default")]] int pthread_barrier_wait(pthread_barrier_t* b) {
  if (!dstd::interpose::on_cluster(b, __builtin_return_address(0))) {
    return dstd::interpose::glibc_wait.get()(b);
  }
  return dstd::interpose::wait(b);
}
