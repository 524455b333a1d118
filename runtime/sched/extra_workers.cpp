// See extra_workers.hpp.
#include "runtime/sched/extra_workers.hpp"

#include <system_error>
#include <utility>
#include <vector>

namespace dstd::rt::sched {

namespace {

// Ticks without a live fiber before the monitor sleeps until a spawn.
constexpr unsigned quiet_ticks_before_sleep = 100;

// True if every running worker is inside the fiber it was in at the last
// look (`seen`, from the last snapshot; a worker started since is not).
bool every_worker_held(const node_scheduler& s, const std::vector<std::uint64_t>& seen) {
  if (seen.size() != s.workers.size()) return false;
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    const worker_slot& w = *s.workers[i];
    if (w.retired) continue;
    const std::uint64_t t = w.turns.load(std::memory_order_relaxed);
    if (t != seen[i] || t % 2 == 0) return false;
  }
  return true;
}

void snapshot(const node_scheduler& s, std::vector<std::uint64_t>& seen) {
  seen.resize(s.workers.size());
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    seen[i] = s.workers[i]->turns.load(std::memory_order_relaxed);
  }
}

// Starts an extra worker in a retired slot or a new one (lock held; it is
// released while the thread starts, so the service thread never waits for
// a clone, and while a retired worker's thread is joined).
void add_worker(node_scheduler& s, std::unique_lock<std::mutex>& lk) {
  if (s.extra_workers >= max_extra_workers) return;
  std::size_t me = s.workers.size();
  for (std::size_t i = s.base_workers; i < s.workers.size(); ++i) {
    if (s.workers[i]->retired) {
      me = i;
      break;
    }
  }
  if (me == s.workers.size()) s.workers.push_back(std::make_unique<worker_slot>());
  worker_slot& w = *s.workers[me];
  w.retired = false;
  ++s.extra_workers;
  ++s.workers_added;
  std::thread ended = std::move(w.thread);
  lk.unlock();
  if (ended.joinable()) ended.join();  // it retired: gone or about to be
  std::thread started;
  try {
    started = std::thread(worker_loop, static_cast<int>(me));
  } catch (const std::system_error&) {
    // No thread to be had (a process limit): carry on with the workers we have.
  }
  lk.lock();
  if (started.joinable()) {
    w.thread = std::move(started);
  } else {
    w.retired = true;
    --s.extra_workers;
    --s.workers_added;
  }
}

void monitor_loop() {
  node_scheduler& s = node();
  std::vector<std::uint64_t> seen;  // each worker's turns at the last look
  std::uint64_t taken = 0;          // s.fresh_taken at the last look
  bool waited = false;              // fresh fibers were waiting at the last look
  unsigned quiet = 0;
  std::unique_lock<std::mutex> lk(s.lock);
  while (!s.stopping) {
    if (s.live != 0) {
      quiet = 0;
    } else if (++quiet >= quiet_ticks_before_sleep) {
      s.monitor_asleep = true;
      s.monitor_wake.wait(lk, [&] { return !s.monitor_asleep || s.stopping; });
      quiet = 0;
      continue;
    }
    if (s.fresh.empty()) {
      waited = false;
    } else {
      if (waited && s.fresh_taken == taken && every_worker_held(s, seen)) add_worker(s, lk);
      taken = s.fresh_taken;
      snapshot(s, seen);
      waited = true;
    }
    s.monitor_wake.wait_for(lk, monitor_tick);
  }
}

}  // namespace

void start_monitor(node_scheduler& s) {
  s.monitor_asleep = false;
  s.monitor = std::thread(monitor_loop);
}

void stop_monitor(node_scheduler& s) {
  {
    std::lock_guard<std::mutex> guard(s.lock);
    s.monitor_asleep = false;
    s.monitor_wake.notify_all();
  }
  if (s.monitor.joinable()) s.monitor.join();
}

void note_spawn(node_scheduler& s) {
  if (!s.monitor_asleep) return;
  s.monitor_asleep = false;
  s.monitor_wake.notify_one();
}

clock::time_point retire_time(const node_scheduler& s, int me) {
  if (static_cast<unsigned>(me) < s.base_workers) return clock::time_point::max();
  return clock::now() + retire_after;
}

bool retire_if_idle(node_scheduler& s, int me, clock::time_point retire_at) {
  if (retire_at == clock::time_point::max()) return false;
  worker_slot& w = *s.workers[static_cast<std::size_t>(me)];
  if (w.bound != 0 || clock::now() < retire_at) return false;
  w.retired = true;
  --s.extra_workers;
  ++s.workers_retired;
  return true;
}

worker_counts current_worker_counts() {
  node_scheduler& s = node();
  std::lock_guard<std::mutex> guard(s.lock);
  return {s.base_workers + s.extra_workers, s.workers_added, s.workers_retired};
}

}  // namespace dstd::rt::sched
