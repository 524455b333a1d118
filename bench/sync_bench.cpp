// Sync costs: an uncontended dstd::mutex and dstd::atomic fetch_add on an
// object homed on this node and on another node, against std::mutex and
// std::atomic in the same program; and a counter behind one mutex that
// 8 threads increment: 8 std::threads with a std::mutex, 8 dstd threads on
// node 0, and 2 dstd threads on each of 4 nodes (mutex and counter homed on
// node 0). Measured from dstd threads on node 0.
//
//   build/bin/dstdrun -n 4 build/bin/sync_bench [N-nodes [N-local]]
//
// N-nodes (default 2000) is the increments per thread of the row that spans
// nodes, N-local (default 100000) those of the rows inside one process,
// which are fast enough that with 2000 the spawns and joins would dominate.
// (On one node the other-node rows are skipped; with 2 or 3 nodes the
// spanning row puts 8 / nodes threads on each node.)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <dstd/thread>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "runtime/sched/scheduler.hpp"

namespace {

namespace bench = dstd::bench;
namespace sched = dstd::rt::sched;

constexpr int batch = 10000;
constexpr int samples = 101;

// Keeps the compiler from dropping a result.
std::atomic<std::uint64_t> sink{0};

// Set when a check fails (wrong home, wrong count); main then exits 1.
std::atomic<bool> failed{false};

void check(bool good, const char* what, unsigned long long got, unsigned long long want) {
  if (good) return;
  std::fprintf(stderr, "sync_bench: %s is %llu, expected %llu\n", what, got, want);
  failed.store(true);
}

// Row 1 and 2: lock+unlock of a free mutex.
template <class Mutex>
bench::result lock_unlock(std::string name, Mutex& m) {
  return bench::measure(std::move(name), [&m] {
    m.lock();
    m.unlock();
  }, batch, samples);
}

// Row 3: fetch_add on an atomic counter.
template <class Atomic>
bench::result fetch_add(std::string name, Atomic& a, std::memory_order o) {
  std::uint64_t acc = 0;
  bench::result r =
      bench::measure(std::move(name), [&a, &acc, o] { acc += a.fetch_add(1, o); }, batch, samples);
  sink.fetch_add(acc, std::memory_order_relaxed);
  return r;
}

// Row 4: `threads` threads each do `n` lock/++counter/unlock; returns the
// median over `reps` runs of wall time / total increments (spawn and join
// included), and checks the count.
template <class Run>
bench::result contended(std::string name, int reps, std::uint64_t expected, Run&& run) {
  std::vector<double> per_inc;
  for (int s = 0; s < reps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t got = run();
    const auto t1 = std::chrono::steady_clock::now();
    check(got == expected, (name + ": counter").c_str(), got, expected);
    per_inc.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                      static_cast<double>(expected));
  }
  std::sort(per_inc.begin(), per_inc.end());
  auto at = [&](double q) {
    return per_inc[static_cast<std::size_t>(q * double(per_inc.size() - 1))];
  };
  return {std::move(name), at(0.5), at(0.1), at(0.9)};
}

// The mutex and counter of a dstd contended run, both homed on node 0.
struct shared_counter {
  dstd::mutex m;
  std::uint64_t counter = 0;
};

void add_n(shared_counter* c, int n) {
  for (int i = 0; i < n; ++i) {
    c->m.lock();
    ++c->counter;
    c->m.unlock();
  }
}

// `per_node` dstd threads on each of nodes 0..nodes-1.
std::uint64_t dstd_contended(unsigned nodes, int per_node, int n) {
  auto* c = new shared_counter;  // called on node 0: homed there
  check(dstd::home_of(c) == 0, "home of the contended mutex", dstd::home_of(c), 0);
  std::vector<dstd::thread> ts;
  for (unsigned node = 0; node < nodes; ++node) {
    for (int k = 0; k < per_node; ++k) ts.push_back(dstd::spawn_on(node, add_n, c, n));
  }
  for (auto& t : ts) t.join();
  const std::uint64_t got = c->counter;
  delete c;
  return got;
}

std::uint64_t std_contended(int threads, int n) {
  std::mutex m;
  std::uint64_t counter = 0;
  std::vector<std::thread> ts;
  for (int k = 0; k < threads; ++k) {
    ts.emplace_back([&m, &counter, n] {
      for (int i = 0; i < n; ++i) {
        m.lock();
        ++counter;
        m.unlock();
      }
    });
  }
  for (auto& t : ts) t.join();
  return counter;
}

}  // namespace

int main(int argc, char** argv) {
  const int n_nodes = argc > 1 ? std::atoi(argv[1]) : 2000;   // increments per thread
  const int n_local = argc > 2 ? std::atoi(argv[2]) : 100000;
  const int reps_nodes = 5;
  const int reps_local = 11;
  const unsigned nodes = dstd::node_count();
  std::vector<bench::result> rows;

  // Uncontended rows, measured from a dstd thread on node 0.
  dstd::spawn_on(0, [&rows, nodes] {
    std::mutex sm;
    rows.push_back(lock_unlock("std::mutex lock+unlock", sm));

    auto* lm = new dstd::mutex;  // homed on node 0
    check(dstd::home_of(lm) == 0, "home of the local mutex", dstd::home_of(lm), 0);
    rows.push_back(lock_unlock("dstd::mutex lock+unlock, home here", *lm));

    dstd::mutex* rm = nullptr;
    dstd::atomic<std::uint64_t>* ra = nullptr;
    if (nodes > 1) {
      dstd::spawn_on(1, [&rm, &ra] {
        rm = new dstd::mutex;  // homed on node 1
        ra = new dstd::atomic<std::uint64_t>(0);
      }).join();
      check(dstd::home_of(rm) == 1, "home of the remote mutex", dstd::home_of(rm), 1);
      check(dstd::home_of(ra) == 1, "home of the remote atomic", dstd::home_of(ra), 1);
      rows.push_back(lock_unlock("dstd::mutex lock+unlock, home node 1", *rm));
    }

    std::atomic<std::uint64_t> sa{0};
    rows.push_back(fetch_add("std::atomic fetch_add seq_cst", sa, std::memory_order_seq_cst));
    rows.push_back(fetch_add("std::atomic fetch_add relaxed", sa, std::memory_order_relaxed));

    auto* la = new dstd::atomic<std::uint64_t>(0);
    rows.push_back(fetch_add("dstd::atomic fetch_add seq_cst, home here", *la,
                             std::memory_order_seq_cst));
    rows.push_back(fetch_add("dstd::atomic fetch_add relaxed, home here", *la,
                             std::memory_order_relaxed));
    if (ra != nullptr) {
      rows.push_back(fetch_add("dstd::atomic fetch_add seq_cst, home node 1", *ra,
                               std::memory_order_seq_cst));
      rows.push_back(fetch_add("dstd::atomic fetch_add relaxed, home node 1", *ra,
                               std::memory_order_relaxed));
      // Both rows did (samples + 1 warm-up) batches of increments.
      const std::uint64_t want = 2ull * (samples + 1) * batch;
      const std::uint64_t got = ra->load();
      check(got == want, "the remote atomic", got, want);
    }
    // Deleting node 1's blocks here is fine: they are sent home to be freed.
    delete la;
    delete lm;
    delete ra;
    delete rm;
  }).join();

  // Contended rows: 8 threads.
  std::vector<bench::result> crow;
  const std::uint64_t total_local = 8ull * static_cast<std::uint64_t>(n_local);
  auto add = [&crow](bench::result r) { crow.push_back(std::move(r)); };
  add(contended("std::mutex, 8 std::threads", reps_local, total_local,
                [n_local] { return std_contended(8, n_local); }));
  dstd::spawn_on(0, [&] {
    add(contended("dstd::mutex, 8 dstd threads on node 0", reps_local, total_local,
                  [n_local] { return dstd_contended(1, 8, n_local); }));
    if (nodes >= 2) {
      const unsigned use = std::min(nodes, 4u);
      const int per_node = static_cast<int>(8 / use);
      char name[64];
      std::snprintf(name, sizeof name, "dstd::mutex, %u nodes x %d dstd threads", use, per_node);
      add(contended(name, reps_nodes, static_cast<std::uint64_t>(use) * per_node * n_nodes,
                    [use, per_node, n_nodes] { return dstd_contended(use, per_node, n_nodes); }));
    }
  }).join();

  char title[256];
  std::snprintf(title, sizeof title, "dstd sync, %u node(s), %u worker(s) per node, uncontended",
                nodes, sched::configured_workers());
  bench::print_table(title, rows);
  std::snprintf(title, sizeof title,
                "\ncontended counter, ns per increment (wall / increments, spawn and join "
                "included);\nin one process %d increments per thread, %d runs; across nodes %d "
                "increments per thread, %d runs",
                n_local, reps_local, n_nodes, reps_nodes);
  bench::print_table(title, crow);
  return failed.load() ? 1 : 0;
}
