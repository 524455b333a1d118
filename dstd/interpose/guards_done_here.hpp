// The static-local guards this node has seen done, after an acquire.
//
// Why: the compiler checks a guard's first byte inline, with a plain load,
// and calls __cxa_guard_acquire only while it is 0. Across nodes that load
// reads this node's cached copy of the guard's page, which may be fresh
// while the object's own pages are stale copies read before another node
// built it (std_sync_test caught the old bytes). So a guard the cluster
// serves keeps its first byte 0 for good (guard.cpp), every use calls in,
// and a node acquires once per guard, the first time it finds it done, and
// remembers it here: later uses on this node return at once (its cached
// pages were refreshed by that acquire, and the object is never built
// again).
//
// A fixed open-addressing table of guard addresses in libdstd's own
// (node-private) data: lookups are lock-free loads; an insert claims an
// empty slot with a compare-and-swap. A full table only means more
// acquires, never a wrong answer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace dstd::interpose {

class guards_done_here {
 public:
  bool contains(const void* guard) const noexcept {
    const auto key = reinterpret_cast<std::uintptr_t>(guard);
    for (std::size_t i = 0, at = slot_of(key); i < slots; ++i, at = (at + 1) % slots) {
      const std::uintptr_t seen = table_[at].load(std::memory_order_acquire);
      if (seen == key) return true;
      if (seen == 0) return false;
    }
    return false;
  }
  void insert(const void* guard) noexcept {
    const auto key = reinterpret_cast<std::uintptr_t>(guard);
    for (std::size_t i = 0, at = slot_of(key); i < slots; ++i, at = (at + 1) % slots) {
      std::uintptr_t seen = table_[at].load(std::memory_order_acquire);
      if (seen == 0 && table_[at].compare_exchange_strong(seen, key, std::memory_order_release)) return;
      if (seen == key) return;
    }
  }

 private:
  static constexpr std::size_t slots = 4096;
  static std::size_t slot_of(std::uintptr_t key) noexcept {
    return static_cast<std::size_t>((key >> 3) * 0x9e3779b97f4a7c15ull >> 52) % slots;
  }
  std::atomic<std::uintptr_t> table_[slots] = {};
};

}  // namespace dstd::interpose
