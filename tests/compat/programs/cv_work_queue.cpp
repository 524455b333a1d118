// A bounded work queue on one mutex and two condition variables ("not
// empty", "not full"): producers push numbers, consumers pop them until a
// sentinel, each summing what it took. Prints the total, the count and how
// many consumers stopped.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

class bounded_queue {
 public:
  explicit bounded_queue(std::size_t capacity) : capacity_(capacity) {}
  void push(long v) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_; });
    items_.push_back(v);
    lock.unlock();
    not_empty_.notify_one();
  }
  long pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (items_.empty()) not_empty_.wait(lock);
    const long v = items_.front();
    items_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return v;
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<long> items_;
  std::size_t capacity_;
};

}  // namespace

int main() {
  constexpr int producers = 3, consumers = 3, per_producer = 3000;
  bounded_queue queue(16);
  std::vector<long> sums(consumers), counts(consumers);
  std::vector<std::thread> threads;
  for (int c = 0; c < consumers; ++c) {
    threads.emplace_back([&, c] {
      for (long v; (v = queue.pop()) >= 0;) {
        sums[static_cast<std::size_t>(c)] += v;
        ++counts[static_cast<std::size_t>(c)];
      }
    });
  }
  std::vector<std::thread> producing;
  for (int p = 0; p < producers; ++p) {
    producing.emplace_back([&, p] {
      for (int i = 1; i <= per_producer; ++i) queue.push(static_cast<long>(p) * 100000 + i);
    });
  }
  for (std::thread& t : producing) t.join();
  for (int c = 0; c < consumers; ++c) queue.push(-1);
  for (std::thread& t : threads) t.join();
  long sum = 0, count = 0;
  for (int c = 0; c < consumers; ++c) {
    sum += sums[static_cast<std::size_t>(c)];
    count += counts[static_cast<std::size_t>(c)];
  }
  std::printf("sum=%ld count=%ld stopped=%d\n", sum, count, consumers);
  return 0;
}
