// Internal to <dstd/sync>: counting_semaphore and binary_semaphore.
// release() releases; a successful acquire acquires.
//
// One home word: the count in its low 62 bits and, in the top two, a lock
// state (lock_word.hpp): the gate. An acquirer takes a unit with one
// compare-and-swap while the gate is free. One that finds no unit takes the
// gate and waits, holding it, for a release; while the gate is taken,
// units are for its holder only (nobody else takes one without the gate),
// so a node that releases and re-acquires in a loop queues in the gate's
// line behind the waiters instead of taking back what it released. The
// line is at the word's home and hands the gate over fairly
// (runtime/sync/home_mutex.hpp: a waiter is passed over at most
// max_passes times). A release adds to the count and, when the gate is
// taken, wakes its holder. A timed acquirer that gives up leaves the
// gate's line, or gives the gate back, so it leaves nothing behind. The
// count stays in the low bits, where glibc's sem_t keeps its value
// (dstd/interpose/semaphore.cpp); counts must stay below 2^62, which
// max() says.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/bits/lock_word.hpp>

namespace dstd {

namespace detail {
// The largest count: the word's top two bits are the gate.
inline constexpr std::ptrdiff_t semaphore_count_max = (std::ptrdiff_t{1} << 62) - 1;
}  // namespace detail

// The default LeastMaxValue is implementation-defined in std; here it is
// the largest count the word holds, and a larger one does not compile.
template <std::ptrdiff_t LeastMaxValue = detail::semaphore_count_max>
class counting_semaphore {
  static_assert(LeastMaxValue >= 0, "counting_semaphore: LeastMaxValue must not be negative");
  static_assert(LeastMaxValue <= detail::semaphore_count_max,
                "dstd::counting_semaphore counts up to 2^62 - 1 (its word's top two bits are "
                "the gate that orders its waiters)");
  using gate = detail::lock_bits<62>;
  using deadline = std::chrono::steady_clock::time_point;

 public:
  static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  constexpr explicit counting_semaphore(std::ptrdiff_t desired)
      : word_(static_cast<std::uint64_t>(desired)) {}
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;

  void release(std::ptrdiff_t update = 1) {
    detail::sync_release();
    const std::uint64_t w = word_.fetch_add(static_cast<std::uint64_t>(update), memory_order_relaxed);
    if (!gate::is_free(w)) detail::wake_waiters(word_.ptr(), false);
  }
  void acquire() { take(nullptr); }
  // Fails while another acquirer waits (holds the gate), as std allows.
  bool try_acquire() noexcept {
    std::uint64_t w = word_.load(memory_order_relaxed);
    while (gate::is_free(w) && w > 0) {
      if (word_.compare_exchange_strong(w, w - 1, memory_order_relaxed)) {
        detail::sync_acquire();
        return true;
      }
    }
    return false;
  }
  template <class Rep, class Period>
  bool try_acquire_for(const std::chrono::duration<Rep, Period>& d) {
    return try_acquire_until(std::chrono::steady_clock::now() + d);
  }
  template <class Clock, class Duration>
  bool try_acquire_until(const std::chrono::time_point<Clock, Duration>& t) {
    const deadline until = detail::steady_deadline(t);
    return take(&until);
  }

 private:
  static std::uint64_t count(std::uint64_t w) noexcept { return w & ~gate::mask; }

  // A unit: at once, or with the gate, waiting for a release. Hidden: too
  // big to be inlined always, and libdstd (dstd/interpose/semaphore.cpp)
  // must not export a member of a type compat/ gives a std name
  // (tests/abi/exported_signatures_test.sh).
  [[gnu::visibility("hidden")]] bool take(const deadline* until) {
    if (try_acquire()) return true;
    if (!gate::take(word_, 0, until)) return false;
    std::uint64_t w = word_.load(memory_order_relaxed);
    for (;;) {
      if (count(w) > 0) {
        if (word_.compare_exchange_strong(w, w - 1, memory_order_relaxed)) break;
        continue;
      }
      if (!detail::wait_for_change(word_.ptr(), w, until)) {
        gate::give(word_, w);
        return false;
      }
      w = word_.load(memory_order_relaxed);
    }
    gate::give(word_, w - 1);
    detail::sync_acquire();
    return true;
  }

  atomic<std::uint64_t> word_;
};

using binary_semaphore = counting_semaphore<1>;

}  // namespace dstd
