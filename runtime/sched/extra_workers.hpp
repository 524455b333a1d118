// Held workers: a worker OS thread held by a fiber that does not come back
// to the scheduler (a blocking system call, a wait glibc serves, a long
// computation, a spin-wait) must not stall the other fibers of its node.
// Its queued fibers go to the other workers, and when every worker is held
// while fibers wait, the node starts another worker OS thread, as Go's
// runtime hands a goroutine's P to another thread during a system call.
//
// Why: a dstd thread is a fiber, and a fiber that blocks in the kernel
// holds its worker. With std::thread, a reader blocked on a pipe does not
// stop the writer from running; with one worker per node it did, forever.
//
// How: each worker counts its fiber switches (node_scheduler.hpp, odd while
// a fiber runs). A monitor thread per node looks every millisecond while
// fibers wait for a worker (unbound, in a worker's queue, or on a timer
// overdue because every worker is busy). A worker is held when it is still
// inside the fiber it was in at the last look and that fiber either sleeps
// in the kernel or has used a millisecond of CPU since the monitor first
// saw it. A worker inside one fiber that only waits for a core is not held:
// on a loaded machine, adding threads there would only load it more. At
// each look the monitor fires overdue timers, hands a held worker's queued
// fibers (and those made ready for it until it comes back) to `unbound`,
// where any worker takes them (a fiber's TLS then takes its new worker's
// descriptor and allocator cache: fiber_tls.hpp), and adds a worker if
// fibers still wait and every worker is held. The fast path pays two plain
// stores per fiber run. After 100 looks with nothing waiting the monitor
// looks only every monitor_nap (fibers parked on the node may be made ready
// at any time, unannounced), and with no live fiber it sleeps until one is
// queued to start.
//
// libdstd parks a fiber that calls the sleep family instead
// (sleep_shim.cpp), so sleeping holds no worker.
//
// Bounds: at most max_extra_workers extra workers a node; an extra worker
// retires once it has been idle for retire_after (fibers that last ran on
// it go to `unbound` when next ready). The workers DSTD_WORKERS asked for
// never retire.
#pragma once

#include <chrono>
#include <cstdint>

#include "runtime/sched/node_scheduler.hpp"

namespace dstd::rt::sched {

inline constexpr unsigned max_extra_workers = 256;
inline constexpr std::chrono::milliseconds monitor_tick{1};
inline constexpr std::chrono::milliseconds monitor_nap{10};
inline constexpr std::chrono::milliseconds retire_after{100};

// start() and stop() of the scheduler: the monitor runs between them.
// start_monitor with the lock held; stop_monitor without, after `stopping`
// is set (it joins the monitor, which may be starting a worker).
void start_monitor(node_scheduler& s);
void stop_monitor(node_scheduler& s);

// A worker's first act, on its own thread: lets the monitor look at it.
void record_worker_thread(worker_slot& w);

// A fiber was queued for any worker (lock held, after unbound_count went
// up): wakes the monitor if it sleeps.
void note_unbound_fiber(node_scheduler& s);

// Worker `me` found nothing to do and is about to sleep (lock held).
// retire_time: when it may retire if it stays idle (never, for a worker
// DSTD_WORKERS asked for). retire_if_idle: true if it retires now (its slot
// is marked for reuse; the worker then ends).
clock::time_point retire_time(const node_scheduler& s, int me);
bool retire_if_idle(node_scheduler& s, int me, clock::time_point retire_at);

// Workers running now (extra ones included), how many extra workers this
// node has ever started and retired, how many fibers it has handed off
// from held workers, and whether the monitor sleeps until a fiber is
// queued to start, having none live (for tests and tools).
struct worker_counts {
  unsigned running = 0;
  std::uint64_t added = 0, retired = 0;
  std::uint64_t handed_off = 0;
  bool monitor_asleep = false;
};
worker_counts current_worker_counts();

}  // namespace dstd::rt::sched
