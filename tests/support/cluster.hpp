// Test support: run a worker on every node, with a barrier among them.
//
// The workers are dstd threads, one spawned on each node, and the barrier is
// a dstd::barrier: everything written before run_on_every_node() is visible
// to the workers, everything a worker wrote before barrier() is visible to
// the others after it, and everything they wrote is visible when
// run_on_every_node() returns.
#pragma once

#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <string>

namespace dstd::test {

struct worker_context {
  node_id node;
  node_id nodes;
  std::string arg;
  dstd::barrier<>* all;
  // Waits until every worker has arrived.
  void barrier() const { all->arrive_and_wait(); }
};

using worker_fn = void (*)(const worker_context& ctx);

// Runs fn on a dstd thread on every node (node 0 included) and returns when
// all have finished.
void run_on_every_node(worker_fn fn, const std::string& arg = {});

}  // namespace dstd::test
