// Where a new dstd thread runs (docs/DESIGN.md §5, "Placement").
//
// The controller's state is a table on node 0: for every node, the number
// of dstd threads placed there and not yet finished. Every node updates it
// with one-sided fetch-and-adds and reads it with one one-sided read, so
// node 0 runs no code for placement. A node's load is its threads per
// worker; a new thread goes to the least-loaded node (ties: round robin).
//
// Why threads placed rather than fibers runnable right now: a program
// spawns threads in bursts; counting a thread from the moment it is placed
// spreads a burst evenly, where a sampled runnable count would send the
// whole burst to whichever node looked idle when it began. A thread that
// is blocked still counts, which is the price of that.
//
// DSTD_PLACEMENT=spread (the default) or local (every thread stays on the
// node that creates it, unless spawn_to says otherwise).
#pragma once

#include <vector>

#include "runtime/transport/join_record.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt::placement {

// At boot, before rendezvous: fills this node's part of its join record
// (workers; node 0 also makes the table). Checks DSTD_PLACEMENT.
void describe(join_record& mine);
// At boot, after rendezvous.
void init(const std::vector<join_record>& all);

// The node for a new thread.
node_id choose();
// Bookkeeping for a thread placed on `n`, and for one that finished there.
void thread_placed(node_id n);
void thread_finished(node_id n);

// Workers of the whole cluster (thread::hardware_concurrency()).
unsigned cluster_workers();

}  // namespace dstd::rt::placement
