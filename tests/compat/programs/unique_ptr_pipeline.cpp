// A three-stage pipeline passing std::unique_ptr messages through
// mutex + condition_variable queues: a source makes messages with
// make_unique, a transform stage fills each one's vector in place and
// passes ownership on, a sink checks and frees them. A null pointer ends
// the stream. Prints the sink's totals.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace {

struct message {
  int id = 0;
  std::vector<std::uint32_t> data;
};

template <class T>
class channel {
 public:
  void send(T v) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push(std::move(v));
    }
    ready_.notify_one();
  }
  T receive() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !items_.empty(); });
    T v = std::move(items_.front());
    items_.pop();
    return v;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::queue<T> items_;
};

}  // namespace

int main() {
  channel<std::unique_ptr<message>> raw, cooked;
  std::uint64_t total = 0;
  int received = 0;
  std::thread source([&] {
    for (int i = 1; i <= 500; ++i) {
      auto m = std::make_unique<message>();
      m->id = i;
      m->data.resize(static_cast<std::size_t>(i % 31 + 1));
      raw.send(std::move(m));
    }
    raw.send(nullptr);
  });
  std::thread transform([&] {
    while (std::unique_ptr<message> m = raw.receive()) {
      for (std::size_t k = 0; k < m->data.size(); ++k) {
        m->data[k] = static_cast<std::uint32_t>(m->id) * 1000u + static_cast<std::uint32_t>(k);
      }
      cooked.send(std::move(m));
    }
    cooked.send(nullptr);
  });
  std::thread sink([&] {
    while (std::unique_ptr<message> m = cooked.receive()) {
      for (std::uint32_t v : m->data) total += v;
      ++received;
    }
  });
  source.join();
  transform.join();
  sink.join();
  std::printf("received=%d total=%llu\n", received, static_cast<unsigned long long>(total));
  return 0;
}
