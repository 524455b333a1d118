// Internal to <dstd/sync>: latch and barrier. Counting down (arriving)
// releases; returning from a wait acquires, so everything written before
// the last arrival is visible after the wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <dstd/atomic>
#include <limits>
#include <utility>

namespace dstd {

class latch {
 public:
  static constexpr std::ptrdiff_t max() noexcept { return std::numeric_limits<std::ptrdiff_t>::max(); }

  constexpr explicit latch(std::ptrdiff_t expected) : count_(static_cast<std::uint64_t>(expected)) {}
  latch(const latch&) = delete;
  latch& operator=(const latch&) = delete;

  void count_down(std::ptrdiff_t n = 1) {
    detail::sync_release();
    const auto old = count_.fetch_sub(static_cast<std::uint64_t>(n), memory_order_relaxed);
    if (old == static_cast<std::uint64_t>(n)) detail::wake_waiters(count_.ptr(), true);
  }
  bool try_wait() const noexcept {
    if (count_.load(memory_order_relaxed) != 0) return false;
    detail::sync_acquire();
    return true;
  }
  void wait() const {
    for (std::uint64_t c; (c = count_.load(memory_order_relaxed)) != 0;) {
      detail::wait_while_equal(count_.ptr(), 8, c);
    }
    detail::sync_acquire();
  }
  void arrive_and_wait(std::ptrdiff_t n = 1) {
    count_down(n);
    wait();
  }

 private:
  atomic<std::uint64_t> count_;
};

namespace detail {
struct no_completion {
  void operator()() noexcept {}
};
}  // namespace detail

// The state word holds the phase (high 32 bits) and the arrivals of the
// current phase (low 32). The last arrival runs the completion, then starts
// the next phase and wakes everyone waiting on the old one.
template <class CompletionFunction = detail::no_completion>
class barrier {
  static constexpr std::uint64_t arrivals_mask = 0xffffffffu;

 public:
  class arrival_token {
   public:
    arrival_token() = default;

   private:
    friend class barrier;
    explicit arrival_token(std::uint64_t phase) : phase_(phase) {}
    std::uint64_t phase_ = 0;
  };

  static constexpr std::ptrdiff_t max() noexcept { return arrivals_mask; }

  explicit barrier(std::ptrdiff_t expected, CompletionFunction f = CompletionFunction())
      : expected_(static_cast<std::uint64_t>(expected)), completion_(std::move(f)) {}
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;

  [[nodiscard]] arrival_token arrive(std::ptrdiff_t n = 1) {
    detail::sync_release();
    const std::uint64_t old = state_.fetch_add(static_cast<std::uint64_t>(n), memory_order_relaxed);
    const std::uint64_t phase = old >> 32;
    if ((old & arrivals_mask) + static_cast<std::uint64_t>(n) ==
        expected_.load(memory_order_relaxed)) {
      detail::sync_acquire();
      completion_();
      expected_.fetch_sub(drops_.exchange(0, memory_order_relaxed), memory_order_relaxed);
      detail::sync_release();
      state_.store((phase + 1) << 32, memory_order_relaxed);
      detail::wake_waiters(state_.ptr(), true);
    }
    return arrival_token(phase);
  }
  void wait(arrival_token&& t) const {
    for (std::uint64_t s; ((s = state_.load(memory_order_relaxed)) >> 32) == t.phase_;) {
      detail::wait_while_equal(state_.ptr(), 8, s);
    }
    detail::sync_acquire();
  }
  void arrive_and_wait() { wait(arrive()); }
  void arrive_and_drop() {
    drops_.fetch_add(1, memory_order_relaxed);
    (void)arrive();
  }

 private:
  atomic<std::uint64_t> state_{0};
  atomic<std::uint64_t> expected_;
  atomic<std::uint64_t> drops_{0};
  CompletionFunction completion_;
};

}  // namespace dstd
