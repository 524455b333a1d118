// Part of <dstd/dstd.hpp>: the node API, which tells a program where it
// runs. A program started without dstdrun is one node: this_node() == 0,
// node_count() == 1.
#pragma once

#include <cstdint>

namespace dstd {

using node_id = std::uint32_t;

// The node the calling thread runs on.
node_id this_node() noexcept;

// How many nodes the run has.
node_id node_count() noexcept;

// The node whose memory holds *p. Addresses outside the global heap (a
// library's globals, a thread's own stack before dstd threads exist) are
// private to each node, so their home is the calling node.
node_id home_of(const void* p) noexcept;

// This node's counters since it started. They grow only on nodes that touch
// other nodes' memory; a one-node run keeps them at zero.
struct node_stats {
  std::uint64_t read_faults;            // faults on pages not cached here
  std::uint64_t write_faults;           // first writes to cached pages (twins made)
  std::uint64_t fetches;                // reads from homes: one per fault, or per batch
                                        // (a tbox group, an ownership transfer's pages)
  std::uint64_t pages_fetched;          // pages read from their homes
  std::uint64_t bytes_fetched;
  std::uint64_t diff_bytes_sent;        // changed bytes sent home at releases
  std::uint64_t pages_invalidated;      // cached pages dropped at acquires
  std::uint64_t pages_kept;             // cached pages acquires kept (unchanged at home)
  std::uint64_t pages_refetched;        // changed pages acquires read again instead of
                                        // dropping (read here lately)
  std::uint64_t pages_kept_writable;    // written pages a release sent and left writable
                                        // (written again since an earlier release)
  std::uint64_t fault_nanoseconds;      // time spent resolving faults
  std::uint64_t releases;               // releases that sent diffs
  std::uint64_t acquires;               // acquires that dropped or refreshed pages
  std::uint64_t remote_frees_sent;      // blocks freed here, sent to their homes
  std::uint64_t remote_frees_received;  // blocks other nodes sent here to free
  std::uint64_t messages_sent;          // transport messages (sends, calls, replies)
  std::uint64_t messages_received;      // messages whose handlers ran here
  std::uint64_t one_sided_operations;   // remote reads, writes and atomics issued
  std::uint64_t workers_added;          // extra worker threads started (every worker held)
  std::uint64_t threads_handed_off;     // dstd threads moved off a held worker
};

node_stats stats() noexcept;

}  // namespace dstd
