// See delay_line.hpp.
#include "runtime/transport/shm/delay_line.hpp"

#include <sys/prctl.h>

#include "runtime/common/backoff.hpp"
#include "runtime/common/chaos.hpp"

namespace dstd::rt::shm {

delay_line::delay_line(std::chrono::microseconds delay, unsigned peers)
    : delay_(delay), stalled_(peers), thread_([this] { run(); }) {}

delay_line::~delay_line() {
  drain();
  {
    std::lock_guard<std::mutex> guard(lock_);
    stopping_ = true;
  }
  posted_.notify_all();
  thread_.join();
}

void delay_line::post(unsigned peer, bool is_message, action act) {
  {
    std::lock_guard<std::mutex> guard(lock_);
    // The due time is taken under the lock, so due times follow posting order.
    queue_.push_back({clock::now() + delay_, peer, is_message, std::move(act)});
    ++unfinished_;
    posts_.fetch_add(1, std::memory_order_release);
  }
  posted_.notify_one();
}

void delay_line::drain() {
  std::unique_lock<std::mutex> lk(lock_);
  idle_.wait(lk, [this] { return unfinished_ == 0; });
}

void delay_line::ran(std::uint64_t n) {
  if (n == 0) return;
  std::lock_guard<std::mutex> guard(lock_);
  unfinished_ -= n;
  if (unfinished_ == 0) idle_.notify_all();
}

void delay_line::start_or_stall(entry& e) {
  chaos::point();  // due, not yet done
  if (e.is_message && (!stalled_[e.peer].empty() || !e.act())) {
    stalled_[e.peer].push_back(std::move(e.act));
    return;
  }
  if (!e.is_message) e.act();
  ran(1);
}

bool delay_line::retry_stalled() {
  bool any = false;
  for (std::deque<action>& waiting : stalled_) {
    std::uint64_t n = 0;
    while (!waiting.empty() && waiting.front()()) {
      waiting.pop_front();
      ++n;
    }
    ran(n);
    any = any || !waiting.empty();
  }
  return any;
}

// Called with lk held, returns with it held (released meanwhile): until a
// post comes or the backoff says sleep.
void delay_line::watch_for_posts(std::unique_lock<std::mutex>& lk) {
  const std::uint64_t seen = posts_.load(std::memory_order_relaxed);
  lk.unlock();
  backoff wait;
  while (posts_.load(std::memory_order_acquire) == seen && wait.step()) {
  }
  lk.lock();
}

// Called with lk held, returns with it held: until `due` (the queue's
// front; every later post is due later still).
void delay_line::wait_until_due(std::unique_lock<std::mutex>& lk, clock::time_point due) {
  if (due - clock::now() > sleep_above) {
    posted_.wait_until(lk, due);
    return;
  }
  lk.unlock();
  bool brief = true;
  while (brief && clock::now() < due) brief = yield_briefly();
  lk.lock();
  // A late yield: another thread holds the core a slice at a time, and a
  // timed sleep's wake-up comes sooner than the next yield would.
  if (!brief && clock::now() < due) posted_.wait_until(lk, due);
}

void delay_line::run() {
  // Sleeps of a few microseconds: without this the kernel rounds each one
  // up by its default 50 µs timer slack.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::unique_lock<std::mutex> lk(lock_);
  bool stalled = false;
  bool watched = false;  // watched for posts since the queue emptied
  for (;;) {
    if (stopping_ && queue_.empty() && !stalled) return;
    if (queue_.empty()) {
      if (stalled) {
        posted_.wait_for(lk, std::chrono::microseconds(20));  // a receiver drains its ring
      } else if (!watched) {
        watched = true;
        watch_for_posts(lk);
        continue;  // stopping_ may have been set meanwhile
      } else {
        posted_.wait(lk);
      }
    } else if (clock::now() < queue_.front().due) {
      wait_until_due(lk, queue_.front().due);
    }
    watched = false;
    // Everything due, in order, without the lock (actions may block on a
    // send lock or fault; posters must not wait for that).
    std::vector<entry> due;
    const clock::time_point now = clock::now();
    while (!queue_.empty() && queue_.front().due <= now) {
      due.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lk.unlock();
    retry_stalled();  // the oldest first
    for (entry& e : due) start_or_stall(e);
    stalled = retry_stalled();
    lk.lock();
  }
}

}  // namespace dstd::rt::shm
