// Internal to <dstd/memory>: atomic<shared_ptr<T>> and atomic<weak_ptr<T>>,
// std's C++20 specializations, correct when every node uses one at once.
//
// Why a lock: a load must read both pointers and add a reference to the
// block before a racing store can drop the last one, and no operation of
// dstd::atomic covers two words plus a count in another block. So, as
// libstdc++ does, the low bit of the word that holds the control block's
// address is a lock (blocks are 8-byte aligned); std does not require
// these specializations to be lock-free, and is_lock_free() says they are
// not. The lock, the block word and the object word are dstd::atomic words,
// every operation on them done at the atomic's home, relaxed (no coherence
// work); CPU fences order them as a lock must. A contended lock spins a
// little, then parks at the word's home (a second bit says someone is
// parked, so the unlock wakes them): a fiber never spins on a holder that
// needs its worker thread.
//
// The memory orders are the user's: an operation that releases makes this
// node's writes visible at their homes before it takes the lock, one that
// acquires drops this node's stale pages after it has read (as
// dstd::atomic does), so a load with acquire on one node sees what was
// written to the pointee before a store with release on another.
//
// wait() and notify: a waiter parks on the block word at its home, after
// setting the "parked" bit, so the next unlock (a store's among them) wakes
// it to look again: a store wakes its waiters even before the notify std
// requires of the program (tests/memory: with neither wake, wait hangs).
// Waiters for the lock and for a new value share that word, so notify_one
// wakes them all (a waiter that was woken but sees no change parks again,
// as std allows).
#pragma once

#include <cstdint>
#include <dstd/atomic>
#include <dstd/bits/shared_ptr.hpp>
#include <dstd/bits/std_parts.hpp>
#include <dstd/bits/sync_core.hpp>
#include <utility>

namespace dstd {

namespace detail {

// What atomic<P> is for P = shared_ptr<T> or weak_ptr<T>.
template <class P>
class atomic_counted {
  using access = shared_access;
  using object_type = typename P::element_type;

  static constexpr std::uintptr_t held = 1;    // the lock is taken
  static constexpr std::uintptr_t parked = 2;  // someone waits at the word's home
  static constexpr std::uintptr_t flags = held | parked;
  static constexpr int spins_before_parking = 64;

 public:
  using value_type = P;
  static constexpr bool is_always_lock_free = false;
  bool is_lock_free() const noexcept { return false; }

  constexpr atomic_counted() noexcept = default;
  atomic_counted(P desired) noexcept
      : block_(reinterpret_cast<std::uintptr_t>(access::count(desired))),
        object_(reinterpret_cast<std::uintptr_t>(access::object(desired))) {
    access::give_up(desired);
  }
  atomic_counted(const atomic_counted&) = delete;
  atomic_counted& operator=(const atomic_counted&) = delete;
  ~atomic_counted() {
    // Nobody else may touch the atomic now: the stored reference goes.
    P last = access::adopt_counted<P>(object(object_.load(memory_order_relaxed)),
                                      block(block_.load(memory_order_relaxed)));
  }

  P load(memory_order o = memory_order_seq_cst) const noexcept {
    const std::uintptr_t word = lock();
    P r = share_stored(word);
    unlock(word, word & ~flags);
    if (acquires(o)) sync_acquire();
    return r;
  }
  operator P() const noexcept { return load(); }

  void store(P desired, memory_order o = memory_order_seq_cst) noexcept {
    if (releases(o)) sync_release();
    swap_in(desired);
  }  // the old value goes with `desired`, after the unlock

  P exchange(P desired, memory_order o = memory_order_seq_cst) noexcept {
    if (releases(o)) sync_release();
    swap_in(desired);
    if (acquires(o)) sync_acquire();
    return desired;
  }

  // Equal means the same pointer and the same owner (block), as std says.
  bool compare_exchange_strong(P& expected, P desired, memory_order success,
                               memory_order failure) noexcept {
    if (releases(success)) sync_release();
    const std::uintptr_t word = lock();
    if (holds(word, expected)) {
      unlock(word, trade(word, desired));
      if (acquires(success)) sync_acquire();
      return true;  // the old value goes with `desired`
    }
    P current = share_stored(word);
    unlock(word, word & ~flags);
    if (acquires(failure)) sync_acquire();
    expected = std::move(current);
    return false;
  }
  bool compare_exchange_weak(P& expected, P desired, memory_order success,
                             memory_order failure) noexcept {
    return compare_exchange_strong(expected, std::move(desired), success, failure);
  }
  bool compare_exchange_strong(P& expected, P desired,
                               memory_order o = memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, std::move(desired), o, failure_order(o));
  }
  bool compare_exchange_weak(P& expected, P desired,
                             memory_order o = memory_order_seq_cst) noexcept {
    return compare_exchange_strong(expected, std::move(desired), o, failure_order(o));
  }

  // Returns once the stored value is not equivalent to old (and a notify
  // has woken this thread, or the change was seen before parking).
  void wait(P old, memory_order o = memory_order_seq_cst) const noexcept {
    for (;;) {
      const std::uintptr_t word = lock();
      if (!holds(word, old)) {
        unlock(word, word & ~flags);
        if (acquires(o)) sync_acquire();
        return;
      }
      const std::uintptr_t waiting = (word & ~flags) | parked;
      unlock(word, waiting);
      wait_while_equal(block_.ptr(), sizeof(std::uintptr_t), waiting);
    }
  }
  void notify_one() noexcept { notify_all(); }  // see the top of the file
  void notify_all() noexcept {
    sync_release();
    wake_waiters(block_.ptr(), true);
  }

 private:
  static shared_count* block(std::uintptr_t word) noexcept {
    return reinterpret_cast<shared_count*>(word & ~flags);
  }
  static object_type* object(std::uintptr_t word) noexcept {
    return reinterpret_cast<object_type*>(word);
  }

  // Takes the lock; returns the block word as this thread left it (held).
  std::uintptr_t lock() const noexcept {
    std::uintptr_t word = block_.load(memory_order_relaxed);
    for (int spins = 0;;) {
      if ((word & held) == 0) {
        if (block_.compare_exchange_weak(word, word | held, memory_order_relaxed,
                                         memory_order_relaxed)) {
          __atomic_thread_fence(__ATOMIC_ACQUIRE);
          return word | held;
        }
      } else if (spins < spins_before_parking) {
        ++spins;
        __builtin_ia32_pause();
        word = block_.load(memory_order_relaxed);
      } else if ((word & parked) != 0 ||
                 block_.compare_exchange_weak(word, word | parked, memory_order_relaxed,
                                              memory_order_relaxed)) {
        wait_while_equal(block_.ptr(), sizeof(std::uintptr_t), word | parked);
        word = block_.load(memory_order_relaxed);
      }
    }
  }
  // Gives the lock back, leaving `now` in the block word (`locked` is what
  // lock() returned); wakes whoever parked meanwhile.
  void unlock(std::uintptr_t locked, std::uintptr_t now) const noexcept {
    __atomic_thread_fence(__ATOMIC_RELEASE);
    std::uintptr_t word = locked;
    // Only the parked bit can change while the lock is held.
    while (!block_.compare_exchange_weak(word, now, memory_order_relaxed, memory_order_relaxed)) {
    }
    if ((word & parked) != 0) wake_waiters(block_.ptr(), true);
  }

  // Under the lock: whether the stored value is equivalent to v.
  bool holds(std::uintptr_t word, const P& v) const noexcept {
    return block(word) == access::count(v) &&
           object(object_.load(memory_order_relaxed)) == access::object(v);
  }
  // Under the lock: a new reference to the stored value.
  P share_stored(std::uintptr_t word) const noexcept {
    P r = access::adopt_counted<P>(object(object_.load(memory_order_relaxed)), block(word));
    if (shared_count* c = block(word)) add_reference(c);
    return r;
  }
  // Under the lock (`word` from lock()): v's parts become the stored value
  // and v takes the old ones, no count changing; returns the new block word.
  std::uintptr_t trade(std::uintptr_t word, P& v) noexcept {
    const std::uintptr_t old_object = object_.exchange(
        reinterpret_cast<std::uintptr_t>(access::object(v)), memory_order_relaxed);
    const std::uintptr_t now = reinterpret_cast<std::uintptr_t>(access::count(v));
    access::give_up(v);
    v = access::adopt_counted<P>(object(old_object), block(word));
    return now;
  }
  // v becomes the stored value and v the old one.
  void swap_in(P& v) noexcept {
    const std::uintptr_t word = lock();
    unlock(word, trade(word, v));
  }
  static void add_reference(shared_count* c) noexcept {
    if constexpr (std::is_same_v<P, weak_ptr<typename P::element_type>>) {
      c->add_watcher();
    } else {
      c->add_owner();
    }
  }

  mutable atomic<std::uintptr_t> block_{0};  // the control block | held | parked
  mutable atomic<std::uintptr_t> object_{0};
};

}  // namespace detail

template <class T>
class atomic<shared_ptr<T>> : public detail::atomic_counted<shared_ptr<T>> {
  using base = detail::atomic_counted<shared_ptr<T>>;

 public:
  constexpr atomic() noexcept = default;
  constexpr atomic(std::nullptr_t) noexcept : atomic() {}
  atomic(shared_ptr<T> desired) noexcept : base(std::move(desired)) {}
  atomic(const atomic&) = delete;
  void operator=(const atomic&) = delete;
  void operator=(shared_ptr<T> desired) noexcept { this->store(std::move(desired)); }
  void operator=(std::nullptr_t) noexcept { this->store(nullptr); }
};

template <class T>
class atomic<weak_ptr<T>> : public detail::atomic_counted<weak_ptr<T>> {
  using base = detail::atomic_counted<weak_ptr<T>>;

 public:
  constexpr atomic() noexcept = default;
  atomic(weak_ptr<T> desired) noexcept : base(std::move(desired)) {}
  atomic(const atomic&) = delete;
  void operator=(const atomic&) = delete;
  void operator=(weak_ptr<T> desired) noexcept { this->store(std::move(desired)); }
};

}  // namespace dstd
