// The transport interface: how one node reaches another.
//
// Everything above this layer (heap, coherence, scheduler, sync types) talks
// to other nodes only through this class, so a backend can be swapped without
// touching its callers. The semantics follow RDMA reliable-connection queue
// pairs, the most demanding backend:
//
//  * One-sided operations act on a global address (runtime/common/layout.hpp)
//    of any node, without running code there: read, write, 64-bit
//    compare-and-swap, 64-bit fetch-and-add. Atomics need 8-byte alignment and
//    are atomic with respect to other transport atomics on the same word and
//    to CPU atomics of the home node.
//  * Two-sided messages carry a handler id and a payload (at most
//    max_payload bytes) and run the registered handler on the target node's
//    service thread. A call also waits for the handler's reply.
//  * Operations from one node to one peer are delivered in the order they
//    were posted. Every post names a completion; finish means the effect is
//    visible at the target (writes, atomics) or the data has arrived (reads,
//    replies).
//  * Local buffers may be any memory of the calling process; a backend that
//    needs registered memory stages through its own buffers.
//
// Failures of a peer are not reported here: a node that dies ends the whole
// run (dstdrun stops every node), so callers never handle partial failure.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "runtime/transport/completion.hpp"
#include "runtime/transport/join_record.hpp"

namespace dstd::rt {

using node_id = std::uint32_t;
using gaddr = std::uintptr_t;  // a global address: the same value on every node
using handler_id = std::uint16_t;

class transport;

// Where a deferred reply goes. Valid until replied to, exactly once.
struct reply_token {
  node_id to = 0;
  std::uint64_t cookie = 0;
};

// A message as its handler sees it. The payload is valid only during the call.
class message {
 public:
  node_id from() const { return from_; }
  handler_id handler() const { return handler_; }
  std::span<const std::byte> payload() const { return payload_; }
  bool wants_reply() const { return wants_reply_; }

  // The payload as one T. A payload of any other size is a fatal error
  // naming the handler and the sender, never a silent misread.
  template <class T>
  T payload_as() const {
    static_assert(std::is_trivially_copyable_v<T>, "a message carries plain bytes");
    if (payload_.size() != sizeof(T)) malformed(sizeof(T));
    T v;
    std::memcpy(&v, payload_.data(), sizeof v);
    return v;
  }

  // Ends the node: the payload does not have the `expected` bytes.
  [[noreturn]] void malformed(std::size_t expected) const;

  // Reply now. A handler of a call that neither replies nor defers sends an
  // empty reply when it returns.
  void reply(const void* data, std::size_t len);
  // Keep the caller waiting; answer later with transport::reply(token, ...).
  reply_token defer();

 private:
  friend class transport;
  transport* transport_ = nullptr;
  node_id from_ = 0;
  handler_id handler_ = 0;
  std::span<const std::byte> payload_;
  std::uint64_t cookie_ = 0;
  bool wants_reply_ = false;
  bool answered_ = false;
};

// Handlers run on the receiving node's service thread: they must not block
// on another node (no call(), no waiting on a completion).
using handler_fn = void (*)(message&);

class transport {
 public:
  static constexpr std::size_t max_payload = 60 * 1024;

  virtual ~transport() = default;
  transport(const transport&) = delete;
  transport& operator=(const transport&) = delete;

  node_id self() const { return self_; }
  node_id nodes() const { return nodes_; }
  virtual const char* name() const = 0;

  // --- lifecycle -----------------------------------------------------------
  // Start the service thread (handlers, replies). Messages that arrive
  // before it starts wait in the backend.
  virtual void start() = 0;
  // Publish `mine` and wait for every node's record, indexed by node id.
  // Fails the node with a clear message when a peer does not come in time.
  virtual std::vector<join_record> rendezvous(const join_record& mine, unsigned timeout_ms) = 0;
  // Stop the service thread. Pending operations must have finished.
  virtual void stop() = 0;

  // --- one-sided -----------------------------------------------------------
  virtual void post_read(void* dst, gaddr src, std::size_t len, completion& c) = 0;
  virtual void post_write(gaddr dst, const void* src, std::size_t len, completion& c) = 0;
  virtual void post_compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired,
                                 std::uint64_t* old, completion& c) = 0;
  virtual void post_fetch_add(gaddr target, std::uint64_t add, std::uint64_t* old,
                              completion& c) = 0;

  // --- two-sided -----------------------------------------------------------
  // Fire and forget.
  virtual void post_send(node_id to, handler_id h, const void* payload, std::size_t len) = 0;
  // Run the handler on `to` and collect its reply into `reply`.
  virtual void post_call(node_id to, handler_id h, const void* payload, std::size_t len,
                         std::vector<std::byte>& reply, completion& c) = 0;
  // Answer a deferred message.
  virtual void reply(const reply_token& t, const void* data, std::size_t len) = 0;

  // --- blocking conveniences (post + wait) ---------------------------------
  void read(void* dst, gaddr src, std::size_t len);
  void write(gaddr dst, const void* src, std::size_t len);
  std::uint64_t compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired);
  std::uint64_t fetch_add(gaddr target, std::uint64_t add);
  std::vector<std::byte> call(node_id to, handler_id h, const void* payload, std::size_t len);

  // True on the thread that runs handlers.
  virtual bool on_service_thread() const = 0;

  // What this node has sent and received so far (dstd::stats()).
  struct traffic {
    std::uint64_t messages_sent;      // sends, calls and replies
    std::uint64_t messages_received;  // sends and calls run here
    std::uint64_t one_sided;          // reads, writes and atomics issued
  };
  traffic traffic_counts() const {
    return {sent_.load(std::memory_order_relaxed), received_.load(std::memory_order_relaxed),
            one_sided_.load(std::memory_order_relaxed)};
  }

 protected:
  transport(node_id self, node_id nodes) : self_(self), nodes_(nodes) {}

  // For backends: count what they send (dispatch counts what arrives).
  void count_message_sent() { sent_.fetch_add(1, std::memory_order_relaxed); }
  void count_one_sided() { one_sided_.fetch_add(1, std::memory_order_relaxed); }

  // For backends: run the handler for an incoming message; answers calls the
  // handler left unanswered.
  void dispatch(handler_id h, node_id from, std::span<const std::byte> payload,
                bool wants_reply, std::uint64_t cookie);

 private:
  friend class message;
  node_id self_;
  node_id nodes_;
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> one_sided_{0};
};

// Handler ids below first_user_handler belong to the runtime
// (runtime/transport/handler_ids.hpp); tests and tools use the rest.
inline constexpr handler_id first_user_handler = 256;
inline constexpr handler_id max_handlers = 1024;

// Registers `fn` for `id` on this node. Every node must register the same
// handlers, which registering from code every node runs gives for free: all
// nodes run the same binary. Registering an id twice is a fatal error. The
// runtime's handlers are registered at boot by one list
// (register_runtime_handlers(), handler_ids.hpp); a program's or a test's
// own handlers by a static handler_registration in their file.
void register_handler(handler_id id, handler_fn fn);
handler_fn find_handler(handler_id id);

struct handler_registration {
  handler_registration(handler_id id, handler_fn fn) { register_handler(id, fn); }
};

// The node's transport, made by boot; null before boot.
transport* current_transport();

}  // namespace dstd::rt
