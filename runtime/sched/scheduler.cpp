// See scheduler.hpp.
#include "runtime/sched/scheduler.hpp"

#include <atomic>
#include <boost/context/fiber.hpp>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/common/fatal.hpp"
#include "runtime/sched/partition_stack.hpp"

namespace dstd::rt::sched {

namespace ctx = boost::context;

// Park states: see park() and unpark().
enum park_state : int { running = 0, parking = 1, parked = 2, notified = 3 };

// Why a fiber switched back to its worker.
enum class why { yield, park };

struct fiber {
  ctx::fiber context;  // the fiber, while it is not running
  ctx::fiber worker;   // the worker running it, while it runs
  std::atomic<int> state{running};
  why reason = why::yield;
  fiber_fn fn = nullptr;
  void* arg = nullptr;
};

namespace {

struct node_scheduler {
  std::mutex lock;
  std::condition_variable wake;     // workers waiting for work
  std::condition_variable drained;  // stop() waiting for the last fiber
  std::deque<fiber*> ready;
  std::multimap<clock::time_point, fiber*> timers;
  std::vector<std::thread> workers;
  bool stopping = false;
  unsigned live = 0;  // fibers not finished (under lock)
  std::atomic<unsigned> runnable{0};
};

// Leaked on purpose: workers may outlive static destructors.
node_scheduler& node() {
  static node_scheduler* s = new node_scheduler;
  return *s;
}

thread_local fiber* running_fiber = nullptr;

std::size_t env_number(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  if (*end != '\0' || n == 0) fatal("%s=%s is not a positive number", name, v);
  return n;
}

void make_ready(fiber* f) {
  node_scheduler& s = node();
  s.runnable.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> guard(s.lock);
    s.ready.push_back(f);
  }
  s.wake.notify_one();
}

void back_to_worker(fiber* f, why reason) {
  f->reason = reason;
  f->worker = std::move(f->worker).resume();
}

// Moves due timers' fibers out (caller holds the lock), to unpark unlocked.
void take_due_timers(node_scheduler& s, std::vector<fiber*>& due) {
  const auto now = clock::now();
  while (!s.timers.empty() && s.timers.begin()->first <= now) {
    due.push_back(s.timers.begin()->second);
    s.timers.erase(s.timers.begin());
  }
}

fiber* next_fiber() {
  node_scheduler& s = node();
  std::vector<fiber*> due;
  std::unique_lock<std::mutex> lk(s.lock);
  for (;;) {
    take_due_timers(s, due);
    if (!due.empty()) {
      lk.unlock();
      for (fiber* f : due) unpark(f);
      due.clear();
      lk.lock();
    }
    if (!s.ready.empty()) {
      fiber* f = s.ready.front();
      s.ready.pop_front();
      return f;
    }
    if (s.stopping && s.live == 0) return nullptr;
    if (s.timers.empty()) {
      s.wake.wait(lk);
    } else {
      s.wake.wait_until(lk, s.timers.begin()->first);
    }
  }
}

void worker_loop() {
  node_scheduler& s = node();
  while (fiber* f = next_fiber()) {
    running_fiber = f;
    f->context = std::move(f->context).resume();
    running_fiber = nullptr;
    if (!f->context) {  // the fiber returned; Boost.Context freed its stack
      s.runnable.fetch_sub(1, std::memory_order_relaxed);
      delete f;
      std::lock_guard<std::mutex> guard(s.lock);
      if (--s.live == 0) {
        s.drained.notify_all();
        s.wake.notify_all();
      }
      continue;
    }
    s.runnable.fetch_sub(1, std::memory_order_relaxed);
    if (f->reason == why::yield) {
      make_ready(f);
      continue;
    }
    // Parking: an unpark that came while it was switching has set notified.
    int expected = parking;
    if (!f->state.compare_exchange_strong(expected, parked, std::memory_order_acq_rel)) {
      f->state.store(running, std::memory_order_relaxed);
      make_ready(f);
    }
  }
}

}  // namespace

void start(unsigned workers) {
  node_scheduler& s = node();
  std::lock_guard<std::mutex> guard(s.lock);
  if (!s.workers.empty()) return;
  if (workers == 0) {
    workers = static_cast<unsigned>(
        env_number("DSTD_WORKERS", std::max(1u, std::thread::hardware_concurrency())));
  }
  s.stopping = false;
  for (unsigned i = 0; i < workers; ++i) s.workers.emplace_back(worker_loop);
}

void stop() {
  node_scheduler& s = node();
  std::vector<std::thread> workers;
  {
    std::unique_lock<std::mutex> lk(s.lock);
    s.drained.wait(lk, [&] { return s.live == 0; });
    s.stopping = true;
    workers.swap(s.workers);
  }
  s.wake.notify_all();
  for (auto& w : workers) w.join();
}

unsigned worker_count() {
  node_scheduler& s = node();
  std::lock_guard<std::mutex> guard(s.lock);
  return static_cast<unsigned>(s.workers.size());
}

void spawn(fiber_fn fn, void* arg, std::size_t stack_bytes) {
  if (stack_bytes == 0) stack_bytes = env_number("DSTD_STACK_KB", 1024) * 1024;
  auto* f = new fiber;
  f->fn = fn;
  f->arg = arg;
  f->context = ctx::fiber(std::allocator_arg, partition_stack(stack_bytes),
                          [f](ctx::fiber&& worker) {
                            f->worker = std::move(worker);
                            f->fn(f->arg);
                            return std::move(f->worker);
                          });
  {
    std::lock_guard<std::mutex> guard(node().lock);
    ++node().live;
  }
  make_ready(f);
}

fiber* current() noexcept { return running_fiber; }

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
  if (f == nullptr) fatal("park() called outside a fiber");
  int expected = running;
  if (!f->state.compare_exchange_strong(expected, parking, std::memory_order_acq_rel)) {
    f->state.store(running, std::memory_order_relaxed);  // consume the early unpark
    return;
  }
  back_to_worker(f, why::park);
}

void unpark(fiber* f) noexcept {
  for (;;) {
    int s = f->state.load(std::memory_order_acquire);
    if (s == notified) return;
    if (s == parked) {
      if (f->state.compare_exchange_weak(s, running, std::memory_order_acq_rel)) {
        make_ready(f);
        return;
      }
    } else if (f->state.compare_exchange_weak(s, notified, std::memory_order_acq_rel)) {
      return;  // running or still parking: its park returns / it is requeued
    }
  }
}

void sleep_until(clock::time_point deadline) {
  fiber* f = running_fiber;
  if (f == nullptr) {
    std::this_thread::sleep_until(deadline);
    return;
  }
  node_scheduler& s = node();
  while (clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> guard(s.lock);
      s.timers.emplace(deadline, f);
    }
    s.wake.notify_one();  // an idle worker may need an earlier wake-up
    park();
    std::lock_guard<std::mutex> guard(s.lock);
    for (auto it = s.timers.lower_bound(deadline); it != s.timers.end() && it->first == deadline;
         ++it) {
      if (it->second == f) {  // woken early by someone else: drop our timer
        s.timers.erase(it);
        break;
      }
    }
  }
}

unsigned runnable() noexcept { return node().runnable.load(std::memory_order_relaxed); }

}  // namespace dstd::rt::sched
