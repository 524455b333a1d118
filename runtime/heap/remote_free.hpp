// Freeing memory homed on another node.
//
// Why: tcmalloc's bookkeeping for a block lives on the block's home node, so
// only the home may free it. A free of a remote block is queued for its home
// and sent in batches (one message per home per batch); the home frees each
// block with tcmalloc. The queue is flushed when a batch is full and by
// flush_remote_frees(), which every release and acquire calls
// (coherence.cpp), so a block freed before a synchronization point is back
// at its home soon after it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/common/layout.hpp"

namespace dstd::rt {

// Called at boot once the transport exists: from then on, frees of other
// nodes' blocks are routed to their homes.
void enable_remote_frees() noexcept;

// In a forked child, which has left the run: frees of remote blocks are
// dropped (the blocks belong to the parent's peers).
void drop_remote_frees() noexcept;

// The bounds is_remote_block() tests, set by enable_remote_frees(); zero
// until then, which makes every block local. Hidden: read directly, not
// through the GOT, on every free.
struct remote_block_bounds {
  std::uintptr_t own_base;
  std::uint64_t own_bytes;
  std::uint64_t partitions_span;
};
[[gnu::visibility("hidden")]] extern remote_block_bounds heap_bounds;

// True when p points into another node's partition (a block only its home
// may free). Inline on the free path: a block of our own partition costs
// one subtraction and compare.
inline bool is_remote_block(const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (a - heap_bounds.own_base < heap_bounds.own_bytes) return false;
  return a - layout::global_base < heap_bounds.partitions_span;
}

void queue_remote_free(void* p) noexcept;

// Called before frees taken from a batch are sent (a full batch from
// free(), the rest from flush_remote_frees()): it must make this node's
// writes so far visible at their homes, since the home frees the blocks
// and may reuse them at once. The coherence layer, above this one, sets it
// to its flush of dirty pages.
using before_sending_frees_fn = void (*)() noexcept;
void set_before_sending_frees(before_sending_frees_fn fn) noexcept;
// Sends every queued free; one load when nothing is queued.
void flush_remote_frees() noexcept;

// Asks the home of a remote block for its usable size (a message round
// trip; not from a message handler).
std::size_t remote_usable_size(void* p);

struct remote_free_counts {
  std::uint64_t sent;      // remote blocks this node queued for their homes
  std::uint64_t received;  // blocks other nodes sent here to be freed
};
// Registers the handlers of remote frees and of malloc_usable_size of a
// remote block (called by register_runtime_handlers()).
void register_remote_free_handlers();

remote_free_counts remote_free_stats() noexcept;

}  // namespace dstd::rt
