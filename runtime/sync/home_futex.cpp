// See home_futex.hpp.
#include "runtime/sync/home_futex.hpp"

#include <atomic>
#include <cstring>
#include <deque>
#include <dstd/dstd.hpp>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/common/chaos.hpp"
#include "runtime/sched/remote_wake.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/transport/handler_ids.hpp"

namespace dstd::rt::home_futex {

namespace {

using woken_flag = std::atomic<std::uint32_t>;

// A queued waiter: its waiter object and the flag in its frame (both on the
// waiter's node, which the waiter object's address names).
struct entry {
  sched::fiber* waiter;
  woken_flag* flag;
};

// The wait queues of the words homed on this node.
struct wait_table {
  std::mutex lock;
  std::unordered_map<std::uintptr_t, std::deque<entry>> queues;
};

wait_table& table() {
  static wait_table* t = new wait_table;  // leaked: used until _exit
  return *t;
}

std::uint64_t home_value(const std::uint64_t* word) {
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(word)).load();
}

// On the home: queue the waiter unless the word changed. True if queued.
bool enqueue_if_unchanged(const std::uint64_t* word, std::uint64_t expected, const entry& e) {
  wait_table& t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  if (home_value(word) != expected) return false;
  t.queues[reinterpret_cast<std::uintptr_t>(word)].push_back(e);
  return true;
}

// On the home: take the waiter off the queue. False if a wake took it.
// The entry is found by its waiter, unique in the whole run (a heap object
// with one wait at a time), together with its flag. The flag alone is not
// enough: a thread that runs no fiber has its stack outside the global
// range, so two such threads on two nodes can have their flags at the same
// address (the SPIN model in tests/model/futex.pml found this).
bool dequeue(const std::uint64_t* word, sched::fiber* waiter, woken_flag* flag) {
  wait_table& t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  auto it = t.queues.find(reinterpret_cast<std::uintptr_t>(word));
  if (it == t.queues.end()) return false;
  for (auto e = it->second.begin(); e != it->second.end(); ++e) {
    if (e->waiter == waiter && e->flag == flag) {
      it->second.erase(e);
      if (it->second.empty()) t.queues.erase(it);
      return true;
    }
  }
  return false;
}

// On the waiter's node: mark it woken, then unpark it. (After the store
// the waiter may return; the unpark of a waiter that moved on is harmless.)
void mark_woken(const entry& e) {
  e.flag->store(1);
  chaos::point();
  sched::unpark(e.waiter);
}

struct woken_message {
  sched::fiber* waiter;
  woken_flag* flag;
};

void on_woken(message& m) {
  const auto w = m.payload_as<woken_message>();
  mark_woken({w.waiter, w.flag});
}

// On the home: wake up to `count` waiters of `word`.
void wake_at_home(const std::uint64_t* word, unsigned count) {
  std::vector<entry> taken;
  {
    wait_table& t = table();
    std::lock_guard<std::mutex> guard(t.lock);
    auto it = t.queues.find(reinterpret_cast<std::uintptr_t>(word));
    if (it == t.queues.end()) return;
    while (count-- > 0 && !it->second.empty()) {
      taken.push_back(it->second.front());
      it->second.pop_front();
    }
    if (it->second.empty()) t.queues.erase(it);
  }
  for (const entry& e : taken) {
    const node_id node = dstd::home_of(e.waiter);
    if (node == dstd::this_node()) {
      mark_woken(e);
    } else {
      const woken_message w{e.waiter, e.flag};
      current_transport()->post_send(node, handler_ids::futex_woken, &w, sizeof w);
    }
  }
}

struct wait_message {
  const std::uint64_t* word;
  std::uint64_t expected;
  sched::fiber* waiter;
  woken_flag* flag;
};

void on_wait(message& m) {
  const auto w = m.payload_as<wait_message>();
  const std::uint8_t queued = enqueue_if_unchanged(w.word, w.expected, {w.waiter, w.flag}) ? 1 : 0;
  m.reply(&queued, 1);
}

struct cancel_message {
  const std::uint64_t* word;
  sched::fiber* waiter;
  woken_flag* flag;
};

void on_cancel(message& m) {
  const auto c = m.payload_as<cancel_message>();
  const std::uint8_t removed = dequeue(c.word, c.waiter, c.flag) ? 1 : 0;
  m.reply(&removed, 1);
}

struct wake_message {
  const std::uint64_t* word;
  unsigned count;
};

void on_wake(message& m) {
  const auto w = m.payload_as<wake_message>();
  wake_at_home(w.word, w.count);
}

bool home_is_here(const std::uint64_t* word) { return dstd::home_of(word) == dstd::this_node(); }

bool queue_me(const std::uint64_t* word, std::uint64_t expected, woken_flag* flag) {
  const entry e{sched::self(), flag};
  if (home_is_here(word)) return enqueue_if_unchanged(word, expected, e);
  const wait_message w{word, expected, e.waiter, flag};
  const auto reply = current_transport()->call(dstd::home_of(word), handler_ids::futex_wait, &w,
                                               sizeof w);
  return !reply.empty() && reply[0] == std::byte{1};
}

bool unqueue_me(const std::uint64_t* word, woken_flag* flag) {
  sched::fiber* me = sched::self();
  if (home_is_here(word)) return dequeue(word, me, flag);
  const cancel_message c{word, me, flag};
  const auto reply = current_transport()->call(dstd::home_of(word), handler_ids::futex_cancel, &c,
                                               sizeof c);
  return !reply.empty() && reply[0] == std::byte{1};
}

bool wait_impl(const std::uint64_t* word, std::uint64_t expected, const clock::time_point* deadline) {
  woken_flag flag{0};
  if (!queue_me(word, expected, &flag)) return true;
  chaos::point();  // queued, not yet parked
  while (flag.load() == 0) {
    if (deadline == nullptr) {
      sched::park();
      continue;
    }
    sched::park_until(*deadline);
    if (flag.load() != 0 || clock::now() < *deadline) continue;
    if (unqueue_me(word, &flag)) return false;  // timed out, off the queue
    // A wake took us off the queue first: wait for it to land (the flag
    // lives in this frame), then report woken.
    while (flag.load() == 0) sched::park();
  }
  return true;
}

}  // namespace

void register_handlers() {
  register_handler(handler_ids::futex_wait, &on_wait);
  register_handler(handler_ids::futex_cancel, &on_cancel);
  register_handler(handler_ids::futex_wake, &on_wake);
  register_handler(handler_ids::futex_woken, &on_woken);
}

void wait(const std::uint64_t* word, std::uint64_t expected) { wait_impl(word, expected, nullptr); }

bool wait_until(const std::uint64_t* word, std::uint64_t expected, clock::time_point deadline) {
  return wait_impl(word, expected, &deadline);
}

void wake(const std::uint64_t* word, unsigned count) {
  if (count == 0) return;
  if (home_is_here(word)) {
    wake_at_home(word, count);
    return;
  }
  const wake_message w{word, count};
  current_transport()->post_send(dstd::home_of(word), handler_ids::futex_wake, &w, sizeof w);
}

}  // namespace dstd::rt::home_futex
