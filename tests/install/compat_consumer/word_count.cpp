// An ordinary std C++ program that knows nothing of dstd: threads count
// words of a generated text into a shared map under a mutex, each result
// handed back through a std::shared_ptr. Prints the number of distinct
// words and the total.
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

int main() {
  const char* words[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
  std::vector<std::string> text;
  for (int i = 0; i < 20000; ++i) text.emplace_back(words[(i * 7 + i / 3) % 5]);

  std::mutex m;
  auto counts = std::make_shared<std::map<std::string, long>>();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::map<std::string, long> local;
      for (std::size_t i = static_cast<std::size_t>(t); i < text.size(); i += 4) ++local[text[i]];
      std::lock_guard<std::mutex> lock(m);
      for (const auto& [w, n] : local) (*counts)[w] += n;
    });
  }
  for (std::thread& t : threads) t.join();
  long total = 0;
  for (const auto& [w, n] : *counts) total += n;
  std::printf("distinct=%zu total=%ld alpha=%ld\n", counts->size(), total, (*counts)["alpha"]);
  return 0;
}
