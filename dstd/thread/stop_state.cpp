// The shared state behind dstd::stop_source / stop_token / stop_callback
// (include/dstd/stop_token says why it is not std's).
//
// `flags`, `refs` and `sources` are home words. The callback list is
// ordinary global memory guarded by a lock bit in `flags`: taking the lock
// acquires and dropping it releases, so the list is coherent on every node.
#include <dstd/stop_token>

#include <dstd/thread>
#include "runtime/coherence/coherence.hpp"
#include "runtime/sched/scheduler.hpp"
#include "runtime/sync/home_word.hpp"

namespace dstd::detail {

struct stop_state {
  rt::home_word<std::uint64_t> flags{0};  // requested_bit | locked_bit
  rt::home_word<std::uint64_t> refs{1};   // sources and tokens
  rt::home_word<std::uint64_t> sources{1};
  // Under the lock:
  stop_callback_node* head = nullptr;
  stop_callback_node* running = nullptr;  // the callback request_stop is running
  std::uint64_t runner = 0;               // the thread running it
  bool running_destroyed = false;         // it deregistered itself from inside
};

namespace {

constexpr std::uint64_t requested_bit = 1;
constexpr std::uint64_t locked_bit = 2;

// The callback's `finished` word: its storage is in the public header, which
// cannot name a runtime type.
rt::home_ref<std::uint64_t> finished(stop_callback_node* cb) {
  return rt::home_ref<std::uint64_t>(cb->finished);
}

void lock(stop_state* s) {
  for (;;) {
    const std::uint64_t old = s->flags.load();
    if ((old & locked_bit) == 0 && s->flags.compare_swap(old, old | locked_bit) == old) {
      break;
    }
    rt::sched::yield();
  }
  rt::coherence::acquire();
}

void unlock(stop_state* s) {
  rt::coherence::release();
  s->flags.fetch_add(~locked_bit + 1);  // minus locked_bit
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
  if ((s->flags.load() & requested_bit) == 0) return false;
  rt::coherence::acquire();  // see what the requester wrote before requesting
  return true;
}

bool stop_state_possible(const stop_state* s) noexcept {
  if (s == nullptr) return false;
  return (s->flags.load() & requested_bit) != 0 || s->sources.load() != 0;
}

bool stop_state_request(stop_state* s) noexcept {
  if (s == nullptr) return false;
  lock(s);
  if ((s->flags.load() & requested_bit) != 0) {
    unlock(s);
    return false;
  }
  s->flags.fetch_add(requested_bit);
  s->runner = current_thread_id();
  while (stop_callback_node* cb = s->head) {
    unlink(s, cb);
    s->running = cb;
    s->running_destroyed = false;
    unlock(s);
    cb->invoke(cb);
    lock(s);
    s->running = nullptr;
    if (!s->running_destroyed) finished(cb).store(1);
  }
  unlock(s);
  return true;
}

bool stop_state_register(stop_state* s, stop_callback_node* cb) noexcept {
  finished(cb).store(0);
  lock(s);
  if ((s->flags.load() & requested_bit) != 0) {
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
  while (finished(cb).load() == 0) rt::sched::yield();
}

}  // namespace dstd::detail
