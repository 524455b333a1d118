// Internal to <dstd/future>: the shared state between a producer (promise,
// packaged_task, async) and its futures, for threads on any node.
//
// The state is one object in the global heap, homed where it was made. Its
// flags and its stored exception_ptr are guarded by a dstd::mutex (a
// promise writes its value under it too; a task, having claimed the state
// under it, writes outside it), and waiters sleep on a
// dstd::condition_variable, so a waiter on any node parks (its worker runs
// other threads) until a producer on any node makes the state ready. The unlock that makes it ready
// releases and the waiter's lock acquires: what the producer wrote before
// (the value, and whatever it points to) is visible after wait(). A value is
// written once and never changed while the state is ready, so get() reads
// it after that acquire without holding the lock.
//
// std::exception_ptr counts references with CPU atomics in the exception's
// header; on a node other than the exception's home those are updates to a
// cached page, made visible at that node's next release. Every copy,
// move-out and destruction of the stored pointer that this code makes
// happens under the state's lock (or in the state's destructor, which runs
// after every other owner's release). But the program's catch handlers and
// its copies of the pointer update the same count with no lock, on every
// node that holds it, and two nodes' updates based on one old value lose
// one of them, increments as well as decrements: the count can reach zero
// while nodes still hold it. So whenever this code stores, hands out or
// drops an exception on a node other than its home, it first pins it
// (pin_if_foreign, dstd/future/exception_pin.cpp): an exception that
// crossed nodes through a future is never freed (docs/DESIGN.md §5.7).
#pragma once

#include <chrono>
#include <dstd/bits/future_error.hpp>
#include <dstd/memory>
#include <dstd/sync>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd {

enum class future_status { ready, timeout, deferred };

namespace detail {

// Called before the state copies, moves in or drops `e` on this node: if
// `e` is homed on another node, makes sure it is never destroyed (see the
// top). The first call for an exception adds to its count; later ones see
// that and return.
void pin_if_foreign(const std::exception_ptr& e) noexcept;

// Where a result lives: a T built in place, a T& as a pointer, or nothing.
// fill() runs `make`, which returns the result.
template <class R>
class result_slot {
 public:
  result_slot() noexcept {}
  ~result_slot() {
    if (full_) value_.~R();
  }
  template <class Make>
  void fill(Make& make) {
    ::new (static_cast<void*>(&value_)) R(make());
    full_ = true;
  }
  R& get() noexcept { return value_; }

 private:
  union {
    R value_;
  };
  bool full_ = false;
};

template <class R>
class result_slot<R&> {
 public:
  template <class Make>
  void fill(Make& make) {
    value_ = &make();
  }
  R& get() noexcept { return *value_; }

 private:
  R* value_ = nullptr;
};

template <>
class result_slot<void> {
 public:
  template <class Make>
  void fill(Make& make) {
    make();
  }
  void get() noexcept {}
};

// What every state has, whatever its result type. A producer claims the one
// right to store a result (a second claim is promise_already_satisfied),
// stores it, and makes the state ready, now or at its thread's exit.
class future_state_base {
 public:
  future_state_base(const future_state_base&) = delete;
  future_state_base& operator=(const future_state_base&) = delete;
  virtual ~future_state_base() { pin_if_foreign(failed_); }

  // The first get_future(); a second throws future_already_retrieved.
  void retrieve() {
    std::lock_guard lock(mutex_);
    if (retrieved_) throw_future_error(future_errc::future_already_retrieved);
    retrieved_ = true;
  }

  // A promise's set_exception.
  void set_exception(std::exception_ptr e, bool at_thread_exit) {
    std::lock_guard lock(mutex_);
    claim_locked();
    fail_locked(std::move(e));
    finish_locked(at_thread_exit);
  }

  // A task claims before it runs its function (outside the lock), then
  // publishes what came of it: `failed`, or the value it stored.
  void claim() {
    std::lock_guard lock(mutex_);
    claim_locked();
  }
  void publish(std::exception_ptr failed, bool at_thread_exit) {
    std::lock_guard lock(mutex_);
    if (failed) fail_locked(std::move(failed));
    finish_locked(at_thread_exit);
  }

  // The producer went away without a result: broken_promise.
  void abandon() noexcept {
    std::lock_guard lock(mutex_);
    if (claimed_) return;  // stored, perhaps to be ready at a thread's exit
    claimed_ = true;
    fail_locked(std::make_exception_ptr(future_error(future_errc::broken_promise)));
    finish_locked(false);
  }

  // A result stored "at thread exit" becomes ready (ready_at_thread_exit).
  void make_ready() noexcept {
    std::lock_guard lock(mutex_);
    finish_locked(false);
  }

  // Returns once the state is ready; a deferred function not yet started
  // runs here, on the calling thread.
  void wait() {
    std::unique_lock lock(mutex_);
    if (deferred_ && !claimed_) {
      claimed_ = true;
      lock.unlock();
      run_deferred();
      return;
    }
    cv_.wait(lock, [this] { return ready_; });
  }

  template <class Clock, class Duration>
  future_status wait_until(const std::chrono::time_point<Clock, Duration>& t) {
    std::unique_lock lock(mutex_);
    if (ready_) return future_status::ready;
    if (deferred_) return future_status::deferred;
    return cv_.wait_until(lock, t, [this] { return ready_; }) ? future_status::ready
                                                                : future_status::timeout;
  }

 protected:
  explicit future_state_base(bool deferred) noexcept : deferred_(deferred) {}

  // Under the lock, after wait(): rethrows a stored exception, moving the
  // pointer out of the state when `take` (a future's one get()).
  void rethrow_if_failed(bool take) {
    std::lock_guard lock(mutex_);
    if (!failed_) return;
    pin_if_foreign(failed_);
    if (take) {
      const std::exception_ptr taken = std::move(failed_);  // dropped before the unlock
      std::rethrow_exception(taken);
    }
    std::rethrow_exception(failed_);
  }

  // A promise's set_value: `fill` stores the value under the lock; if it
  // throws, nothing is claimed.
  template <class Fill>
  void store(Fill&& fill, bool at_thread_exit) {
    std::lock_guard lock(mutex_);
    if (claimed_) throw_future_error(future_errc::promise_already_satisfied);
    fill();
    claimed_ = true;
    finish_locked(at_thread_exit);
  }

 private:
  virtual void run_deferred() {}

  void fail_locked(std::exception_ptr e) noexcept {
    pin_if_foreign(e);
    failed_ = std::move(e);
  }
  void claim_locked() {
    if (claimed_) throw_future_error(future_errc::promise_already_satisfied);
    claimed_ = true;
  }
  // Notifies before the unlock: a woken waiter may drop the last reference.
  void finish_locked(bool at_thread_exit) noexcept {
    if (at_thread_exit) return;
    ready_ = true;
    cv_.notify_all();
  }

  mutex mutex_;
  condition_variable cv_;
  std::exception_ptr failed_;
  bool claimed_ = false;
  bool ready_ = false;
  bool retrieved_ = false;
  const bool deferred_;
};

// A state with a result of type R (a value, a reference or void).
template <class R>
class future_state : public future_state_base {
 public:
  future_state() noexcept : future_state_base(false) {}

  // A promise's set_value: `make` returns the value.
  template <class Make>
  void set_value(Make&& make, bool at_thread_exit) {
    store([&] { slot_.fill(make); }, at_thread_exit);
  }

  // After claim(): runs `compute` and publishes its result, or what it threw.
  template <class Compute>
  void publish_computed(Compute&& compute, bool at_thread_exit) {
    std::exception_ptr failed;
    try {
      slot_.fill(compute);
    } catch (...) {
      failed = std::current_exception();
    }  // the catch ends (and drops its count) before the publishing release
    publish(std::move(failed), at_thread_exit);
  }

  // After wait(), a future's get(): the result moved out, or the exception.
  R take() {
    rethrow_if_failed(true);
    if constexpr (std::is_void_v<R> || std::is_reference_v<R>) {
      return slot_.get();
    } else {
      return std::move(slot_.get());
    }
  }
  // After wait(), a shared_future's get(): the stored result, or the exception.
  decltype(auto) shared_result() {
    rethrow_if_failed(false);
    return slot_.get();
  }

 protected:
  explicit future_state(bool deferred) noexcept : future_state_base(deferred) {}

 private:
  result_slot<R> slot_;
};

// The states whose results become ready when a thread ends: each thread
// keeps a list in a thread_local object, whose destructor makes them ready
// (a dstd thread runs it at its end, before it counts as finished; another
// thread at its exit, like any thread_local).
class ready_at_thread_exit {
 public:
  ready_at_thread_exit() = default;
  ready_at_thread_exit(const ready_at_thread_exit&) = delete;
  ready_at_thread_exit& operator=(const ready_at_thread_exit&) = delete;
  ~ready_at_thread_exit() {
    for (entry* e = newest_; e != nullptr;) {
      e->state->make_ready();
      entry* next = e->next;
      delete e;
      e = next;
    }
  }
  static void add(shared_ptr<future_state_base> s) {
    thread_local ready_at_thread_exit list;
    list.newest_ = new entry{std::move(s), list.newest_};
  }

 private:
  struct entry {
    shared_ptr<future_state_base> state;
    entry* next;
  };
  entry* newest_ = nullptr;
};

}  // namespace detail

}  // namespace dstd
