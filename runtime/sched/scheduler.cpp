// See scheduler.hpp.
#include "runtime/sched/scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/common/backoff.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/settings.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/futex.hpp"
#include "runtime/common/node_condition_variable.hpp"
#include "runtime/heap/running_stack.hpp"
#include "runtime/sched/extra_workers.hpp"
#include "runtime/sched/fiber_tls.hpp"
#include "runtime/sched/node_scheduler.hpp"
#include "runtime/sched/partition_stack.hpp"
#include "runtime/sched/thread_exit.hpp"
#include "runtime/sched/waiter_registry.hpp"
#include "runtime/transport/waiting.hpp"

namespace dstd::rt::sched {

namespace ctx = boost::context;

// Park states: see park() and unpark(). A finished fiber waiting on the
// free list is `dead`; unpark ignores it.
enum park_state : std::uint32_t { running = 0, parking = 1, parked = 2, notified = 3, dead = 4 };

// Why a fiber switched back to its worker.
enum class why { yield, park };

struct fiber {
  ctx::fiber context;  // the fiber, while it is not running
  ctx::fiber worker;   // the worker running it, while it runs
  std::atomic<std::uint32_t> state{running};
  why reason = why::yield;
  fiber_fn fn = nullptr;
  void* arg = nullptr;
  bool os_thread = false;  // a waiter for a thread that runs no fiber
  int home_worker = -1;    // the worker whose queue it goes to when ready (-1: unbound)
  std::uint64_t ran_on = 0;  // the worker thread it last ran on (worker_loop's serial)
  void* local = nullptr;   // local_slot()
  waiter_id id = 0;        // its name on this node (waiter_registry.hpp)
  stack_span stack;        // its stack, while it has one (for the fault handler)
  std::atomic<std::uint64_t> mark{0};  // wake_mark()
  fiber_tls tls;        // its thread_local storage (fiber_tls.hpp)
  bool tls_ready = false;  // prepared for this life, on its worker
};

// Leaked on purpose: workers may outlive static destructors.
node_scheduler& node() {
  static node_scheduler* s = new node_scheduler;
  return *s;
}

namespace {

thread_local fiber* running_fiber = nullptr;
thread_local fiber* thread_waiter = nullptr;

// Each worker thread's life gets a number, so a fiber knows when it
// resumes on another worker thread than last time (even in a slot whose
// earlier thread retired) and must take that thread's TLS parts.
std::atomic<std::uint64_t> worker_serials{0};

// Wakes one idle worker, if any (lock held).
void wake_idle_worker(node_scheduler& s) {
  for (auto& w : s.workers) {
    if (w->idle) {
      w->idle = false;
      w->wake.notify_one();
      return;
    }
  }
}

// Queues f for any worker (lock held).
void push_unbound(node_scheduler& s, fiber* f) {
  f->home_worker = -1;
  s.unbound.push_back(f);
  s.unbound_count.fetch_add(1);  // seq_cst: see note_unbound_fiber
  note_unbound_fiber(s);
  wake_idle_worker(s);
}

void make_ready(fiber* f) {
  node_scheduler& s = node();
  s.runnable.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> guard(s.lock);
  if (f->home_worker < 0) {
    push_unbound(s, f);
    return;
  }
  worker_slot& w = *s.workers[static_cast<std::size_t>(f->home_worker)];
  if (w.handed_off || w.retired) {  // held (extra_workers.hpp), or gone
    push_unbound(s, f);
    return;
  }
  w.ready.push_back(f);
  w.ready_count.fetch_add(1, std::memory_order_release);
  if (w.idle) {
    w.idle = false;
    w.wake.notify_one();
  }
}

void back_to_worker(fiber* f, why reason) {
  f->reason = reason;
  f->worker = std::move(f->worker).resume();
}

// node_scheduler::first_timer, after the timers changed (lock held).
void note_timers(node_scheduler& s) {
  const clock::time_point first = s.timers.empty() ? clock::time_point::max() : s.timers.begin()->first;
  s.first_timer.store(first.time_since_epoch().count(), std::memory_order_relaxed);
}

// Moves the fibers of timers due by `t` out (caller holds the lock), to
// unpark unlocked.
void take_due_timers(node_scheduler& s, std::vector<fiber*>& due, clock::time_point t) {
  if (s.timers.empty() || s.timers.begin()->first > t) return;
  while (!s.timers.empty() && s.timers.begin()->first <= t) {
    due.push_back(s.timers.begin()->second);
    s.timers.erase(s.timers.begin());
  }
  note_timers(s);
}

// Queue pops (lock held).
fiber* take_own(worker_slot& w) {
  if (w.ready.empty()) return nullptr;
  fiber* f = w.ready.front();
  w.ready.pop_front();
  w.ready_count.fetch_sub(1, std::memory_order_relaxed);
  return f;
}

fiber* take_unbound(node_scheduler& s, int me) {
  if (s.unbound.empty()) return nullptr;
  fiber* f = s.unbound.front();
  s.unbound.pop_front();
  s.unbound_count.fetch_sub(1, std::memory_order_relaxed);
  ++s.unbound_taken;
  f->home_worker = me;
  return f;
}

// Before an idle worker sleeps, it watches its queues for a while (spin,
// then yield: common/backoff.hpp). Waking a sleeping thread costs tens of
// microseconds on a VM, far more than the hand-offs between fibers and
// nodes that make a worker idle for a moment.
void poll_for_work(node_scheduler& s, worker_slot& w) {
  backoff wait;
  while (w.ready_count.load(std::memory_order_acquire) == 0 &&
         s.unbound_count.load(std::memory_order_acquire) == 0 && wait.step()) {
  }
}

fiber* next_fiber(int me) {
  node_scheduler& s = node();
  worker_slot& w = *s.workers[static_cast<std::size_t>(me)];
  std::vector<fiber*> due;
  bool polled = false;
  clock::time_point retire_at = clock::time_point::min();  // set when it first sleeps
  std::unique_lock<std::mutex> lk(s.lock);
  w.handed_off = false;  // back: its fibers may queue here again
  for (;;) {
    take_due_timers(s, due, clock::now());
    if (!due.empty()) {
      lk.unlock();
      for (fiber* f : due) unpark(f);
      due.clear();
      lk.lock();
    }
    // Alternate between the worker's own fibers and unbound ones, so
    // neither can starve the other (a fiber yielding in a loop would
    // otherwise keep its worker from ever starting the fiber it waits for).
    w.unbound_first = !w.unbound_first;
    if (fiber* f = w.unbound_first ? take_unbound(s, me) : take_own(w)) return f;
    if (fiber* f = w.unbound_first ? take_own(w) : take_unbound(s, me)) return f;
    if (s.stopping && s.live == 0) return nullptr;
    if (!polled) {  // see poll_for_work
      polled = true;
      lk.unlock();
      poll_for_work(s, w);
      lk.lock();
      continue;
    }
    polled = false;
    if (retire_at == clock::time_point::min()) retire_at = retire_time(s, me);
    if (retire_if_idle(s, me, retire_at)) return nullptr;  // an extra worker, idle long enough
    w.idle = true;
    const clock::time_point until =
        s.timers.empty() ? retire_at : std::min(retire_at, s.timers.begin()->first);
    if (until == clock::time_point::max()) {
      w.wake.wait(lk);
    } else {
      w.wake.wait_until(lk, until);
    }
    w.idle = false;
  }
}

// A finished fiber goes to the free list, never back to the allocator.
void retire(fiber* f) {
  node_scheduler& s = node();
  f->state.store(dead, std::memory_order_release);
  f->local = nullptr;
  std::lock_guard<std::mutex> guard(s.lock);
  s.free_fibers.push_back(f);
  if (--s.live == 0) {
    s.drained.notify_all();
    for (auto& w : s.workers) w->wake.notify_one();
  }
}

}  // namespace

void worker_loop(int me) {
  node_scheduler& s = node();
  worker_slot& w = *s.workers[static_cast<std::size_t>(me)];
  record_worker_thread(w);
  ensure_signal_stack();  // a stack overflow's fault needs a stack to run on
  trace::name_this_thread("worker", me);
  const std::uint64_t serial = worker_serials.fetch_add(1, std::memory_order_relaxed) + 1;
  while (fiber* f = next_fiber(me)) {
    if (!f->tls_ready) {
      prepare_fiber_tls(f->tls, fiber_thread_id(f->id));
      f->tls_ready = true;
    } else if (f->ran_on != serial) {  // handed off from another worker
      move_fiber_tls(f->tls);
    }
    f->ran_on = serial;
    count_turn(w);  // odd: in a fiber (extra_workers.hpp)
    running_fiber = f;
    enter_fiber_tls(f->tls);
    // In the fiber's own thread-local storage (the fault handler reads it
    // there), where it stays right for that fiber: no need to clear it.
    set_running_stack(&f->stack, &f->local);
    const std::uint64_t ran_from = trace::start();
    f->context = std::move(f->context).resume();
    leave_fiber_tls(f->tls);
    trace::span(trace::kind::run, ran_from, f->id);
    running_fiber = nullptr;
    count_turn(w);
    s.runnable.fetch_sub(1, std::memory_order_relaxed);
    if (!f->context) {  // the fiber returned; Boost.Context freed its stack
      retire(f);
      continue;
    }
    if (f->reason == why::yield) {
      make_ready(f);
      continue;
    }
    // Parking: an unpark that came while it was switching has set notified.
    std::uint32_t expected = parking;
    if (!f->state.compare_exchange_strong(expected, parked)) {
      f->state.exchange(running);  // a read-modify-write: see "Ordering" at unpark()
      make_ready(f);
    }
  }
}

void hand_off(node_scheduler& s, int w) {
  worker_slot& held = *s.workers[static_cast<std::size_t>(w)];
  held.handed_off = true;
  while (fiber* f = take_own(held)) {
    push_unbound(s, f);
    ++s.fibers_handed_off;
  }
}

void fire_timers_due_by(clock::time_point t) {
  node_scheduler& s = node();
  std::vector<fiber*> due;
  {
    std::lock_guard<std::mutex> guard(s.lock);
    take_due_timers(s, due, t);
  }
  for (fiber* f : due) unpark(f);
}

namespace {

// Every waiter object comes from here: enrolled, never freed.
fiber* make_waiter() {
  auto* f = new fiber;
  f->id = enroll(f);
  return f;
}

fiber* new_fiber() {
  node_scheduler& s = node();
  {
    std::lock_guard<std::mutex> guard(s.lock);
    ++s.live;
    if (!s.free_fibers.empty()) {
      fiber* f = s.free_fibers.back();
      s.free_fibers.pop_back();
      return f;
    }
  }
  return make_waiter();
}

// Parks a thread that runs no fiber: sleep on its state word.
void park_thread(fiber* w, clock::time_point deadline, bool timed) {
  std::uint32_t expected = running;
  if (!w->state.compare_exchange_strong(expected, parked)) {
    w->state.exchange(running);  // consume the early unpark (see unpark())
    return;
  }
  backoff spin;  // a wake-up often comes within microseconds: see poll_for_work
  while (w->state.load() == parked) {
    if (timed && clock::now() >= deadline) break;
    if (spin.step()) continue;
    if (!timed) {
      futex::wait(w->state, parked, futex::scope::process_private);
      continue;
    }
    const auto left = deadline - clock::now();
    if (left <= clock::duration::zero()) break;
    futex::wait(w->state, parked, futex::scope::process_private,
                static_cast<std::uint64_t>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(left).count()));
  }
  expected = parked;  // timed out: take ourselves back (an unpark may race)
  w->state.compare_exchange_strong(expected, running);
}

}  // namespace

unsigned configured_workers() {
  return current_settings().workers;
}

// A fiber that waits for the transport parks (runtime/transport/waiting.hpp).
void install_transport_waits() {
  waiting::install({[]() noexcept -> void* { return current(); }, [] { park(); },
                    [](void* f) noexcept { unpark(static_cast<fiber*>(f)); }});
}

void start(unsigned workers) {
  install_transport_waits();
  node_scheduler& s = node();
  std::lock_guard<std::mutex> guard(s.lock);
  if (!s.workers.empty()) return;
  if (workers == 0) workers = configured_workers();
  s.stopping = false;
  s.base_workers = workers;
  s.workers.reserve(workers + max_extra_workers);  // see node_scheduler::workers
  for (unsigned i = 0; i < workers; ++i) s.workers.push_back(std::make_unique<worker_slot>());
  for (unsigned i = 0; i < workers; ++i) {
    s.workers[i]->thread = std::thread(worker_loop, static_cast<int>(i));
  }
  start_monitor(s);
}

void stop() {
  node_scheduler& s = node();
  std::vector<std::unique_ptr<worker_slot>> workers;
  {
    std::unique_lock<std::mutex> lk(s.lock);
    s.drained.wait(lk, [&] { return s.live == 0; });
    s.stopping = true;
    for (auto& w : s.workers) w->wake.notify_one();
  }
  stop_monitor(s);  // before the workers: it may be starting one
  for (auto& w : s.workers) {
    if (w->thread.joinable()) w->thread.join();  // a retired one may be joined already
  }
  std::lock_guard<std::mutex> guard(s.lock);
  s.workers.clear();
  s.extra_workers = 0;
}

unsigned worker_count() { return current_worker_counts().running; }

void spawn(fiber_fn fn, void* arg, std::size_t stack_bytes) {
  start();
  if (stack_bytes == 0) stack_bytes = current_settings().stack_bytes;
  fiber* f = new_fiber();
  f->fn = fn;
  f->arg = arg;
  f->home_worker = -1;
  f->reason = why::yield;
  f->tls_ready = false;
  f->context = ctx::fiber(std::allocator_arg, partition_stack(stack_bytes, &f->stack),
                          [f](ctx::fiber&& worker) {
                            f->worker = std::move(worker);
                            running_fiber = f;  // in the fiber's own TLS
                            start_fiber_tls();
                            f->fn(f->arg);
                            run_thread_exit_destructors();
                            return std::move(f->worker);
                          });
  f->state.store(running, std::memory_order_release);
  make_ready(f);
}

fiber* current() noexcept { return running_fiber; }

fiber* self() {
  if (running_fiber != nullptr) return running_fiber;
  if (thread_waiter == nullptr) {
    thread_waiter = make_waiter();
    thread_waiter->os_thread = true;
  }
  return thread_waiter;
}

void*& local_slot() { return self()->local; }

waiter_id id_of(fiber* f) noexcept { return f->id; }

std::uint64_t wake_mark() { return self()->mark.load(); }

void yield() {
  fiber* f = running_fiber;
  if (f == nullptr) {
    std::this_thread::yield();
    return;
  }
  back_to_worker(f, why::yield);
}

void park() {
  fiber* f = running_fiber;
  if (f == nullptr) {
    park_thread(self(), {}, false);
    return;
  }
  std::uint32_t expected = running;
  if (!f->state.compare_exchange_strong(expected, parking)) {
    f->state.exchange(running);  // consume the early unpark (see unpark())
    return;
  }
  back_to_worker(f, why::park);
}

void park_until(clock::time_point deadline) {
  fiber* f = running_fiber;
  if (f == nullptr) {
    park_thread(self(), deadline, true);
    return;
  }
  if (clock::now() >= deadline) return;
  node_scheduler& s = node();
  {
    std::lock_guard<std::mutex> guard(s.lock);
    s.timers.emplace(deadline, f);
    note_timers(s);
    wake_idle_worker(s);  // it may need to wake up earlier than it planned
  }
  park();
  std::lock_guard<std::mutex> guard(s.lock);
  for (auto it = s.timers.lower_bound(deadline); it != s.timers.end() && it->first == deadline;
       ++it) {
    if (it->second == f) {  // woken early by someone else: drop our timer
      s.timers.erase(it);
      note_timers(s);
      break;
    }
  }
}

// Ordering: every access to a park state is seq_cst, and a waiter consumes
// a permit with an exchange, not a store. The waker writes its condition,
// then reads the state; the waiter writes the state, then reads the
// condition. That is the store-buffering pattern: with weaker orders (x86
// lets a load pass an earlier store), the waker could see `notified` and
// leave while the waiter, consuming that permit, still read the old
// condition, and both would miss each other. The scheduler ping-pong test
// lost wake-ups this way within seconds.
void unpark(fiber* f) noexcept {
  for (;;) {
    std::uint32_t s = f->state.load();
    if (s == notified || s == dead) return;
    if (s == parked) {
      if (f->state.compare_exchange_weak(s, running)) {
        if (f->os_thread) {
          futex::wake_all(f->state, futex::scope::process_private);
        } else {
          make_ready(f);
        }
        return;
      }
    } else if (f->state.compare_exchange_weak(s, notified)) {
      return;  // running or still parking: its park returns / it is requeued
    }
  }
}

void unpark_with_mark(fiber* f, std::uint64_t mark) noexcept {
  f->mark.store(mark);  // before the unpark, which the waiter's park orders after
  chaos::point();       // marked, not yet unparked
  unpark(f);
}

void sleep_until(clock::time_point deadline) {
  while (clock::now() < deadline) park_until(deadline);
}

unsigned runnable() noexcept { return node().runnable.load(std::memory_order_relaxed); }

}  // namespace dstd::rt::sched
