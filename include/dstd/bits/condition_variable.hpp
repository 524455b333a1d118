// Internal to <dstd/sync>: condition_variable and condition_variable_any.
//
// A sequence word at the variable's home: notify bumps it (after a release)
// and wakes; wait reads it, unlocks, and sleeps while it is unchanged, so a
// notify between the unlock and the sleep is never missed. Spurious
// wake-ups are possible, as std allows.
//
// Fair without more: a notify wakes the oldest waiter (the futex's queue
// at the word's home), and the woken waiter relocks through the mutex's
// line at its home, where a node that re-takes the mutex in a loop passes
// it over at most max_passes times (runtime/sync/home_mutex.hpp;
// tests/sync/handover_test.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/bits/mutex.hpp>
#include <dstd/bits/std_parts.hpp>
#include <dstd/stop_token>
#include <utility>
#include <vector>

namespace dstd {

using std::cv_status;

namespace detail {

class notify_sequence {
 public:
  void notify(bool all) noexcept {
    sync_release();
    seq_.fetch_add(1, memory_order_relaxed);
    wake_waiters(seq_.ptr(), all);
  }
  // Unlocks `lock` while waiting for a notify after `seen`; relocks.
  template <class Lock>
  void wait(Lock& lock, std::uint64_t seen) {
    lock.unlock();
    wait_while_equal(seq_.ptr(), 8, seen);
    lock.lock();
  }
  template <class Lock>
  cv_status wait_until(Lock& lock, std::uint64_t seen, std::chrono::steady_clock::time_point t) {
    lock.unlock();
    wait_while_equal_until(seq_.ptr(), 8, seen, t);
    lock.lock();
    return std::chrono::steady_clock::now() < t ? detail::cv_no_timeout : detail::cv_timeout;
  }
  std::uint64_t current() const noexcept { return seq_.load(memory_order_relaxed); }

 private:
  atomic<std::uint64_t> seq_{0};
};

}  // namespace detail

template <class Lock>
class basic_condition_variable {
 public:
  basic_condition_variable() noexcept = default;
  basic_condition_variable(const basic_condition_variable&) = delete;
  basic_condition_variable& operator=(const basic_condition_variable&) = delete;

  void notify_one() noexcept { seq_.notify(false); }
  void notify_all() noexcept { seq_.notify(true); }

  template <class L = Lock>
  void wait(L& lock) {
    seq_.wait(lock, seq_.current());
  }
  template <class L = Lock, class Predicate>
  void wait(L& lock, Predicate pred) {
    while (!pred()) wait(lock);
  }
  template <class L = Lock, class Clock, class Duration>
  cv_status wait_until(L& lock, const std::chrono::time_point<Clock, Duration>& t) {
    return seq_.wait_until(lock, seq_.current(), detail::steady_deadline(t));
  }
  template <class L = Lock, class Clock, class Duration, class Predicate>
  bool wait_until(L& lock, const std::chrono::time_point<Clock, Duration>& t, Predicate pred) {
    while (!pred()) {
      if (wait_until(lock, t) == detail::cv_timeout) return pred();
    }
    return true;
  }
  template <class L = Lock, class Rep, class Period>
  cv_status wait_for(L& lock, const std::chrono::duration<Rep, Period>& d) {
    return wait_until(lock, std::chrono::steady_clock::now() +
                                std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  template <class L = Lock, class Rep, class Period, class Predicate>
  bool wait_for(L& lock, const std::chrono::duration<Rep, Period>& d, Predicate pred) {
    return wait_until(lock,
                      std::chrono::steady_clock::now() +
                          std::chrono::ceil<std::chrono::steady_clock::duration>(d),
                      std::move(pred));
  }

  // condition_variable_any's interruptible waits (C++20), with dstd's stop
  // tokens: a stop request wakes the waiter.
  template <class L, class Predicate>
  bool wait(L& lock, stop_token st, Predicate pred) {
    stop_callback wake_on_stop(st, [this] { notify_all(); });
    while (!pred()) {
      const std::uint64_t seen = seq_.current();
      if (st.stop_requested()) return pred();
      seq_.wait(lock, seen);
    }
    return true;
  }
  template <class L, class Clock, class Duration, class Predicate>
  bool wait_until(L& lock, stop_token st, const std::chrono::time_point<Clock, Duration>& t,
                  Predicate pred) {
    stop_callback wake_on_stop(st, [this] { notify_all(); });
    const auto deadline = detail::steady_deadline(t);
    while (!pred()) {
      const std::uint64_t seen = seq_.current();
      if (st.stop_requested()) return pred();
      if (seq_.wait_until(lock, seen, deadline) == detail::cv_timeout) return pred();
    }
    return true;
  }
  template <class L, class Rep, class Period, class Predicate>
  bool wait_for(L& lock, stop_token st, const std::chrono::duration<Rep, Period>& d,
                Predicate pred) {
    return wait_until(lock, std::move(st), std::chrono::steady_clock::now() + d,
                      std::move(pred));
  }

 private:
  detail::notify_sequence seq_;
};

// std::condition_variable waits with a unique_lock<mutex> only; the _any
// variant with any lockable.
class condition_variable : public basic_condition_variable<std::unique_lock<mutex>> {
 public:
  void wait(std::unique_lock<mutex>& lock) { basic_condition_variable::wait(lock); }
  template <class Predicate>
  void wait(std::unique_lock<mutex>& lock, Predicate pred) {
    basic_condition_variable::wait(lock, std::move(pred));
  }
  using basic_condition_variable::wait_for;
  using basic_condition_variable::wait_until;
};

class condition_variable_any : public basic_condition_variable<std::unique_lock<mutex>> {};

namespace detail {

// The calling thread's notify_all_at_thread_exit requests, carried out
// when its thread_locals are destroyed (a dstd thread's before join()
// returns): each lock is released and its variable notified, in the order
// of the calls. As in libstdc++, thread_locals constructed after the first
// request are destroyed before this runs, earlier ones after.
class exit_notifications {
 public:
  exit_notifications() = default;
  exit_notifications(const exit_notifications&) = delete;
  exit_notifications& operator=(const exit_notifications&) = delete;
  ~exit_notifications() {
    for (entry& e : entries_) {
      e.lock.unlock();
      e.cv->notify_all();
    }
  }
  void add(condition_variable& cv, std::unique_lock<mutex> lock) {
    entries_.push_back(entry{&cv, std::move(lock)});
  }

 private:
  struct entry {
    condition_variable* cv;
    std::unique_lock<mutex> lock;
  };
  std::vector<entry> entries_;
};

inline thread_local exit_notifications exit_notifications_of_this_thread;

}  // namespace detail

// std::notify_all_at_thread_exit: the lock stays held until the calling
// thread ends; then it is released and cond notified. lock must be locked
// by the calling thread.
inline void notify_all_at_thread_exit(condition_variable& cond, std::unique_lock<mutex> lock) {
  detail::exit_notifications_of_this_thread.add(cond, std::move(lock));
}

}  // namespace dstd
