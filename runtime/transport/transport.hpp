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
//    A write of 8 bytes at an 8-byte aligned address is a single-copy
//    atomic store with respect to the same atomics: never torn, never lost
//    inside another's read-modify-write (home_word.hpp stores with one).
//  * Two-sided messages carry a handler id and a payload (at most
//    max_payload bytes) and run the registered handler on the target node's
//    service thread. A call also waits for the handler's reply.
//  * Operations from one node to one peer are delivered in the order they
//    were posted, with one exception: two reads may be served in either
//    order (a caller that needs the second to see memory at least as new
//    as the first waits for the first, as coherence's read_versions does).
//    Every post names a completion; finish means the effect is
//    visible at the target (writes, atomics) or the data has arrived (reads,
//    replies).
//  * Local buffers may be any memory of the calling process; a backend that
//    needs registered memory stages through its own buffers.
//
// Who may call what (runtime/transport/waiting.hpp says how each waits):
//  * a fiber: everything. A wait that does not complete inline parks the
//    fiber and its worker runs others, unless the fiber is in a
//    no_park_scope (it holds a lock another fiber of its worker may need).
//  * a fault handler (coherence's SIGSEGV handler, on any fiber or thread):
//    posts and one-sided operations and calls; its waits block the thread.
//  * the service thread (handlers): posts, one-sided operations and sends;
//    never call(), nor any wait for a reply or a handler, since only this
//    thread delivers those. A one-sided wait here must not need this thread
//    either: shm completes one-sided operations inline or on its delay
//    thread; a network backend (ucx, verbs) must drive its own progress
//    (poll its completion queue) inside such a wait.
//  * a plain OS thread (main, std::thread): everything; its waits block.
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
  std::size_t reply_bytes_ = 0;  // what the handler declares (handler_shape)
};

// Handlers run on the receiving node's service thread: they must not wait
// for another node's handler (no call(), no waiting on a call's completion);
// one-sided operations are allowed (see the contexts above).
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
  // Until every operation posted so far has left this node: one-sided
  // operations have taken effect, messages are with their receiver. A node
  // drains before it exits.
  virtual void drain() = 0;
  // Drain, then stop the service thread. Pending operations must have
  // finished.
  virtual void stop() = 0;
  // The run is ending (node 0 is telling every node to leave, or this node
  // was told): from now on a peer that disconnects is leaving, not failing.
  virtual void run_ending() {}

  // --- one-sided -----------------------------------------------------------
  virtual void post_read(void* dst, gaddr src, std::size_t len, completion& c) = 0;
  virtual void post_write(gaddr dst, const void* src, std::size_t len, completion& c) = 0;
  virtual void post_compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired,
                                 std::uint64_t* old, completion& c) = 0;
  virtual void post_fetch_add(gaddr target, std::uint64_t add, std::uint64_t* old,
                              completion& c) = 0;
  // The target's memory at `a` (len bytes, inside one node's memory) as
  // this process loads and stores it, where one-sided operations are just
  // that and finish as they are posted (shm without its delay); nullptr
  // otherwise. CPU atomics on it are atomic with the home's. A series of
  // accesses then costs less than one message round trip, so a release
  // applies its diffs at the home itself (coherence/home_apply.hpp).
  virtual std::byte* direct(gaddr a, std::size_t len) const {
    (void)a;
    (void)len;
    return nullptr;
  }
  // Whether one-sided operations, atomics included, are served without
  // the target's CPU (shared memory, delayed or not; verbs where the NIC's
  // atomics are atomic with the CPU's), so that a few of them in a row cost
  // less than a call, which waits for the target's service thread. A
  // release then posts its diffs at the home (coherence/home_apply.hpp).
  // Not over ucx: on its TCP lanes the target's progress serves them.
  virtual bool one_sided_bypasses_target() const { return false; }

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
  // Called by this node's threads at their synchronization points: gives
  // up the CPU when messages have waited long for this node's service
  // thread, which may be waiting for this very CPU (service_watch.hpp).
  // shm only (plain and delayed); ucx and verbs receive through the
  // service thread's own progress, so no other thread sees what waits.
  virtual void yield_if_messages_wait() {}

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

  // For backends: count (and trace) what they send; dispatch does the same
  // for what arrives. `what`: the handler's name, or "reply" (a static string).
  void note_message_sent(node_id to, const char* what, std::size_t bytes);
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

// The sizes a handler declares (typed_handler.hpp): its request's and its
// reply's, or any_length for a batch its handler checks itself.
struct handler_shape {
  static constexpr std::size_t any_length = ~std::size_t{0};
  std::size_t request_bytes = any_length;
  std::size_t reply_bytes = any_length;
};

struct registered_handler {
  handler_fn fn = nullptr;
  handler_shape shape;
};

// Registers `fn` for `id` on this node. Every node must register the same
// handlers: the runtime's at boot (register_runtime_handlers()), a test's
// or tool's by static registration (handler_registration), which runs on
// node 0 only and reaches the others through the observer below. Registering an id twice is a
// fatal error. Runtime handlers declare their types (typed_handler.hpp).
void register_handler(handler_id id, handler_fn fn, handler_shape shape = {});
// Called by register_handler after it registers a user handler (id from
// first_user_handler on) on this node; boot sets it on node 0 to share
// such registrations with the other nodes (control/shared_handlers.hpp).
using registration_observer = void (*)(handler_id, handler_fn, handler_shape);
void observe_user_registrations(registration_observer o);
// The handler of `id`, or nullptr.
const registered_handler* find_handler(handler_id id);

// The node's transport, made by boot; null before boot.
transport* current_transport();

}  // namespace dstd::rt
