// A lock-free single-producer single-consumer ring buffer: head and tail
// are std::atomic<std::size_t>; the producer publishes a slot with a
// release store of the tail, the consumer takes it after an acquire load,
// and gives it back with a release store of the head. The slots are plain
// memory. Both sides yield while the ring is full or empty. Prints the sum
// and an order-sensitive hash of what the consumer received.
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>

namespace {

template <class T, std::size_t N>
class spsc_ring {
 public:
  bool try_push(const T& v) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) == N) return false;
    slots_[tail % N] = v;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  bool try_pop(T& out) {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (tail_.load(std::memory_order_acquire) == head) return false;
    out = slots_[head % N];
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

 private:
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
  std::array<T, N> slots_{};
};

struct message {
  std::uint64_t seq;
  std::uint64_t payload[3];
};

}  // namespace

int main() {
  constexpr std::uint64_t count = 20000;
  static spsc_ring<message, 256> ring;
  std::uint64_t sum = 0, hash = 1469598103934665603ull;
  bool in_order = true;
  std::thread consumer([&] {
    for (std::uint64_t expect = 0; expect < count;) {
      message m;
      if (!ring.try_pop(m)) {
        std::this_thread::yield();
        continue;
      }
      in_order = in_order && m.seq == expect && m.payload[2] == m.seq * 3;
      sum += m.payload[0] + m.payload[1];
      hash = (hash ^ m.payload[0]) * 1099511628211ull;
      ++expect;
    }
  });
  std::thread producer([] {
    for (std::uint64_t i = 0; i < count; ++i) {
      const message m{i, {i * i % 1000003, i + 7, i * 3}};
      while (!ring.try_push(m)) std::this_thread::yield();
    }
  });
  producer.join();
  consumer.join();
  std::printf("sum=%llu hash=%llu in_order=%d\n", static_cast<unsigned long long>(sum),
              static_cast<unsigned long long>(hash), in_order ? 1 : 0);
  return 0;
}
