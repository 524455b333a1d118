// The state of a node's scheduler, shared by the two files that run it:
// scheduler.cpp (queues, fiber switches, parking) and extra_workers.cpp
// (the monitor: handing a held worker's fibers to the others, adding a
// worker when every worker is held by a fiber that does not come back, and
// retiring it once idle).
//
// Why a header and not one file: watching for held workers is its own job
// with its own thread (the monitor); it needs the queues, the timers and
// the workers' switch counts, and nothing else in the scheduler needs it.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/common/node_condition_variable.hpp"
#include "runtime/sched/scheduler.hpp"

namespace dstd::rt::sched {

// Aligned to a cache line: a worker writes `turns` at every switch, and an
// idle neighbour polls its own slot's queue; they must not share a line.
struct alignas(64) worker_slot {
  std::deque<fiber*> ready;  // fibers that last ran here, ready again
  std::atomic<std::uint32_t> ready_count{0};  // ready.size(), to peek without the lock
  node_condition_variable wake;
  bool idle = false;  // waiting on `wake` (under the lock)
  bool unbound_first = false;  // which queue it looks at first next time
  // The monitor found it held with fibers waiting in `ready` and moved them
  // to `unbound`; fibers made ready for it go there too until it comes
  // back to the scheduler (under the lock).
  bool handed_off = false;
  std::thread thread;
  // Bumped by the worker itself before and after it runs a fiber: odd while
  // a fiber runs. The monitor reads it to see a worker that a fiber holds
  // (extra_workers.cpp); a plain store on the worker's own line is all the
  // fast path pays.
  std::atomic<std::uint64_t> turns{0};
  // Its OS thread, for the monitor to tell a worker blocked in the kernel or
  // computing from one only waiting for a core (set by record_worker_thread).
  std::atomic<int> tid{0};
  std::atomic<clockid_t> cpu_clock{0};
  bool retired = false;  // an extra worker that ended; its slot can be reused (under the lock)
};

struct node_scheduler {
  std::mutex lock;
  node_condition_variable drained;  // stop() waiting for the last fiber
  // Fibers any worker may take: new ones, and ones handed off from a held
  // worker. The worker that takes one keeps it (its `ready` queue) until it
  // is handed off again.
  std::deque<fiber*> unbound;
  std::atomic<std::uint32_t> unbound_count{0};  // unbound.size(), to peek without the lock
  std::uint64_t unbound_taken = 0;  // fibers ever taken from `unbound` (under the lock)
  // Never reallocated after start() (it reserves room for every extra
  // worker), so a worker may read its own slot's pointer without the lock.
  std::vector<std::unique_ptr<worker_slot>> workers;
  unsigned base_workers = 0;  // started by start(); slots past these are extra workers
  std::multimap<clock::time_point, fiber*> timers;
  // The first timer's deadline (max: none), for the monitor to see overdue
  // timers without the lock (set under it).
  std::atomic<clock::rep> first_timer{clock::time_point::max().time_since_epoch().count()};
  std::vector<fiber*> free_fibers;
  bool stopping = false;
  unsigned live = 0;  // fibers not finished (under lock)
  std::atomic<unsigned> runnable{0};
  // Extra workers (extra_workers.cpp), under the lock.
  unsigned extra_workers = 0;  // running now
  std::uint64_t workers_added = 0, workers_retired = 0;
  std::uint64_t fibers_handed_off = 0;  // moved from a held worker's queue
  // The monitor thread. Its own lock, so that a tick with no fiber
  // waiting to start costs the scheduler's lock nothing (lock order: `lock`
  // before `monitor_lock`).
  std::thread monitor;
  std::mutex monitor_lock;
  node_condition_variable monitor_wake;
  std::atomic<bool> monitor_asleep{false};  // no live fiber: until one is queued to start
  bool monitor_stop = false;                // (under monitor_lock)
};

// This node's scheduler (scheduler.cpp). Hidden, not inline: scheduler.cpp
// then reaches its state directly, not through the GOT (an inline
// function's static is, in a shared library: two loads and a guard check
// per call, several calls per fiber switch).
[[gnu::visibility("hidden")]] node_scheduler& node();

// worker_slot::turns, by its worker.
inline void count_turn(worker_slot& w) {
  // Release (a plain store on x86): the monitor that sees the count also
  // sees what the worker recorded before it (its thread's ids).
  w.turns.store(w.turns.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

// A worker thread's body (scheduler.cpp): runs fibers until the scheduler
// stops or, for an extra worker, until it retires.
void worker_loop(int me);

// The monitor's two interventions (scheduler.cpp). hand_off (lock held):
// worker `w`'s ready fibers go to `unbound` for any other worker, and so do
// those made ready for it until it comes back. fire_timers_due_by (without
// the lock): wakes the fibers whose timers were due by `t`, which the
// workers, all busy, have not fired.
void hand_off(node_scheduler& s, int w);
void fire_timers_due_by(clock::time_point t);

}  // namespace dstd::rt::sched
