// dataframe, tuned for dstd: the same table, queries and output as
// ../dataframe.cpp (the same checksum for the same flags), changed where a
// run across nodes pays for it. The plain program probes one shared index
// under a stripe lock per order row, and every lock acquire drops what the
// node had cached; here nothing a thread touches per row is another node's:
//
// - Thread t runs on node t % nodes (spawn_on), and the chunks it scans
//   (k = t, t + T, ...) are made by a thread on that node before the clock
//   starts, so they are that node's memory.
// - Each node has its own index, built by that node's threads (the
//   customers split among them, under its stripe locks, all local), with
//   its own completion count; once a node's builders are done its index is
//   read-only, and the join probes it without locks.
// - Each thread adds up its partial answers in its own memory and stores
//   them once at the end; main merges them as before.
//
//   dataframe_tuned [--rows N] [--customers N] [--chunk ROWS] [--threads T]
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
#include <dstd/dstd.hpp>
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

// Chunk k is scanned by thread k % threads, which runs on node thread % nodes.
dstd::node_id node_of_thread(unsigned t) { return t % dstd::node_count(); }

// Each chunk is made by a thread on the node of the thread that scans it.
std::vector<std::unique_ptr<chunk>> make_orders(const options& o) {
  std::vector<std::unique_ptr<chunk>> table((o.rows + o.chunk - 1) / o.chunk);
  std::vector<std::thread> makers;
  for (dstd::node_id node = 0; node < dstd::node_count(); ++node) {
    makers.push_back(dstd::spawn_on(node, [&o, &table, node] {
      for (std::size_t k = 0; k < table.size(); ++k) {
        if (node_of_thread(static_cast<unsigned>(k % o.threads)) != node) continue;
        auto c = std::make_unique<chunk>();
        const std::size_t first = k * o.chunk;
        const std::size_t n = std::min(o.chunk, o.rows - first);
        for (std::size_t r = first; r < first + n; ++r) {
          const std::uint64_t h = mix(r + 1);
          c->customer.push_back(h % o.customers);
          c->amount.push_back(static_cast<std::int64_t>(h >> 40) % 10'000);
          c->region.push_back(static_cast<std::int32_t>((h >> 20) % regions));
        }
        table[k] = std::move(c);
      }
    }));
  }
  for (std::thread& m : makers) m.join();
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
  // Only once the index is complete (its builders are done): no lock.
  int find(std::uint64_t customer) const {
    const std::size_t b = bucket_of(customer);
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

// A node's builders tell that node's workers that its index is complete.
struct build_done {
  std::mutex lock;
  std::condition_variable cv;
  unsigned left;
};

// What each node has of its own: its index and its builders' count.
struct node_index {
  index_table index;
  build_done built;
  unsigned builders;
  node_index(std::size_t customers, unsigned threads)
      : index(customers), built{{}, {}, threads}, builders(threads) {}
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const std::vector<std::unique_ptr<chunk>> orders = make_orders(o);
  const std::int64_t threshold = 5'000;
  const dstd::node_id nodes = dstd::node_count();
  std::vector<std::unique_ptr<node_index>> indexes(nodes);
  for (dstd::node_id node = 0; node < nodes && node < o.threads; ++node) {
    const unsigned builders = (o.threads - node + nodes - 1) / nodes;  // threads node, node + nodes, ...
    dstd::spawn_on(node, [&, node, builders] {
      indexes[node] = std::make_unique<node_index>(o.customers, builders);
    }).join();
  }
  std::vector<partial> parts(o.threads);

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < o.threads; ++t) {
    const dstd::node_id node = node_of_thread(t);
    threads.push_back(dstd::spawn_on(node, [&, t, node] {
      // What the loops read, copied to this node first.
      const unsigned all_threads = o.threads;
      const std::uint64_t customers = o.customers;
      node_index& here = *indexes[node];
      const unsigned builders = here.builders, rank = t / nodes;
      std::vector<const chunk*> mine;
      for (std::size_t k = t; k < orders.size(); k += all_threads) mine.push_back(orders[k].get());
      // Build: this node's share of every customer, with its tier.
      for (std::uint64_t c = rank; c < customers; c += builders) {
        if (c % 10 != 9) here.index.insert(c, static_cast<int>(mix(c * 7 + 1) % tiers));  // some have none
      }
      partial p;
      // Filter and group-by need no index: done while the others build.
      for (const chunk* k : mine) {
        const chunk& c = *k;
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
        build_done& built = here.built;
        std::unique_lock<std::mutex> lock(built.lock);
        if (--built.left == 0) built.cv.notify_all();
        built.cv.wait(lock, [&] { return built.left == 0; });
      }
      // Join: amount by the customer's tier.
      for (const chunk* k : mine) {
        const chunk& c = *k;
        for (std::size_t r = 0; r < c.amount.size(); ++r) {
          const int tier = here.index.find(c.customer[r]);
          if (tier < 0) {
            ++p.unmatched;
          } else {
            p.tier_sum[tier] += c.amount[r];
          }
        }
      }
      parts[t] = p;
    }));
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
