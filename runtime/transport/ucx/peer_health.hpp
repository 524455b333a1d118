// Which peers this node has lost, and when to say so.
//
// Why heartbeats: UCX reports a peer whose process died (its connection is
// reset) through the endpoint's error handler, but a host that becomes
// unreachable (link down, cable pulled) leaves a half-open connection that
// TCP may keep for many minutes. So every node sends each peer a heartbeat
// every `heartbeat_interval`, and a peer silent for `silence_limit` is
// lost: the run ends, naming it; and a lifeline whose keepalive goes
// unanswered (peer_lifelines.hpp) reports the peer unreachable at once.
//
// Why a grace period: at the end of a run the other nodes leave on their
// own as soon as node 0 tells them to. A node may see a peer disconnect
// just before its own copy of that message arrives; so a disconnection
// counts only after `grace`, and not at all once the run is ending.
//
// heard_from(), disconnected(), unreachable(), heartbeat_due() and
// run_ending() are called on any thread (UCX callbacks run on whichever
// thread progresses the worker, and that thread sends the heartbeats; the
// lifelines' watcher has its own); check() on the service thread only.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace dstd::rt::ucx {

class peer_health {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr auto heartbeat_interval = std::chrono::milliseconds(250);
  // 30 s hid a deadlock (a service thread stuck behind a worker that could
  // not progress its own read, fixed by letting every blocked thread
  // progress). After the fix, 4 s and even 10 s still gave false alarms
  // (a node of blocking_test unheard for 10 s while its test passed). A
  // measurement over the whole suite at -j2 (2026-11-24) put the cause on
  // the way, not at the sender: every node sent its heartbeats at most
  // 0.5 s apart, yet receivers went up to 3.05 s without hearing from a
  // peer while their service threads kept checking. Where the stall is
  // (UCX's TCP send queue behind bulk traffic, or the receiving worker's
  // progress) is not known yet; so 30 s, a backstop for a stopped process.
  // A host that drops off is seen in about 3 s by a lifeline's TCP
  // keepalive, dstdrun's or node 0's (peer_lifelines.hpp: unreachable()),
  // and a process that dies by its connection's reset (1 s grace).
  static constexpr auto silence_limit = std::chrono::milliseconds(30000);
  static constexpr auto grace = std::chrono::milliseconds(1000);

  struct lost {
    std::uint32_t node;
    std::string why;
  };

  peer_health(std::uint32_t self, std::uint32_t nodes, clock::time_point now)
      : self_(self), nodes_(nodes), peers_(std::make_unique<peer[]>(nodes)),
        last_beat_(now.time_since_epoch().count()), last_check_(now) {
    for (std::uint32_t n = 0; n < nodes; ++n) heard_from(n, now);
  }

  void heard_from(std::uint32_t n, clock::time_point now) {
    peers_[n].heard.store(now.time_since_epoch().count(), std::memory_order_relaxed);
  }
  void disconnected(std::uint32_t n, std::string why, clock::time_point now) {
    std::lock_guard<std::mutex> lock(disconnections_);
    peer& p = peers_[n];
    if (!p.disconnected_at) {
      p.disconnected_at = now;
      p.why = std::move(why);
    }
  }
  // The kernel gave up on the peer's host (peer_lifelines.hpp): no end of
  // a run looks like that, so it counts at once, without the grace.
  void unreachable(std::uint32_t n, std::string why, clock::time_point now) {
    disconnected(n, std::move(why), now - grace);
  }
  void run_ending() { ending_.store(true, std::memory_order_release); }
  bool ending() const { return ending_.load(std::memory_order_acquire); }

  // True (and the clock restarted) when heartbeats are due; true for one
  // caller only.
  bool heartbeat_due(clock::time_point now) {
    clock::rep last = last_beat_.load(std::memory_order_relaxed);
    const clock::rep ticks = now.time_since_epoch().count();
    if (clock::duration{ticks - last} < heartbeat_interval) return false;
    return last_beat_.compare_exchange_strong(last, ticks, std::memory_order_relaxed);
  }

  // The first peer lost by `now`, if any. Silence is judged only over time
  // this node was listening: after a gap between checks (the service thread
  // was busy or not scheduled, and unread data may be waiting), every peer
  // starts a new silence.
  std::optional<lost> check(clock::time_point now) {
    if (now - last_check_ > 2 * heartbeat_interval) {
      for (std::uint32_t n = 0; n < nodes_; ++n) heard_from(n, now);
    }
    last_check_ = now;
    if (ending()) return std::nullopt;
    std::lock_guard<std::mutex> lock(disconnections_);
    for (std::uint32_t n = 0; n < nodes_; ++n) {
      if (n == self_) continue;
      const peer& p = peers_[n];
      if (p.disconnected_at && now - *p.disconnected_at >= grace) return lost{n, p.why};
      const clock::time_point heard{clock::duration{p.heard.load(std::memory_order_relaxed)}};
      if (now - heard >= silence_limit) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - heard);
        return lost{n, "not heard from for " + std::to_string(ms.count()) +
                           " ms (its host is unreachable, or the node is stopped)"};
      }
    }
    return std::nullopt;
  }

 private:
  struct peer {
    std::atomic<clock::rep> heard{0};  // a clock::time_point's ticks
    std::optional<clock::time_point> disconnected_at;  // under disconnections_
    std::string why;                                   // under disconnections_
  };
  std::uint32_t self_;
  std::uint32_t nodes_;
  std::unique_ptr<peer[]> peers_;
  std::mutex disconnections_;
  std::atomic<clock::rep> last_beat_;  // a clock::time_point's ticks
  clock::time_point last_check_;
  std::atomic<bool> ending_{false};
};

}  // namespace dstd::rt::ucx
