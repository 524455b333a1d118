// The third allocator of the home partition: groups for dstd::tbox pointees.
//
// Why: DRust's TBox keeps an owner's pointees together, so a node that walks
// a tree of them fetches a whole group with one read instead of faulting a
// page at a time. Each partition's group area (layout.hpp) is cut into
// aligned groups of layout::group_bytes, and the coherence layer fetches a
// fault anywhere in a group as the whole group. Each OS thread fills one
// open group at a time, in allocation order, so what one thread builds in
// order (a list, a tree) lies in as few groups as possible.
//
// A group counts its live blocks plus one while a thread has it open; when
// the count reaches zero it goes back on the free list. Its blocks carry no
// header, so their size is unknown (realloc and malloc_usable_size refuse
// them). Frees of group blocks from other nodes come home like any remote
// free (remote_free.hpp, free_routing.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dstd::rt {

// Room for `bytes` aligned to `align` (a power of two) in this thread's open
// group, opening a new group of this node's area when it is full; nullptr
// when the block cannot go in a group (bigger than max_group_block) or the
// area is exhausted: the caller then allocates elsewhere.
inline constexpr std::size_t max_group_block = 16 * 1024;
void* group_allocate(std::size_t bytes, std::size_t align) noexcept;

// A block of this node's group area, from group_allocate.
void group_free(void* p) noexcept;

// The bounds in_own_group_area() tests: zero until the first group opens.
// Hidden, read directly on every free.
struct group_area_bounds {
  std::uintptr_t own_base;
  std::uint64_t own_bytes;
};
[[gnu::visibility("hidden")]] extern group_area_bounds group_bounds;

inline bool in_own_group_area(const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) - group_bounds.own_base < group_bounds.own_bytes;
}

// realloc and malloc_usable_size need a block's size, which group blocks do
// not record: for a block of any node's group area, a fatal error naming
// `what` instead of a wrong size.
void refuse_group_block(const void* p, const char* what);

// Bytes of the group area handed out as groups so far (a forked child
// copies them).
std::uint64_t group_area_used_bytes() noexcept;

}  // namespace dstd::rt
