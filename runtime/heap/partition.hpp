// This node's view of the global address space, and the allocator of its
// home partition.
//
// Why here and not in the transport: the layout (where each partition sits)
// is the same whatever carries the bytes; the transport only decides what
// backs the home partition so that peers can reach it.
//
// partition_allocate() is a bump allocator over the home partition. It is
// what the global allocator (tcmalloc's SysAllocator hook) will draw its
// spans from; it never frees.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/heap/layout.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

struct global_range {
  node_id nodes = 1;
  std::uint64_t partition_bytes = layout::default_partition_bytes;

  std::uintptr_t base(node_id n) const { return layout::partition_base(n, partition_bytes); }
  std::uintptr_t end() const { return base(nodes); }
  bool contains(std::uintptr_t a) const { return a >= layout::global_base && a < end(); }
  node_id home(std::uintptr_t a) const {
    return static_cast<node_id>((a - layout::global_base) / partition_bytes);
  }
};

// Reserves the whole global range (no access, no memory) and has the
// transport back this node's partition. Called once, at boot.
void map_address_space(transport& t, node_id self, const global_range& range);

// The range mapped at boot (one node of the default size before boot).
const global_range& current_global_range();

// Memory from the home partition, aligned to `align` (a power of two), or
// nullptr when the partition is exhausted. Thread-safe.
void* partition_allocate(std::size_t bytes, std::size_t align);

}  // namespace dstd::rt
