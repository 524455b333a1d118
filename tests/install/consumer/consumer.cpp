// A program built against an installed dstd, as a user would build one: it
// uses the node API and starts a dstd::thread on the last node.
#include <cstdio>
#include <dstd/dstd.hpp>
#include <dstd/thread>

int main() {
  dstd::node_id ran_on = 99;
  dstd::spawn_on(dstd::node_count() - 1, [&ran_on] { ran_on = dstd::this_node(); }).join();
  std::printf("consumer: node %u of %u, thread ran on node %u\n", dstd::this_node(),
              dstd::node_count(), ran_on);
  return ran_on == dstd::node_count() - 1 ? 0 : 1;
}
