// Which peers this node has lost, and when to say so.
//
// Why heartbeats: UCX reports a peer whose process died (its connection is
// reset) through the endpoint's error handler, but a host that becomes
// unreachable (link down, cable pulled) leaves a half-open connection that
// TCP may keep for many minutes. So every node sends each peer a heartbeat
// every `heartbeat_interval`, and a peer silent for `silence_limit` is
// lost: the run ends within seconds, naming it.
//
// Why a grace period: at the end of a run the other nodes leave on their
// own as soon as node 0 tells them to. A node may see a peer disconnect
// just before its own copy of that message arrives; so a disconnection
// counts only after `grace`, and not at all once the run is ending.
//
// Used by the service thread only, except run_ending() (any thread).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dstd::rt::ucx {

class peer_health {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr auto heartbeat_interval = std::chrono::milliseconds(250);
  // 4 s gave false alarms under load (heartbeats queue behind bulk traffic
  // on the same connection): 30 s until heartbeats travel apart.
  static constexpr auto silence_limit = std::chrono::milliseconds(30000);
  static constexpr auto grace = std::chrono::milliseconds(1000);

  struct lost {
    std::uint32_t node;
    std::string why;
  };

  peer_health(std::uint32_t self, std::uint32_t nodes, clock::time_point now)
      : self_(self), peers_(nodes, peer{now, {}, {}}), last_beat_(now), last_check_(now) {}

  void heard_from(std::uint32_t n, clock::time_point now) { peers_[n].heard = now; }
  void disconnected(std::uint32_t n, std::string why, clock::time_point now) {
    peer& p = peers_[n];
    if (!p.disconnected_at) {
      p.disconnected_at = now;
      p.why = std::move(why);
    }
  }
  void run_ending() { ending_.store(true, std::memory_order_release); }
  bool ending() const { return ending_.load(std::memory_order_acquire); }

  // True (and the clock restarted) when heartbeats are due.
  bool heartbeat_due(clock::time_point now) {
    if (now - last_beat_ < heartbeat_interval) return false;
    last_beat_ = now;
    return true;
  }

  // The first peer lost by `now`, if any. Silence is judged only over time
  // this node was listening: after a gap between checks (the service thread
  // was busy or not scheduled, and unread data may be waiting), every peer
  // starts a new silence.
  std::optional<lost> check(clock::time_point now) {
    if (now - last_check_ > 2 * heartbeat_interval) {
      for (peer& p : peers_) p.heard = now;
    }
    last_check_ = now;
    if (ending()) return std::nullopt;
    for (std::uint32_t n = 0; n < peers_.size(); ++n) {
      if (n == self_) continue;
      const peer& p = peers_[n];
      if (p.disconnected_at && now - *p.disconnected_at >= grace) return lost{n, p.why};
      if (now - p.heard >= silence_limit) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - p.heard);
        return lost{n, "not heard from for " + std::to_string(ms.count()) +
                           " ms (its host is unreachable, or the node is stopped)"};
      }
    }
    return std::nullopt;
  }

 private:
  struct peer {
    clock::time_point heard;
    std::optional<clock::time_point> disconnected_at;
    std::string why;
  };
  std::uint32_t self_;
  std::vector<peer> peers_;
  clock::time_point last_beat_;
  clock::time_point last_check_;
  std::atomic<bool> ending_{false};
};

}  // namespace dstd::rt::ucx
