// Thread costs: spawn+join of a dstd::thread on the same node and on
// another node, against std::thread in the same program, joined from main
// and from inside a dstd thread; and what a fiber switch costs.
//
//   build/bin/dstdrun -n 2 build/bin/thread_bench
//
// (On one node the other-node rows are skipped.)
#include <atomic>
#include <cstdio>
#include <ctime>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "runtime/sched/scheduler.hpp"

namespace {

namespace bench = dstd::bench;
namespace sched = dstd::rt::sched;

void empty() {}

std::vector<bench::result> spawn_join_rows(const char* from) {
  std::vector<bench::result> rows;
  const std::string suffix = std::string(", joined from ") + from;
  rows.push_back(bench::measure("std::thread spawn+join" + suffix,
                                [] { std::thread(empty).join(); }, 100, 51));
  rows.push_back(bench::measure("dstd::thread spawn+join, same node" + suffix,
                                [] { dstd::spawn_on(dstd::this_node(), empty).join(); }, 100, 51));
  if (dstd::node_count() > 1) {
    rows.push_back(bench::measure("dstd::thread spawn+join, other node" + suffix,
                                  [] { dstd::spawn_on(1, empty).join(); }, 100, 51));
  }
  return rows;
}

// Two fibers on one node hand a turn back and forth with park/unpark.
struct ping_pong {
  std::atomic<int> turn{0};
  std::atomic<sched::fiber*> fibers[2] = {nullptr, nullptr};
  int rounds = 0;
};

void play(ping_pong& g, int me) {
  g.fibers[me].store(sched::self());
  while (g.fibers[1 - me].load() == nullptr) sched::yield();
  for (int i = 0; i < g.rounds; ++i) {
    while (g.turn.load() != me) sched::park();
    g.turn.store(1 - me);
    sched::unpark(g.fibers[1 - me].load());
  }
}

}  // namespace

int main() {
  std::vector<bench::result> rows = spawn_join_rows("main");
  dstd::spawn_on(0, [&rows] {
    for (auto& r : spawn_join_rows("a dstd thread")) rows.push_back(r);
    rows.push_back(bench::measure("fiber yield (to the worker and back)",
                                  [] { dstd::this_thread::yield(); }, 10000, 101));
  }).join();
  // Park/unpark round trips between two fibers: two switches each way.
  // Also in process CPU time, which a loaded machine disturbs less than
  // wall time (with more than one worker it includes idle workers' polling).
  constexpr int rounds = 20000;
  std::vector<double> samples;
  std::vector<double> cpu_samples;
  for (int s = 0; s < 21; ++s) {
    ping_pong g;
    g.rounds = rounds;
    const std::clock_t cpu0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    dstd::thread a = dstd::spawn_on(0, [&g] { play(g, 0); });
    dstd::thread b = dstd::spawn_on(0, [&g] { play(g, 1); });
    a.join();
    b.join();
    samples.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
        (2.0 * rounds));
    cpu_samples.push_back(double(std::clock() - cpu0) * 1e9 / CLOCKS_PER_SEC / (2.0 * rounds));
  }
  for (auto* v : {&samples, &cpu_samples}) std::sort(v->begin(), v->end());
  rows.push_back({"park/unpark hand-off between two fibers", samples[samples.size() / 2],
                  samples[samples.size() / 10], samples[samples.size() * 9 / 10]});
  rows.push_back({"park/unpark hand-off, process CPU time", cpu_samples[cpu_samples.size() / 2],
                  cpu_samples[cpu_samples.size() / 10], cpu_samples[cpu_samples.size() * 9 / 10]});
  char title[128];
  std::snprintf(title, sizeof title, "dstd threads, %u node(s), %u worker(s) per node",
                dstd::node_count(), sched::configured_workers());
  bench::print_table(title, rows);
  return 0;
}
