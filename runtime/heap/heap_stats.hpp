// Allocator statistics of this node, for tests, benchmarks and (later)
// dstd::stats() and dstdrun --stats.
#pragma once

#include <cstdint>

namespace dstd::rt {

struct heap_stats {
  std::uint64_t allocated_bytes;    // in live blocks (tcmalloc's count)
  std::uint64_t heap_bytes;         // tcmalloc's heap, free lists included
  std::uint64_t partition_used;     // taken from the partition by tcmalloc
  std::uint64_t remote_frees_sent;  // blocks this node sent home to be freed
  std::uint64_t remote_frees_received;
};

heap_stats current_heap_stats();

}  // namespace dstd::rt
