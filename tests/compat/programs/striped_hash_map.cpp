// A concurrent hash map with striped locks: buckets of std::list, one
// std::mutex per stripe of buckets, a std::shared_mutex for resizing
// (shared for operations, exclusive to rehash). Threads insert, update
// and erase disjoint and shared keys. Prints the size, the sum of values
// and whether it grew.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <list>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <utility>
#include <vector>

namespace {

class striped_map {
 public:
  striped_map() : buckets_(16) {}

  void add(std::uint64_t key, std::int64_t delta) {
    {
      std::shared_lock<std::shared_mutex> resize(resize_);
      std::lock_guard<std::mutex> stripe(stripe_for(key));
      auto& bucket = buckets_[key % buckets_.size()];
      for (auto& [k, v] : bucket) {
        if (k == key) {
          v += delta;
          return;
        }
      }
      bucket.emplace_back(key, delta);
      if (++size_ <= buckets_.size() * 2) return;
    }
    grow();
  }
  bool erase(std::uint64_t key) {
    std::shared_lock<std::shared_mutex> resize(resize_);
    std::lock_guard<std::mutex> stripe(stripe_for(key));
    auto& bucket = buckets_[key % buckets_.size()];
    for (auto it = bucket.begin(); it != bucket.end(); ++it) {
      if (it->first == key) {
        bucket.erase(it);
        --size_;
        return true;
      }
    }
    return false;
  }
  std::pair<std::size_t, std::int64_t> size_and_sum() {
    std::unique_lock<std::shared_mutex> resize(resize_);
    std::int64_t sum = 0;
    for (auto& bucket : buckets_) {
      for (auto& kv : bucket) sum += kv.second;
    }
    return {size_.load(), sum};
  }
  int grown() const { return grown_; }

 private:
  static constexpr std::size_t stripes = 8;
  std::mutex& stripe_for(std::uint64_t key) { return stripes_[key % buckets_.size() % stripes]; }
  void grow() {
    std::unique_lock<std::shared_mutex> resize(resize_);
    if (size_ <= buckets_.size() * 2) return;
    std::vector<std::list<std::pair<std::uint64_t, std::int64_t>>> bigger(buckets_.size() * 2);
    for (auto& bucket : buckets_) {
      for (auto& kv : bucket) bigger[kv.first % bigger.size()].push_back(kv);
    }
    buckets_.swap(bigger);
    ++grown_;
  }

  std::shared_mutex resize_;
  std::mutex stripes_[stripes];
  std::vector<std::list<std::pair<std::uint64_t, std::int64_t>>> buckets_;
  std::atomic<std::size_t> size_{0};  // changed under different stripes' locks
  int grown_ = 0;
};

}  // namespace

int main() {
  striped_map map;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&map, t] {
      for (std::uint64_t i = 0; i < 1000; ++i) {
        map.add(i * 4 + static_cast<std::uint64_t>(t), static_cast<std::int64_t>(i));  // own keys
        map.add(100000 + i % 50, 1);                                                    // shared keys
        if (i % 10 == 0) map.erase(i * 4 + static_cast<std::uint64_t>(t));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const auto [size, sum] = map.size_and_sum();
  std::printf("size=%zu sum=%lld grew=%d\n", size, static_cast<long long>(sum),
              map.grown() > 0 ? 1 : 0);
  return 0;
}
