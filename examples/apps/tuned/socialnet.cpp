// socialnet, tuned for dstd: the same services, load and output as
// ../socialnet.cpp (the same checksum for the same flags), changed where a
// run across nodes pays for it. In the plain program every service's state
// and every queue is in main's memory on node 0, wherever the service
// runs, and each lock acquire drops what a node had cached, so a service
// fetches its own tables again for nearly every message. Here:
//
// - Each service runs on a node of its own choosing (spawn_on: the front
//   end on node 0, then the post service, the graph service and the
//   timeline shards on the next nodes in turn), and its state (posts,
//   followers, a timeline shard's timelines) is made by a thread on that
//   node, so it is that node's memory and never leaves it.
// - The queues are dstd::channels of unique_ptr messages, each made on its
//   receiver's node (ring included), so a receive is a local lock and the
//   message's bytes come with it in one fetch.
// - Services and clients copy what their loops read (queue pointers, the
//   options) to their own node first; clients keep their latencies locally.
//
//   socialnet_tuned [--users N] [--clients C] [--requests R] [--followees F]
//                   [--queue Q] [--timeline-shards S]
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
#include <dstd/channel>
#include <dstd/dstd.hpp>
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
using queue = dstd::channel<message>;

// A queue made by the calling thread, ring included (the first send
// allocates it), so homed on the node of the service that receives from it.
std::unique_ptr<queue> make_queue(std::size_t capacity) {
  auto q = std::make_unique<queue>(capacity);
  q->send(nullptr);
  (void)q->recv();
  return q;
}

// The next message on q (never null: only make_queue sends one, and takes
// it back at once).
message receive(queue& q) {
  message m = *q.recv();
  if (!m) std::abort();
  return m;
}

// Where each service runs: the front end on node 0, the others on the
// next nodes in turn (post service, graph service, timeline shards).
dstd::node_id node_of_service(unsigned i) { return i % dstd::node_count(); }
constexpr unsigned front_service = 0, post_service = 1, graph_service = 2, first_timeline = 3;

using lists = std::vector<std::vector<std::uint64_t>>;

void answer(request& r, std::size_t timeline_length) {
  std::lock_guard<std::mutex> lock(r.reply->m);
  r.reply->timeline_length = timeline_length;
  r.reply->done = true;
  r.reply->cv.notify_one();
}

struct services {
  const options o;  // (a copy: main's is on node 0's stack)
  std::unique_ptr<queue> front, posts, graph;
  std::vector<std::unique_ptr<queue>> timelines;  // one per shard
  // Post service state (on its node).
  std::unique_ptr<lists> posts_of;
  // Graph service state: followers of each user (on its node).
  std::unique_ptr<lists> followers;
  // Timeline state, per shard: the users u with u % shards == shard, at
  // u / shards (on the shard's node).
  std::vector<std::unique_ptr<lists>> timeline;

  // Each queue and each service's state is made on the service's node.
  explicit services(const options& opts) : o(opts), timelines(opts.timeline_shards), timeline(opts.timeline_shards) {
    std::vector<std::thread> makers;
    makers.push_back(dstd::spawn_on(node_of_service(front_service), [this] { front = make_queue(o.queue); }));
    makers.push_back(dstd::spawn_on(node_of_service(post_service), [this] {
      posts = make_queue(o.queue);
      posts_of = std::make_unique<lists>(o.users);
    }));
    makers.push_back(dstd::spawn_on(node_of_service(graph_service), [this] {
      graph = make_queue(o.queue);
      followers = std::make_unique<lists>(o.users);
    }));
    for (unsigned s = 0; s < o.timeline_shards; ++s) {
      makers.push_back(dstd::spawn_on(node_of_service(first_timeline + s), [this, s] {
        timelines[s] = make_queue(o.queue);
        timeline[s] = std::make_unique<lists>((o.users - s + o.timeline_shards - 1) / o.timeline_shards);
      }));
    }
    for (std::thread& m : makers) m.join();
  }
  std::size_t timeline_length(std::uint64_t user) const {
    return (*timeline[user % o.timeline_shards])[user / o.timeline_shards].size();
  }

  // Each service reads its queues and state through these locals (on its
  // node), not through this object (on node 0).
  void run_front() {
    queue &in = *front, &to_posts = *posts, &to_graph = *graph;
    std::vector<queue*> to_timeline;
    for (auto& q : timelines) to_timeline.push_back(q.get());
    const unsigned shards = o.timeline_shards;
    for (;;) {
      message m = receive(in);
      switch (m->what) {
        case kind::compose: to_posts.send(std::move(m)); break;
        case kind::read_timeline: to_timeline[m->user % shards]->send(std::move(m)); break;
        case kind::follow: to_graph.send(std::move(m)); break;
        case kind::stop: return;
      }
    }
  }
  void run_posts() {
    queue &in = *posts, &to_graph = *graph;
    lists& mine = *posts_of;
    std::uint64_t next_post = 1;
    for (;;) {
      message m = receive(in);
      if (m->what == kind::stop) return;
      m->post_id = next_post++;
      mine[m->user].push_back(m->post_id);
      to_graph.send(std::move(m));
    }
  }
  void run_graph() {
    queue& in = *graph;
    lists& mine = *followers;
    std::vector<queue*> to_timeline;
    for (auto& q : timelines) to_timeline.push_back(q.get());
    const unsigned shards = o.timeline_shards;
    for (;;) {
      message m = receive(in);
      if (m->what == kind::stop) return;
      if (m->what == kind::follow) {
        mine[m->other].push_back(m->user);
        answer(*m, 0);
        continue;
      }
      m->fan_out = mine[m->user];    // compose: to each follower's timeline
      m->fan_out.push_back(m->user);  // and the author's own
      // The author's shard answers the client once every shard has it:
      // send to the other shards first, each with its own copy.
      for (unsigned s = 0; s < shards; ++s) {
        if (s == m->user % shards) continue;
        auto copy = std::make_unique<request>(*m);
        copy->reply = nullptr;
        to_timeline[s]->send(std::move(copy));
      }
      to_timeline[m->user % shards]->send(std::move(m));
    }
  }
  void run_timeline(unsigned shard) {
    queue& in = *timelines[shard];
    lists& mine = *timeline[shard];
    const unsigned shards = o.timeline_shards;
    for (;;) {
      message m = receive(in);
      if (m->what == kind::stop) return;
      if (m->what == kind::read_timeline) {
        answer(*m, mine[m->user / shards].size());
        continue;
      }
      for (std::uint64_t u : m->fan_out) {
        if (u % shards == shard) mine[u / shards].push_back(m->post_id);
      }
      if (m->reply != nullptr) answer(*m, mine[m->user / shards].size());
    }
  }
};

// The client waits for its reply; returns the latency in microseconds.
double call(queue& front, kind what, std::uint64_t user, std::uint64_t other) {
  reply_slot slot;
  auto m = std::make_unique<request>();
  m->what = what;
  m->user = user;
  m->other = other;
  m->reply = &slot;
  const auto start = std::chrono::steady_clock::now();
  front.send(std::move(m));
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
  services* all_services = s.get();
  service_threads.push_back(dstd::spawn_on(node_of_service(front_service), [all_services] { all_services->run_front(); }));
  service_threads.push_back(dstd::spawn_on(node_of_service(post_service), [all_services] { all_services->run_posts(); }));
  service_threads.push_back(dstd::spawn_on(node_of_service(graph_service), [all_services] { all_services->run_graph(); }));
  for (unsigned shard = 0; shard < o.timeline_shards; ++shard) {
    service_threads.push_back(dstd::spawn_on(node_of_service(first_timeline + shard),
                                             [all_services, shard] { all_services->run_timeline(shard); }));
  }

  phase_barrier graph_built{{}, {}, 0, o.clients};
  std::vector<std::vector<double>> latencies(o.clients);
  std::chrono::steady_clock::time_point load_start;
  std::vector<std::thread> clients;
  for (unsigned c = 0; c < o.clients; ++c) {
    clients.push_back(dstd::spawn_on(c % dstd::node_count(), [&, c] {
      // What the loops read, copied to this node first.
      const std::size_t users = o.users, followees = o.followees, requests = o.requests;
      const unsigned client_count = o.clients;
      queue& front = *s->front;
      std::vector<double> mine;
      // Users c, c + clients, ... follow their F next users.
      for (std::uint64_t u = c; u < users; u += client_count) {
        for (std::size_t f = 1; f <= followees; ++f) call(front, kind::follow, u, (u + f * f) % users);
      }
      graph_built.arrive_and_wait();
      if (c == 0) load_start = std::chrono::steady_clock::now();  // (close enough: all start now)
      std::uint64_t x = 0x9e3779b97f4a7c15ull * (c + 1);
      for (std::size_t i = 0; i < requests; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const std::uint64_t user = x % users;
        const kind what = (x >> 32) % 10 == 0 ? kind::compose : kind::read_timeline;
        mine.push_back(call(front, what, user, 0));
      }
      latencies[c] = std::move(mine);
    }));
  }
  for (std::thread& c : clients) c.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

  // Stop the services in pipeline order: each has drained its queue when
  // it reads the stop message (the clients have all been answered).
  auto stop = [&](queue& q) {
    auto m = std::make_unique<request>();
    m->what = kind::stop;
    q.send(std::move(m));
  };
  stop(*s->front);
  stop(*s->posts);
  stop(*s->graph);
  for (auto& q : s->timelines) stop(*q);
  for (std::thread& t : service_threads) t.join();

  std::uint64_t h = 1469598103934665603ull;
  auto fold = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  std::uint64_t posts = 0, entries = 0;
  for (std::size_t u = 0; u < o.users; ++u) {
    fold(s->timeline_length(u));
    fold((*s->posts_of)[u].size());
    posts += (*s->posts_of)[u].size();
    entries += s->timeline_length(u);
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
