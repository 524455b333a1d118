// A buffer handed back and forth between two threads on two nodes: the
// kernel behind issue 18's "1 MiB producer/consumer hand-off" target
// (docs/BENCHMARKS.md, "Histogram and producer/consumer").
//
// Why: a whole buffer written on one node and read on another is the
// coherence protocol's bulk case (write faults, twins and diffs on one
// side, invalidation and fetches on the other), with a mutex and a
// condition variable between them as an ordinary program would have.
//
//   [dstdrun -n 2] producer_consumer_bench [KIB [ROUNDS]]
//
// A producer on node 0 and a consumer on node 1 (both on the one node
// without dstdrun). Each round the producer writes every 8-byte word of the
// KIB KiB buffer (default 1024) with a value of the round, hands it over
// (mutex + condition variable), and waits for the consumer, which sums the
// buffer and checks the sum. Two rows: the buffer homed on the producer's
// node, and on the consumer's. Time per round: the kernel's wall time /
// ROUNDS (default 100); 5 runs, median. A wrong sum exits 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <mutex>
#include <vector>

namespace {

struct handoff {
  dstd::mutex m;
  dstd::condition_variable cv;
  std::uint64_t written = 0;   // rounds the producer has handed over
  std::uint64_t consumed = 0;  // rounds the consumer has checked
  bool wrong = false;
};

std::uint64_t value(std::uint64_t round, std::size_t i) { return round * 1000003u + i; }

void produce(handoff* h, std::uint64_t* buf, std::size_t words, std::uint64_t rounds) {
  for (std::uint64_t r = 1; r <= rounds; ++r) {
    for (std::size_t i = 0; i < words; ++i) buf[i] = value(r, i);
    std::unique_lock<dstd::mutex> lock(h->m);
    h->written = r;
    h->cv.notify_all();
    h->cv.wait(lock, [&] { return h->consumed == r; });
  }
}

void consume(handoff* h, const std::uint64_t* buf, std::size_t words, std::uint64_t rounds) {
  for (std::uint64_t r = 1; r <= rounds; ++r) {
    {
      std::unique_lock<dstd::mutex> lock(h->m);
      h->cv.wait(lock, [&] { return h->written == r; });
    }
    std::uint64_t sum = 0, want = 0;
    for (std::size_t i = 0; i < words; ++i) sum += buf[i], want += value(r, i);
    std::lock_guard<dstd::mutex> lock(h->m);
    if (sum != want) h->wrong = true;
    h->consumed = r;
    h->cv.notify_all();
  }
}

// One run with the buffer homed on `home`: ms per round.
double run_once(unsigned home, std::size_t words, std::uint64_t rounds) {
  const unsigned nodes = dstd::node_count();
  auto* h = new handoff;  // on node 0
  std::uint64_t* buf = nullptr;
  dstd::spawn_on(home % nodes, [&] { buf = new std::uint64_t[words](); }).join();
  const auto t0 = std::chrono::steady_clock::now();
  dstd::thread producer = dstd::spawn_on(0, produce, h, buf, words, rounds);
  dstd::thread consumer = dstd::spawn_on(1 % nodes, consume, h, buf, words, rounds);
  producer.join();
  consumer.join();
  const auto t1 = std::chrono::steady_clock::now();
  if (h->wrong) {
    std::fprintf(stderr, "producer_consumer_bench: the consumer summed a buffer wrongly\n");
    std::exit(1);
  }
  dstd::spawn_on(home % nodes, [buf] { delete[] buf; }).join();
  delete h;
  return std::chrono::duration<double, std::milli>(t1 - t0).count() / static_cast<double>(rounds);
}

void row(const char* name, unsigned home, std::size_t words, std::uint64_t rounds) {
  std::vector<double> ms;
  for (int r = 0; r < 5; ++r) ms.push_back(run_once(home, words, rounds));
  std::sort(ms.begin(), ms.end());
  std::printf("| %-36s | %10.3f | %10.3f | %10.3f |\n", name, ms[2], ms[0], ms[4]);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t kib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const std::uint64_t rounds = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100;
  if (kib == 0 || rounds == 0) {
    std::fprintf(stderr, "usage: producer_consumer_bench [KIB>0 [ROUNDS>0]]\n");
    return 2;
  }
  const std::size_t words = kib * 1024 / sizeof(std::uint64_t);
  std::printf("%zu KiB handed between node 0 and node %u, %llu rounds, medians of 5 runs\n", kib,
              1 % dstd::node_count(), static_cast<unsigned long long>(rounds));
  std::printf("| %-36s | %10s | %10s | %10s |\n", "buffer", "ms/round", "min", "max");
  std::printf("|%s|%s|%s|%s|\n", std::string(38, '-').c_str(), std::string(12, '-').c_str(),
              std::string(12, '-').c_str(), std::string(12, '-').c_str());
  row("homed on the producer's node (0)", 0, words, rounds);
  row("homed on the consumer's node (1)", 1, words, rounds);
  return 0;
}
