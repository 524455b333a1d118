// Internal: the word behind every dstd mutex: 0 free, 1 held, 2 held and
// maybe waited for (the classic futex mutex). The word is a home word, so
// taking a free mutex homed here is one CPU compare-and-swap.
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/atomic>

namespace dstd::detail {

class lock_word {
 public:
  constexpr lock_word() noexcept = default;

  bool try_take() noexcept {
    std::uint64_t expected = 0;
    return w_.compare_exchange_strong(expected, 1, memory_order_relaxed);
  }
  void take() noexcept {
    if (try_take()) return;
    while (w_.exchange(2, memory_order_relaxed) != 0) wait_while_equal(w_.ptr(), 8, 2);
  }
  bool take_until(std::chrono::steady_clock::time_point deadline) noexcept {
    if (try_take()) return true;
    while (w_.exchange(2, memory_order_relaxed) != 0) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      wait_while_equal_until(w_.ptr(), 8, 2, deadline);
    }
    return true;
  }
  void give() noexcept {
    // Usually nobody waits (1): one compare-and-swap, which costs a single
    // remote operation when the home is elsewhere (an exchange costs two).
    std::uint64_t held = 1;
    if (w_.compare_exchange_strong(held, 0, memory_order_relaxed)) return;
    w_.store(0, memory_order_relaxed);
    wake_waiters(w_.ptr(), false);
  }

 private:
  atomic<std::uint64_t> w_{0};
};

}  // namespace dstd::detail
