// A program whose static constructors and destructors are checked from
// outside (static_init_test.sh), at 1, 2 and 4 nodes: a global thread pool
// whose constructor starts a thread on every node and counts its
// constructions, a global string built by a constructor and read on every
// node through std::cout, and the pool's destructor, which joins threads on
// the other nodes at exit. As in one process, each constructor and
// destructor runs once (on node 0) and the other nodes see what they built.
#include <cstdio>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <dstd/thread>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

namespace {

dstd::atomic<int> constructions{0};  // constant-initialized: no constructor

// Squares numbers on a worker thread per node.
class thread_pool {
 public:
  thread_pool() {
    constructions.fetch_add(1);
    std::printf("pool constructed on node %u\n", dstd::this_node());
    for (unsigned n = 0; n < dstd::node_count(); ++n) {
      workers_.push_back(dstd::spawn_on(n, [this] { work(); }));
    }
  }
  ~thread_pool() {
    {
      std::lock_guard<dstd::mutex> hold(lock_);
      stopping_ = true;
    }
    more_.notify_all();
    for (dstd::thread& t : workers_) t.join();
    std::printf("pool destroyed on node %u after %d tasks\n", dstd::this_node(), done_);
  }
  void submit(long v) {
    {
      std::lock_guard<dstd::mutex> hold(lock_);
      queue_.push_back(v);
    }
    more_.notify_one();
  }
  long sum_after(int tasks) {
    std::unique_lock<dstd::mutex> hold(lock_);
    finished_.wait(hold, [&] { return done_ == tasks; });
    return sum_;
  }

 private:
  void work() {
    std::unique_lock<dstd::mutex> hold(lock_);
    for (;;) {
      more_.wait(hold, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      const long v = queue_.back();
      queue_.pop_back();
      sum_ += v * v;
      ++done_;
      finished_.notify_all();
    }
  }

  dstd::mutex lock_;
  dstd::condition_variable more_, finished_;
  std::vector<long> queue_;
  long sum_ = 0;
  int done_ = 0;
  bool stopping_ = false;
  std::vector<dstd::thread> workers_;
};

const std::string greeting =
    "built by a static constructor on node " + std::to_string(dstd::this_node());
thread_pool pool;

}  // namespace

int main() {
  std::printf("constructions=%d\n", constructions.load());
  for (long i = 1; i <= 100; ++i) pool.submit(i);
  std::printf("sum=%ld\n", pool.sum_after(100));
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    dstd::spawn_on(n, [] {
      std::cout << "node " << dstd::this_node() << " sees: " << greeting << std::endl;
    }).join();
  }
  return 0;
}
