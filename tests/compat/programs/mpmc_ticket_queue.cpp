// A bounded multi-producer multi-consumer queue on tickets: a producer
// takes a ticket with fetch_add on std::atomic_int_fast64_t, spins (with
// yield) until its cell's turn says it may write, writes, and publishes the
// next turn with a release store; consumers do the same on their own
// ticket counter. Prints the sum, the count and an order-insensitive hash.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

class ticket_queue {
 public:
  void push(std::int64_t v) {
    const std::int64_t ticket = tail_.fetch_add(1);
    cell& c = cells_[static_cast<std::size_t>(ticket % capacity)];
    const std::int64_t turn = ticket / capacity * 2;
    while (c.turn.load(std::memory_order_acquire) != turn) std::this_thread::yield();
    c.value = v;
    c.turn.store(turn + 1, std::memory_order_release);
  }
  std::int64_t pop() {
    const std::int64_t ticket = head_.fetch_add(1);
    cell& c = cells_[static_cast<std::size_t>(ticket % capacity)];
    const std::int64_t turn = ticket / capacity * 2 + 1;
    while (c.turn.load(std::memory_order_acquire) != turn) std::this_thread::yield();
    const std::int64_t v = c.value;
    c.turn.store(turn + 1, std::memory_order_release);
    return v;
  }

 private:
  static constexpr std::int64_t capacity = 32;
  struct cell {
    std::atomic_int_fast64_t turn{0};
    std::int64_t value = 0;
  };
  alignas(64) std::atomic_int_fast64_t head_{0};
  alignas(64) std::atomic_int_fast64_t tail_{0};
  cell cells_[capacity];
};

}  // namespace

int main() {
  constexpr int producers = 3, consumers = 3, per_thread = 2000;
  ticket_queue queue;
  std::atomic<std::int64_t> sum{0}, count{0};
  std::atomic<std::uint64_t> hash{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < consumers; ++c) {
    threads.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i) {
        const std::int64_t v = queue.pop();
        sum.fetch_add(v, std::memory_order_relaxed);
        count.fetch_add(1, std::memory_order_relaxed);
        hash.fetch_xor(static_cast<std::uint64_t>(v) * 0x9e3779b97f4a7c15ull,
                       std::memory_order_relaxed);
      }
    });
  }
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 1; i <= per_thread; ++i) queue.push(static_cast<std::int64_t>(p) << 32 | i);
    });
  }
  for (std::thread& t : threads) t.join();
  std::printf("sum=%lld count=%lld hash=%llu\n", static_cast<long long>(sum.load()),
              static_cast<long long>(count.load()), static_cast<unsigned long long>(hash.load()));
  return 0;
}
