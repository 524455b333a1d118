// Remote spawn+join in a loop from main, as a small program does it: the
// mean time per spawn_on(1, f).join() of an empty function over 3000 (after
// 200 to warm up), median of 5 runs.
//
// Why apart from thread_bench: there the same kernel runs inside the
// harness's batches; here main spawns directly, and node 1 reads a page of
// this executable's static data at each start (what the thread start
// touches there is the C runtime's, not this file's), which node 0's
// releases invalidated at each spawn until such pages could be refetched
// (docs/BENCHMARKS.md, "Fewer drops at a remote spawn").
//
//   build/bin/dstdrun -n 2 build/bin/remote_spawn_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dstd/dstd.hpp>
#include <vector>

namespace {

void empty() {}

double mean_us(int spawns) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < spawns; ++i) dstd::spawn_on(1, empty).join();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / spawns;
}

}  // namespace

int main() {
  if (dstd::node_count() < 2) {
    std::fprintf(stderr, "run with two nodes: dstdrun -n 2 remote_spawn_bench\n");
    return 2;
  }
  std::vector<double> runs;
  for (int r = 0; r < 5; ++r) {
    mean_us(200);
    runs.push_back(mean_us(3000));
  }
  std::sort(runs.begin(), runs.end());
  std::printf("remote spawn+join from main: median %.1f us per spawn (runs %.1f .. %.1f)\n",
              runs[2], runs.front(), runs.back());
}
