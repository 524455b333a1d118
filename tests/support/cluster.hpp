// Test support: run a worker thread on every node, with a barrier.
//
// The barrier is built on transport atomics only (the real sync types come
// later): a worker releases before it arrives and acquires after it leaves,
// so everything written before the barrier is visible after it.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/transport/transport.hpp"

namespace dstd::test {

struct worker_context {
  rt::node_id node;
  rt::node_id nodes;
  std::string arg;
  // Waits until every worker has arrived (releases before, acquires after).
  void barrier() const;

  rt::gaddr barrier_word;
  mutable std::uint64_t barrier_round;
};

using worker_fn = void (*)(const worker_context& ctx);

// Runs fn on a new thread on every node (node 0 included) and returns when
// all have finished; fails the test (and returns) after 120 s.
void run_on_every_node(worker_fn fn, const std::string& arg = {});

}  // namespace dstd::test
