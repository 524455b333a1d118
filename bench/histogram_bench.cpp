// A parallel histogram over a large byte array that one thread wrote: the
// read-mostly kernel behind issue 18's "no slower than one process" target
// (docs/BENCHMARKS.md, "Histogram and producer/consumer").
//
// Why: it is what an ordinary program does with a big input — main fills
// it, worker threads each count a slice and merge their counts under a
// mutex. Under dstdrun the slices on other nodes are fetched page by page
// (or by readahead), and every acquire may drop what was cached; run
// without dstdrun the same binary is the one-process baseline.
//
//   [dstdrun -n 2] histogram_bench [MIB [THREADS]]
//
// main (node 0) fills MIB MiB (default 256) with pseudo-random bytes, homed
// on node 0; THREADS threads (default 2) are spawned round-robin over the
// nodes, each counts its slice into 256 local bins and adds them to the
// shared bins under a dstd::mutex. Time: spawn of the first thread to the
// join of the last; 5 runs, median. Every run's bins are checked against a
// count made by main; a mismatch exits 1.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <vector>

namespace {

using bins = std::array<std::uint64_t, 256>;

struct shared_bins {
  dstd::mutex m;
  bins counts{};
};

void count_slice(const unsigned char* data, std::size_t from, std::size_t to, shared_bins* out) {
  bins mine{};
  for (std::size_t i = from; i < to; ++i) ++mine[data[i]];
  std::lock_guard<dstd::mutex> lock(out->m);
  for (std::size_t b = 0; b < mine.size(); ++b) out->counts[b] += mine[b];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 2;
  if (mib == 0 || threads == 0) {
    std::fprintf(stderr, "usage: histogram_bench [MIB>0 [THREADS>0]]\n");
    return 2;
  }
  const std::size_t size = mib << 20;
  auto* data = new unsigned char[size];
  std::uint64_t x = 88172645463325252ull;
  for (std::size_t i = 0; i < size; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    for (std::size_t k = 0; k < 8 && i + k < size; ++k) data[i + k] = static_cast<unsigned char>(x >> (8 * k));
  }
  bins expected{};
  for (std::size_t i = 0; i < size; ++i) ++expected[data[i]];

  const unsigned nodes = dstd::node_count();
  std::vector<double> ms;
  for (int run = 0; run < 5; ++run) {
    auto* out = new shared_bins;
    std::vector<dstd::thread> ts;
    const auto t0 = std::chrono::steady_clock::now();
    for (unsigned t = 0; t < threads; ++t) {
      ts.push_back(dstd::spawn_on(t % nodes, count_slice, data, size * t / threads,
                                  size * (t + 1) / threads, out));
    }
    for (auto& t : ts) t.join();
    const auto t1 = std::chrono::steady_clock::now();
    if (out->counts != expected) {
      std::fprintf(stderr, "histogram_bench: run %d counted differently from main\n", run);
      return 1;
    }
    delete out;
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("histogram of %zu MiB, %u threads on %u node(s): median %.1f ms (min %.1f, max %.1f)\n",
              mib, threads, nodes, ms[2], ms[0], ms[4]);
  delete[] data;
  return 0;
}
