// socialnet: a small social network service built as services (threads)
// that talk through bounded queues of std::unique_ptr messages (a
// std::mutex and two std::condition_variables each), driven by a
// closed-loop load generator; written as an ordinary std C++ program (it
// knows nothing of dstd: built with -I<dstd>/compat and libdstd, its
// services and clients run on every node of a dstdrun run).
//
// Services: a front end routes each request; a post service stores posts;
// a social-graph service keeps who follows whom; a timeline service keeps
// each user's home timeline (post ids of the users they follow). Compose
// post goes front end -> post service -> graph service (fan-out list) ->
// timeline service, which answers the client; read home timeline goes
// front end -> timeline service; follow goes front end -> graph service.
//
// Load: first every client follows its users' followees (a deterministic
// graph), then all wait at a barrier, then each runs a closed loop of
// compose (10%) and read (90%) requests. So the final state does not
// depend on the threads' order: the checksum (of every home timeline's
// length and of every user's number of posts; post ids depend on the order
// of composes and are left out) is the same for every run with the same
// flags, whatever the number of nodes.
//
//   socialnet [--users N] [--clients C] [--requests R] [--followees F]
//             [--queue Q] [--timeline-shards S]
//
// Prints "checksum <hex>", "operations <N>" (requests, follows included),
// "throughput <requests/s> requests/s" (the load phase) and the p50/p99
// request latency in microseconds.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app_flags.hpp"

namespace {

struct options {
  std::size_t users = 1000;
  unsigned clients = 4;
  std::size_t requests = 2000;  // per client
  std::size_t followees = 10;
  std::size_t queue = 64;
  unsigned timeline_shards = 2;
};

options parse(int argc, char** argv) {
  options o;
  app_flags f("socialnet",
              "[--users N] [--clients C] [--requests R] [--followees F] [--queue Q] "
              "[--timeline-shards S]",
              argc, argv);
  while (f.next()) {
    if (f.is("--users")) {
      o.users = f.number();
    } else if (f.is("--clients")) {
      o.clients = static_cast<unsigned>(f.number());
    } else if (f.is("--requests")) {
      o.requests = f.number();
    } else if (f.is("--followees")) {
      o.followees = f.number();
    } else if (f.is("--queue")) {
      o.queue = f.number();
    } else if (f.is("--timeline-shards")) {
      o.timeline_shards = static_cast<unsigned>(f.number());
    } else {
      f.fail("unknown flag " + f.flag());
    }
  }
  if (o.followees >= o.users) f.fail("--followees must be less than --users");
  return o;
}

// A bounded multi-producer multi-consumer queue of T.
template <class T>
class bounded_queue {
 public:
  explicit bounded_queue(std::size_t capacity) : capacity_(capacity) {}
  void push(T v) {
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_; });
    items_.push_back(std::move(v));
    not_empty_.notify_one();
  }
  T pop() {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [&] { return !items_.empty(); });
    T v = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> items_;
  std::size_t capacity_;
};

enum class kind { compose, read_timeline, follow, stop };

// The reply a client waits for.
struct reply_slot {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::size_t timeline_length = 0;
};

struct request {
  kind what;
  std::uint64_t user = 0;
  std::uint64_t other = 0;    // follow: whom
  std::uint64_t post_id = 0;  // compose: set by the post service
  std::vector<std::uint64_t> fan_out;  // compose: followers, set by the graph service
  reply_slot* reply = nullptr;
};

using message = std::unique_ptr<request>;
using queue = bounded_queue<message>;

void answer(request& r, std::size_t timeline_length) {
  std::lock_guard<std::mutex> lock(r.reply->m);
  r.reply->timeline_length = timeline_length;
  r.reply->done = true;
  r.reply->cv.notify_one();
}

struct services {
  const options& o;
  queue front, posts, graph;
  std::vector<std::unique_ptr<queue>> timelines;  // one per shard
  // Post service state.
  std::vector<std::vector<std::uint64_t>> posts_of;
  std::uint64_t next_post = 1;
  // Graph service state: followers of each user.
  std::vector<std::vector<std::uint64_t>> followers;
  // Timeline state, per shard: the users u with u % shards == shard.
  std::vector<std::vector<std::uint64_t>> timeline;

  explicit services(const options& opts)
      : o(opts), front(opts.queue), posts(opts.queue), graph(opts.queue),
        posts_of(opts.users), followers(opts.users), timeline(opts.users) {
    for (unsigned s = 0; s < o.timeline_shards; ++s) timelines.push_back(std::make_unique<queue>(o.queue));
  }
  queue& timeline_shard(std::uint64_t user) { return *timelines[user % o.timeline_shards]; }

  void run_front() {
    for (;;) {
      message m = front.pop();
      switch (m->what) {
        case kind::compose: posts.push(std::move(m)); break;
        case kind::read_timeline: timeline_shard(m->user).push(std::move(m)); break;
        case kind::follow: graph.push(std::move(m)); break;
        case kind::stop: return;
      }
    }
  }
  void run_posts() {
    for (;;) {
      message m = posts.pop();
      if (m->what == kind::stop) return;
      m->post_id = next_post++;
      posts_of[m->user].push_back(m->post_id);
      graph.push(std::move(m));
    }
  }
  void run_graph() {
    for (;;) {
      message m = graph.pop();
      if (m->what == kind::stop) return;
      if (m->what == kind::follow) {
        followers[m->other].push_back(m->user);
        answer(*m, 0);
        continue;
      }
      m->fan_out = followers[m->user];  // compose: to each follower's timeline
      m->fan_out.push_back(m->user);    // and the author's own
      // The author's shard answers the client once every shard has it:
      // send to the other shards first, each with its own copy.
      for (unsigned s = 0; s < o.timeline_shards; ++s) {
        if (s == m->user % o.timeline_shards) continue;
        auto copy = std::make_unique<request>(*m);
        copy->reply = nullptr;
        timelines[s]->push(std::move(copy));
      }
      timeline_shard(m->user).push(std::move(m));
    }
  }
  void run_timeline(unsigned shard) {
    for (;;) {
      message m = timelines[shard]->pop();
      if (m->what == kind::stop) return;
      if (m->what == kind::read_timeline) {
        answer(*m, timeline[m->user].size());
        continue;
      }
      for (std::uint64_t u : m->fan_out) {
        if (u % o.timeline_shards == shard) timeline[u].push_back(m->post_id);
      }
      if (m->reply != nullptr) answer(*m, timeline[m->user].size());
    }
  }
};

// The client waits for its reply; returns the latency in microseconds.
double call(services& s, kind what, std::uint64_t user, std::uint64_t other) {
  reply_slot slot;
  auto m = std::make_unique<request>();
  m->what = what;
  m->user = user;
  m->other = other;
  m->reply = &slot;
  const auto start = std::chrono::steady_clock::now();
  s.front.push(std::move(m));
  std::unique_lock<std::mutex> lock(slot.m);
  slot.cv.wait(lock, [&] { return slot.done; });
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

// A barrier for the clients (between building the graph and the load).
struct phase_barrier {
  std::mutex m;
  std::condition_variable cv;
  unsigned waiting = 0;
  unsigned count;
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m);
    if (++waiting == count) {
      cv.notify_all();
      return;
    }
    cv.wait(lock, [&] { return waiting == count; });
  }
};

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  auto s = std::make_unique<services>(o);
  std::vector<std::thread> service_threads;
  service_threads.reserve(3 + o.timeline_shards);  // (also keeps g++ 12 -Wnull-dereference quiet)
  service_threads.emplace_back([&] { s->run_front(); });
  service_threads.emplace_back([&] { s->run_posts(); });
  service_threads.emplace_back([&] { s->run_graph(); });
  for (unsigned shard = 0; shard < o.timeline_shards; ++shard) {
    service_threads.emplace_back([&, shard] { s->run_timeline(shard); });
  }

  phase_barrier graph_built{{}, {}, 0, o.clients};
  std::vector<std::vector<double>> latencies(o.clients);
  std::chrono::steady_clock::time_point load_start;
  std::vector<std::thread> clients;
  for (unsigned c = 0; c < o.clients; ++c) {
    clients.emplace_back([&, c] {
      // Users c, c + clients, ... follow their F next users.
      for (std::uint64_t u = c; u < o.users; u += o.clients) {
        for (std::size_t f = 1; f <= o.followees; ++f) call(*s, kind::follow, u, (u + f * f) % o.users);
      }
      graph_built.arrive_and_wait();
      if (c == 0) load_start = std::chrono::steady_clock::now();  // (close enough: all start now)
      std::uint64_t x = 0x9e3779b97f4a7c15ull * (c + 1);
      for (std::size_t i = 0; i < o.requests; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const std::uint64_t user = x % o.users;
        const kind what = (x >> 32) % 10 == 0 ? kind::compose : kind::read_timeline;
        latencies[c].push_back(call(*s, what, user, 0));
      }
    });
  }
  for (std::thread& c : clients) c.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

  // Stop the services in pipeline order: each has drained its queue when
  // it reads the stop message (the clients have all been answered).
  auto stop = [&](queue& q) {
    auto m = std::make_unique<request>();
    m->what = kind::stop;
    q.push(std::move(m));
  };
  stop(s->front);
  stop(s->posts);
  stop(s->graph);
  for (auto& q : s->timelines) stop(*q);
  for (std::thread& t : service_threads) t.join();

  std::uint64_t h = 1469598103934665603ull;
  auto fold = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  std::uint64_t posts = 0, entries = 0;
  for (std::size_t u = 0; u < o.users; ++u) {
    fold(s->timeline[u].size());
    fold(s->posts_of[u].size());
    posts += s->posts_of[u].size();
    entries += s->timeline[u].size();
  }
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  const auto at = [&all](double q) { return all[static_cast<std::size_t>(q * static_cast<double>(all.size() - 1))]; };
  std::printf("%zu users, %u clients, %llu posts, %llu timeline entries\n", o.users, o.clients,
              static_cast<unsigned long long>(posts), static_cast<unsigned long long>(entries));
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(h));
  std::printf("operations %zu\n", all.size() + o.users * o.followees);
  std::printf("throughput %.0f requests/s\n", static_cast<double>(all.size()) / seconds);
  std::printf("latency p50 %.1f us, p99 %.1f us\n", at(0.50), at(0.99));
  return 0;
}
