// tbox_list: DRust's Listing 3 in C++. The same linked list is built on
// node 0 twice — of dstd::tbox, and of std::unique_ptr — and summed by a
// thread on node 2 (the last node on smaller runs). make_tbox put the tbox
// list's elements, allocated one after another, into 64 KiB groups, and
// node 2 fetches a whole group at its first fault in it; the unique_ptr
// list comes a page per fault. For each list the program prints the sum
// and node 2's counters while it walked the list.
//
//   build/bin/dstdrun -n 4 build/bin/tbox_list [elements, default 100000]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <memory>
#include <utility>

#include "linked_list.hpp"

namespace {

using linked_list::element;
template <class T>
using std_box = std::unique_ptr<T>;

struct walk {
  long sum = 0;
  dstd::node_stats before{}, after{};
  double micros = 0;
};

template <template <class> class Box>
walk sum_on(dstd::node_id node, const Box<element<Box>>& head) {
  walk w;
  dstd::spawn_on(node, [&w, &head] {
    w.before = dstd::stats();
    const auto start = std::chrono::steady_clock::now();
    long sum = 0;
    for (const element<Box>* e = head.get(); e != nullptr; e = e->next.get()) sum += e->value;
    const auto stop = std::chrono::steady_clock::now();
    w.after = dstd::stats();
    w.sum = sum;
    w.micros = std::chrono::duration<double, std::micro>(stop - start).count();
  }).join();
  return w;
}

void report(const char* name, const walk& w) {
  const auto delta = [&w](std::uint64_t dstd::node_stats::*f) {
    return static_cast<unsigned long long>(w.after.*f - w.before.*f);
  };
  std::printf("%-16s sum = %ld, %llu fetches (%llu pages, %llu faults, %llu messages), %.0f us\n",
              name, w.sum, delta(&dstd::node_stats::fetches), delta(&dstd::node_stats::pages_fetched),
              delta(&dstd::node_stats::read_faults), delta(&dstd::node_stats::messages_sent),
              w.micros);
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: tbox_list [elements > 0]\n");
    return 2;
  }
  const dstd::node_id reader = dstd::node_count() > 2 ? 2 : dstd::node_count() - 1;
  auto boxes = linked_list::build<dstd::tbox>(n, [](long v) {
    return dstd::make_tbox<element<dstd::tbox>>(element<dstd::tbox>{v, nullptr});
  });
  auto uniques = linked_list::build<std_box>(n, [](long v) {
    return std::make_unique<element<std_box>>(element<std_box>{v, nullptr});
  });
  std::printf("a list of %ld elements built on node 0, summed on node %u\n", n, reader);
  const walk b = sum_on<dstd::tbox>(reader, boxes);
  const walk u = sum_on<std_box>(reader, uniques);
  report("tbox list:", b);
  report("unique_ptr list:", u);
  const std::uint64_t bf = b.after.fetches - b.before.fetches;
  const std::uint64_t uf = u.after.fetches - u.before.fetches;
  if (bf > 0) std::printf("the tbox list took %.1fx fewer fetches\n", double(uf) / double(bf));
  linked_list::destroy<dstd::tbox>(boxes);
  linked_list::destroy<std_box>(uniques);
  const long expected = n * (n + 1) / 2;
  if (b.sum != expected || u.sum != expected) {
    std::fprintf(stderr, "wrong sum: expected %ld\n", expected);
    return 1;
  }
  return 0;
}
