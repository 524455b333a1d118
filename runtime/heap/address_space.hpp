// This node's view of the global address space: where each global byte
// lives, which node is its home, and the mapping of the home partition.
//
// Why it is set up inside the first malloc: the global allocator draws from
// the home partition, and the first allocation of the process happens before
// any constructor of ours runs. So ensure_address_space() runs from the
// allocator's first request; it must not allocate and must not need the
// transport (it only maps memory the transport will later share).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/common/layout.hpp"
#include <vector>

#include "runtime/transport/backend.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

struct address_space {
  node_id self = 0;
  node_id nodes = 1;
  std::uint64_t partition_bytes = layout::default_partition_bytes;
  // The executable's writable static data; homed at node 0.
  std::uintptr_t static_begin = 0;
  std::uintptr_t static_end = 0;

  std::uintptr_t partition_base(node_id n) const {
    return layout::partition_base(n, partition_bytes);
  }
  std::uintptr_t partitions_end() const { return partition_base(nodes); }
  bool in_partitions(std::uintptr_t a) const {
    return a >= layout::global_base && a < partitions_end();
  }
  bool in_static_region(std::uintptr_t a) const { return a >= static_begin && a < static_end; }
  bool is_global(std::uintptr_t a) const { return in_partitions(a) || in_static_region(a); }
  // Home of a global address (callers check is_global first).
  node_id home(std::uintptr_t a) const {
    return in_partitions(a) ? static_cast<node_id>((a - layout::global_base) / partition_bytes)
                            : 0;
  }
  // The first byte of the tbox group (layout.hpp) that holds `a`, or 0 when
  // `a` is in no partition's group area.
  std::uintptr_t group_begin(std::uintptr_t a) const {
    if (!in_partitions(a)) return 0;
    const std::uint64_t offset = (a - layout::global_base) % partition_bytes;
    if (offset < layout::group_area_begin(partition_bytes) ||
        offset >= layout::group_area_end(partition_bytes)) {
      return 0;
    }
    return a & ~std::uintptr_t(layout::group_bytes - 1);
  }
  // Where [a, a+len) lies in the backing of all global memory (the offsets
  // of the transport's region table and of the cache frames). False when the
  // range is not entirely inside one global region.
  bool backing_offset(std::uintptr_t a, std::size_t len, std::uint64_t& offset) const;
  // Bytes of global memory: all partitions, then room for the static data.
  std::uint64_t backing_bytes() const { return nodes * partition_bytes + layout::static_region_max; }
  // The always-writable alias of the cache frame at this backing offset.
  static std::byte* cache_alias(std::uint64_t offset) {
    return reinterpret_cast<std::byte*>(layout::cache_alias_base + offset);
  }
};

// Where an address lives: the one locality check of the runtime. Every layer
// (home words, the cluster futex, remote wake, coherence, remote free) asks
// this, once per operation, and in every phase it gives the answer that
// phase needs.
struct location {
  node_id home = 0;               // this node for memory outside the global regions
  bool global = false;            // inside a partition or the shared static data
  bool here = true;               // operations on it are this process's own CPU operations
  std::uint64_t backing_offset = 0;  // where its bytes are in the backing (when global)
};
// `here` is true when the home is this node, when the address is not
// global, and whenever this process is not connected to a run: before boot,
// in a one-node run, and in a forked child (which has a private copy of
// global memory).
location locate(const void* p) noexcept;

// Boot marks the node connected once its transport runs; a forked child
// marks itself disconnected (fork_guard.hpp).
void set_connected(bool connected) noexcept;

// True while this process is connected to a run of more than one node: the
// phase in which memory of the global regions is shared with peers (and
// libdstd's pthread interposer serves the sync objects there cluster-wide).
// A relaxed load, for hot paths that must cost nothing in a one-node run.
extern std::atomic<bool> peers_share_memory;
inline bool sharing_with_peers() noexcept {
  return peers_share_memory.load(std::memory_order_relaxed);
}

// Maps the address space if that has not happened yet (thread-safe, no
// allocation) and returns it.
const address_space& ensure_address_space();

// At boot, on every node: records where the executable's static data is;
// node 0 also moves it onto its home memory so that peers can reach it.
void share_static_region();

// The table the transport is made with: every partition, then the static
// data (after share_static_region).
std::vector<memory_region> global_regions();

// The node-private memfd behind this node's cache frames.
int cache_frames_fd();

// In a forked child: the home partition (and node 0's static data) are
// replaced by private memory holding a copy of their current bytes, so the
// child's writes never reach the parent, nor the parent's the child. Only
// the parts in use are copied: the heap's first `heap_used` bytes, the
// group area's first `groups_used` bytes and the stack area's top
// `stacks_used` bytes. Cache frames of other nodes' memory
// (shared with the parent) become inaccessible: the child has left the run.
void privatize_global_memory(std::uint64_t heap_used, std::uint64_t groups_used,
                             std::uint64_t stacks_used);

}  // namespace dstd::rt
