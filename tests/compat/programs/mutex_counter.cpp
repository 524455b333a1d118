// Threads increment shared counters under a std::mutex (lock_guard for
// one, unique_lock for the other, scoped_lock for a pair), as the textbook
// listing does. Prints the counts.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace {

std::mutex counter_mutex;
long counter = 0;
std::mutex a_mutex, b_mutex;
long a = 0, b = 0;

void work(int rounds) {
  for (int i = 0; i < rounds; ++i) {
    {
      std::lock_guard<std::mutex> lock(counter_mutex);
      ++counter;
    }
    if (i % 4 == 0) {
      std::scoped_lock both(a_mutex, b_mutex);
      ++a;
      b += 2;
    } else {
      std::unique_lock<std::mutex> lock(a_mutex);
      ++a;
    }
  }
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) threads.emplace_back(work, 2000);
  for (std::thread& t : threads) t.join();
  std::printf("counter=%ld a=%ld b=%ld\n", counter, a, b);
  return 0;
}
