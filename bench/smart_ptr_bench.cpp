// Smart pointer costs: (a) a dereference of dstd::unique_ptr and
// dstd::shared_ptr against std's (a loop summing through 1024 pointers);
// (b) a shared_ptr copy + drop with the control block homed on this node
// and on another one, against std::shared_ptr; (c) atomic<shared_ptr>
// load (+ drop of what was loaded) and compare-exchange, on the atomic's
// node and from another node, against std::atomic<std::shared_ptr>.
//
//   build/bin/dstdrun -n 2 build/bin/smart_ptr_bench [rounds]
//
// Each row is measured `rounds` times (default 7), the rows taking turns
// (round 1 of every row, then round 2, ...), each time the median of 101
// batches; the table gives the median of the rounds' medians and the
// lowest and highest. (On one node the rows that span nodes are skipped.)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/harness.hpp"

namespace {

namespace bench = dstd::bench;

constexpr int pointers = 1024;

// Keeps a value (or the memory behind it) from being optimized away.
template <class T>
void keep(const T& v) {
  asm volatile("" : : "r"(&v) : "memory");
}

// A row: what to measure, made by the measuring thread on its node (so
// what the operation itself writes is homed there).
struct row {
  std::string name;
  dstd::node_id node;  // where the measuring thread runs
  int batch;
  std::function<std::function<void()>()> make_op;
  std::vector<double> medians;
};

// (a) Sum the ints behind `pointers` smart pointers; per dereference.
template <class Ptr, class Make>
row deref_row(std::string name, Make make) {
  auto ptrs = std::make_shared<std::vector<Ptr>>();
  for (int i = 0; i < pointers; ++i) ptrs->push_back(make(i));
  return {std::move(name), 0, 1, [ptrs] {
            return [ptrs] {
              long sum = 0;
              for (const Ptr& p : *ptrs) sum += *p;
              keep(sum);
            };
          }, {}};
}

// (b) Copy and drop an owner of `p`.
template <class Ptr>
row copy_drop_row(std::string name, dstd::node_id node, Ptr p) {
  return {std::move(name), node, 1000, [p] {
            return [p] {
              Ptr copy(p);
              keep(copy);
            };
          }, {}};
}

// (c) Load (and drop what was loaded), and compare-exchange (CAS) between
// two values.
template <class Atomic, class Ptr>
row load_row(std::string name, dstd::node_id node, std::shared_ptr<Atomic> a) {
  return {std::move(name), node, 1000, [a] {
            return [a] {
              Ptr seen = a->load(std::memory_order_acquire);
              keep(seen);
            };
          }, {}};
}
template <class Atomic, class Ptr>
row cas_row(std::string name, dstd::node_id node, std::shared_ptr<Atomic> a, Ptr x, Ptr y) {
  return {std::move(name), node, 1000, [a, x, y] {
            auto pair = std::make_shared<std::pair<Ptr, Ptr>>(x, y);
            return [a, pair] {
              // The atomic holds pair->first: swap it for (a copy of) pair->second.
              if (!a->compare_exchange_strong(pair->first, pair->second)) std::abort();
              std::swap(pair->first, pair->second);
            };
          }, {}};
}

// A dstd::shared_ptr<int> made on `node`: its control block is homed there.
dstd::shared_ptr<int> made_on(dstd::node_id node, int v) {
  dstd::shared_ptr<int> p;
  dstd::spawn_on(node, [&p, v] { p = dstd::make_shared<int>(v); }).join();
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const bool two = dstd::node_count() >= 2;
  std::vector<row> deref;
  deref.push_back(deref_row<std::unique_ptr<int>>("std::unique_ptr", [](int i) {
    return std::make_unique<int>(i);
  }));
  deref.push_back(deref_row<dstd::unique_ptr<int>>("dstd::unique_ptr", [](int i) {
    return dstd::make_unique<int>(i);
  }));
  deref.push_back(deref_row<std::shared_ptr<int>>("std::shared_ptr", [](int i) {
    return std::make_shared<int>(i);
  }));
  deref.push_back(deref_row<dstd::shared_ptr<int>>("dstd::shared_ptr", [](int i) {
    return dstd::make_shared<int>(i);
  }));

  std::vector<row> copies;
  copies.push_back(copy_drop_row("std::shared_ptr", 0, std::make_shared<int>(1)));
  copies.push_back(copy_drop_row("dstd::shared_ptr, block on this node", 0, made_on(0, 1)));
  if (two) {
    copies.push_back(copy_drop_row("dstd::shared_ptr, block on another node", 0, made_on(1, 1)));
  }

  using std_atomic = std::atomic<std::shared_ptr<int>>;
  using dstd_atomic = dstd::atomic<dstd::shared_ptr<int>>;
  std::vector<row> atomics;
  auto std_cell = std::make_shared<std_atomic>(std::make_shared<int>(1));
  auto std_a = std_cell->load();
  atomics.push_back(load_row<std_atomic, std::shared_ptr<int>>("load, std::atomic<std::shared_ptr>", 0,
                                                               std_cell));
  atomics.push_back(cas_row("CAS, std::atomic<std::shared_ptr>", 0, std_cell,
                            std_a, std::make_shared<int>(2)));
  // The atomic and its values made (homed) on node 0.
  auto cell = std::make_shared<dstd_atomic>(dstd::make_shared<int>(1));
  auto a = cell->load();
  auto b = dstd::make_shared<int>(2);
  atomics.push_back(load_row<dstd_atomic, dstd::shared_ptr<int>>("load, dstd, on its node", 0, cell));
  atomics.push_back(cas_row("CAS, dstd, on its node", 0, cell, a, b));
  if (two) {
    atomics.push_back(load_row<dstd_atomic, dstd::shared_ptr<int>>("load, dstd, from another node", 1,
                                                                   cell));
    atomics.push_back(cas_row("CAS, dstd, from another node", 1, cell, a, b));
  }

  // The rows take turns, round by round.
  std::vector<std::vector<row>*> tables{&deref, &copies, &atomics};
  for (int r = 0; r < rounds; ++r) {
    for (auto* t : tables) {
      for (row& w : *t) {
        double median = 0;
        dstd::spawn_on(w.node, [&w, &median] {
          std::function<void()> op = w.make_op();
          median = bench::measure(w.name, op, w.batch).median_ns;
        }).join();
        w.medians.push_back(median);
      }
    }
  }

  auto summary = [](std::vector<row>& t, double per) {
    std::vector<bench::result> out;
    for (row& w : t) {
      std::sort(w.medians.begin(), w.medians.end());
      out.push_back({w.name, w.medians[w.medians.size() / 2] / per, w.medians.front() / per,
                     w.medians.back() / per});
    }
    return out;
  };
  char title[256];
  std::snprintf(title, sizeof title,
                "(a) dereference, ns per pointer (a sum through %d pointers); %u node(s); "
                "median of %d rounds' medians\n(columns p10/p90: the lowest/highest round)",
                pointers, dstd::node_count(), rounds);
  bench::print_table(title, summary(deref, pointers));
  std::printf("\n");
  bench::print_table("(b) shared_ptr copy + drop, ns", summary(copies, 1));
  std::printf("\n");
  bench::print_table("(c) atomic<shared_ptr>, ns per operation (load includes dropping the copy)",
                     summary(atomics, 1));
  return 0;
}
