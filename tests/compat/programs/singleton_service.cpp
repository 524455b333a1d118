// A service in the style many programs have: a Meyers singleton (a
// function-local static) holding a registry guarded by a std::mutex,
// worker threads that poll a global std::atomic<bool> with relaxed loads
// and sleep_for between rounds, a reporter that wakes on a
// condition_variable with wait_for timeouts, and a custom deleter on a
// std::unique_ptr and a std::shared_ptr. Prints the registry's totals.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

class registry {
 public:
  static registry& instance() {
    static registry r;  // built by whichever thread comes first
    return r;
  }
  void add(const std::string& key, long n) {
    std::lock_guard<std::mutex> lock(mutex_);
    counts_[key] += n;
  }
  std::pair<std::size_t, long> totals() {
    std::lock_guard<std::mutex> lock(mutex_);
    long sum = 0;
    for (const auto& kv : counts_) sum += kv.second;
    return {counts_.size(), sum};
  }

 private:
  registry() : counts_{{"boot", 1}} {}
  std::mutex mutex_;
  std::map<std::string, long> counts_;
};

std::atomic<bool> running{true};
std::atomic<int> rounds_done{0};
int deleted = 0;  // written by the deleters, read after the joins
std::mutex deleted_mutex;

struct counting_deleter {
  void operator()(long* p) const {
    std::lock_guard<std::mutex> lock(deleted_mutex);
    deleted += static_cast<int>(*p);
    delete p;
  }
};

}  // namespace

int main() {
  constexpr int workers = 4, rounds = 25;
  std::mutex report_mutex;
  std::condition_variable report_ready;
  int reports = 0;
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::unique_ptr<long, counting_deleter> mine(new long(w + 1));
      std::shared_ptr<long> shared(new long(10 * (w + 1)), counting_deleter{});
      for (int r = 0; r < rounds && running.load(std::memory_order_relaxed); ++r) {
        registry::instance().add("worker" + std::to_string(w), *mine);
        registry::instance().add("shared", *shared);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (rounds_done.fetch_add(1) + 1 == workers * rounds) {
          {
            std::lock_guard<std::mutex> lock(report_mutex);
            reports = 1;
          }
          report_ready.notify_one();
        }
      }
    });
  }
  std::thread reporter([&] {
    std::unique_lock<std::mutex> lock(report_mutex);
    while (!report_ready.wait_for(lock, std::chrono::milliseconds(5), [&] { return reports > 0; })) {
    }
    running.store(false, std::memory_order_relaxed);
  });
  for (std::thread& t : threads) t.join();
  reporter.join();
  const auto [keys, sum] = registry::instance().totals();
  std::printf("keys=%zu sum=%ld rounds=%d deleted=%d running=%d\n", keys, sum, rounds_done.load(),
              deleted, running.load() ? 1 : 0);
  return 0;
}
