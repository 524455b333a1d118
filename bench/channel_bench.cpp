// Channel costs: throughput (one sender, one receiver, a bound of 64) and
// round-trip latency (a ping channel and a pong channel) of dstd::channel
// with 8-byte and 4 KiB messages, both threads on node 0 and the sender /
// the echoing thread on node 1, against a queue of std::mutex +
// std::condition_variable + std::deque between two std::threads in one
// process. Each message is checked on arrival.
//
//   build/bin/dstdrun -n 2 build/bin/channel_bench [N-nodes [N-local]]
//
// N-nodes (default 5000) is the messages (and round trips) of the rows that
// span nodes, N-local (default 100000) those inside one process. Each row
// is the median of 5 runs of wall time / messages (spawn and join
// included). (On one node the across-nodes rows are skipped.)
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <dstd/channel>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "runtime/sched/scheduler.hpp"

namespace {

namespace bench = dstd::bench;
namespace sched = dstd::rt::sched;

constexpr int runs = 5;
constexpr std::size_t bound = 64;

bool failed = false;

// The baseline: what one process would write with std's types.
template <class T>
class std_queue {
 public:
  explicit std_queue(std::size_t capacity = dstd::channel<T>::unbounded) : capacity_(capacity) {}
  void send(T&& v) {
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [this] { return q_.size() < capacity_; });
    q_.push_back(std::move(v));
    lock.unlock();
    not_empty_.notify_one();
  }
  std::optional<T> recv() {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [this] { return closed_ || !q_.empty(); });
    std::optional<T> out;
    if (q_.empty()) return out;
    out.emplace(std::move(q_.front()));
    q_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return out;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    not_empty_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<T> q_;
  std::size_t capacity_;
  bool closed_ = false;
};

// The two message sizes; each carries its sequence number.
struct small {
  std::uint64_t seq;
  explicit small(std::uint64_t s = 0) : seq(s) {}
  bool intact() const { return true; }
};
struct page {
  std::uint64_t seq;
  unsigned char bytes[4096 - sizeof(std::uint64_t)];
  explicit page(std::uint64_t s = 0) : seq(s) { std::fill(std::begin(bytes), std::end(bytes), s & 0xff); }
  bool intact() const {
    return bytes[0] == (seq & 0xff) && bytes[sizeof bytes - 1] == (seq & 0xff);
  }
};

void check(bool good, const char* row) {
  if (good) return;
  std::fprintf(stderr, "channel_bench: %s: a message arrived wrong or out of order\n", row);
  failed = true;
}

// Runs `one_run` (which returns whether its messages arrived right) `runs`
// times; the median wall time per message.
template <class Run>
bench::result timed(std::string name, long messages, Run&& one_run) {
  std::vector<double> per;
  bool good = true;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    good = one_run() && good;
    const auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                  static_cast<double>(messages));
  }
  check(good, name.c_str());
  std::sort(per.begin(), per.end());
  auto at = [&](double q) { return per[static_cast<std::size_t>(q * double(per.size() - 1))]; };
  return {std::move(name), at(0.5), at(0.1), at(0.9)};
}

// Throughput: a sender started by `start` (std::thread or dstd thread)
// sends n messages; the calling thread receives them in order.
template <class Msg, class Queue, class Start>
bool stream(long n, Start&& start) {
  auto* q = new Queue(bound);
  auto sender = start([q, n] {
    for (long i = 0; i < n; ++i) q->send(Msg(static_cast<std::uint64_t>(i)));
    q->close();
  });
  long next = 0;
  bool good = true;
  while (std::optional<Msg> m = q->recv()) {
    good = good && m->seq == static_cast<std::uint64_t>(next) && m->intact();
    ++next;
  }
  sender.join();
  delete q;
  return good && next == n;
}

// Latency: an echoing thread started by `start` sends back each message;
// the calling thread sends the next one when the last came back.
template <class Msg, class Queue, class Start>
bool ping_pong(long n, Start&& start) {
  auto* ping = new Queue(1);
  auto* pong = new Queue(1);
  auto echo = start([ping, pong] {
    while (std::optional<Msg> m = ping->recv()) pong->send(std::move(*m));
    pong->close();
  });
  bool good = true;
  for (long i = 0; i < n; ++i) {
    ping->send(Msg(static_cast<std::uint64_t>(i)));
    std::optional<Msg> back = pong->recv();
    good = good && back && back->seq == static_cast<std::uint64_t>(i) && back->intact();
  }
  ping->close();
  echo.join();
  delete ping;
  delete pong;
  return good;
}

template <class Msg>
void rows_for(const char* size, long n_local, long n_nodes, std::vector<bench::result>& tput,
              std::vector<bench::result>& rtt) {
  auto os_thread = [](auto f) { return std::thread(std::move(f)); };
  auto on = [](dstd::node_id node) {
    return [node](auto f) { return dstd::spawn_on(node, std::move(f)); };
  };
  auto name = [size](const char* what) { return std::string(size) + ", " + what; };
  using dstd_channel = dstd::channel<Msg>;
  tput.push_back(timed(name("std queue, 2 std::threads"), n_local,
                       [&] { return stream<Msg, std_queue<Msg>>(n_local, os_thread); }));
  rtt.push_back(timed(name("std queue, 2 std::threads"), n_local,
                      [&] { return ping_pong<Msg, std_queue<Msg>>(n_local, os_thread); }));
  tput.push_back(timed(name("dstd::channel, both on node 0"), n_local,
                       [&] { return stream<Msg, dstd_channel>(n_local, on(0)); }));
  rtt.push_back(timed(name("dstd::channel, both on node 0"), n_local,
                      [&] { return ping_pong<Msg, dstd_channel>(n_local, on(0)); }));
  if (dstd::node_count() < 2) return;
  tput.push_back(timed(name("dstd::channel, node 1 -> node 0"), n_nodes,
                       [&] { return stream<Msg, dstd_channel>(n_nodes, on(1)); }));
  rtt.push_back(timed(name("dstd::channel, node 0 <-> node 1"), n_nodes,
                      [&] { return ping_pong<Msg, dstd_channel>(n_nodes, on(1)); }));
}

}  // namespace

int main(int argc, char** argv) {
  const long n_nodes = argc > 1 ? std::atol(argv[1]) : 5000;
  const long n_local = argc > 2 ? std::atol(argv[2]) : 100000;
  std::vector<bench::result> tput;
  std::vector<bench::result> rtt;
  dstd::spawn_on(0, [&] {  // the receiving side is a dstd thread on node 0
    rows_for<small>("8 B", n_local, n_nodes, tput, rtt);
    rows_for<page>("4 KiB", n_local / 10, n_nodes, tput, rtt);
  }).join();
  char title[256];
  std::snprintf(title, sizeof title,
                "channel throughput, ns per message (bound %zu; %u node(s), %u worker(s) per "
                "node;\n%ld messages in one process (4 KiB: %ld), %ld across nodes; median of %d)",
                bound, dstd::node_count(), sched::configured_workers(), n_local, n_local / 10,
                n_nodes, runs);
  bench::print_table(title, tput);
  std::printf("\n");
  bench::print_table("channel round trip, ns per message there and back", rtt);
  return failed ? 1 : 0;
}
