// Internal: the lock behind every dstd mutex, and the gate that orders the
// waiters of shared mutexes and semaphores. Its state is two bits of a
// 64-bit home word: 0 free, 1 held, 2 held and contended, 3 free while a
// woken waiter comes back for it. A mutex's word is the state alone; a
// shared mutex keeps its reader count and a semaphore its count in the
// word's other bits (lock_bits<Shift>: the state at bit Shift). Taking a
// free lock homed here is one CPU compare-and-swap and giving one nobody
// waits for is another; everything else is decided at the word's home,
// which keeps the line of waiters and bounds how often the head of the
// line is passed over (runtime/sync/home_mutex.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <dstd/atomic>

namespace dstd::detail {

template <unsigned Shift>
struct lock_bits {
  static constexpr std::uint64_t mask = std::uint64_t{3} << Shift;
  static constexpr std::uint64_t held = std::uint64_t{1} << Shift;

  static bool is_free(std::uint64_t word) noexcept { return (word & mask) == 0; }

  // Takes the lock if it is free, keeping the other bits. `guess` is the
  // word's likely value: one compare-and-swap when it is right. May fail
  // while the lock is free but promised to a waiter (state 3).
  static bool try_take(atomic<std::uint64_t>& w, std::uint64_t guess) noexcept {
    std::uint64_t v = guess;
    while (is_free(v)) {
      if (w.compare_exchange_strong(v, v | held, memory_order_relaxed)) return true;
    }
    return false;
  }
  // Takes it, through the line at the home if need be; false when
  // `deadline` (if not null) passed first.
  static bool take(atomic<std::uint64_t>& w, std::uint64_t guess,
                   const std::chrono::steady_clock::time_point* deadline) noexcept {
    return try_take(w, guess) || lock_contended(w.ptr(), Shift, deadline);
  }
  // Gives it: one compare-and-swap when nobody waits and `guess` (the
  // other bits) is right; the home hands it on otherwise.
  static void give(atomic<std::uint64_t>& w, std::uint64_t guess) noexcept {
    std::uint64_t v = (guess & ~mask) | held;
    while ((v & mask) == held) {
      if (w.compare_exchange_strong(v, v & ~mask, memory_order_relaxed)) return;
    }
    unlock_contended(w.ptr(), Shift);
  }
};

// A mutex's word: the lock state alone.
class lock_word {
  using state = lock_bits<0>;

 public:
  constexpr lock_word() noexcept = default;

  bool try_take() noexcept { return state::try_take(w_, 0); }
  void take() noexcept { state::take(w_, 0, nullptr); }
  bool take_until(std::chrono::steady_clock::time_point deadline) noexcept {
    return state::take(w_, 0, &deadline);
  }
  void give() noexcept { state::give(w_, 0); }

 private:
  atomic<std::uint64_t> w_{0};
};

}  // namespace dstd::detail
