// Internal to <dstd/memory>: the memory of a shared_ptr control block,
// from an allocator, as std specifies: a copy of the allocator rebound to
// "an unspecified value_type" (here a unit of the block's alignment)
// allocates it, and the copy the block keeps frees it, on whichever node
// drops the last reference (its memory then goes home like any free).
// Every block is made and freed here, so there is one path: the blocks of
// shared_ptrs made without an allocator use std::allocator.
#pragma once

#include <cstddef>
#include <dstd/bits/std_parts.hpp>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd::detail {

// `bytes` bytes aligned to Align, from a copy of `a` rebound to a unit of
// that alignment.
template <std::size_t Align, class A>
class block_memory {
  struct alignas(Align) unit {
    unsigned char bytes[Align];
  };
  using unit_allocator = typename std::allocator_traits<A>::template rebind_alloc<unit>;
  using traits = std::allocator_traits<unit_allocator>;

  static std::size_t units(std::size_t bytes) noexcept {
    return (bytes + sizeof(unit) - 1) / sizeof(unit);
  }

 public:
  static void* allocate(const A& a, std::size_t bytes) {
    unit_allocator ua(a);
    return std::to_address(traits::allocate(ua, units(bytes)));
  }
  static void deallocate(const A& a, void* p, std::size_t bytes) noexcept {
    unit_allocator ua(a);
    traits::deallocate(
        ua, std::pointer_traits<typename traits::pointer>::pointer_to(*static_cast<unit*>(p)),
        units(bytes));
  }
};

// A new Block in `bytes` bytes (its own size, or more for the elements that
// follow it), built from (a, args...); the memory goes back if that throws.
template <class Block, class A, class... Args>
Block* new_block(const A& a, std::size_t bytes, Args&&... args) {
  using memory = block_memory<Block::alignment(), A>;
  void* room = memory::allocate(a, bytes);
  try {
    return ::new (room) Block(a, std::forward<Args>(args)...);
  } catch (...) {
    memory::deallocate(a, room, bytes);
    throw;
  }
}

// The other end of new_block, from the block's destroy().
template <class Block>
void free_block(Block* b, std::size_t bytes) noexcept {
  const auto a = b->allocator();
  b->~Block();
  block_memory<Block::alignment(), std::remove_const_t<decltype(a)>>::deallocate(a, b, bytes);
}

}  // namespace dstd::detail
