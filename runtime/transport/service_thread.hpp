// The parts of a network backend's service thread that do not depend on
// the network: its inbox, how other threads wake it, and its loop.
//
// Why shared: ucx and verbs both receive messages on whichever thread
// drives progress, which must not run handlers (waiting.hpp); so both queue
// them in an inbox that only the service thread dispatches, in bounded
// batches so that the network keeps being progressed. Both let the service
// thread sleep when idle, on the network's own descriptor and on a doorbell
// (an eventfd) that another thread rings when it queued work; a counter
// read before the last progress and re-read after the thread says it
// sleeps closes the race between the two.
#pragma once

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <span>
#include <vector>

#include "runtime/common/backoff.hpp"
#include "runtime/common/fatal.hpp"

namespace dstd::rt {

// Messages for handlers, queued by any thread, dispatched by the service thread.
template <class Entry>
class service_inbox {
 public:
  void push(Entry e) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(std::move(e));
  }

  // Calls run(entry) for the oldest entries, at most `batch_limit`; false
  // when there were none.
  template <class Run>
  bool dispatch_batch(Run run) {
    static constexpr std::size_t batch_limit = 64;
    std::deque<Entry> batch;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (entries_.size() <= batch_limit) {
        batch.swap(entries_);
      } else {
        for (std::size_t i = 0; i < batch_limit; ++i) {
          batch.push_back(std::move(entries_.front()));
          entries_.pop_front();
        }
      }
    }
    for (Entry& e : batch) run(e);
    return !batch.empty();
  }

 private:
  std::mutex mutex_;
  std::deque<Entry> entries_;
};

// Wakes the service thread from other threads.
class service_wakeup {
 public:
  explicit service_wakeup(const char* backend) {
    doorbell_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (doorbell_ < 0) {
      fatal("cannot make the %s service thread's eventfd: %s", backend, std::strerror(errno));
    }
  }
  service_wakeup(const service_wakeup&) = delete;
  service_wakeup& operator=(const service_wakeup&) = delete;

  // Work for the service thread from another thread: wakes it if it is
  // asleep (or about to sleep: it re-reads the count after saying so).
  void posted() {
    posts_.fetch_add(1, std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_seq_cst)) ring();
  }

  void ring() {
    const std::uint64_t one = 1;
    if (::write(doorbell_, &one, sizeof one) < 0 && errno != EAGAIN) {
      fatal("cannot wake the service thread: %s", std::strerror(errno));
    }
  }

  std::uint64_t posts() const { return posts_.load(std::memory_order_seq_cst); }

  // Sleeps until one of `network` is readable or the doorbell rings, at
  // most `ms`; not at all if another thread posted since `posts_seen` or
  // arm() (the network's "tell me when something comes") says something is
  // already there. The revents of `network` say what woke it.
  template <class Arm>
  void sleep(std::uint64_t posts_seen, Arm arm, std::span<pollfd> network, int ms) {
    for (pollfd& p : network) p.revents = 0;
    sleeping_.store(true, std::memory_order_seq_cst);
    if (posts() == posts_seen && arm()) {
      std::vector<pollfd> all(network.begin(), network.end());
      all.push_back({doorbell_, POLLIN, 0});
      poll(all.data(), all.size(), ms);
      for (std::size_t i = 0; i < network.size(); ++i) network[i].revents = all[i].revents;
      std::uint64_t rings = 0;
      if (all.back().revents & POLLIN) (void)!::read(doorbell_, &rings, sizeof rings);
    }
    sleeping_.store(false, std::memory_order_relaxed);
  }

 private:
  int doorbell_ = -1;
  std::atomic<std::uint64_t> posts_{0};
  std::atomic<bool> sleeping_{false};
};

// The loop, until `stopping`: the backend's progress(), dispatch_inbox()
// and end_if_a_peer_is_lost() while there is work, then spinning and
// yielding a while, then its sleep_until_traffic(posts_seen). Backends
// make it a friend.
template <class Backend>
void run_service_loop(Backend& b, const std::atomic<bool>& stopping, const service_wakeup& wakeup) {
  backoff idle;
  while (!stopping.load(std::memory_order_acquire)) {
    const std::uint64_t posts_seen = wakeup.posts();
    const bool busy = b.progress() != 0;
    const bool handled = b.dispatch_inbox();
    b.end_if_a_peer_is_lost();
    if (busy || handled) {
      idle.reset();
      continue;
    }
    if (idle.step()) continue;
    b.sleep_until_traffic(posts_seen);
    idle.reset();
  }
}

}  // namespace dstd::rt
