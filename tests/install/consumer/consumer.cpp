// A program built against an installed dstd, as a user would build one: it
// uses the node API, starts a dstd::thread on the last node and counts with
// a dstd::mutex and a dstd::atomic.
#include <cstdio>
#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <dstd/thread>
#include <mutex>

int main() {
  dstd::node_id ran_on = 99;
  dstd::mutex m;
  dstd::atomic<int> hits{0};
  dstd::spawn_on(dstd::node_count() - 1, [&] {
    std::lock_guard<dstd::mutex> guard(m);
    ran_on = dstd::this_node();
    hits.fetch_add(1);
  }).join();
  std::printf("consumer: node %u of %u, thread ran on node %u\n", dstd::this_node(),
              dstd::node_count(), ran_on);
  return ran_on == dstd::node_count() - 1 && hits.load() == 1 ? 0 : 1;
}
