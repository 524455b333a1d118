// The backend-independent parts of the transport: completions, messages,
// the blocking conveniences, and dispatch to handlers.
#include "runtime/transport/transport.hpp"

#include "runtime/common/backoff.hpp"
#include "runtime/common/assert.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/futex.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"
#include "runtime/transport/waiting.hpp"

namespace dstd::rt {

// --- completion -------------------------------------------------------------

void completion::expect(std::uint32_t n) {
  // Only the waiter calls expect, and before it posts: finish() (on another
  // thread) sees this through the post.
  if (waiter_.load(std::memory_order_relaxed) == nullptr) {
    waiter_.store(waiting::parkable_waiter(), std::memory_order_relaxed);
  }
  state_.fetch_add(n, std::memory_order_relaxed);
}

void completion::finish() {
  // Once the count reaches zero the waiter may return and destroy *this:
  // nothing below touches the object's memory. The futex wake only uses its
  // address; the waiter to unpark was read before. A stale bit is harmless;
  // it costs one spare wake.
  void* waiter = waiter_.load(std::memory_order_relaxed);
  const std::uint32_t old = state_.fetch_sub(1, std::memory_order_acq_rel);
  DSTD_ASSERT((old & count_mask) != 0, "an operation finished that no completion expected");
  if ((old & count_mask) != 1) return;
  if (old & parked_bit) waiting::unpark(waiter);
  if (old & sleeper_bit) futex::wake_all(state_, futex::scope::process_private);
}

void completion::wait() {
  if (done()) return;
  void* me = waiting::parkable_waiter();
  if (me != nullptr && me == waiter_.load(std::memory_order_relaxed)) {
    park_until_done();
  } else {
    block_until_done();
  }
}

bool completion::announce(std::uint32_t bit, std::uint32_t& state) {
  state = state_.load(std::memory_order_acquire);
  for (;;) {
    if ((state & count_mask) == 0) return false;
    if ((state & bit) != 0 ||
        state_.compare_exchange_weak(state, state | bit, std::memory_order_acq_rel)) {
      state |= bit;
      return true;
    }
  }
}

void completion::spin_then_hand_over() {
  backoff spinning;
  while (!done()) {
    if (poller_ != nullptr) poller_->poll(*this, false);
    if (!spinning.step()) break;
  }
  if (poller_ != nullptr) poller_->poll(*this, true);
}

void completion::park_until_done() {
  // Most operations finish within microseconds (a shm round trip): spin and
  // yield first, as a blocked thread does, so the common wait costs no
  // park and no wake-up of the worker; park only when it lasts.
  spin_then_hand_over();
  std::uint32_t state = 0;
  while (announce(parked_bit, state)) waiting::park();  // finish() unparks us
}

void completion::block_until_done() {
  // A thread that drives its backend's progress (waiting.hpp) must not sleep:
  // nothing else would finish the operation.
  while (!done() && waiting::drive_progress()) {
  }
  spin_then_hand_over();
  std::uint32_t state = 0;
  while (announce(sleeper_bit, state)) {
    futex::wait(state_, state, futex::scope::process_private);
  }
}

// --- message ----------------------------------------------------------------

void message::reply(const void* data, std::size_t len) {
  if (!wants_reply_) fatal("reply to a message that was sent without waiting for one");
  if (answered_) fatal("a message was answered twice");
  if (reply_bytes_ != handler_shape::any_length && len != reply_bytes_) {
    fatal("handler %u (%s) replied to node %u with %zu bytes; it declares %zu", handler_,
          handler_name(handler_), from_, len, reply_bytes_);
  }
  answered_ = true;
  transport_->reply(reply_token{from_, cookie_}, data, len);
}

void message::malformed(std::size_t expected) const {
  fatal("a message for handler %u (%s) from node %u has %zu bytes; it needs %zu", handler_,
        handler_name(handler_), from_, payload_.size(), expected);
}

void malformed_reply(handler_id h, node_id from, std::size_t got, std::size_t expected) {
  fatal("the reply of handler %u (%s) from node %u has %zu bytes; it needs %zu", h,
        handler_name(h), from, got, expected);
}

reply_token message::defer() {
  if (!wants_reply_) fatal("defer on a message that was sent without waiting for a reply");
  if (answered_) fatal("a message was answered twice");
  answered_ = true;
  return reply_token{from_, cookie_};
}

void transport::note_message_sent(node_id to, const char* what, std::size_t bytes) {
  sent_.fetch_add(1, std::memory_order_relaxed);
  trace::instant(trace::kind::send, reinterpret_cast<std::uintptr_t>(what), to, bytes);
}

void transport::dispatch(handler_id h, node_id from, std::span<const std::byte> payload,
                         bool wants_reply, std::uint64_t cookie) {
  received_.fetch_add(1, std::memory_order_relaxed);
  chaos::point();  // a message that arrived, not yet handled
  const registered_handler* handler = find_handler(h);
  if (handler == nullptr) {
    fatal("message from node %u for handler %u, which is not registered", from, h);
  }
  message m;
  m.transport_ = this;
  m.from_ = from;
  m.handler_ = h;
  m.payload_ = payload;
  m.cookie_ = cookie;
  m.wants_reply_ = wants_reply;
  m.reply_bytes_ = handler->shape.reply_bytes;
  const std::size_t expected = handler->shape.request_bytes;
  if (expected != handler_shape::any_length && payload.size() != expected) m.malformed(expected);
  const std::uint64_t handled_from = trace::start();
  handler->fn(m);
  trace::span(trace::kind::handle, handled_from, reinterpret_cast<std::uintptr_t>(handler_name(h)), from,
              payload.size());
  if (m.wants_reply_ && !m.answered_) {
    if (m.reply_bytes_ != 0 && m.reply_bytes_ != handler_shape::any_length) {
      fatal("handler %u (%s) returned without answering node %u; it declares a %zu-byte reply", h,
            handler_name(h), from, m.reply_bytes_);
    }
    reply(reply_token{from, cookie}, nullptr, 0);
  }
}

// --- blocking conveniences --------------------------------------------------

void transport::read(void* dst, gaddr src, std::size_t len) {
  completion c;
  c.expect();
  post_read(dst, src, len, c);
  c.wait();
}

void transport::write(gaddr dst, const void* src, std::size_t len) {
  completion c;
  c.expect();
  post_write(dst, src, len, c);
  c.wait();
}

std::uint64_t transport::compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired) {
  std::uint64_t old = 0;
  completion c;
  c.expect();
  post_compare_swap(target, expected, desired, &old, c);
  c.wait();
  return old;
}

std::uint64_t transport::fetch_add(gaddr target, std::uint64_t add) {
  std::uint64_t old = 0;
  completion c;
  c.expect();
  post_fetch_add(target, add, &old, c);
  c.wait();
  return old;
}

std::vector<std::byte> transport::call(node_id to, handler_id h, const void* payload,
                                       std::size_t len) {
  if (on_service_thread()) fatal("a message handler made a blocking call (handler %u)", h);
  std::vector<std::byte> reply;
  completion c;
  c.expect();
  post_call(to, h, payload, len, reply, c);
  c.wait();
  return reply;
}

}  // namespace dstd::rt
