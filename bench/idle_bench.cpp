// A program that works briefly and then does nothing: the subject of
// bench/idle_cpu.sh, which measures what its node processes cost while it
// does nothing (issue 18 item 5: an idle node must use ~0% of a core).
//
// Why work first: a node that never saw traffic proves little; the spinning
// and yielding the runtime does after traffic (runtime/common/backoff.hpp)
// must also end. So each node runs a thread that writes a shared page and
// takes a shared lock, then node 0's main sleeps.
//
//   dstdrun -n N idle_bench [SECONDS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <mutex>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::atoi(argv[1]) : 12;
  struct shared {
    dstd::mutex m;
    long sum = 0;
  };
  auto* s = new shared;
  std::vector<dstd::thread> threads;
  for (dstd::node_id node = 0; node < dstd::node_count(); ++node) {
    threads.push_back(dstd::spawn_on(node, [s, node] {
      for (int i = 0; i < 1000; ++i) {
        std::lock_guard<dstd::mutex> g(s->m);
        s->sum += node;
      }
    }));
  }
  for (auto& t : threads) t.join();
  std::printf("idle_bench: traffic done (sum %ld), idle for %d s\n", s->sum, seconds);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  delete s;
  return 0;
}
