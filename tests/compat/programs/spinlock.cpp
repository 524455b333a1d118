// A test-and-set spinlock on std::atomic_flag initialized with
// ATOMIC_FLAG_INIT (acquire on lock, release on unlock, yielding while it
// spins), guarding a plain counter and a plain array. Prints the counter and
// a checksum of the array.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

class spinlock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

spinlock lock;
long counter = 0;
long slots[64];

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 1500; ++i) {
        lock.lock();
        ++counter;
        slots[(i + t) % 64] += t + 1;
        lock.unlock();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  long checksum = 0;
  for (int i = 0; i < 64; ++i) checksum += slots[i] * (i + 1);
  std::printf("counter=%ld checksum=%ld\n", counter, checksum);
  return 0;
}
