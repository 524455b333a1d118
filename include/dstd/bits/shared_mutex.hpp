// Internal to <dstd/sync>: shared_mutex and shared_timed_mutex.
//
// One home word: the writer bit, a "writer waiting" bit that keeps new
// readers out so writers are not starved, and the reader count. Timed
// writers never set the waiting bit (one that gave up would leave it set).
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/atomic>

namespace dstd {

namespace detail {

class basic_shared_mutex {
  static constexpr std::uint64_t writer = std::uint64_t{1} << 63;
  static constexpr std::uint64_t pending = std::uint64_t{1} << 62;
  static constexpr std::uint64_t readers = pending - 1;

 public:
  basic_shared_mutex() noexcept = default;
  basic_shared_mutex(const basic_shared_mutex&) = delete;
  basic_shared_mutex& operator=(const basic_shared_mutex&) = delete;

  void lock() {
    for (;;) {
      std::uint64_t s = w_.load(memory_order_relaxed);
      if ((s & ~pending) == 0) {
        if (w_.compare_exchange_strong(s, writer, memory_order_relaxed)) break;
        continue;
      }
      if ((s & pending) == 0) {
        w_.compare_exchange_strong(s, s | pending, memory_order_relaxed);
        continue;
      }
      wait_while_equal(w_.ptr(), 8, s);
    }
    sync_acquire();
  }
  bool try_lock() noexcept {
    std::uint64_t s = w_.load(memory_order_relaxed);
    if ((s & ~pending) != 0 || !w_.compare_exchange_strong(s, writer, memory_order_relaxed)) {
      return false;
    }
    sync_acquire();
    return true;
  }
  void unlock() {
    sync_release();
    w_.store(0, memory_order_relaxed);
    wake_waiters(w_.ptr(), true);
  }

  void lock_shared() {
    for (;;) {
      std::uint64_t s = w_.load(memory_order_relaxed);
      if ((s & (writer | pending)) == 0) {
        if (w_.compare_exchange_strong(s, s + 1, memory_order_relaxed)) break;
        continue;
      }
      wait_while_equal(w_.ptr(), 8, s);
    }
    sync_acquire();
  }
  bool try_lock_shared() noexcept {
    std::uint64_t s = w_.load(memory_order_relaxed);
    while ((s & (writer | pending)) == 0) {
      if (w_.compare_exchange_strong(s, s + 1, memory_order_relaxed)) {
        sync_acquire();
        return true;
      }
    }
    return false;
  }
  void unlock_shared() {
    sync_release();
    const std::uint64_t s = w_.fetch_sub(1, memory_order_relaxed);
    if ((s & readers) == 1 && (s & pending) != 0) wake_waiters(w_.ptr(), true);
  }

 protected:
  bool lock_until(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      std::uint64_t s = w_.load(memory_order_relaxed);
      if ((s & ~pending) == 0) {
        if (w_.compare_exchange_strong(s, writer, memory_order_relaxed)) break;
        continue;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      wait_while_equal_until(w_.ptr(), 8, s, deadline);
    }
    sync_acquire();
    return true;
  }
  bool lock_shared_until(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      std::uint64_t s = w_.load(memory_order_relaxed);
      if ((s & (writer | pending)) == 0) {
        if (w_.compare_exchange_strong(s, s + 1, memory_order_relaxed)) break;
        continue;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      wait_while_equal_until(w_.ptr(), 8, s, deadline);
    }
    sync_acquire();
    return true;
  }

 private:
  atomic<std::uint64_t> w_{0};
};

}  // namespace detail

class shared_mutex : public detail::basic_shared_mutex {};

class shared_timed_mutex : public detail::basic_shared_mutex {
 public:
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d) {
    return try_lock_until(std::chrono::steady_clock::now() + d);
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t) {
    return lock_until(detail::steady_deadline(t));
  }
  template <class Rep, class Period>
  bool try_lock_shared_for(const std::chrono::duration<Rep, Period>& d) {
    return try_lock_shared_until(std::chrono::steady_clock::now() + d);
  }
  template <class Clock, class Duration>
  bool try_lock_shared_until(const std::chrono::time_point<Clock, Duration>& t) {
    return lock_shared_until(detail::steady_deadline(t));
  }
};

}  // namespace dstd
