// A fixed thread pool whose workers keep per-thread state in thread_local
// variables (a scratch buffer and a count of tasks done), reporting it when
// they finish. Tasks come from a mutex + condition_variable queue of
// std::function. Prints the sum of squares computed and the total of the
// per-worker task counts.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace {

thread_local std::vector<std::uint64_t> scratch;  // per worker, reused by every task
thread_local int tasks_done = 0;

class pool {
 public:
  explicit pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  // Runs what is queued, stops the workers and returns how many tasks
  // they ran, from their thread_local counts.
  int shutdown() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    return total_tasks_;
  }
  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push(std::move(task));
    }
    ready_.notify_one();
  }
 private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return closing_ || !tasks_.empty(); });
        if (tasks_.empty()) break;
        task = std::move(tasks_.front());
        tasks_.pop();
      }
      task();
      ++tasks_done;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    total_tasks_ += tasks_done;
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::queue<std::function<void()>> tasks_;
  bool closing_ = false;
  int total_tasks_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace

int main() {
  constexpr int tasks = 200;
  std::vector<std::uint64_t> results(tasks);
  pool p(4);
  for (int i = 0; i < tasks; ++i) {
    p.submit([i, &results] {
      scratch.assign(static_cast<std::size_t>(i % 17 + 1), static_cast<std::uint64_t>(i));
      std::uint64_t sum = 0;
      for (std::uint64_t v : scratch) sum += v * v;
      results[static_cast<std::size_t>(i)] = sum;
    });
  }
  const int ran = p.shutdown();
  std::uint64_t sum = 0;
  for (std::uint64_t r : results) sum += r;
  std::printf("sum=%llu tasks=%d\n", static_cast<unsigned long long>(sum), ran);
  return 0;
}
