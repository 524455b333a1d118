// How a dstd::mutex (and a shared_mutex or a semaphore used as a lock)
// shared between nodes behaves when they contend: the kernels behind issue
// 18's lock targets (docs/BENCHMARKS.md, "Locks between nodes").
//
// Why a benchmark of its own: sync_bench's contended row says what an
// increment costs, not who gets the lock. A lock that a node re-takes as
// soon as it gives it up looks cheap per increment while the other nodes
// starve, so each kernel here also counts how often the lock changed
// nodes, and one forces the nodes to alternate, which is all hand-offs.
//
//   dstdrun -n 4 lock_handoff_bench [INCREMENTS [HANDOFFS]]
//
// Kernels (mutex and data homed on node 0, one dstd thread per node unless
// said; the threads start together, once all of them run; time per increment
// = wall time of the kernel, spawns and joins included, / increments;
// median of 5 runs):
//   counter, 2 nodes     nodes 0 and 1 increment under the lock until the
//                        count reaches INCREMENTS, so they contend to the end
//   counter, node 1 alone
//   counter, 4 nodes x 2 threads
//   alternate, 2 nodes   each node takes a turn only when the other took
//                        the last one, HANDOFFS turns in all; time per
//                        turn, and how many acquisitions found it was not
//                        their turn
//   alternate, shared_mutex  the same with the exclusive lock of a
//                        dstd::shared_mutex
//   alternate, semaphore the same with a dstd::binary_semaphore (acquire,
//                        release)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <string>
#include <vector>

namespace {

// The data behind the lock: the counter, and who incremented it last.
struct guarded {
  dstd::atomic<std::uint32_t> ready{0};  // threads running
  std::uint32_t threads = 0;              // in the kernel
  dstd::mutex m;
  dstd::shared_mutex sm;
  dstd::binary_semaphore sem{1};
  std::uint64_t count = 0;
  std::uint32_t last_node = ~0u;
  std::uint64_t node_changes = 0;  // increments made on another node than the one before
  std::uint64_t wasted = 0;        // alternate: acquisitions that found the other's turn
};

void start_together(guarded* g) {
  g->ready.fetch_add(1);
  while (g->ready.load() < g->threads) dstd::this_thread::yield();
}

// Increments until the count reaches `total`.
void increment(guarded* g, std::uint64_t total) {
  const std::uint32_t me = dstd::this_node();
  start_together(g);
  for (;;) {
    g->m.lock();
    if (g->count == total) {
      g->m.unlock();
      return;
    }
    ++g->count;
    if (g->last_node != me) {
      if (g->last_node != ~0u) ++g->node_changes;
      g->last_node = me;
    }
    g->m.unlock();
  }
}

// How a kernel takes and gives the lock it measures.
struct with_mutex {
  static void take(guarded* g) { g->m.lock(); }
  static void give(guarded* g) { g->m.unlock(); }
};
struct with_shared_mutex {
  static void take(guarded* g) { g->sm.lock(); }
  static void give(guarded* g) { g->sm.unlock(); }
};
struct with_semaphore {
  static void take(guarded* g) { g->sem.acquire(); }
  static void give(guarded* g) { g->sem.release(); }
};

// Takes `turns` turns, each only after the other node took one.
template <class Lock>
void alternate(guarded* g, std::uint64_t turns) {
  const std::uint32_t me = dstd::this_node();
  std::uint64_t taken = 0;
  start_together(g);
  while (taken < turns) {
    Lock::take(g);
    const bool mine = g->last_node != me && (g->last_node != ~0u || me == 0);
    if (mine) {
      ++g->count;
      g->last_node = me;
      ++taken;
    } else {
      ++g->wasted;
    }
    Lock::give(g);
  }
}

struct outcome {
  double ns_per_op;
  double ops_per_node_change;  // 0 when the lock never changed nodes
  double wasted_per_op;
};

// One kernel: `per_node` threads on each of `nodes` (from `first`), each
// running `body(g, n)`; checks that the count is `expected`.
template <class Body>
outcome run_once(std::uint32_t first, std::uint32_t nodes, int per_node, std::uint64_t n,
                 std::uint64_t expected, Body body) {
  auto* g = new guarded;  // on node 0: homed there
  g->threads = nodes * static_cast<std::uint32_t>(per_node);
  std::vector<dstd::thread> ts;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint32_t node = first; node < first + nodes; ++node) {
    for (int k = 0; k < per_node; ++k) ts.push_back(dstd::spawn_on(node, body, g, n));
  }
  for (auto& t : ts) t.join();
  const auto t1 = std::chrono::steady_clock::now();
  if (g->count != expected) {
    std::fprintf(stderr, "lock_handoff_bench: counted %llu, expected %llu\n",
                 static_cast<unsigned long long>(g->count), static_cast<unsigned long long>(expected));
    std::exit(1);
  }
  const double ops = static_cast<double>(expected);
  const outcome o{std::chrono::duration<double, std::nano>(t1 - t0).count() / ops,
                  g->node_changes == 0 ? 0.0 : ops / static_cast<double>(g->node_changes),
                  static_cast<double>(g->wasted) / ops};
  delete g;
  return o;
}

template <class Body>
void row(const char* name, std::uint32_t first, std::uint32_t nodes, int per_node, std::uint64_t n,
         std::uint64_t expected, Body body) {
  std::vector<outcome> runs;
  for (int r = 0; r < 5; ++r) runs.push_back(run_once(first, nodes, per_node, n, expected, body));
  std::sort(runs.begin(), runs.end(),
            [](const outcome& a, const outcome& b) { return a.ns_per_op < b.ns_per_op; });
  const outcome& m = runs[runs.size() / 2];
  std::printf("| %-34s | %14.0f | %18.1f | %14.1f |\n", name, m.ns_per_op, m.ops_per_node_change,
              m.wasted_per_op);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t increments = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
  const std::uint64_t handoffs = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200;
  const std::uint32_t nodes = dstd::node_count();
  if (nodes < 2) {
    std::printf("lock_handoff_bench: needs at least 2 nodes (dstdrun -n 4)\n");
    return 0;
  }
  std::printf("locks between nodes, %u nodes, medians of 5 runs\n", nodes);
  std::printf("| %-34s | %14s | %18s | %14s |\n", "kernel", "ns per op", "ops per node change",
              "wasted per op");
  std::printf("|%s|%s|%s|%s|\n", std::string(36, '-').c_str(), std::string(16, '-').c_str(),
              std::string(20, '-').c_str(), std::string(16, '-').c_str());
  row("counter, nodes 0+1, 1 thread each", 0, 2, 1, increments, increments, increment);
  row("counter, node 1 alone", 1, 1, 1, increments, increments, increment);
  if (nodes >= 4) row("counter, 4 nodes x 2 threads", 0, 4, 2, increments, increments, increment);
  row("alternate, nodes 0+1 (per turn)", 0, 2, 1, handoffs / 2, handoffs / 2 * 2,
      alternate<with_mutex>);
  row("alternate, shared_mutex (per turn)", 0, 2, 1, handoffs / 2, handoffs / 2 * 2,
      alternate<with_shared_mutex>);
  row("alternate, semaphore (per turn)", 0, 2, 1, handoffs / 2, handoffs / 2 * 2,
      alternate<with_semaphore>);
  return 0;
}
