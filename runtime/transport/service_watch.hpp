// Whether this node's service thread is starved: messages wait for it and
// it has taken none of them for a while.
//
// Why: the service thread has no CPU of its own. When it waits for the CPU
// that a thread of its own node keeps busy (a loop that takes and gives a
// lock homed here, say), Linux lets that thread run out its time slice
// first: a waking or yielding service thread is not given the CPU ahead of
// it. Meanwhile another node's lock request waits in the ring, and the
// looping thread re-takes the lock with its compare-and-swap as often as
// it likes. On two vCPUs a 2-node contended counter had node 0 make all
// 20,000 increments in a third of the runs (up to 12 of 20 in one batch):
// node 1's request, sent 0.4 µs after node 0 began, was taken 602 µs
// later, when node 0's loop had ended
// (docs/BENCHMARKS.md, "The service thread behind a busy worker"). So the
// node's other threads, at their synchronization points, look here and
// give up the CPU when the service thread is starved: if it waits for
// their CPU, it runs.
//
// Why 20 µs: a service thread that has a CPU takes a message within about
// a microsecond (a round trip is 0.3 µs), so a message waiting 20 µs means
// it has none. A yield costs about a microsecond and comes at most once per
// 20 µs, 5% of a looping thread at worst (when the service thread is busy
// elsewhere with one long handler, the yield does not help and costs that).
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/common/clock.hpp"

namespace dstd::rt {

class service_watch {
 public:
  static constexpr std::uint64_t starved_after_ns = 20'000;

  // The service thread: it took a message.
  void took_one() noexcept {
    taken_.store(taken_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Any other thread of the node, saying whether messages wait now: true
  // when they have waited starved_after_ns with none taken meanwhile (then
  // the caller yields; the next true comes starved_after_ns later at the
  // earliest). The threads share the watch; a race between them only moves
  // the time one of them yields.
  bool starved(bool messages_wait) noexcept {
    if (!messages_wait) {
      if (since_.load(std::memory_order_relaxed) != 0) since_.store(0, std::memory_order_relaxed);
      return false;
    }
    const std::uint64_t taken = taken_.load(std::memory_order_relaxed);
    const std::uint64_t now = monotonic_ns();
    const std::uint64_t since = since_.load(std::memory_order_relaxed);
    if (since == 0 || taken != seen_taken_.load(std::memory_order_relaxed)) {
      seen_taken_.store(taken, std::memory_order_relaxed);
      since_.store(now, std::memory_order_relaxed);
      return false;
    }
    if (now - since < starved_after_ns) return false;
    since_.store(now, std::memory_order_relaxed);
    return true;
  }

 private:
  // A line each: the service thread writes taken_ for every message, while
  // every acquire of the node reads since_ (and its owner's neighbouring
  // members, such as the rings it looks at); the class's alignment pads
  // the second line.
  alignas(64) std::atomic<std::uint64_t> taken_{0};  // written by the service thread only
  alignas(64) std::atomic<std::uint64_t> seen_taken_{0};  // taken_ when messages were first seen waiting
  std::atomic<std::uint64_t> since_{0};  // ... and when; 0: none waited at the last look
};

}  // namespace dstd::rt
