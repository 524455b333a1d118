// The shared state behind dstd::stop_source / stop_token / stop_callback
// (include/dstd/stop_token says why it is not std's).
//
// `requested`, `refs` and `sources` are home words. The callback list is
// ordinary global memory guarded by a home lock (a waiter parks at the
// lock's home): taking it acquires and dropping it releases, so the list is
// coherent on every node. Deregistering a callback that another thread is
// running waits on the cluster futex for its `finished` word.
#include <dstd/stop_token>

#include <dstd/thread>
#include "runtime/coherence/coherence.hpp"
#include "runtime/sync/home_futex.hpp"
#include "runtime/sync/home_lock.hpp"
#include "runtime/sync/home_word.hpp"

namespace dstd::detail {

struct stop_state {
  rt::home_word<bool> requested{false};
  rt::home_word<std::uint64_t> refs{1};  // sources and tokens
  rt::home_word<std::uint64_t> sources{1};
  rt::home_lock lock;
  // Under the lock:
  stop_callback_node* head = nullptr;
  stop_callback_node* running = nullptr;  // the callback request_stop is running
  std::uint64_t runner = 0;               // the thread running it
  bool running_destroyed = false;         // it deregistered itself from inside
};

namespace {

// The callback's `finished` word: its storage is in the public header, which
// cannot name a runtime type.
rt::home_ref<std::uint64_t> finished(stop_callback_node* cb) {
  return rt::home_ref<std::uint64_t>(cb->finished);
}

void lock(stop_state* s) {
  s->lock.lock();
  rt::coherence::acquire();
}

void unlock(stop_state* s) {
  rt::coherence::release();
  s->lock.unlock();
}

void unlink(stop_state* s, stop_callback_node* cb) {
  if (cb->prev != nullptr) cb->prev->next = cb->next;
  if (s->head == cb) s->head = cb->next;
  if (cb->next != nullptr) cb->next->prev = cb->prev;
  cb->next = cb->prev = nullptr;
}

}  // namespace

stop_state* stop_state_create() { return new stop_state; }

void stop_state_retain(stop_state* s, bool source) noexcept {
  s->refs.fetch_add(1);
  if (source) s->sources.fetch_add(1);
}

void stop_state_release(stop_state* s, bool source) noexcept {
  if (source) s->sources.fetch_add(~std::uint64_t{0});
  if (s->refs.fetch_add(~std::uint64_t{0}) == 1) delete s;
}

bool stop_state_requested(const stop_state* s) noexcept {
  if (s == nullptr) return false;
  if (!s->requested.load()) return false;
  rt::coherence::acquire();  // see what the requester wrote before requesting
  return true;
}

bool stop_state_possible(const stop_state* s) noexcept {
  if (s == nullptr) return false;
  return s->requested.load() || s->sources.load() != 0;
}

bool stop_state_request(stop_state* s) noexcept {
  if (s == nullptr) return false;
  lock(s);
  if (s->requested.load()) {
    unlock(s);
    return false;
  }
  // What the requester wrote goes out before the flag: a poller that sees
  // it acquires without the lock (stop_state_requested). The release at
  // unlock comes too late: v2's acquire keeps pages whose home had not
  // released yet (thread_test's StopRequestCrossesNodesWithCallbacks read a
  // stale message once in seven runs without this).
  rt::coherence::release();
  s->requested.store(true);
  s->runner = current_thread_id();
  while (stop_callback_node* cb = s->head) {
    unlink(s, cb);
    s->running = cb;
    s->running_destroyed = false;
    unlock(s);
    cb->invoke(cb);
    lock(s);
    s->running = nullptr;
    if (!s->running_destroyed) {
      const rt::home_ref<std::uint64_t> done = finished(cb);  // cb may go once it is set
      rt::coherence::release();  // the callback's writes, for its deregistering thread
      done.store(1);
      rt::home_futex::wake(done.bits(), rt::home_futex::all);
    }
  }
  unlock(s);
  return true;
}

bool stop_state_register(stop_state* s, stop_callback_node* cb) noexcept {
  finished(cb).store(0);
  lock(s);
  if (s->requested.load()) {
    unlock(s);
    return false;
  }
  cb->prev = nullptr;
  cb->next = s->head;
  if (s->head != nullptr) s->head->prev = cb;
  s->head = cb;
  unlock(s);
  return true;
}

void stop_state_deregister(stop_state* s, stop_callback_node* cb) noexcept {
  lock(s);
  if (s->head == cb || cb->prev != nullptr) {
    unlink(s, cb);
    unlock(s);
    return;
  }
  const bool running_elsewhere = s->running == cb && s->runner != current_thread_id();
  if (s->running == cb && !running_elsewhere) s->running_destroyed = true;
  unlock(s);
  if (!running_elsewhere) return;
  const rt::home_ref<std::uint64_t> done = finished(cb);
  while (done.load() == 0) rt::home_futex::wait(done.bits(), 0);
  rt::coherence::acquire();  // the callback's return happens before this returns
}

}  // namespace dstd::detail
