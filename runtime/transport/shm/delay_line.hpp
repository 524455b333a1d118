// The shm backend's delayed mode: every operation takes effect N µs after
// it was posted, on a helper thread (DSTD_SHM_DELAY_US=N).
//
// An emulation, for tests and for modelling a network's latency, never a
// network: shm completes everything inline, so code that wrongly assumed
// inline completion (or held a lock a parked fiber's worker needs) would go
// unnoticed. In this mode one-sided operations finish and messages reach
// their ring only later, from another thread, in posting order.
//
// Fidelity: the line's thread watches for posts for a while before it
// sleeps and waits out a due time shorter than `sleep_above` by yielding,
// not in a timed sleep: on a VM each wake-up of a sleeping thread cost
// several µs, so at N = 2 every operation took 10-20 µs, and the mode
// modelled the line's wake-ups rather than the network.
//
// Order: actions run in posting order (the delay is the same for all). A
// message that finds its ring full stays queued and is retried; the
// messages after it to the same peer wait behind it. One-sided operations
// never wait behind such a message: which handler has run is never
// observable from a one-sided operation's completion, and a one-sided read
// on a service thread (a fault in a handler) must not depend on the peer's
// service thread draining its ring, or two nodes could wait on each other.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/common/node_condition_variable.hpp"

namespace dstd::rt::shm {

class delay_line {
 public:
  // Runs on the line's thread. A message returns false when its ring is
  // full; it is retried.
  using action = std::function<bool()>;

  delay_line(std::chrono::microseconds delay, unsigned peers);
  ~delay_line();
  delay_line(const delay_line&) = delete;
  delay_line& operator=(const delay_line&) = delete;

  // Runs `act` `delay` after now. A message (`is_message`) runs after every
  // earlier message to `peer`.
  void post(unsigned peer, bool is_message, action act);
  // Until every action posted so far has run.
  void drain();

 private:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::microseconds sleep_above{100};
  struct entry {
    clock::time_point due;
    unsigned peer;
    bool is_message;
    action act;
  };

  void run();
  void watch_for_posts(std::unique_lock<std::mutex>& lk);
  void wait_until_due(std::unique_lock<std::mutex>& lk, clock::time_point due);
  void start_or_stall(entry& e);
  bool retry_stalled();  // true while some message is still stalled
  void ran(std::uint64_t n);

  const std::chrono::microseconds delay_;
  std::mutex lock_;
  rt::node_condition_variable posted_;
  rt::node_condition_variable idle_;
  std::deque<entry> queue_;
  std::uint64_t unfinished_ = 0;  // posted, not yet run (under lock_)
  std::atomic<std::uint64_t> posts_{0};  // posted so far: watched without the lock
  bool stopping_ = false;
  std::vector<std::deque<action>> stalled_;  // per peer; the line's thread only
  std::thread thread_;
};

}  // namespace dstd::rt::shm
