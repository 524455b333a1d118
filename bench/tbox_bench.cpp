// What tbox groups and ownership hints buy across nodes.
//
//  0. Dereference: a sum through 100,000 tbox<long> against as many
//     std::unique_ptr<long>, on node 0 (no remote memory).
//  1. DRust's list sum: a list of N elements built on node 0, summed by a
//     fresh thread on node 1 (whose start drops its cached pages, so every
//     run fetches the list again): dstd::tbox against std::unique_ptr, and
//     the same std::unique_ptr list summed on node 0 (the plain one-process
//     cost: no fetches). Medians of R runs, the two lists alternating; the
//     fetches and faults of one run.
//  2. Ownership hints: M objects of S bytes made on node 0 and sent through
//     a dstd::channel to a thread on node 1 that reads every byte and
//     deletes the object; as dstd::unique_ptr (the receive fetches the
//     pointee's pages in one batch) and as the same unique_ptr inside a
//     struct (the same moves, no hint: a fault per page). Median wall time
//     per message over R runs, alternating.
//
//   build/bin/dstdrun -n 2 build/bin/tbox_bench [N [M [R]]]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/channel>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <memory>
#include <utility>
#include <vector>

#include "examples/linked_list.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool failed = false;

// --- 0. dereference ---------------------------------------------------------

// Sums through K owners of one long each, on node 0 (all local): the cost
// of a dereference, tbox against std::unique_ptr. Median ns per element.
template <class Owner, class Make>
double deref_ns(int k, int runs, Make make) {
  std::vector<Owner> owners;
  for (int i = 0; i < k; ++i) owners.push_back(make(i));
  std::vector<double> t;
  long sum = 0;
  for (int r = 0; r < runs * 4; ++r) {
    const auto t0 = clock_type::now();
    for (const Owner& o : owners) sum += *o;
    const auto t1 = clock_type::now();
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / k);
  }
  if (sum != long(runs) * 4 * (long(k) * (k - 1) / 2)) failed = true;
  return median(t);
}

void dereference(int runs) {
  constexpr int k = 100000;
  std::vector<double> tb, up;
  for (int r = 0; r < runs; ++r) {
    tb.push_back(deref_ns<dstd::tbox<long>>(k, runs, [](int i) { return dstd::make_tbox<long>(i); }));
    up.push_back(deref_ns<std::unique_ptr<long>>(k, runs, [](int i) { return std::make_unique<long>(i); }));
  }
  std::printf("dereference on one node: sum through %d owners (median ns per element)\n", k);
  std::printf("| %-24s | %9s |\n|--------------------------|-----------|\n", "owner", "ns");
  std::printf("| %-24s | %9.2f |\n| %-24s | %9.2f |\n\n", "dstd::tbox<long>", median(tb),
              "std::unique_ptr<long>", median(up));
}

// --- 1. the list -----------------------------------------------------------

using linked_list::element;
template <class T>
using std_box = std::unique_ptr<T>;

struct walk {
  double micros = 0;
  std::uint64_t fetches = 0, faults = 0;
};

template <template <class> class Box>
walk sum_on(dstd::node_id node, const Box<element<Box>>& head, long n) {
  walk w;
  dstd::spawn_on(node, [&w, &head, n] {
    const dstd::node_stats before = dstd::stats();
    const auto t0 = clock_type::now();
    long sum = 0;
    for (const element<Box>* e = head.get(); e != nullptr; e = e->next.get()) sum += e->value;
    const auto t1 = clock_type::now();
    const dstd::node_stats after = dstd::stats();
    if (sum != n * (n + 1) / 2) failed = true;
    w = {std::chrono::duration<double, std::micro>(t1 - t0).count(), after.fetches - before.fetches,
         after.read_faults - before.read_faults};
  }).join();
  return w;
}

void list_sum(long n, int runs) {
  auto boxes = linked_list::build<dstd::tbox>(n, [](long v) {
    return dstd::make_tbox<element<dstd::tbox>>(element<dstd::tbox>{v, nullptr});
  });
  auto uniques = linked_list::build<std_box>(n, [](long v) {
    return std::make_unique<element<std_box>>(element<std_box>{v, nullptr});
  });
  std::vector<double> tb, up, local;
  walk last_tb, last_up;
  for (int r = 0; r < runs; ++r) {
    last_tb = sum_on<dstd::tbox>(1, boxes, n);
    last_up = sum_on<std_box>(1, uniques, n);
    tb.push_back(last_tb.micros);
    up.push_back(last_up.micros);
    local.push_back(sum_on<std_box>(0, uniques, n).micros);
  }
  std::printf("list sum, %ld elements built on node 0 (median of %d runs)\n", n, runs);
  std::printf("| %-40s | %10s | %8s | %8s |\n", "list, summed on", "median us", "fetches", "faults");
  std::printf("|------------------------------------------|------------|----------|----------|\n");
  std::printf("| %-40s | %10.0f | %8llu | %8llu |\n", "dstd::tbox, node 1", median(tb),
              static_cast<unsigned long long>(last_tb.fetches),
              static_cast<unsigned long long>(last_tb.faults));
  std::printf("| %-40s | %10.0f | %8llu | %8llu |\n", "std::unique_ptr, node 1", median(up),
              static_cast<unsigned long long>(last_up.fetches),
              static_cast<unsigned long long>(last_up.faults));
  std::printf("| %-40s | %10.0f | %8d | %8d |\n", "std::unique_ptr, node 0 (one process)",
              median(local), 0, 0);
  linked_list::destroy<dstd::tbox>(boxes);
  linked_list::destroy<std_box>(uniques);
}

// --- 2. ownership hints ----------------------------------------------------

template <std::size_t S>
struct blob {
  unsigned char bytes[S];
};

template <std::size_t S>
std::uint64_t read_all(const blob<S>& b) {
  std::uint64_t s = 0;
  for (unsigned char c : b.bytes) s += c;
  return s;
}

// M blobs sent from node 0 to a reader on node 1; wall time per message.
template <class Value, class Make, class Take>
double send_blobs(int m, Make make, Take take) {
  dstd::channel<Value> ch(16);
  bool wrong = false;
  const auto t0 = clock_type::now();
  dstd::thread reader = dstd::spawn_on(1, [&ch, &wrong, m, take] {
    for (int i = 0; i < m; ++i) {
      if (!take(*ch.recv())) wrong = true;
    }
  });
  for (int i = 0; i < m; ++i) ch.send(make());
  reader.join();
  const auto t1 = clock_type::now();
  if (wrong) failed = true;
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / m;
}

// The same owner inside a struct: the same moves through the channel (a
// moved-from unique_ptr is nulled in the ring), but no hint.
template <class B>
struct unhinted {
  dstd::unique_ptr<B> p;
};

template <std::size_t S>
void hint_row(int m, int runs) {
  using B = blob<S>;
  const auto make = [] {
    auto p = dstd::make_unique_for_overwrite<B>();
    for (std::size_t i = 0; i < S; ++i) p->bytes[i] = static_cast<unsigned char>(i);
    return p;
  };
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < S; ++i) expected += static_cast<unsigned char>(i);
  std::vector<double> owned, plain;
  for (int r = 0; r < runs; ++r) {
    owned.push_back(send_blobs<dstd::unique_ptr<B>>(
        m, make, [expected](dstd::unique_ptr<B> p) { return read_all(*p) == expected; }));
    plain.push_back(send_blobs<unhinted<B>>(
        m, [&make] { return unhinted<B>{make()}; },
        [expected](unhinted<B> u) { return read_all(*u.p) == expected; }));
  }
  const double o = median(owned), p = median(plain);
  std::printf("| %8zu | %12.1f | %12.1f | %6.2f |\n", S, o, p, p / o);
}

void hints(int m, int runs) {
  std::printf("\nownership hint: %d objects from node 0 read on node 1 (median us per message of %d runs)\n",
              m, runs);
  std::printf("| %8s | %12s | %12s | %6s |\n", "bytes", "hinted", "not hinted", "ratio");
  std::printf("|----------|--------------|--------------|--------|\n");
  hint_row<64>(m, runs);
  hint_row<4096>(m, runs);
  hint_row<16384>(m, runs);
  hint_row<65536>(m, runs);
  hint_row<262144>(m / 4, runs);
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  const int m = argc > 2 ? std::atoi(argv[2]) : 400;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 7;
  if (dstd::node_count() < 2 || n <= 0 || m < 4 || runs <= 0) {
    std::fprintf(stderr, "usage: dstdrun -n 2 tbox_bench [N > 0 [M >= 4 [R > 0]]]\n");
    return 2;
  }
  dereference(runs);
  list_sum(n, runs);
  hints(m, runs);
  if (failed) {
    std::fprintf(stderr, "tbox_bench: a wrong sum\n");
    return 1;
  }
  return 0;
}
