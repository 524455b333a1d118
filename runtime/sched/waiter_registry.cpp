// See waiter_registry.hpp.
#include "runtime/sched/waiter_registry.hpp"

#include <atomic>
#include <cstddef>
#include <mutex>

#include "runtime/common/fatal.hpp"

namespace dstd::rt::sched {

namespace {

// Chunks of slots, made as the table grows and never moved or freed, so a
// reader that saw `count` cover an id finds its slot filled.
constexpr std::size_t chunk_slots = 4096;
constexpr std::size_t max_chunks = 4096;  // 16M waiters a node

struct registry {
  std::mutex grow;
  std::atomic<fiber**> chunks[max_chunks] = {};
  std::atomic<waiter_id> count{0};  // ids 1..count are given out
};

// Leaked on purpose: wakes may arrive until _exit.
registry& table() {
  static registry* r = new registry;
  return *r;
}

}  // namespace

waiter_id enroll(fiber* f) {
  registry& r = table();
  std::lock_guard<std::mutex> guard(r.grow);
  const std::size_t index = r.count.load(std::memory_order_relaxed);
  const std::size_t c = index / chunk_slots;
  if (c >= max_chunks) fatal("more than %zu waiters on one node", max_chunks * chunk_slots);
  fiber** slots = r.chunks[c].load(std::memory_order_relaxed);
  if (slots == nullptr) {
    slots = new fiber*[chunk_slots]();
    r.chunks[c].store(slots, std::memory_order_relaxed);
  }
  slots[index % chunk_slots] = f;
  r.count.store(static_cast<waiter_id>(index + 1), std::memory_order_release);
  return static_cast<waiter_id>(index + 1);
}

fiber* find_waiter(waiter_id id) noexcept {
  registry& r = table();
  if (id == 0 || id > r.count.load(std::memory_order_acquire)) return nullptr;
  const std::size_t index = id - 1;
  return r.chunks[index / chunk_slots].load(std::memory_order_relaxed)[index % chunk_slots];
}

}  // namespace dstd::rt::sched
