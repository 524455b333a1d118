// A completion counts a caller's outstanding transport operations.
//
// Why: every backend finishes operations asynchronously (verbs through a
// completion queue, tcp through a reply, shm at once), and the caller wants to
// post a batch and then wait once. wait() spins briefly, then sleeps on a
// futex, so a waiter does not burn a core. A fiber-aware wait (park instead
// of sleep) will hook in here when the scheduler arrives.
#pragma once

#include <atomic>
#include <cstdint>

namespace dstd::rt {

class completion {
 public:
  completion() = default;
  completion(const completion&) = delete;
  completion& operator=(const completion&) = delete;

  // Announce `n` more operations; call before posting them.
  void expect(std::uint32_t n = 1) { state_.fetch_add(n, std::memory_order_relaxed); }
  // One operation finished (called by the backend, possibly on another thread).
  void finish();
  bool done() const { return (state_.load(std::memory_order_acquire) & count_mask) == 0; }
  // Block until every expected operation has finished.
  void wait();

 private:
  static constexpr std::uint32_t sleeper_bit = 1u << 31;
  static constexpr std::uint32_t count_mask = sleeper_bit - 1;
  std::atomic<std::uint32_t> state_{0};
};

}  // namespace dstd::rt
