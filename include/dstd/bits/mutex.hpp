// Internal to <dstd/sync>: mutex, timed_mutex, recursive_mutex,
// recursive_timed_mutex. Locking acquires (docs/DESIGN.md §4); unlocking
// releases. A contended lock parks the dstd thread; the wait queue is at the
// mutex's home.
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/bits/lock_word.hpp>
#include <system_error>

namespace dstd {

namespace detail {

std::uint64_t current_thread_id() noexcept;

// The parts shared by the four mutexes; Recursive counts re-entries.
template <bool Recursive>
class basic_mutex {
 public:
  constexpr basic_mutex() noexcept = default;
  basic_mutex(const basic_mutex&) = delete;
  basic_mutex& operator=(const basic_mutex&) = delete;

  void lock() {
    if (reenter()) return;
    word_.take();
    taken();
  }
  bool try_lock() noexcept {
    if (reenter()) return true;
    if (!word_.try_take()) return false;
    taken();
    return true;
  }
  void unlock() {
    if constexpr (Recursive) {
      if (depth_.fetch_sub(1, memory_order_relaxed) != 1) return;
      owner_.store(0, memory_order_relaxed);
    }
    sync_release();
    word_.give();
  }

 protected:
  template <class Clock, class Duration>
  bool lock_until(const std::chrono::time_point<Clock, Duration>& t) {
    if (reenter()) return true;
    if (!word_.take_until(steady_deadline(t))) return false;
    taken();
    return true;
  }

 private:
  bool reenter() noexcept {
    if constexpr (Recursive) {
      if (owner_.load(memory_order_relaxed) == current_thread_id()) {
        depth_.fetch_add(1, memory_order_relaxed);
        return true;
      }
    }
    return false;
  }
  void taken() noexcept {
    sync_acquire();
    if constexpr (Recursive) {
      owner_.store(current_thread_id(), memory_order_relaxed);
      depth_.store(1, memory_order_relaxed);
    }
  }

  lock_word word_;
  struct none {
    constexpr none(int) noexcept {}
  };
  [[no_unique_address]] std::conditional_t<Recursive, atomic<std::uint64_t>, none> owner_{0};
  [[no_unique_address]] std::conditional_t<Recursive, atomic<std::uint64_t>, none> depth_{0};
};

template <bool Recursive>
class basic_timed_mutex : public basic_mutex<Recursive> {
 public:
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d) {
    return this->lock_until(std::chrono::steady_clock::now() +
                            std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t) {
    return this->lock_until(t);
  }
};

}  // namespace detail

class mutex : public detail::basic_mutex<false> {
 public:
  constexpr mutex() noexcept = default;
};
class recursive_mutex : public detail::basic_mutex<true> {
 public:
  recursive_mutex() noexcept = default;
};
class timed_mutex : public detail::basic_timed_mutex<false> {};
class recursive_timed_mutex : public detail::basic_timed_mutex<true> {};

}  // namespace dstd
