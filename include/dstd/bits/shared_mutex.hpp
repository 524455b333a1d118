// Internal to <dstd/sync>: shared_mutex and shared_timed_mutex.
//
// One home word: a lock state in its low two bits (lock_word.hpp), the
// gate, and the reader count above it. Readers come in with one
// compare-and-swap while the gate is free. A writer takes the gate (one
// compare-and-swap from 0 when the mutex is free), which keeps new readers
// out, and then waits for the readers inside to leave; a reader that finds
// the gate taken takes it too, in turn, just long enough to count itself
// in. So writers, and readers that had to wait, get in in the order of the
// gate's line at the word's home, which hands the gate over fairly
// (runtime/sync/home_mutex.hpp: a waiter is passed over at most
// max_passes times): a node that takes the lock in a loop cannot starve a
// writer or a reader on another node, and readers cannot starve writers.
// A timed taker that gives up leaves the gate's line, or gives the gate
// back, so it leaves nothing behind.
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/bits/lock_word.hpp>

namespace dstd {

namespace detail {

class basic_shared_mutex {
  using gate = lock_bits<0>;
  static constexpr std::uint64_t one_reader = std::uint64_t{1} << 2;

 public:
  basic_shared_mutex() noexcept = default;
  basic_shared_mutex(const basic_shared_mutex&) = delete;
  basic_shared_mutex& operator=(const basic_shared_mutex&) = delete;

  void lock() { take_exclusive(nullptr); }
  bool try_lock() noexcept {
    std::uint64_t s = 0;  // no readers, gate free
    if (!w_.compare_exchange_strong(s, gate::held, memory_order_relaxed)) return false;
    sync_acquire();
    return true;
  }
  void unlock() {
    sync_release();
    gate::give(w_, 0);
  }

  void lock_shared() { take_shared(nullptr); }
  bool try_lock_shared() noexcept {
    if (!enter_as_reader()) return false;
    sync_acquire();
    return true;
  }
  void unlock_shared() {
    sync_release();
    const std::uint64_t s = w_.fetch_sub(one_reader, memory_order_relaxed);
    // The last reader out lets in a writer waiting with the gate.
    if (s / one_reader == 1 && !gate::is_free(s)) wake_waiters(w_.ptr(), true);
  }

  // For pthread_rwlock_unlock, which does not say how its caller holds the
  // lock: while readers are in, the caller is one of them.
  bool held_by_readers() const noexcept { return w_.load(memory_order_relaxed) >= one_reader; }

 protected:
  using deadline = std::chrono::steady_clock::time_point;

  // Exclusive: the gate, then the readers still inside gone.
  bool take_exclusive(const deadline* until) {
    if (!gate::take(w_, 0, until)) return false;
    for (;;) {
      const std::uint64_t s = w_.load(memory_order_relaxed);
      if (s < one_reader) break;
      if (!wait_for_change(w_.ptr(), s, until)) {
        gate::give(w_, 0);
        return false;
      }
    }
    sync_acquire();
    return true;
  }

  // Shared: one more reader, at once while the gate is free, else after
  // taking the gate in turn.
  bool take_shared(const deadline* until) {
    if (!enter_as_reader()) {
      if (!gate::take(w_, 0, until)) return false;
      const std::uint64_t s = w_.fetch_add(one_reader, memory_order_relaxed);
      gate::give(w_, s + one_reader);
    }
    sync_acquire();
    return true;
  }

 private:
  // One compare-and-swap when nobody is inside.
  bool enter_as_reader() noexcept {
    std::uint64_t s = 0;
    while (gate::is_free(s)) {
      if (w_.compare_exchange_strong(s, s + one_reader, memory_order_relaxed)) return true;
    }
    return false;
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
