// accumulator: the C++ version of DRust's Listing 2. An accumulator lives in
// main's heap on node 0; each add() runs on a thread spawned on another node,
// which updates the accumulator in place through the shared heap, and main
// sees the new total as soon as it has joined that thread.
//
//   build/bin/dstdrun -n 4 build/bin/accumulator
//
// Then computation goes to the data: every node gets an accumulator in its
// own memory, and spawn_to runs each node's share of the work where that
// accumulator lives; main adds up the totals after joining.
#include <cstdint>
#include <cstdio>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <memory>
#include <vector>

namespace {

class accumulator {
 public:
  void add(std::uint64_t v) { total_ += v; }
  std::uint64_t total() const { return total_; }

 private:
  std::uint64_t total_ = 0;
};

// A node other than node 0, in turn (node 0 itself on a one-node run).
dstd::node_id other_node(unsigned i) {
  const dstd::node_id n = dstd::node_count();
  return n == 1 ? 0 : 1 + i % (n - 1);
}

}  // namespace

int main() {
  auto acc = std::make_unique<accumulator>();
  std::printf("accumulator in node %u's memory, %u node(s)\n", dstd::home_of(acc.get()),
              dstd::node_count());
  for (unsigned i = 1; i <= 6; ++i) {
    dstd::node_id ran_on = 0;
    dstd::thread t = dstd::spawn_on(other_node(i - 1), [&acc, &ran_on, i] {
      ran_on = dstd::this_node();
      acc->add(i);
    });
    t.join();
    std::printf("add(%u) ran on node %u: total = %llu\n", i, ran_on,
                static_cast<unsigned long long>(acc->total()));
  }

  // One accumulator per node, made on that node; the adds run where it lives.
  const dstd::node_id nodes = dstd::node_count();
  std::vector<std::unique_ptr<accumulator>> per_node(nodes);
  for (dstd::node_id n = 0; n < nodes; ++n) {
    dstd::spawn_on(n, [&per_node, n] { per_node[n] = std::make_unique<accumulator>(); }).join();
  }
  constexpr std::uint64_t count = 1000000;
  std::vector<dstd::thread> workers;
  for (dstd::node_id n = 0; n < nodes; ++n) {
    accumulator* mine = per_node[n].get();
    workers.push_back(dstd::spawn_to(mine, [mine, n, nodes] {
      for (std::uint64_t v = 1 + n; v <= count; v += nodes) mine->add(v);
    }));
  }
  for (auto& w : workers) w.join();
  std::uint64_t sum = 0;
  for (dstd::node_id n = 0; n < nodes; ++n) {
    std::printf("node %u's accumulator (in node %u's memory): %llu\n", n,
                dstd::home_of(per_node[n].get()),
                static_cast<unsigned long long>(per_node[n]->total()));
    sum += per_node[n]->total();
  }
  std::printf("sum of 1..%llu = %llu (expected %llu)\n", static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(sum),
              static_cast<unsigned long long>(count * (count + 1) / 2));
  return sum == count * (count + 1) / 2 ? 0 : 1;
}
