// Two of the three allocators of the home partition:
//
//   [ heap: partition_allocate, bump upwards ... | group area | stack area: stacks, downwards ]
//   base                                      top - P/4    top - P/8                     top
//
// (The group area, for tbox pointees, is group_heap.hpp's.)
//
// partition_allocate() is where the global allocator (tcmalloc, through its
// SysAllocator hook) gets its spans; it never frees, as tcmalloc keeps and
// reuses what it got. Stacks for fibers come from the top eighth, so a local
// variable of a fiber has a global address homed where the fiber was created.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/common/layout.hpp"

namespace dstd::rt {

// Memory from the heap part of the home partition, aligned to `align` (a
// power of two), or nullptr when it is exhausted. Thread-safe; no allocation.
void* partition_allocate(std::size_t bytes, std::size_t align);

// Bytes handed out by partition_allocate so far.
std::uint64_t partition_allocated_bytes();

// Bytes of the stack area carved out so far (in use or on the free list).
std::uint64_t stack_area_used_bytes();

// A fiber stack: [guard, guard + stack_guard_bytes) is an inaccessible
// guard region; usable stack is [guard + stack_guard_bytes, top).
struct stack_span {
  std::uintptr_t guard = 0;
  std::uintptr_t top = 0;
  std::size_t usable() const { return top - guard - layout::stack_guard_bytes; }
  // Whether `a` is in the guard region: a fault there is an overflow.
  bool guards(std::uintptr_t a) const { return a >= guard && a < guard + layout::stack_guard_bytes; }
};

// A stack with at least `usable` bytes (rounded up to pages), or a fatal
// error when the stack area is full. Thread-safe.
stack_span allocate_stack(std::size_t usable);
void release_stack(const stack_span& s);

}  // namespace dstd::rt
