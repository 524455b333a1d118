// kvstore, tuned for dstd: the same store, load and output as
// ../kvstore.cpp (the same checksum for the same flags), changed where a
// run across nodes pays for it. What the plain program shares through the
// global heap, this one keeps on one node and reaches by messages:
//
// - The table is sharded by node: shard s holds the buckets b with
//   b % nodes == s, built by a thread on node s, so its buckets are that
//   node's memory and no other node ever caches them.
// - A server thread per shard, started on the shard's node (spawn_on),
//   owns it and applies every operation on it (delegation, as Trust<T>
//   does): no bucket locks, and the only lock a server takes is its
//   channel's.
// - Clients (spread over the nodes, each with its own copy of the Zipf
//   table on its node) batch: a round of up to 256 operations goes out as
//   one message per shard (a unique_ptr to a fixed-size batch, whose bytes
//   the server receives in one fetch), and comes back with the reads' sum
//   on the client's reply channel.
//
// Without dstdrun it is one node: one shard, one server, the same answers.
//
//   kvstore_tuned [--workload A|B|C] [--keys N] [--value-bytes B] [--threads T]
//                 [--ops N]   (operations per thread)
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
#include <dstd/channel>
#include <dstd/dstd.hpp>
#include <memory>
#include <mutex>
#include <optional>
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

// Global bucket b of the plain store's buckets (keys / 4 + 1 of them).
std::size_t bucket_index(std::uint64_t key, std::size_t buckets) {
  return (key * 0x9e3779b97f4a7c15ull >> 17) % buckets;
}

// A shard of the store: the buckets b with b % shards == shard, each at
// b / shards, filled in key order as the plain store fills them. Only its
// server touches it, so the buckets need no locks.
class store {
 public:
  struct bucket {
    std::vector<std::uint64_t> keys;
    std::vector<std::uint64_t> values;  // words_ per key, in key order
  };

  store(std::size_t keys, std::size_t value_words, std::size_t shard, std::size_t shards)
      : words_(value_words), all_buckets_(keys / 4 + 1), shards_(shards),
        buckets_((all_buckets_ - shard + shards - 1) / shards) {
    for (std::size_t k = 0; k < keys; ++k) {
      if (bucket_index(k, all_buckets_) % shards_ != shard) continue;
      bucket& b = bucket_of(k);
      b.keys.push_back(k);
      for (std::size_t w = 0; w < words_; ++w) b.values.push_back(k * 31 + w);
    }
  }

  // Sum of the value's words (what a reader would use).
  std::uint64_t read(std::uint64_t key) {
    const std::uint64_t* v = find(bucket_of(key), key);
    std::uint64_t sum = 0;
    for (std::size_t w = 0; w < words_; ++w) sum += v[w];
    return sum;
  }

  void update(std::uint64_t key, std::uint64_t delta) {
    std::uint64_t* v = find(bucket_of(key), key);
    for (std::size_t w = 0; w < words_; ++w) v[w] += delta + w;
  }

  // Global bucket b (b % shards must be this shard's).
  const bucket& global(std::size_t b) const { return buckets_[b / shards_]; }
  std::size_t words() const { return words_; }

 private:
  bucket& bucket_of(std::uint64_t key) { return buckets_[bucket_index(key, all_buckets_) / shards_]; }
  std::uint64_t* find(bucket& b, std::uint64_t key) {
    const auto it = std::find(b.keys.begin(), b.keys.end(), key);
    return &b.values[static_cast<std::size_t>(it - b.keys.begin()) * words_];
  }

  std::size_t words_;
  std::size_t all_buckets_;
  std::size_t shards_;
  std::vector<bucket> buckets_;
};

// A hash of every key's value, in the plain store's bucket order (after
// the servers are done; main reads the other nodes' shards once).
std::uint64_t checksum(const std::vector<std::unique_ptr<store>>& shards, std::size_t keys) {
  std::uint64_t h = 1469598103934665603ull;
  const std::size_t all = keys / 4 + 1;
  for (std::size_t g = 0; g < all; ++g) {
    const store& s = *shards[g % shards.size()];
    const store::bucket& b = s.global(g);
    for (std::size_t i = 0; i < b.keys.size(); ++i) {
      std::uint64_t k = b.keys[i];
      for (std::size_t w = 0; w < s.words(); ++w) {
        h = (h ^ (k * 0x100000001b3ull + b.values[i * s.words() + w])) * 1099511628211ull;
      }
    }
  }
  return h;
}

// One round's operations on one shard, sent to its server and sent back
// with the reads' sum. Fixed size, so the whole message is the pointee a
// received unique_ptr brings in one fetch.
constexpr std::size_t round_ops = 256;
struct batch;
using batch_channel = dstd::channel<std::unique_ptr<batch>>;
struct batch {
  std::size_t shard = 0;
  std::size_t count = 0;
  std::uint64_t key[round_ops];
  std::uint64_t delta[round_ops];
  bool update[round_ops];
  std::uint64_t read_sum = 0;
  batch_channel* reply = nullptr;
};

// A channel whose ring is already allocated by the calling thread, so on
// its node (the first send allocates the ring).
void place_ring(batch_channel& ch) {
  ch.send(nullptr);
  (void)ch.recv();
}

// Serves one shard until its channel is closed.
void serve(store& s, batch_channel& requests) {
  while (std::optional<std::unique_ptr<batch>> m = requests.recv()) {
    batch& b = **m;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < b.count; ++i) {
      if (b.update[i]) {
        s.update(b.key[i], b.delta[i]);
      } else {
        sum += s.read(b.key[i]);
      }
    }
    b.read_sum = sum;
    b.reply->send(std::move(*m));
  }
}

std::atomic<std::uint64_t> read_sink{0};

struct client_result {
  std::uint64_t reads = 0, updates = 0, update_sum = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const unsigned read_percent = o.workload == 'A' ? 50 : o.workload == 'B' ? 95 : 100;
  const dstd::node_id nodes = dstd::node_count();

  // Each node's shard, request channel and Zipf table, made on that node.
  std::vector<std::unique_ptr<store>> shards(nodes);
  std::vector<std::unique_ptr<batch_channel>> requests(nodes);
  std::vector<std::unique_ptr<zipf>> zipfs(nodes);
  {
    std::vector<std::thread> builders;
    for (dstd::node_id n = 0; n < nodes; ++n) {
      builders.push_back(dstd::spawn_on(n, [&, n] {
        shards[n] = std::make_unique<store>(o.keys, o.value_bytes / 8, n, nodes);
        requests[n] = std::make_unique<batch_channel>();
        place_ring(*requests[n]);
        zipfs[n] = std::make_unique<zipf>(o.keys, 0.99);
      }));
    }
    for (std::thread& b : builders) b.join();
  }
  std::vector<std::thread> servers;
  for (dstd::node_id n = 0; n < nodes; ++n) {
    servers.push_back(dstd::spawn_on(n, [s = shards[n].get(), ch = requests[n].get()] { serve(*s, *ch); }));
  }

  std::vector<client_result> results(o.threads);
  std::vector<std::thread> clients;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < o.threads; ++t) {
    const dstd::node_id home = t % nodes;
    clients.push_back(dstd::spawn_on(home, [&, t, home] {
      // What the loop reads, copied to this node first.
      const std::size_t ops = o.ops, key_count = o.keys, shard_count = nodes;
      const zipf& keys = *zipfs[home];
      std::vector<batch_channel*> to;
      for (auto& ch : requests) to.push_back(ch.get());
      rng r{0x1234567ull + t};
      client_result mine;
      std::uint64_t seen = 0;
      batch_channel replies;
      place_ring(replies);
      std::vector<std::unique_ptr<batch>> out(shard_count);
      for (std::size_t s = 0; s < shard_count; ++s) {
        out[s] = std::make_unique<batch>();
        out[s]->shard = s;
        out[s]->reply = &replies;
      }
      const std::size_t all_buckets = key_count / 4 + 1;
      for (std::size_t done = 0; done < ops;) {
        // A round: the next operations, each into its shard's batch.
        const std::size_t n = std::min(round_ops, ops - done);
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint64_t key = keys.draw(r);
          batch& b = *out[bucket_index(key, all_buckets) % shard_count];
          b.key[b.count] = key;
          if (r.next() % 100 < read_percent) {
            b.update[b.count] = false;
            ++mine.reads;
          } else {
            const std::uint64_t delta = r.next() % 1000;
            b.update[b.count] = true;
            b.delta[b.count] = delta;
            ++mine.updates;
            mine.update_sum += delta;
          }
          ++b.count;
        }
        done += n;
        std::size_t sent = 0;
        for (std::unique_ptr<batch>& b : out) {
          if (b->count == 0) continue;
          batch_channel& ch = *to[b->shard];
          ch.send(std::move(b));
          ++sent;
        }
        for (; sent > 0; --sent) {
          std::unique_ptr<batch> b = *replies.recv();
          if (!b) std::abort();  // (every server sends back what it got)
          seen += b->read_sum;
          b->count = 0;
          const std::size_t s = b->shard;
          out[s] = std::move(b);
        }
      }
      read_sink.fetch_add(seen, std::memory_order_relaxed);  // the reads are used
      results[t] = mine;
    }));
  }
  for (std::thread& c : clients) c.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (auto& ch : requests) ch->close();
  for (std::thread& s : servers) s.join();

  std::uint64_t h = checksum(shards, o.keys);
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
