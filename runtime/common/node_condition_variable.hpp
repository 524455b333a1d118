// The runtime's condition variable: std::condition_variable's interface
// over glibc's pthread_cond_t, for this node's threads only.
//
// Why not std::condition_variable: libdstd serves pthread objects in
// global memory cluster-wide, except when the call comes from libdstd's own
// code (dstd/interpose/route.hpp). The runtime's mutexes are std::mutex,
// whose inline members call pthread from libdstd's code; but
// std::condition_variable's members are compiled into libstdc++, so its
// calls would come from there and a runtime wait (scheduler, transport)
// would take the cluster path, which itself waits through the runtime's
// locks. These members are inline, so their calls are libdstd's.
#pragma once

#include <pthread.h>
#include <time.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace dstd::rt {

class node_condition_variable {
 public:
  using clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC on Linux

  node_condition_variable() noexcept = default;
  node_condition_variable(const node_condition_variable&) = delete;
  node_condition_variable& operator=(const node_condition_variable&) = delete;
  ~node_condition_variable() { pthread_cond_destroy(&c_); }

  void notify_one() noexcept { pthread_cond_signal(&c_); }
  void notify_all() noexcept { pthread_cond_broadcast(&c_); }

  void wait(std::unique_lock<std::mutex>& lk) { pthread_cond_wait(&c_, lk.mutex()->native_handle()); }
  template <class Predicate>
  void wait(std::unique_lock<std::mutex>& lk, Predicate pred) {
    while (!pred()) wait(lk);
  }
  template <class Duration>
  std::cv_status wait_until(std::unique_lock<std::mutex>& lk,
                            const std::chrono::time_point<clock, Duration>& t) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
    const timespec abstime{static_cast<time_t>(ns.count() / 1'000'000'000),
                           static_cast<long>(ns.count() % 1'000'000'000)};
    pthread_cond_clockwait(&c_, lk.mutex()->native_handle(), CLOCK_MONOTONIC, &abstime);
    return clock::now() < t ? std::cv_status::no_timeout : std::cv_status::timeout;
  }
  template <class Rep, class Period>
  std::cv_status wait_for(std::unique_lock<std::mutex>& lk,
                          const std::chrono::duration<Rep, Period>& d) {
    return wait_until(lk, clock::now() + std::chrono::ceil<clock::duration>(d));
  }

 private:
  pthread_cond_t c_ = PTHREAD_COND_INITIALIZER;
};

}  // namespace dstd::rt
