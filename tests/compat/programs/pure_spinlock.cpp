// A test-and-test-and-set spinlock that never yields (the common style:
// spin on a relaxed test() until the flag looks free, then test_and_set),
// with more threads (12) than the cores of a small machine, guarding a
// plain counter. Prints the counter.
//
// Under compat/ at 4 nodes this hung until the scheduler handed threads
// off held workers (runtime/sched/extra_workers.hpp): a thread that holds
// the lock gives up its worker while it waits for a remote atomic
// operation to complete (runtime/transport/transport.cpp,
// park_until_done: it yields, then parks), the spinners of its node take
// every worker, the extra one included, and the holder, bound to its
// worker, never ran again (seen with a probe recording each thread's
// phase: the holder stopped right after a store to a global atomic, its
// node's two workers both spinning).
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

class spinlock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
      while (flag_.test(std::memory_order_relaxed)) {
      }
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

spinlock lock;
long counter = 0;

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        lock.lock();
        ++counter;
        lock.unlock();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::printf("counter=%ld\n", counter);
  return 0;
}
