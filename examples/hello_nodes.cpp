// hello_nodes: the first demo. main runs on node 0 and starts one
// dstd::thread on every node; each prints a line about itself and writes its
// process id into main's vector, which main reads after joining — plain
// memory, shared by all nodes.
//
//   build/bin/dstdrun -n 4 build/bin/hello_nodes
#include <unistd.h>

#include <cstdio>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <vector>

int main() {
  const dstd::node_id nodes = dstd::node_count();
  std::vector<int> pids(nodes, 0);
  std::vector<dstd::thread> threads;
  for (dstd::node_id n = 0; n < nodes; ++n) {
    threads.push_back(dstd::spawn_on(n, [&pids, n] {
      pids[n] = static_cast<int>(getpid());
      std::printf("hello from node %u of %u (pid %d)\n", dstd::this_node(), dstd::node_count(),
                  pids[n]);
      std::fflush(stdout);
    }));
  }
  for (auto& t : threads) t.join();
  for (dstd::node_id n = 0; n < nodes; ++n) {
    if (pids[n] <= 0) {
      std::fprintf(stderr, "node %u wrote no pid\n", n);
      return 1;
    }
  }
  std::printf("node 0 heard from all %u nodes\n", nodes);
  return 0;
}
