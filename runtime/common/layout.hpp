// The fixed layout of the global address space.
//
// Every node maps the same ranges at the same virtual addresses (dstdrun turns
// address-space randomization off for the node processes), so a pointer into
// the global range means the same byte on every node. See docs/DESIGN.md,
// "Address space", for the picture.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dstd::rt::layout {

// Global range: partition i is homed at node i and starts at
// global_base + i * partition_bytes.
inline constexpr std::uintptr_t global_base = 0x100000000000ull;  // 16 TiB
inline constexpr std::uint64_t global_span = 0x100000000000ull;   // 16 TiB

// The window: a second mapping of home memory, never protected by
// coherence, at the same offsets as the backing of global memory (shm maps
// every node's backing there; ucx and verbs map their own home memory).
// One-sided operations address it, and a home's runtime writes through it so
// its stores do not count as the application's (own_writes.hpp). Kept apart
// from the global range, whose pages for remote partitions are this node's
// cache frames.
inline constexpr std::uintptr_t shm_window_base = 0x200000000000ull;  // 32 TiB
// The window's address of the byte at `backing_offset` (a location's or a
// memory region's offset in the backing).
inline std::byte* window_at(std::uint64_t backing_offset) {
  return reinterpret_cast<std::byte*>(shm_window_base + backing_offset);
}

// The executable's writable static data (.data/.bss) is one more shared
// region, homed at node 0, at the addresses the executable has anyway. Its
// backing (shm: the heap memfd, after the partitions) has this much room.
inline constexpr std::uint64_t static_region_max = 4ull << 30;

inline constexpr std::uint64_t page_bytes = 4096;

// Fiber stacks come from the top 1/stack_area_divisor of each partition, so
// a stack address is a global address homed where the fiber was created.
// A quarter: 16 GiB of a default 64 GiB partition, about 1800 default stacks
// (8 MiB and a 1 MiB guard) alive at once; an eighth held only 900, fewer
// than the thousand fibers scheduler_test keeps alive.
inline constexpr std::uint64_t stack_area_divisor = 4;

// Below each fiber stack, an inaccessible guard region this big (reserved,
// never committed). A frame larger than it could still jump it; 1 MiB is
// more than any ordinary frame (a 300 KiB local array lands in the guard).
inline constexpr std::uint64_t stack_guard_bytes = 1ull << 20;

// tbox pointees (heap/group_heap.hpp) come from the 1/group_area_divisor of
// each partition just below its stack area, cut into aligned groups of
// group_bytes; a fault anywhere in a group fetches the whole group
// (coherence.cpp). Offsets are from the partition's base.
inline constexpr std::uint64_t group_area_divisor = 8;
inline constexpr std::uint64_t group_bytes = 64 * 1024;
constexpr std::uint64_t group_area_end(std::uint64_t partition_bytes) {
  return partition_bytes - partition_bytes / stack_area_divisor;
}
constexpr std::uint64_t group_area_begin(std::uint64_t partition_bytes) {
  return group_area_end(partition_bytes) - partition_bytes / group_area_divisor;
}

// Page versions (coherence/page_versions.hpp): just below each partition's
// group area, a header page (the home's counters), the ring of change
// notices, and one 32-bit version per page the home serves: its partition
// and, at node 0, the static data. Read by other nodes only with one-sided
// operations, never cached. Offsets are from the partition's base; the heap
// ends where it begins.
inline constexpr std::uint64_t notice_capacity = 8192;  // 8-byte entries: 64 KiB
constexpr std::uint64_t version_area_bytes(std::uint64_t partition_bytes) {
  const std::uint64_t words = (partition_bytes + static_region_max) / page_bytes;
  return page_bytes + notice_capacity * 8 +
         (words * 4 + page_bytes - 1) / page_bytes * page_bytes;
}
constexpr std::uint64_t version_area_begin(std::uint64_t partition_bytes) {
  return group_area_begin(partition_bytes) - version_area_bytes(partition_bytes);
}
// Cache frames: this node's copies of other nodes' pages. They are backed by
// a node-private memfd mapped twice: at the pages' global addresses (access
// controlled page by page) and here, always read-write, so the runtime can
// fill and diff a page while the application cannot touch it.
inline constexpr std::uintptr_t cache_alias_base = 0x300000000000ull;  // 48 TiB


inline constexpr unsigned max_nodes = 64;
inline constexpr std::uint64_t gib = 1ull << 30;
inline constexpr std::uint64_t default_partition_bytes = 64 * gib;
inline constexpr std::uint64_t min_partition_bytes = 1 * gib;

// True when `nodes` partitions of `partition_bytes` fit the global range.
constexpr bool fits(unsigned nodes, std::uint64_t partition_bytes) {
  return nodes >= 1 && nodes <= max_nodes && partition_bytes >= min_partition_bytes &&
         partition_bytes % gib == 0 && partition_bytes <= global_span / nodes;
}

constexpr std::uintptr_t partition_base(unsigned node, std::uint64_t partition_bytes) {
  return global_base + node * partition_bytes;
}

}  // namespace dstd::rt::layout
