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

  void lock() { take_exclusive(nullptr); }
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

  void lock_shared() { take_shared(nullptr); }
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
  using deadline = std::chrono::steady_clock::time_point;

  // Exclusive: take the word when only `pending` may be set. Untimed
  // writers announce themselves with `pending`; timed ones do not.
  bool take_exclusive(const deadline* until) {
    for (;;) {
      std::uint64_t s = w_.load(memory_order_relaxed);
      if ((s & ~pending) == 0) {
        if (w_.compare_exchange_strong(s, writer, memory_order_relaxed)) break;
        continue;
      }
      if (until == nullptr && (s & pending) == 0) {
        w_.compare_exchange_strong(s, s | pending, memory_order_relaxed);
        continue;
      }
      if (!wait_for_change(s, until)) return false;
    }
    sync_acquire();
    return true;
  }

  // Shared: one more reader, when no writer holds or waits.
  bool take_shared(const deadline* until) {
    for (;;) {
      std::uint64_t s = w_.load(memory_order_relaxed);
      if ((s & (writer | pending)) == 0) {
        if (w_.compare_exchange_strong(s, s + 1, memory_order_relaxed)) break;
        continue;
      }
      if (!wait_for_change(s, until)) return false;
    }
    sync_acquire();
    return true;
  }

 private:
  // Sleeps while the word is `seen`; false once the deadline has passed.
  bool wait_for_change(std::uint64_t seen, const deadline* until) {
    if (until == nullptr) {
      wait_while_equal(w_.ptr(), 8, seen);
      return true;
    }
    if (std::chrono::steady_clock::now() >= *until) return false;
    wait_while_equal_until(w_.ptr(), 8, seen, *until);
    return true;
  }

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
    const deadline until = detail::steady_deadline(t);
    return take_exclusive(&until);
  }
  template <class Rep, class Period>
  bool try_lock_shared_for(const std::chrono::duration<Rep, Period>& d) {
    return try_lock_shared_until(std::chrono::steady_clock::now() + d);
  }
  template <class Clock, class Duration>
  bool try_lock_shared_until(const std::chrono::time_point<Clock, Duration>& t) {
    const deadline until = detail::steady_deadline(t);
    return take_shared(&until);
  }
};

}  // namespace dstd
