// A small benchmark harness: time a batch of operations many times and report
// the median cost per operation, in a plain table.
//
// Why not Google Benchmark here: these benchmarks run under dstdrun with the
// measuring code on node 0 and its peers serving, and the numbers we quote
// are medians of batches, which this does in a few lines.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace dstd::bench {

struct result {
  std::string name;
  double median_ns;
  double p10_ns;
  double p90_ns;
};

// Runs op() `batch` times per sample, `samples` samples (after one warm-up
// sample) and returns per-operation percentiles.
template <class Op>
result measure(std::string name, Op&& op, int batch = 1000, int samples = 101) {
  std::vector<double> per_op;
  per_op.reserve(static_cast<std::size_t>(samples));
  for (int s = -1; s < samples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) op();
    const auto t1 = std::chrono::steady_clock::now();
    if (s >= 0) per_op.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / batch);
  }
  std::sort(per_op.begin(), per_op.end());
  auto at = [&](double q) { return per_op[static_cast<std::size_t>(q * double(per_op.size() - 1))]; };
  return {std::move(name), at(0.5), at(0.1), at(0.9)};
}

inline void print_table(const char* title, const std::vector<result>& rows) {
  std::printf("%s\n", title);
  std::printf("| %-42s | %12s | %12s | %12s |\n", "operation", "median ns", "p10 ns", "p90 ns");
  std::printf("|%s|%s|%s|%s|\n", std::string(44, '-').c_str(), std::string(14, '-').c_str(),
              std::string(14, '-').c_str(), std::string(14, '-').c_str());
  for (const result& r : rows) {
    std::printf("| %-42s | %12.1f | %12.1f | %12.1f |\n", r.name.c_str(), r.median_ns, r.p10_ns,
                r.p90_ns);
  }
}

}  // namespace dstd::bench
