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

namespace hw = rt::home_word;

struct stop_state {
  std::uint64_t flags = 0;    // home word: requested_bit | locked_bit
  std::uint64_t refs = 1;     // home word: sources and tokens
  std::uint64_t sources = 1;  // home word
  // Under the lock:
  stop_callback_node* head = nullptr;
  stop_callback_node* running = nullptr;  // the callback request_stop is running
  std::uint64_t runner = 0;               // the thread running it
  bool running_destroyed = false;         // it deregistered itself from inside
};

namespace {

constexpr std::uint64_t requested_bit = 1;
constexpr std::uint64_t locked_bit = 2;

void lock(stop_state* s) {
  for (;;) {
    const std::uint64_t old = hw::load(&s->flags);
    if ((old & locked_bit) == 0 && hw::compare_swap(&s->flags, old, old | locked_bit) == old) {
      break;
    }
    rt::sched::yield();
  }
  rt::coherence::acquire();
}

void unlock(stop_state* s) {
  rt::coherence::release();
  hw::fetch_add(&s->flags, ~locked_bit + 1);  // minus locked_bit
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
  hw::fetch_add(&s->refs, 1);
  if (source) hw::fetch_add(&s->sources, 1);
}

void stop_state_release(stop_state* s, bool source) noexcept {
  if (source) hw::fetch_add(&s->sources, ~std::uint64_t{0});
  if (hw::fetch_add(&s->refs, ~std::uint64_t{0}) == 1) delete s;
}

bool stop_state_requested(const stop_state* s) noexcept {
  if (s == nullptr) return false;
  if ((hw::load(&s->flags) & requested_bit) == 0) return false;
  rt::coherence::acquire();  // see what the requester wrote before requesting
  return true;
}

bool stop_state_possible(const stop_state* s) noexcept {
  if (s == nullptr) return false;
  return (hw::load(&s->flags) & requested_bit) != 0 || hw::load(&s->sources) != 0;
}

bool stop_state_request(stop_state* s) noexcept {
  if (s == nullptr) return false;
  lock(s);
  if ((hw::load(&s->flags) & requested_bit) != 0) {
    unlock(s);
    return false;
  }
  hw::fetch_add(&s->flags, requested_bit);
  s->runner = current_thread_id();
  while (stop_callback_node* cb = s->head) {
    unlink(s, cb);
    s->running = cb;
    s->running_destroyed = false;
    unlock(s);
    cb->invoke(cb);
    lock(s);
    s->running = nullptr;
    if (!s->running_destroyed) hw::store(&cb->finished, 1);
  }
  unlock(s);
  return true;
}

bool stop_state_register(stop_state* s, stop_callback_node* cb) noexcept {
  hw::store(&cb->finished, 0);
  lock(s);
  if ((hw::load(&s->flags) & requested_bit) != 0) {
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
  while (hw::load(&cb->finished) == 0) rt::sched::yield();
}

}  // namespace dstd::detail
