// Coherence costs on shm: read-fault latency, write-fault (twin) cost,
// release time against dirty pages, acquire time against cached pages, and
// what release+acquire cost a node with nothing cached.
//
//   build/bin/dstdrun -n 2 build/bin/coherence_bench
//
// Node 0 owns the memory; a thread on node 1 measures and prints.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dstd/dstd.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "runtime/coherence/coherence.hpp"
#include "runtime/transport/transport.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace {

namespace coherence = dstd::rt::coherence;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t page = 4096;
constexpr std::size_t pages = 4096;  // 16 MiB on node 0
constexpr int repetitions = 21;
constexpr dstd::rt::handler_id h_measure = dstd::rt::first_user_handler;

struct request {
  unsigned char* area;
  dstd::rt::gaddr done;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ns_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

void touch_read(const unsigned char* area, std::size_t n) {
  unsigned sum = 0;
  for (std::size_t p = 0; p < n; ++p) sum += area[p * page];
  asm volatile("" : : "r"(sum) : "memory");
}

void measure(request req) {
  unsigned char* area = req.area;
  std::vector<dstd::bench::result> rows;

  std::vector<double> per_fault;
  for (int r = 0; r < repetitions; ++r) {
    coherence::acquire();  // drops every cached page
    const auto t0 = clock_type::now();
    touch_read(area, pages);
    per_fault.push_back(ns_since(t0) / pages);
  }
  rows.push_back({"read fault (fetch 4 KiB from node 0)", median(per_fault), 0, 0});

  per_fault.clear();
  for (int r = 0; r < repetitions; ++r) {
    coherence::acquire();
    touch_read(area, pages);  // now cached read-only
    const auto t0 = clock_type::now();
    for (std::size_t p = 0; p < pages; ++p) area[p * page + 1] = static_cast<unsigned char>(r);
    per_fault.push_back(ns_since(t0) / pages);
    coherence::release();
  }
  rows.push_back({"write fault on a cached page (twin)", median(per_fault), 0, 0});

  for (std::size_t dirty : {1ul, 16ul, 256ul, 4096ul}) {
    std::vector<double> t;
    for (int r = 0; r < repetitions; ++r) {
      coherence::acquire();
      for (std::size_t p = 0; p < dirty; ++p) std::memset(area + p * page + 8, r, 8);
      const auto t0 = clock_type::now();
      coherence::release();
      t.push_back(ns_since(t0));
    }
    rows.push_back({"release, " + std::to_string(dirty) + " dirty pages (8 B each)", median(t), 0, 0});
  }

  for (std::size_t cached : {1ul, 16ul, 256ul, 4096ul}) {
    std::vector<double> t;
    for (int r = 0; r < repetitions; ++r) {
      coherence::acquire();
      touch_read(area, cached);
      const auto t0 = clock_type::now();
      coherence::acquire();
      t.push_back(ns_since(t0));
    }
    rows.push_back({"acquire, " + std::to_string(cached) + " cached pages", median(t), 0, 0});
  }

  std::printf("## node 1 against node 0's memory (median of %d runs)\n", repetitions);
  std::printf("| %-44s | %14s |\n|%s|%s|\n", "operation", "median ns",
              std::string(46, '-').c_str(), std::string(16, '-').c_str());
  for (const auto& row : rows) std::printf("| %-44s | %14.1f |\n", row.name.c_str(), row.median_ns);
  std::fflush(stdout);
  dstd::rt::current_transport()->fetch_add(req.done, 1);
}

void on_measure(dstd::rt::message& m) {
  request req{};
  std::memcpy(&req, m.payload().data(), sizeof req);
  std::thread(measure, req).detach();  // handlers must not block
}
const dstd::rt::handler_registration registration{h_measure, &on_measure};

}  // namespace

int main() {
  if (dstd::node_count() < 2) {
    std::fprintf(stderr, "run with two nodes: dstdrun -n 2 coherence_bench\n");
    return 2;
  }
  // A node with nothing cached or dirty: release and acquire are one check.
  const auto idle = dstd::bench::measure("release + acquire, nothing cached (node 0)", [] {
    coherence::release();
    coherence::acquire();
  }, 100000);
  std::printf("## node 0, nothing cached\n| %s | %.2f ns |\n\n", idle.name.c_str(), idle.median_ns);

  auto* area = static_cast<unsigned char*>(std::aligned_alloc(page, pages * page));
  std::memset(area, 1, pages * page);
  auto* done = static_cast<std::uint64_t*>(std::aligned_alloc(64, 64));
  *done = 0;
  const request req{area, reinterpret_cast<dstd::rt::gaddr>(done)};
  dstd::rt::transport& t = *dstd::rt::current_transport();
  t.post_send(1, h_measure, &req, sizeof req);
  while (t.fetch_add(req.done, 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return 0;
}
