// Which changed pages an acquire reads again instead of dropping.
//
// Why: a page that another node changes between two acquires of this node,
// and that this node reads after each (a lock's data, the record a new
// thread starts from), was dropped by every acquire and fetched again by a
// fault: a signal and an mprotect, about 5 µs on the CI machine, where the
// acquire can read it in its batch for the cost of a copy (DESIGN §4,
// "Refetch instead of refault"). No access bits reach user space, so
// "used lately" is a guess: a fault fetched the page since the acquire
// before, or an acquire refetched it at most its age limit ago (a
// refetched page that is read takes no fault, so it cannot say it was
// used). A page refetched but never read again is refetched by at most
// limit + 1 acquires, and an acquire refetches at most `budget` pages; it
// drops the rest.
//
// Why the limit grows: a page read after every acquire is dropped anyway
// once its limit runs out, and then faulted back, and the drop's mprotect
// is a TLB shootdown, 10-30 µs when the node's other threads run (a remote
// spawn's acquire took 27 µs instead of 1 for it, docs/BENCHMARKS.md). So a
// page that faults right after the acquire that dropped it at its limit
// (it was in use after all) starts again with twice the limit, up to
// `max_limit`; any other page starts with `first_limit`.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace dstd::rt::coherence {

class recent_pages {
 public:
  static constexpr std::size_t ring_size = 64;  // faults remembered per interval
  static constexpr std::size_t budget = 32;     // pages refetched per acquire
  static constexpr unsigned first_limit = 3;
  static constexpr unsigned max_limit = 48;

  // A fault fetched `index` (any worker).
  void faulted(std::uint64_t index) {
    const std::uint64_t at = next_.fetch_add(1, std::memory_order_relaxed);
    ring_[at % ring_size].store(index + 1, std::memory_order_relaxed);
  }

  // The acquire (under sync_mutex), with the pages it is about to drop
  // (sorted, locked, read-only): moves the recent ones, up to `budget`,
  // from `drop` into the sorted result, and remembers them as refetched.
  std::vector<std::uint64_t> take_recent(std::vector<std::uint64_t>& drop);

  // A page's record, in the acquire's lists below.
  struct entry {
    std::uint64_t page;
    unsigned age;    // acquires since the fault that fetched it
    unsigned limit;  // the oldest age at which it is still refetched
  };

 private:
  std::array<std::atomic<std::uint64_t>, ring_size> ring_{};  // page index + 1
  std::atomic<std::uint64_t> next_{0};
  // Acquire only, each sorted by page:
  std::uint64_t read_to_ = 0;
  std::vector<entry> refetched_;  // to refetch again if changed, age and limit
  std::vector<entry> last_refetch_;  // refetched by the last acquire at their limit
  std::vector<entry> expired_;  // of those, dropped by the last acquire
};

}  // namespace dstd::rt::coherence
