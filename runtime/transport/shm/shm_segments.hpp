// The two shared-memory segments behind the shm transport, and their layout.
//
// Why dstdrun creates them: both are memfds made before the nodes fork, so
// every node inherits them. That needs no names in /dev/shm (nothing leaks if
// a node is killed) and no permission checks between processes. A program
// started without dstdrun creates its own one-node segments the same way.
//
//   heap segment     nodes * P + layout::static_region_max bytes, sparse.
//                    Node i's partition is bytes [i*P, (i+1)*P); node i maps
//                    its slice at its global address. The executable's static
//                    data, homed at node 0, follows at N*P. Every node maps the
//                    whole segment as a window for one-sided operations.
//   control segment  a header, one join slot per node, each node's reply
//                    slots (reply_slots.hpp) and one message ring per
//                    ordered pair of nodes (from, to).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/transport/join_record.hpp"

namespace dstd::rt::shm {

inline constexpr std::uint64_t control_magic = 0x6473'7464'7368'6d31ull;  // "dstdshm1"
inline constexpr std::uint32_t control_version = 2;

// Bytes of payload space in each ring. A message must fit in a quarter of it.
inline constexpr std::uint64_t ring_data_bytes = 256 * 1024;

struct control_header {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t nodes;
  std::uint64_t partition_bytes;
  std::uint64_t ring_data_bytes;
};

// One per node. `doorbell` is the futex a node's service thread sleeps on;
// `sleeping` tells senders whether a wake-up is needed.
struct alignas(64) join_slot {
  std::atomic<std::uint32_t> joined;
  std::atomic<std::uint32_t> doorbell;
  std::atomic<std::uint32_t> sleeping;
  join_record record;
};

// Single-producer (one node, serialized by a local lock) single-consumer (the
// receiving node's service thread) byte ring. head/tail count bytes ever
// consumed/produced; they never wrap.
struct alignas(64) ring_header {
  alignas(64) std::atomic<std::uint64_t> tail;  // producer writes
  alignas(64) std::atomic<std::uint64_t> head;  // consumer writes
  alignas(64) std::atomic<std::uint32_t> space_seq;      // futex: bumped when space frees
  std::atomic<std::uint32_t> space_waiters;              // producers sleeping on space_seq
};

// Replies written into the caller's node (reply_slots.hpp): this many slots
// per node, each holding a reply of up to reply_slot_bytes (a page's worth;
// only the pages of slots ever used are committed).
inline constexpr unsigned reply_slots_per_node = 64;
inline constexpr std::size_t reply_slot_bytes = 4096;

struct alignas(64) reply_slot {
  std::atomic<std::uint64_t> state;  // generation << 2 | reply_slots::state
  std::uint32_t length;
  alignas(64) std::byte payload[reply_slot_bytes];  // its own cache lines: the caller polls `state`
};

struct control_layout {
  unsigned nodes;
  std::size_t slots_offset;
  std::size_t replies_offset;  // nodes * reply_slots_per_node reply_slot
  std::size_t rings_offset;
  std::size_t ring_stride;  // header + data
  std::size_t total_bytes;

  static control_layout for_nodes(unsigned nodes);
};

struct segment_fds {
  int control_fd = -1;
  int heap_fd = -1;
};

// Creates and sizes both memfds (not close-on-exec) and initializes the
// control header. Returns false and sets errno on failure.
bool create_segments(unsigned nodes, std::uint64_t partition_bytes, segment_fds& out);

}  // namespace dstd::rt::shm
