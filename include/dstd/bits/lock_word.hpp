// Internal: the word behind every dstd mutex: 0 free, 1 held, 2 held and
// contended, 3 free while a woken waiter comes back for it. The word is a
// home word, so taking a free mutex homed here is one CPU compare-and-swap
// and giving one nobody waits for is another; everything else is decided
// at the word's home, which keeps the line of waiters and bounds how often
// the head of the line is passed over (runtime/sync/home_mutex.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/atomic>

namespace dstd::detail {

class lock_word {
 public:
  constexpr lock_word() noexcept = default;

  // May fail while the lock is free but promised to a waiter (state 3): a
  // spurious failure, which try_lock allows.
  bool try_take() noexcept {
    std::uint64_t expected = 0;
    return w_.compare_exchange_strong(expected, 1, memory_order_relaxed);
  }
  void take() noexcept {
    if (!try_take()) lock_contended(w_.ptr(), nullptr);
  }
  bool take_until(std::chrono::steady_clock::time_point deadline) noexcept {
    return try_take() || lock_contended(w_.ptr(), &deadline);
  }
  void give() noexcept {
    // Usually nobody waits (1): one compare-and-swap, which costs a single
    // remote operation when the home is elsewhere.
    std::uint64_t held = 1;
    if (!w_.compare_exchange_strong(held, 0, memory_order_relaxed)) unlock_contended(w_.ptr());
  }

 private:
  atomic<std::uint64_t> w_{0};
};

}  // namespace dstd::detail
