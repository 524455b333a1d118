// See partition.hpp.
#include "runtime/heap/partition.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "runtime/common/assert.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd::rt {

namespace {

constexpr std::size_t page = layout::page_bytes;

std::atomic<std::uint64_t> heap_used{0};

// Released stacks are kept on a list threaded through their own memory and
// reused for requests of the same size.
struct free_stack {
  stack_span span;
  free_stack* next;
};
std::mutex stack_lock;
std::uint64_t stack_used = 0;  // bytes carved from the top so far
free_stack* free_stacks = nullptr;

// The heap ends where the page versions (layout.hpp) begin.
std::uint64_t heap_limit(const address_space& s) {
  return layout::version_area_begin(s.partition_bytes);
}

// Whether `span` could have come from allocate_stack on this node: whole
// pages inside the part of the stack area carved so far. Caller holds
// stack_lock.
[[maybe_unused]] bool owns_stack(const stack_span& span) {
  const address_space& s = ensure_address_space();
  const std::uintptr_t end = s.partition_base(s.self) + s.partition_bytes;
  return span.guard < span.top && (span.top - span.guard) % page == 0 && span.top <= end &&
         span.guard >= end - stack_used;
}

}  // namespace

void* partition_allocate(std::size_t bytes, std::size_t align) {
  if (align == 0 || (align & (align - 1)) != 0) return nullptr;
  const address_space& s = ensure_address_space();
  const std::uint64_t limit = heap_limit(s);
  std::uint64_t used = heap_used.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t start = (used + align - 1) & ~std::uint64_t(align - 1);
    if (start > limit || bytes > limit - start) return nullptr;
    if (heap_used.compare_exchange_weak(used, start + bytes, std::memory_order_relaxed)) {
      return reinterpret_cast<void*>(s.partition_base(s.self) + start);
    }
  }
}

std::uint64_t partition_allocated_bytes() { return heap_used.load(std::memory_order_relaxed); }

std::uint64_t stack_area_used_bytes() {
  std::lock_guard<std::mutex> lock(stack_lock);
  return stack_used;
}

stack_span allocate_stack(std::size_t usable) {
  const address_space& s = ensure_address_space();
  const std::size_t total = (usable + page - 1) / page * page + layout::stack_guard_bytes;
  std::lock_guard<std::mutex> lock(stack_lock);
  for (free_stack** at = &free_stacks; *at != nullptr; at = &(*at)->next) {
    if ((*at)->span.top - (*at)->span.guard == total) {
      stack_span found = (*at)->span;
      *at = (*at)->next;
      return found;
    }
  }
  const std::uint64_t area = s.partition_bytes / layout::stack_area_divisor;
  if (total > area - stack_used) {
    fatal("the fiber stack area (%llu MiB) is full: no room for a stack of %llu KiB (plus its %llu KiB "
          "guard); raise --partition-gb or lower DSTD_STACK_KB",
          static_cast<unsigned long long>(area >> 20),
          static_cast<unsigned long long>((total - layout::stack_guard_bytes) >> 10),
          static_cast<unsigned long long>(layout::stack_guard_bytes >> 10));
  }
  stack_used += total;
  stack_span span;
  span.top = s.partition_base(s.self) + s.partition_bytes - (stack_used - total);
  span.guard = span.top - total;
  if (mprotect(reinterpret_cast<void*>(span.guard), layout::stack_guard_bytes, PROT_NONE) != 0) {
    fatal("cannot protect a stack guard region: %s", std::strerror(errno));
  }
  return span;
}

void release_stack(const stack_span& span) {
  auto* node = reinterpret_cast<free_stack*>(span.top - sizeof(free_stack));
  std::lock_guard<std::mutex> lock(stack_lock);
  DSTD_ASSERT(owns_stack(span), "released stack %#lx-%#lx is not one of this node's stacks",
              static_cast<unsigned long>(span.guard), static_cast<unsigned long>(span.top));
  node->span = span;
  node->next = free_stacks;
  free_stacks = node;
}

}  // namespace dstd::rt
