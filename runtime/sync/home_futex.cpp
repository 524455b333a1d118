// See home_futex.hpp.
#include "runtime/sync/home_futex.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/common/chaos.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/sched/remote_wake.hpp"
#include "runtime/sync/marked_wait.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::rt::home_futex {

namespace {

// A queued wait: who waits, and the mark its wake must leave with it
// (scheduler.hpp, fresh_mark()), unique among its waits, so that the waiter
// knows the wake was for this wait and the entry is unique in the whole run.
struct entry {
  sched::waiter_name who;
  std::uint64_t ticket;
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

// On the home: take the entry off the queue. False if a wake took it.
bool dequeue(const std::uint64_t* word, const entry& mine) {
  wait_table& t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  auto it = t.queues.find(reinterpret_cast<std::uintptr_t>(word));
  if (it == t.queues.end()) return false;
  for (auto e = it->second.begin(); e != it->second.end(); ++e) {
    if (e->who.node == mine.who.node && e->who.id == mine.who.id && e->ticket == mine.ticket) {
      it->second.erase(e);
      if (it->second.empty()) t.queues.erase(it);
      return true;
    }
  }
  return false;
}

// On the home: wake up to `count` waiters of `word`, each through the one
// remote-unpark path, leaving its ticket as the mark.
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
  for (const entry& e : taken) sched::wake(e.who, e.ticket);
}

struct wait_message {
  const std::uint64_t* word;
  std::uint64_t expected;
  entry waiter;
};

// Queue a waiter at the word's home if the word still holds `expected`;
// the reply says whether it was queued.
constexpr handler_decl<wait_message, bool> wait_at_home{handler_ids::futex_wait};

void on_wait(message& m) {
  const auto w = m.payload_as<wait_message>();
  const bool queued = enqueue_if_unchanged(w.word, w.expected, w.waiter);
  m.reply(&queued, sizeof queued);
}

struct cancel_message {
  const std::uint64_t* word;
  entry waiter;
};

// Take a timed-out waiter off the queue; the reply says whether it was
// still there.
constexpr handler_decl<cancel_message, bool> cancel_at_home{handler_ids::futex_cancel};

void on_cancel(message& m) {
  const auto c = m.payload_as<cancel_message>();
  const bool removed = dequeue(c.word, c.waiter);
  m.reply(&removed, sizeof removed);
}

struct wake_message {
  const std::uint64_t* word;
  unsigned count;
};

// Wake up to `count` waiters of a word.
constexpr handler_decl<wake_message> wake_home_waiters{handler_ids::futex_wake};

void on_wake(message& m) {
  const auto w = m.payload_as<wake_message>();
  wake_at_home(w.word, w.count);
}

bool queue(const location& home, const std::uint64_t* word, std::uint64_t expected,
           const entry& e) {
  if (home.here) return enqueue_if_unchanged(word, expected, e);
  const wait_message w{word, expected, e};
  return call(*current_transport(), home.home, wait_at_home, w);
}

bool unqueue(const location& home, const std::uint64_t* word, const entry& e) {
  if (home.here) return dequeue(word, e);
  const cancel_message c{word, e};
  return call(*current_transport(), home.home, cancel_at_home, c);
}

bool wait_impl(const std::uint64_t* word, std::uint64_t expected,
               const clock::time_point* deadline) {
  const location home = locate(word);
  const entry mine{sched::my_name(), fresh_mark()};
  if (!queue(home, word, expected, mine)) return true;
  chaos::point();  // queued, not yet parked
  const traced_wait traced{word, home.home, mine.who.id};
  return park_until_marked([&mine] { return sched::wake_mark() == mine.ticket; }, deadline,
                           [&] { return unqueue(home, word, mine); });
}

}  // namespace

void register_handlers() {
  register_handler(wait_at_home, &on_wait);
  register_handler(cancel_at_home, &on_cancel);
  register_handler(wake_home_waiters, &on_wake);
}

void wait(const std::uint64_t* word, std::uint64_t expected) { wait_impl(word, expected, nullptr); }

bool wait_until(const std::uint64_t* word, std::uint64_t expected, clock::time_point deadline) {
  return wait_impl(word, expected, &deadline);
}

void wake(const std::uint64_t* word, unsigned count) {
  if (count == 0) return;
  const location home = locate(word);
  if (home.here) {
    wake_at_home(word, count);
    return;
  }
  const wake_message w{word, count};
  send(*current_transport(), home.home, wake_home_waiters, w);
}

}  // namespace dstd::rt::home_futex
