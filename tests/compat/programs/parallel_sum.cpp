// A parallel sum over a vector: each thread's lambda captures the data and
// its own partial result by reference ([&]) and sums one slice; main joins
// and adds the partials. Prints the total and a weighted checksum.
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

int main() {
  constexpr std::size_t n = 1 << 20;
  constexpr int parts = 8;
  std::vector<std::uint32_t> data(n);
  std::iota(data.begin(), data.end(), 1u);

  std::vector<std::uint64_t> sums(parts), weighted(parts);
  std::vector<std::thread> threads;
  for (int t = 0; t < parts; ++t) {
    threads.emplace_back([&, t] {
      const std::size_t begin = n / parts * static_cast<std::size_t>(t);
      const std::size_t end = begin + n / parts;
      std::uint64_t s = 0, w = 0;
      for (std::size_t i = begin; i < end; ++i) {
        s += data[i];
        w += data[i] * (i % 7);
      }
      sums[static_cast<std::size_t>(t)] = s;
      weighted[static_cast<std::size_t>(t)] = w;
    });
  }
  for (std::thread& t : threads) t.join();
  std::printf("sum=%llu weighted=%llu\n",
              static_cast<unsigned long long>(std::accumulate(sums.begin(), sums.end(), 0ull)),
              static_cast<unsigned long long>(
                  std::accumulate(weighted.begin(), weighted.end(), 0ull)));
  return 0;
}
