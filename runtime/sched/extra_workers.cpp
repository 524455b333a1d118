// See extra_workers.hpp.
#include "runtime/sched/extra_workers.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include "runtime/common/trace.hpp"

namespace dstd::rt::sched {

namespace {

// Ticks with no fiber waiting before the monitor looks only every
// monitor_nap (or, with no live fiber, sleeps until one is queued).
constexpr unsigned quiet_ticks_before_nap = 100;

// What the monitor saw of a worker: its turns, and the CPU time its thread
// had used when the monitor first saw it in that fiber.
struct look {
  std::uint64_t turns = 0;
  std::int64_t cpu_ns = -1;
};

constexpr std::int64_t held_cpu_ns = 1'000'000;  // a computation or spin, not a blip

std::int64_t cpu_ns(const worker_slot& w) {
  if (w.tid.load(std::memory_order_relaxed) == 0) return -1;  // not recorded: never held
  timespec t{};
  if (clock_gettime(w.cpu_clock.load(std::memory_order_relaxed), &t) != 0) return -1;
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// True if the worker's thread sleeps in the kernel (state S or D in
// /proc/self/task/TID/stat, the letter after the command's closing ')').
bool asleep_in_kernel(const worker_slot& w) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", w.tid.load(std::memory_order_relaxed));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');
  if (paren == nullptr || paren[1] != ' ') return false;
  return paren[2] == 'S' || paren[2] == 'D';
}

// Which workers are held (see the header), one flag per worker slot (lock
// held): `now` gets what the monitor sees; a worker is held only if it was
// in the same fiber at the last look (`before`; empty: no last look). Cheap
// checks first: the CPU clock only for a worker still in the same fiber,
// /proc only when that clock does not settle it.
std::vector<bool> held_workers(const node_scheduler& s, const std::vector<look>& before,
                               std::vector<look>& now) {
  std::vector<bool> held(s.workers.size(), false);
  now.assign(s.workers.size(), look{});
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    const worker_slot& w = *s.workers[i];
    if (w.retired) continue;
    look& l = now[i];
    l.turns = w.turns.load(std::memory_order_acquire);
    if (l.turns % 2 == 0) continue;  // between fibers: it takes what waits
    const bool same = i < before.size() && before[i].turns == l.turns && before[i].cpu_ns >= 0;
    if (!same) {
      l.cpu_ns = cpu_ns(w);
      continue;
    }
    l.cpu_ns = before[i].cpu_ns;
    const std::int64_t cpu = cpu_ns(w);
    held[i] = (cpu >= 0 && cpu - l.cpu_ns >= held_cpu_ns) || asleep_in_kernel(w);
  }
  return held;
}

bool every_running_worker(const node_scheduler& s, const std::vector<bool>& held) {
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    if (!s.workers[i]->retired && !held[i]) return false;
  }
  return true;
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

// What the monitor saw at its last look.
struct monitor_view {
  std::vector<look> seen, now;  // each worker at the last look, and at this one
  std::uint64_t taken = 0;      // s.unbound_taken at the last look
  bool waited = false;          // fibers were waiting at the last look
};

// Fibers wait for a worker: unbound ones, ones in a worker's queue, or
// ones whose timers are overdue (every worker too busy to fire them). Read
// without the lock: only the monitor adds worker slots after start().
bool fibers_wait(const node_scheduler& s, clock::time_point overdue) {
  if (s.unbound_count.load() != 0) return true;
  for (const auto& w : s.workers) {
    if (w->ready_count.load(std::memory_order_relaxed) != 0) return true;
  }
  return s.first_timer.load(std::memory_order_relaxed) <= overdue.time_since_epoch().count();
}

// One look while fibers wait (takes the scheduler's lock): overdue timers
// fire; a held worker's queue goes to the others; if fibers then wait for
// any worker while every worker is held, a worker is added.
void look_and_grow(node_scheduler& s, monitor_view& v) {
  fire_timers_due_by(clock::now() - monitor_tick);
  std::unique_lock<std::mutex> lk(s.lock);
  bool queued = !s.unbound.empty();
  for (const auto& w : s.workers) queued = queued || !w->ready.empty();
  if (!queued) {
    v.waited = false;
    return;
  }
  const std::vector<bool> held = held_workers(s, v.waited ? v.seen : std::vector<look>{}, v.now);
  bool handed = false;
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    if (held[i] && !s.workers[i]->ready.empty()) {
      hand_off(s, static_cast<int>(i));
      handed = true;
    }
  }
  const bool stuck = v.waited && s.unbound_taken == v.taken;
  if (!s.unbound.empty() && (stuck || handed) && every_running_worker(s, held)) {
    add_worker(s, lk);
    v.now.clear();  // look again from scratch: the new worker may take them all
  }
  v.seen.swap(v.now);
  v.taken = s.unbound_taken;
  v.waited = true;
}

bool no_live_fiber(node_scheduler& s) {
  std::lock_guard<std::mutex> guard(s.lock);
  return s.live == 0;
}

void monitor_loop() {
  trace::name_this_thread("monitor", -1);
  node_scheduler& s = node();
  monitor_view v;
  unsigned quiet = 0;  // looks in a row with no fiber waiting
  std::unique_lock<std::mutex> ml(s.monitor_lock);
  while (!s.monitor_stop) {
    if (fibers_wait(s, clock::now() - monitor_tick)) {
      quiet = 0;
      ml.unlock();
      look_and_grow(s, v);
      ml.lock();
      s.monitor_wake.wait_for(ml, monitor_tick);
      continue;
    }
    v.waited = false;
    if (++quiet < quiet_ticks_before_nap) {
      s.monitor_wake.wait_for(ml, monitor_tick);
      continue;
    }
    if (!no_live_fiber(s)) {  // they may queue at any time, unannounced: look now and then
      s.monitor_wake.wait_for(ml, monitor_nap);
      continue;
    }
    // Store, then load; note_unbound_fiber adds, then loads: one of the two
    // sees the other (seq_cst), so a fiber queued to start is never missed.
    s.monitor_asleep.store(true);
    if (s.unbound_count.load() == 0) {
      s.monitor_wake.wait(ml, [&] { return !s.monitor_asleep.load() || s.monitor_stop; });
    }
    s.monitor_asleep.store(false);
    quiet = 0;
  }
}

}  // namespace

void start_monitor(node_scheduler& s) {
  s.monitor_stop = false;  // (no monitor runs: none yet, or joined by stop_monitor)
  s.monitor_asleep.store(false);
  s.monitor = std::thread(monitor_loop);
}

void stop_monitor(node_scheduler& s) {
  {
    std::lock_guard<std::mutex> guard(s.monitor_lock);
    s.monitor_stop = true;
    s.monitor_asleep.store(false);
    s.monitor_wake.notify_all();
  }
  if (s.monitor.joinable()) s.monitor.join();
}

void record_worker_thread(worker_slot& w) {
  clockid_t c{};
  if (pthread_getcpuclockid(pthread_self(), &c) != 0) return;  // (tid stays 0: see cpu_ns)
  w.cpu_clock.store(c, std::memory_order_relaxed);
  w.tid.store(static_cast<int>(gettid()), std::memory_order_relaxed);
}

void note_unbound_fiber(node_scheduler& s) {
  if (!s.monitor_asleep.load()) return;
  std::lock_guard<std::mutex> guard(s.monitor_lock);
  s.monitor_asleep.store(false);
  s.monitor_wake.notify_one();
}

clock::time_point retire_time(const node_scheduler& s, int me) {
  if (static_cast<unsigned>(me) < s.base_workers) return clock::time_point::max();
  return clock::now() + retire_after;
}

bool retire_if_idle(node_scheduler& s, int me, clock::time_point retire_at) {
  if (retire_at == clock::time_point::max() || clock::now() < retire_at) return false;
  worker_slot& w = *s.workers[static_cast<std::size_t>(me)];
  w.retired = true;
  --s.extra_workers;
  ++s.workers_retired;
  return true;
}

worker_counts current_worker_counts() {
  node_scheduler& s = node();
  std::lock_guard<std::mutex> guard(s.lock);
  return {s.base_workers + s.extra_workers, s.workers_added, s.workers_retired,
          s.fibers_handed_off, s.monitor_asleep.load()};
}

}  // namespace dstd::rt::sched
