// dataframe: a columnar table in chunks and three queries over it (filter,
// group-by, hash join), written as an ordinary std C++ program (it knows
// nothing of dstd: built with -I<dstd>/compat and libdstd, its threads run
// on every node of a dstdrun run).
//
// The pattern DRust describes: builder threads fill a shared index hash
// table (one std::mutex per stripe of buckets) from the customers table
// while worker threads wait for it, then the workers probe it for every
// order row. Chunks are dealt out to threads in turn; each thread keeps
// partial results that main adds up, so every answer (and the checksum) is
// the same whatever the threads' order or the number of nodes.
//
//   dataframe [--rows N] [--customers N] [--chunk ROWS] [--threads T]
//
// Prints the queries' answers, "checksum <hex>" and
// "operations <N>" (order rows scanned: each row twice, once for filter
// and group-by together, once for the join) and "throughput <rows/s>
// rows/s".
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app_flags.hpp"

namespace {

struct options {
  std::size_t rows = 1'000'000;
  std::size_t customers = 50'000;
  std::size_t chunk = 65'536;
  unsigned threads = 4;
};

options parse(int argc, char** argv) {
  options o;
  app_flags f("dataframe", "[--rows N] [--customers N] [--chunk ROWS] [--threads T]", argc, argv);
  while (f.next()) {
    if (f.is("--rows")) {
      o.rows = f.number();
    } else if (f.is("--customers")) {
      o.customers = f.number();
    } else if (f.is("--chunk")) {
      o.chunk = f.number();
    } else if (f.is("--threads")) {
      o.threads = static_cast<unsigned>(f.number());
    } else {
      f.fail("unknown flag " + f.flag());
    }
  }
  return o;
}

constexpr int regions = 8;
constexpr int tiers = 4;

// A chunk of the orders table, one vector per column.
struct chunk {
  std::vector<std::uint64_t> customer;
  std::vector<std::int64_t> amount;
  std::vector<std::int32_t> region;
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

std::vector<std::unique_ptr<chunk>> make_orders(const options& o) {
  std::vector<std::unique_ptr<chunk>> table;
  for (std::size_t first = 0; first < o.rows; first += o.chunk) {
    auto c = std::make_unique<chunk>();
    const std::size_t n = std::min(o.chunk, o.rows - first);
    for (std::size_t r = first; r < first + n; ++r) {
      const std::uint64_t h = mix(r + 1);
      c->customer.push_back(h % o.customers);
      c->amount.push_back(static_cast<std::int64_t>(h >> 40) % 10'000);
      c->region.push_back(static_cast<std::int32_t>((h >> 20) % regions));
    }
    table.push_back(std::move(c));
  }
  return table;
}

// customer id -> tier, shared by the builders and the probing workers.
class index_table {
 public:
  explicit index_table(std::size_t customers) : buckets_(customers / 2 + 1), stripes_(64) {}

  void insert(std::uint64_t customer, int tier) {
    const std::size_t b = bucket_of(customer);
    std::lock_guard<std::mutex> lock(stripes_[b % stripes_.size()]);
    buckets_[b].push_back({customer, tier});
  }
  int find(std::uint64_t customer) {
    const std::size_t b = bucket_of(customer);
    std::lock_guard<std::mutex> lock(stripes_[b % stripes_.size()]);
    for (const entry& e : buckets_[b]) {
      if (e.customer == customer) return e.tier;
    }
    return -1;
  }

 private:
  struct entry {
    std::uint64_t customer;
    int tier;
  };
  std::size_t bucket_of(std::uint64_t customer) const { return mix(customer) % buckets_.size(); }

  std::vector<std::vector<entry>> buckets_;
  std::vector<std::mutex> stripes_;
};

// Each thread's share of the answers.
struct partial {
  std::uint64_t filtered = 0;
  std::int64_t filtered_sum = 0;
  std::int64_t region_sum[regions] = {};
  std::uint64_t region_count[regions] = {};
  std::int64_t tier_sum[tiers] = {};
  std::uint64_t unmatched = 0;
};

// Builders tell the workers that the index is complete.
struct build_done {
  std::mutex lock;
  std::condition_variable cv;
  unsigned left;
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const std::vector<std::unique_ptr<chunk>> orders = make_orders(o);
  const std::int64_t threshold = 5'000;
  auto index = std::make_unique<index_table>(o.customers);
  build_done built{{}, {}, o.threads};
  std::vector<partial> parts(o.threads);

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < o.threads; ++t) {
    threads.emplace_back([&, t] {
      // Build: every customer whose id is t modulo the threads, with its tier.
      for (std::uint64_t c = t; c < o.customers; c += o.threads) {
        if (c % 10 != 9) index->insert(c, static_cast<int>(mix(c * 7 + 1) % tiers));  // some have none
      }
      partial& p = parts[t];
      // Filter and group-by need no index: done while the others build.
      for (std::size_t k = t; k < orders.size(); k += o.threads) {
        const chunk& c = *orders[k];
        for (std::size_t r = 0; r < c.amount.size(); ++r) {
          if (c.amount[r] > threshold) {
            ++p.filtered;
            p.filtered_sum += c.amount[r];
          }
          p.region_sum[c.region[r]] += c.amount[r];
          ++p.region_count[c.region[r]];
        }
      }
      {
        std::unique_lock<std::mutex> lock(built.lock);
        if (--built.left == 0) built.cv.notify_all();
        built.cv.wait(lock, [&] { return built.left == 0; });
      }
      // Join: amount by the customer's tier.
      for (std::size_t k = t; k < orders.size(); k += o.threads) {
        const chunk& c = *orders[k];
        for (std::size_t r = 0; r < c.amount.size(); ++r) {
          const int tier = index->find(c.customer[r]);
          if (tier < 0) {
            ++p.unmatched;
          } else {
            p.tier_sum[tier] += c.amount[r];
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  partial all;
  for (const partial& p : parts) {
    all.filtered += p.filtered;
    all.filtered_sum += p.filtered_sum;
    all.unmatched += p.unmatched;
    for (int r = 0; r < regions; ++r) {
      all.region_sum[r] += p.region_sum[r];
      all.region_count[r] += p.region_count[r];
    }
    for (int t = 0; t < tiers; ++t) all.tier_sum[t] += p.tier_sum[t];
  }
  std::uint64_t h = 1469598103934665603ull;
  auto fold = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  std::printf("filter amount > %lld: %llu rows, sum %lld\n", static_cast<long long>(threshold),
              static_cast<unsigned long long>(all.filtered), static_cast<long long>(all.filtered_sum));
  fold(all.filtered);
  fold(static_cast<std::uint64_t>(all.filtered_sum));
  for (int r = 0; r < regions; ++r) {
    std::printf("region %d: %llu rows, sum %lld\n", r, static_cast<unsigned long long>(all.region_count[r]),
                static_cast<long long>(all.region_sum[r]));
    fold(all.region_count[r]);
    fold(static_cast<std::uint64_t>(all.region_sum[r]));
  }
  for (int t = 0; t < tiers; ++t) {
    std::printf("tier %d: sum %lld\n", t, static_cast<long long>(all.tier_sum[t]));
    fold(static_cast<std::uint64_t>(all.tier_sum[t]));
  }
  std::printf("orders without a customer in the index: %llu\n",
              static_cast<unsigned long long>(all.unmatched));
  fold(all.unmatched);
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(h));
  std::printf("operations %zu\n", 2 * o.rows);
  std::printf("throughput %.0f rows/s\n", 2.0 * static_cast<double>(o.rows) / seconds);
  return 0;
}
