// A fixed-size thread pool whose submit() returns a std::future: each job is
// a std::packaged_task kept alive by a shared_ptr inside the std::function
// the queue holds. The answer: the Collatz step counts of 1..N summed, and
// the longest chain found among them.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

class thread_pool {
 public:
  explicit thread_pool(unsigned n) {
    for (unsigned i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  template <class F, class... Args>
  auto submit(F&& f, Args&&... args) -> std::future<std::invoke_result_t<F, Args...>> {
    using result = std::invoke_result_t<F, Args...>;
    auto task = std::make_shared<std::packaged_task<result()>>(
        std::bind(std::forward<F>(f), std::forward<Args>(args)...));
    std::future<result> done = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.emplace_back([task] { (*task)(); });
    }
    ready_.notify_one();
    return done;
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

struct chunk_result {
  std::uint64_t steps = 0;
  std::uint64_t longest_start = 0;
  std::uint64_t longest_steps = 0;
};

chunk_result collatz_chunk(std::uint64_t from, std::uint64_t to) {
  chunk_result r;
  for (std::uint64_t start = from; start < to; ++start) {
    std::uint64_t n = start, steps = 0;
    while (n != 1) {
      n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
      ++steps;
    }
    r.steps += steps;
    if (steps > r.longest_steps) {
      r.longest_steps = steps;
      r.longest_start = start;
    }
  }
  return r;
}

int main() {
  constexpr std::uint64_t limit = 300000;
  constexpr std::uint64_t chunk = 2500;
  std::vector<std::future<chunk_result>> results;
  std::uint64_t total = 0, best_start = 0, best_steps = 0;
  {
    thread_pool pool(4);
    for (std::uint64_t from = 1; from < limit; from += chunk) {
      results.push_back(pool.submit(collatz_chunk, from, std::min(from + chunk, limit)));
    }
    std::future<int> answer = pool.submit([] { return 42; });
    for (std::future<chunk_result>& f : results) {
      const chunk_result r = f.get();
      total += r.steps;
      if (r.longest_steps > best_steps) {
        best_steps = r.longest_steps;
        best_start = r.longest_start;
      }
    }
    std::cout << "jobs: " << results.size() + 1 << ", a lambda job answered " << answer.get()
              << "\n";
  }
  std::cout << "collatz steps for 1.." << limit - 1 << ": " << total << "\n";
  std::cout << "longest chain starts at " << best_start << " (" << best_steps << " steps)\n";
  return 0;
}
