// See cluster.hpp.
#include "cluster.hpp"

#include <dstd/thread>
#include <vector>

namespace dstd::test {

void run_on_every_node(worker_fn fn, const std::string& arg) {
  const node_id nodes = dstd::node_count();
  auto* all = new dstd::barrier<>(nodes);  // in node 0's heap: every worker reaches it
  std::vector<dstd::thread> workers;
  for (node_id n = 0; n < nodes; ++n) {
    workers.push_back(dstd::spawn_on(n, [fn, all, n, nodes, arg] {
      fn(worker_context{n, nodes, arg, all});
    }));
  }
  for (dstd::thread& w : workers) w.join();
  delete all;
}

}  // namespace dstd::test
