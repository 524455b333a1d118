// See home_mutex.hpp.
#include "runtime/sync/home_mutex.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/sched/remote_wake.hpp"
#include "runtime/sync/marked_wait.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::rt::home_mutex {

namespace {

// A waiter in a lock's line, and the mark its wake leaves: `mark` when it
// is woken to come back for the lock, mark + 1 when the lock is its own.
struct entry {
  sched::waiter_name who;
  std::uint64_t mark;
};

bool same_waiter(const entry& a, const entry& b) {
  return a.who.node == b.who.node && a.who.id == b.who.id;
}

// The waiters of one contended word. The head of the line is `coming`
// when there is one, else the queue's front.
struct line {
  std::deque<entry> queue;
  std::optional<entry> coming;  // woken without the lock, on its way back
  bool held_for_coming = false; // ... and the lock is held for it
  unsigned passes = 0;          // acquisitions by others since the head became the head
  bool idle() const { return queue.empty() && !coming; }
};

struct lock_table {
  std::mutex lock;
  std::unordered_map<std::uintptr_t, line> lines;
};

lock_table& table() {
  static lock_table* t = new lock_table;  // leaked: used until _exit
  return *t;
}

std::uintptr_t key(const std::uint64_t* word) { return reinterpret_cast<std::uintptr_t>(word); }

// The lock's two bits in its word, at `shift`. The word's other bits are
// its type's (a shared mutex's readers, a semaphore's count), which the
// type changes with its own atomics meanwhile: every change made here is a
// compare-and-swap that keeps them.
class lock_state {
 public:
  lock_state(std::uint64_t* word, unsigned shift) : w_(*word), shift_(shift) {}

  std::uint64_t word() const { return w_.load(); }
  std::uint64_t of(std::uint64_t word) const { return (word >> shift_) & 3; }
  std::uint64_t load() const { return of(word()); }
  // From `seen` (updated when it fails) to the same word in state `to`.
  bool change(std::uint64_t& seen, std::uint64_t to) {
    return w_.compare_exchange_strong(seen, with(seen, to));
  }
  void store(std::uint64_t to) {
    std::uint64_t v = word();
    while (!w_.compare_exchange_weak(v, with(v, to))) {
    }
  }

 private:
  std::uint64_t with(std::uint64_t word, std::uint64_t to) const {
    return (word & ~(std::uint64_t{3} << shift_)) | (to << shift_);
  }
  std::atomic_ref<std::uint64_t> w_;
  unsigned shift_;
};

enum class outcome : std::uint8_t { owner, queued };

// On the home, under the table lock: the held state that leaves the line
// as it is (contended while anyone is in it).
std::uint64_t held_state(const line& l) { return l.idle() ? held : contended; }

// On the home: the waiter `e` wants the lock; `returning` when it is the
// line's `coming` waiter, back after its wake.
outcome request_here(std::uint64_t* word, unsigned shift, const entry& e, bool returning) {
  lock_table& t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  lock_state w(word, shift);
  if (returning) {
    auto it = t.lines.find(key(word));
    if (it == t.lines.end() || !it->second.coming || !same_waiter(*it->second.coming, e)) {
      fatal("a waiter of the lock at %p came back, but the lock's home did not wake it",
            static_cast<void*>(word));
    }
    line& l = it->second;
    const bool held_for_it = l.held_for_coming;
    l.coming.reset();
    l.held_for_coming = false;
    if (held_for_it || w.load() == coming_back) {
      l.passes = 0;
      w.store(held_state(l));
      if (l.idle()) t.lines.erase(it);
      return outcome::owner;
    }
    // Another took it meanwhile: still the head, and the next unlock gives
    // it the lock (a head that came back for nothing is passed over no more).
    l.queue.push_front(e);
    l.passes = max_passes;
    return outcome::queued;
  }
  for (;;) {
    std::uint64_t v = w.word();
    const std::uint64_t state = w.of(v);
    if (state == free_word) {
      if (w.change(v, held)) return outcome::owner;
    } else if (state == held || state == contended) {
      if (state == held && !w.change(v, contended)) continue;
      t.lines[key(word)].queue.push_back(e);
      return outcome::queued;
    } else {
      // Free while the head of the line comes back: pass it over.
      w.store(contended);
      ++t.lines[key(word)].passes;
      return outcome::owner;
    }
  }
}

// On the home: take a timed-out waiter out of the line; false if a wake
// took it first.
bool cancel_here(const std::uint64_t* word, const entry& e) {
  lock_table& t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  auto it = t.lines.find(key(word));
  if (it == t.lines.end()) return false;
  line& l = it->second;
  for (auto q = l.queue.begin(); q != l.queue.end(); ++q) {
    if (!same_waiter(*q, e) || q->mark != e.mark) continue;
    if (q == l.queue.begin() && !l.coming) l.passes = 0;  // the head left
    l.queue.erase(q);
    if (l.idle()) t.lines.erase(it);
    return true;
  }
  return false;
}

// On the home: the holder gives a contended lock.
void unlock_here(std::uint64_t* word, unsigned shift) {
  std::optional<entry> woken;
  bool owner = false;
  {
    lock_table& t = table();
    std::lock_guard<std::mutex> guard(t.lock);
    lock_state w(word, shift);
    auto it = t.lines.find(key(word));
    if (it == t.lines.end()) {
      w.store(free_word);  // its waiters timed out
      return;
    }
    line& l = it->second;
    if (l.coming) {
      // The head is on its way back: hold the lock for it once it has been
      // passed over enough, else leave it free for whoever comes first.
      if (l.passes >= max_passes) {
        l.held_for_coming = true;
      } else {
        w.store(coming_back);
      }
      return;
    }
    woken = l.queue.front();
    l.queue.pop_front();
    if (l.passes >= max_passes) {
      owner = true;
      l.passes = 0;
      w.store(held_state(l));
      if (l.idle()) t.lines.erase(it);
    } else {
      l.coming = woken;
      w.store(coming_back);
    }
  }
  chaos::point();
  sched::wake(woken->who, owner ? woken->mark + 1 : woken->mark);
}

// --- messages --------------------------------------------------------------------

struct request_message {
  std::uint64_t* word;
  unsigned shift;
  entry waiter;
  bool returning;
};
constexpr handler_decl<request_message, outcome> lock_at_home{handler_ids::mutex_lock};
void on_request(message& m) {
  const auto r = m.payload_as<request_message>();
  const outcome o = request_here(r.word, r.shift, r.waiter, r.returning);
  m.reply(&o, sizeof o);
}

struct cancel_message {
  const std::uint64_t* word;
  entry waiter;
};
constexpr handler_decl<cancel_message, bool> cancel_at_home{handler_ids::mutex_cancel};
void on_cancel(message& m) {
  const auto c = m.payload_as<cancel_message>();
  const bool removed = cancel_here(c.word, c.waiter);
  m.reply(&removed, sizeof removed);
}

struct unlock_message {
  std::uint64_t* word;
  unsigned shift;
};
constexpr handler_decl<unlock_message> unlock_at_home{handler_ids::mutex_unlock};
void on_unlock(message& m) {
  const auto u = m.payload_as<unlock_message>();
  unlock_here(u.word, u.shift);
}

outcome request(const location& home, std::uint64_t* word, unsigned shift, const entry& e,
                bool returning) {
  if (home.here) return request_here(word, shift, e, returning);
  return call(*current_transport(), home.home, lock_at_home,
              request_message{word, shift, e, returning});
}

bool cancel(const location& home, const std::uint64_t* word, const entry& e) {
  if (home.here) return cancel_here(word, e);
  return call(*current_transport(), home.home, cancel_at_home, cancel_message{word, e});
}

}  // namespace

bool lock(std::uint64_t* word, unsigned shift, const clock::time_point* deadline) {
  const location home = locate(word);
  entry mine{sched::my_name(), fresh_mark()};
  bool returning = false;
  for (;;) {
    if (request(home, word, shift, mine, returning) == outcome::owner) return true;
    chaos::point();  // queued, not yet parked
    const traced_wait traced{word, home.home, mine.who.id};
    bool owner = false;
    const auto woken = [&] {
      const std::uint64_t m = sched::wake_mark();
      owner = m == mine.mark + 1;
      return owner || m == mine.mark;
    };
    if (!park_until_marked(woken, deadline, [&] { return cancel(home, word, mine); })) {
      return false;  // timed out, out of the line
    }
    if (owner) return true;
    // Woken to come back for it (even past the deadline: the home counts on it).
    returning = true;
    mine.mark = fresh_mark();
  }
}

void unlock(std::uint64_t* word, unsigned shift) {
  const location home = locate(word);
  if (home.here) {
    unlock_here(word, shift);
  } else {
    send(*current_transport(), home.home, unlock_at_home, unlock_message{word, shift});
  }
}

std::size_t waiters_at_home(const std::uint64_t* word) {
  lock_table& t = table();
  std::lock_guard<std::mutex> guard(t.lock);
  auto it = t.lines.find(key(word));
  if (it == t.lines.end()) return 0;
  return it->second.queue.size() + (it->second.coming ? 1 : 0);
}

void register_handlers() {
  register_handler(lock_at_home, &on_request);
  register_handler(cancel_at_home, &on_cancel);
  register_handler(unlock_at_home, &on_unlock);
}

}  // namespace dstd::rt::home_mutex
