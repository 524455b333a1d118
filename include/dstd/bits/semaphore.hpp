// Internal to <dstd/sync>: counting_semaphore and binary_semaphore.
// release() releases; a successful acquire acquires.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <dstd/atomic>
#include <limits>

namespace dstd {

template <std::ptrdiff_t LeastMaxValue = std::numeric_limits<std::ptrdiff_t>::max()>
class counting_semaphore {
 public:
  static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  constexpr explicit counting_semaphore(std::ptrdiff_t desired)
      : count_(static_cast<std::uint64_t>(desired)) {}
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;

  void release(std::ptrdiff_t update = 1) {
    detail::sync_release();
    count_.fetch_add(static_cast<std::uint64_t>(update), memory_order_relaxed);
    detail::wake_waiters(count_.ptr(), update > 1);
  }
  void acquire() {
    while (!try_acquire()) detail::wait_while_equal(count_.ptr(), 8, 0);
  }
  bool try_acquire() noexcept {
    std::uint64_t c = count_.load(memory_order_relaxed);
    while (c > 0) {
      if (count_.compare_exchange_strong(c, c - 1, memory_order_relaxed)) {
        detail::sync_acquire();
        return true;
      }
    }
    return false;
  }
  template <class Rep, class Period>
  bool try_acquire_for(const std::chrono::duration<Rep, Period>& d) {
    return try_acquire_until(std::chrono::steady_clock::now() + d);
  }
  template <class Clock, class Duration>
  bool try_acquire_until(const std::chrono::time_point<Clock, Duration>& t) {
    const auto deadline = detail::steady_deadline(t);
    while (!try_acquire()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      detail::wait_while_equal_until(count_.ptr(), 8, 0, deadline);
    }
    return true;
  }

 private:
  atomic<std::uint64_t> count_;
};

using binary_semaphore = counting_semaphore<1>;

}  // namespace dstd
