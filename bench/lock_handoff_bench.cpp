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
// A counter run in which one node made every increment is also printed on
// a line of its own: when another node first held the lock, against when
// the count was full. (On two vCPUs the 2-node counter has two modes: the
// lock changes nodes every 10 or so increments, or node 1's request waits
// at node 0 until node 0's loop has ended, docs/BENCHMARKS.md.)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <string>
#include <vector>

namespace {

constexpr std::uint32_t max_nodes = 64;  // counted per node in the counter kernels

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
  // counter: when each node first held the lock, and when the count
  // reached its end (ns after the kernel's spawns began; 0 = never)
  std::chrono::steady_clock::time_point t0;
  std::uint64_t first_turn_ns[max_nodes] = {};
  std::uint64_t last_increment_ns = 0;
};

std::uint64_t since(const guarded* g) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - g->t0)
                                        .count());
}

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
    if (me < max_nodes && g->first_turn_ns[me] == 0) g->first_turn_ns[me] = since(g);
    if (g->count == total) {
      g->m.unlock();
      return;
    }
    if (++g->count == total) g->last_increment_ns = since(g);
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
  // counter kernels: a node that made no increment, and when it first held
  // the lock (after the count was full) against the last increment, in µs
  std::int64_t starved_node = -1;
  double starved_first_turn_us = 0, last_increment_us = 0;
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
  g->t0 = t0;
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
  outcome o{std::chrono::duration<double, std::nano>(t1 - t0).count() / ops,
            g->node_changes == 0 ? 0.0 : ops / static_cast<double>(g->node_changes),
            static_cast<double>(g->wasted) / ops};
  if (g->last_increment_ns != 0 && g->node_changes == 0 && nodes > 1) {
    // Every increment was made on one node: which one waited, and how long.
    for (std::uint32_t node = first; node < first + nodes && node < max_nodes; ++node) {
      if (node == g->last_node) continue;
      o.starved_node = node;
      o.starved_first_turn_us = static_cast<double>(g->first_turn_ns[node]) / 1e3;
      o.last_increment_us = static_cast<double>(g->last_increment_ns) / 1e3;
      break;
    }
  }
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
  for (const outcome& r : runs) {
    if (r.starved_node < 0) continue;
    std::printf("|   one run: node %lld first held it at %.0f us, the last increment was at %.0f us | | | |\n",
                static_cast<long long>(r.starved_node), r.starved_first_turn_us,
                r.last_increment_us);
  }
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
