// kvstore: an in-memory key-value store under a YCSB-like load, written as
// an ordinary std C++ program (it knows nothing of dstd: built with
// -I<dstd>/compat and libdstd, the same source runs its threads on every
// node of a dstdrun run).
//
// The store is a hash table of fixed-size values with one std::mutex per
// bucket. Client threads run a closed loop of operations on keys drawn from
// a Zipf distribution (theta 0.99, as YCSB's default): workload A is 50%
// reads and 50% updates, B 95/5, C reads only. An update adds a delta to
// every word of the value, so the final table does not depend on the order
// in which threads ran: the checksum (of the final table and of what each
// thread did) is the same for every run with the same flags, whatever the
// threads' interleaving or the number of nodes.
//
//   kvstore [--workload A|B|C] [--keys N] [--value-bytes B] [--threads T]
//           [--ops N]   (operations per thread)
//
// Prints "checksum <hex>", "operations <N>" (reads and updates) and
// "throughput <ops/s> ops/s".
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app_flags.hpp"

namespace {

struct options {
  char workload = 'A';
  std::size_t keys = 100000;
  std::size_t value_bytes = 64;
  unsigned threads = 4;
  std::size_t ops = 100000;
};

options parse(int argc, char** argv) {
  options o;
  app_flags f("kvstore", "[--workload A|B|C] [--keys N] [--value-bytes B] [--threads T] [--ops N]",
              argc, argv);
  while (f.next()) {
    if (f.is("--workload")) {
      const std::string w = f.text();
      if (w != "A" && w != "B" && w != "C") f.fail("--workload is A, B or C");
      o.workload = w[0];
    } else if (f.is("--keys")) {
      o.keys = f.number();
    } else if (f.is("--value-bytes")) {
      o.value_bytes = f.number();
      if (o.value_bytes % 8 != 0) f.fail("--value-bytes must be a multiple of 8");
    } else if (f.is("--threads")) {
      o.threads = static_cast<unsigned>(f.number());
    } else if (f.is("--ops")) {
      o.ops = f.number();
    } else {
      f.fail("unknown flag " + f.flag());
    }
  }
  return o;
}

// splitmix64: a small, good, seedable generator (one per thread).
struct rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// Zipf(theta) over [0, n): the cumulative distribution, searched.
class zipf {
 public:
  zipf(std::size_t n, double theta) : cdf_(n) {
    double sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
      sum += 1.0 / std::pow(static_cast<double>(k + 1), theta);
      cdf_[k] = sum;
    }
    for (double& c : cdf_) c /= sum;
  }
  std::size_t draw(rng& r) const {
    const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), r.unit());
    return std::min(static_cast<std::size_t>(it - cdf_.begin()), cdf_.size() - 1);
  }

 private:
  std::vector<double> cdf_;
};

// The store: buckets of (key, value) slots, each bucket with its lock.
class store {
 public:
  store(std::size_t keys, std::size_t value_words)
      : words_(value_words), buckets_(keys / 4 + 1) {
    for (std::size_t k = 0; k < keys; ++k) {
      bucket& b = bucket_of(k);
      b.keys.push_back(k);
      for (std::size_t w = 0; w < words_; ++w) b.values.push_back(k * 31 + w);
    }
  }

  // Sum of the value's words (what a reader would use).
  std::uint64_t read(std::uint64_t key) {
    bucket& b = bucket_of(key);
    std::lock_guard<std::mutex> lock(b.lock);
    const std::uint64_t* v = find(b, key);
    std::uint64_t sum = 0;
    for (std::size_t w = 0; w < words_; ++w) sum += v[w];
    return sum;
  }

  void update(std::uint64_t key, std::uint64_t delta) {
    bucket& b = bucket_of(key);
    std::lock_guard<std::mutex> lock(b.lock);
    std::uint64_t* v = find(b, key);
    for (std::size_t w = 0; w < words_; ++w) v[w] += delta + w;
  }

  // A hash of every key's value (after the threads are joined).
  std::uint64_t checksum() {
    std::uint64_t h = 1469598103934665603ull;
    for (bucket& b : buckets_) {
      for (std::size_t i = 0; i < b.keys.size(); ++i) {
        std::uint64_t k = b.keys[i];
        for (std::size_t w = 0; w < words_; ++w) {
          h = (h ^ (k * 0x100000001b3ull + b.values[i * words_ + w])) * 1099511628211ull;
        }
      }
    }
    return h;
  }

 private:
  struct bucket {
    std::mutex lock;
    std::vector<std::uint64_t> keys;
    std::vector<std::uint64_t> values;  // words_ per key, in key order
  };

  bucket& bucket_of(std::uint64_t key) {
    return buckets_[(key * 0x9e3779b97f4a7c15ull >> 17) % buckets_.size()];
  }
  std::uint64_t* find(bucket& b, std::uint64_t key) {
    const auto it = std::find(b.keys.begin(), b.keys.end(), key);
    return &b.values[static_cast<std::size_t>(it - b.keys.begin()) * words_];
  }

  std::size_t words_;
  std::vector<bucket> buckets_;
};

std::atomic<std::uint64_t> read_sink{0};

struct client_result {
  std::uint64_t reads = 0, updates = 0, update_sum = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const unsigned read_percent = o.workload == 'A' ? 50 : o.workload == 'B' ? 95 : 100;
  auto table = std::make_unique<store>(o.keys, o.value_bytes / 8);
  const zipf keys(o.keys, 0.99);

  std::vector<client_result> results(o.threads);
  std::vector<std::thread> clients;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < o.threads; ++t) {
    clients.emplace_back([&, t] {
      rng r{0x1234567ull + t};
      client_result mine;
      std::uint64_t seen = 0;
      for (std::size_t i = 0; i < o.ops; ++i) {
        const std::uint64_t key = keys.draw(r);
        if (r.next() % 100 < read_percent) {
          seen += table->read(key);
          ++mine.reads;
        } else {
          const std::uint64_t delta = r.next() % 1000;
          table->update(key, delta);
          ++mine.updates;
          mine.update_sum += delta;
        }
      }
      read_sink.fetch_add(seen, std::memory_order_relaxed);  // the reads are used
      results[t] = mine;
    });
  }
  for (std::thread& c : clients) c.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint64_t h = table->checksum();
  std::uint64_t reads = 0, updates = 0;
  for (const client_result& c : results) {
    h = (h ^ c.reads ^ (c.updates << 20) ^ (c.update_sum << 40)) * 1099511628211ull;
    reads += c.reads;
    updates += c.updates;
  }
  std::printf("workload %c: %zu keys, %zu-byte values, %u threads, %llu reads, %llu updates\n",
              o.workload, o.keys, o.value_bytes, o.threads, static_cast<unsigned long long>(reads),
              static_cast<unsigned long long>(updates));
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(h));
  std::printf("operations %llu\n", static_cast<unsigned long long>(reads + updates));
  std::printf("throughput %.0f ops/s\n", static_cast<double>(reads + updates) / seconds);
  return 0;
}
