// The shm backend; see shm_transport.hpp.
//
// Deadlock freedom: the service thread both receives and sends (replies). If
// two service threads each waited for space in a ring the other one drains,
// neither would move; nor would a service thread waiting for a send lock held
// by a local thread that waits for space in the ring to ourselves. So the
// service thread never sleeps on a sender's resource: while it waits for a
// send lock or for ring space, it keeps draining its own inbound rings into a
// local backlog. The backlog is handled before the rings, which keeps
// per-peer order.
#include "runtime/transport/shm/shm_transport.hpp"

#include <sys/mman.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/common/backoff.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/futex.hpp"
#include "runtime/common/env.hpp"
#include "runtime/common/settings.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/service_watch.hpp"
#include "runtime/transport/shm/delay_line.hpp"
#include "runtime/transport/shm/reply_slots.hpp"
#include "runtime/transport/shm/shm_ring.hpp"

namespace dstd::rt::shm {

namespace {

thread_local bool is_service_thread = false;

// The segments of this launch, found by home_memory_for (at the first
// malloc) and taken over by the transport.
segment_fds launch_fds;

// A call waiting for its reply; the cookie of a call record points here.
struct pending_call {
  std::vector<std::byte>* reply;
  completion* done;
};

struct owned_record {
  record_header header;
  node_id from;
  std::vector<std::byte> payload;
};

void* map_or_die(void* at, std::size_t bytes, int prot, int flags, int fd, off_t offset,
                 const char* what) {
  void* p = mmap(at, bytes, prot, flags, fd, offset);
  if (p == MAP_FAILED) {
    fatal("cannot map the %s (%zu bytes at %p): %s", what, bytes, at, std::strerror(errno));
  }
  if (at != nullptr && p != at) fatal("the %s landed at %p instead of %p", what, p, at);
  return p;
}

class shm_transport final : public transport {
 public:
  shm_transport(node_id self, node_id nodes, std::uint64_t partition_bytes, segment_fds fds,
                std::span<const memory_region> regions)
      : transport(self, nodes),
        partition_bytes_(partition_bytes),
        fds_(fds),
        regions_(regions.begin(), regions.end()),
        layout_(control_layout::for_nodes(nodes)),
        send_locks_(nodes),
        control_(static_cast<std::byte*>(map_or_die(nullptr, layout_.total_bytes,
                                                    PROT_READ | PROT_WRITE, MAP_SHARED,
                                                    fds.control_fd, 0, "shm control segment"))),
        reply_slots_(reinterpret_cast<reply_slot*>(control_ + layout_.replies_offset), self) {
    const auto* header = reinterpret_cast<const control_header*>(control_);
    if (header->magic != control_magic || header->version != control_version ||
        header->nodes != nodes || header->partition_bytes != partition_bytes) {
      fatal("the shm control segment does not match this node's settings "
            "(nodes %u, partition %llu bytes): was the program started by a different dstdrun?",
            nodes, static_cast<unsigned long long>(partition_bytes));
    }
    window_ = static_cast<std::byte*>(
        map_or_die(reinterpret_cast<void*>(layout::shm_window_base), window_bytes(),
                   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                   fds.heap_fd, 0, "shm window onto the global heap"));
    for (node_id from = 0; from < nodes; ++from) {
      inbound_.push_back(ring(from, self));
      outbound_.push_back(ring(self, from));
    }
    // Delayed mode (delay_line.hpp): an emulation for tests, not a network.
    const std::uint64_t delay_us = current_settings().shm_delay_us;
    if (delay_us != 0) {
      delay_ = std::make_unique<delay_line>(std::chrono::microseconds(delay_us), nodes);
    }
  }

  ~shm_transport() override {
    stop();
    delay_.reset();
    munmap(window_, window_bytes());
    munmap(control_, layout_.total_bytes);
    close(fds_.control_fd);
    close(fds_.heap_fd);
  }

  const char* name() const override { return "shm"; }

  // --- lifecycle -------------------------------------------------------------

  void start() override {
    service_ = std::thread([this] { service_loop(); });
  }

  std::vector<join_record> rendezvous(const join_record& mine, unsigned timeout_ms) override {
    join_slot& own = slot(self());
    own.record = mine;
    own.joined.store(1, std::memory_order_release);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      std::string missing;
      for (node_id n = 0; n < nodes(); ++n) {
        if (slot(n).joined.load(std::memory_order_acquire)) continue;
        missing += ' ';
        missing += std::to_string(n);
      }
      if (missing.empty()) break;
      if (std::chrono::steady_clock::now() > deadline) {
        fatal("node(s)%s did not join within %u ms", missing.c_str(), timeout_ms);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::vector<join_record> all(nodes());
    for (node_id n = 0; n < nodes(); ++n) all[n] = slot(n).record;
    return all;
  }

  void stop() override {
    drain();
    if (!service_.joinable()) return;
    stopping_.store(true, std::memory_order_release);
    ring_doorbell(self());
    service_.join();
  }

  void drain() override {
    if (delay_) delay_->drain();
  }

  bool on_service_thread() const override { return is_service_thread; }

  void yield_if_messages_wait() override {
    // The rings first: most calls find them empty and read nothing else.
    if (service_watch_.starved(!inbound_empty()) && !is_service_thread) sched_yield();
  }

  // --- one-sided -------------------------------------------------------------
  // The address is checked when the operation is posted; the operation
  // itself runs at once, or in delayed mode on the delay line.

  std::byte* direct(gaddr a, std::size_t len) const override {
    return delay_ ? nullptr : window(a, len);
  }
  bool one_sided_bypasses_target() const override { return true; }

  void post_read(void* dst, gaddr src, std::size_t len, completion& c) override {
    const std::byte* from = window(src, len);
    one_sided(c, [=] { std::memcpy(dst, from, len); });
  }

  void post_write(gaddr dst, const void* src, std::size_t len, completion& c) override {
    if (len == sizeof(std::uint64_t) && dst % alignof(std::uint64_t) == 0) {
      // An aligned word: one atomic store (transport.hpp). Its value is
      // read at posting, like any write's source.
      std::uint64_t* at = atomic_word(dst, "write");
      std::uint64_t value;
      std::memcpy(&value, src, sizeof value);
      one_sided(c, [=] { std::atomic_ref<std::uint64_t>(*at).store(value); });
      return;
    }
    std::byte* to = window(dst, len);
    if (!delay_) {
      one_sided(c, [=] { std::memcpy(to, src, len); });
      return;
    }
    // The source is read at posting, as a network adapter may: the delay
    // line never touches the caller's memory.
    one_sided(c, [to, bytes = std::vector<std::byte>(static_cast<const std::byte*>(src),
                                                     static_cast<const std::byte*>(src) + len)] {
      std::memcpy(to, bytes.data(), bytes.size());
    });
  }

  void post_compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired,
                         std::uint64_t* old, completion& c) override {
    std::uint64_t* at = atomic_word(target, "compare-and-swap");
    one_sided(c, [=]() mutable {
      std::atomic_ref<std::uint64_t>(*at).compare_exchange_strong(expected, desired,
                                                                  std::memory_order_seq_cst);
      *old = expected;  // on failure compare_exchange stored the current value
    });
  }

  void post_fetch_add(gaddr target, std::uint64_t add, std::uint64_t* old,
                      completion& c) override {
    std::uint64_t* at = atomic_word(target, "fetch-and-add");
    one_sided(c, [=] { *old = std::atomic_ref<std::uint64_t>(*at).fetch_add(add); });
  }

  // --- two-sided -------------------------------------------------------------

  void post_send(node_id to, handler_id h, const void* payload, std::size_t len) override {
    push(to, record_header{checked_length(len), h, record_kind::send, 0, 0}, payload);
  }

  void post_call(node_id to, handler_id h, const void* payload, std::size_t len,
                 std::vector<std::byte>& reply, completion& c) override {
    // A slot for the reply (reply_slots.hpp); in the delayed mode the
    // reply waits on the callee's delay line before it is written there.
    std::uint64_t cookie = reply_slots_.take(reply, c);
    if (cookie != 0) {
      c.poll_with(&reply_slots_);
    } else {
      cookie = reinterpret_cast<std::uintptr_t>(new pending_call{&reply, &c});
    }
    push(to, record_header{checked_length(len), h, record_kind::call, 0, cookie}, payload);
  }

  void reply(const reply_token& t, const void* data, std::size_t len) override {
    if (reply_slots::is_slot_cookie(t.cookie) && len <= reply_slot_bytes) {
      note_message_sent(t.to, "reply", len);
      if (delay_) {
        reply_into_slot_later(t, data, len);
        return;
      }
      if (reply_slots_.write(t.to, t.cookie, data, len)) {
        push_record(t.to, record_header{0, 0, record_kind::slot_ready, 0, t.cookie}, nullptr);
      }
      return;
    }
    push(t.to, record_header{checked_length(len), 0, record_kind::reply, 0, t.cookie}, data);
  }

 private:
  // Runs a one-sided operation now, or after the delay (delay_line.hpp).
  // The peer does not matter for ordering: one-sided operations run in
  // posting order either way.
  template <class Op>
  void one_sided(completion& c, Op op) {
    count_one_sided();
    auto run = [op = std::move(op), &c]() mutable {
      op();
      chaos::point();  // done at the target, not yet seen as done
      c.finish();
      return true;
    };
    if (delay_) {
      delay_->post(0, false, std::move(run));
    } else {
      run();
    }
  }

  // --- addressing ------------------------------------------------------------

  ring_view ring(node_id from, node_id to) const {
    std::byte* base = control_ + layout_.rings_offset +
                      (std::size_t(from) * nodes() + to) * layout_.ring_stride;
    auto* header = reinterpret_cast<ring_header*>(base);
    std::byte* data = base + (layout_.ring_stride - ring_data_bytes);
    return ring_view(header, data, ring_data_bytes);
  }

  join_slot& slot(node_id n) const {
    return reinterpret_cast<join_slot*>(control_ + layout_.slots_offset)[n];
  }

  // Partitions, then the shared static data (see shm_segments.hpp).
  std::size_t window_bytes() const {
    return nodes() * partition_bytes_ + layout::static_region_max;
  }

  // The region table is small (one region per node, plus the static data).
  std::byte* window(gaddr a, std::size_t len) const {
    for (const memory_region& r : regions_) {
      if (a >= r.begin && a < r.end && len <= r.end - a) {
        return layout::window_at(r.backing_offset + (a - r.begin));
      }
    }
    fatal("%zu bytes at %#lx are not inside the global heap or the shared static data", len,
          static_cast<unsigned long>(a));
  }

  std::uint64_t* atomic_word(gaddr a, const char* op) const {
    if (a % 8 != 0) {
      fatal("%s at %#lx: transport atomics need 8-byte alignment", op,
            static_cast<unsigned long>(a));
    }
    return reinterpret_cast<std::uint64_t*>(window(a, 8));
  }

  static std::uint32_t checked_length(std::size_t len) {
    if (len > max_payload) fatal("message of %zu bytes exceeds the limit of %zu", len, max_payload);
    return static_cast<std::uint32_t>(len);
  }

  // --- sending ---------------------------------------------------------------

  void push(node_id to, const record_header& rh, const void* payload) {
    if (to >= nodes()) fatal("message to node %u, but the run has %u nodes", to, nodes());
    note_message_sent(to, rh.kind == record_kind::reply ? "reply" : handler_name(rh.handler), rh.length);
    push_record(to, rh, payload);
  }

  // push() without counting a message: also the note that a reply waits in
  // a parked caller's slot.
  void push_record(node_id to, const record_header& rh, const void* payload) {
    chaos::point();  // about to send
    if (delay_) {
      const auto* bytes = static_cast<const std::byte*>(payload);
      delay_->post(to, true, [this, to, rh, copy = std::vector<std::byte>(bytes, bytes + rh.length)] {
        return try_push_once(to, rh, copy.data());
      });
      return;
    }
    ring_view r = outbound_[to];
    {
      // The service thread never blocks on the lock: the holder may be an
      // application thread waiting for space that only the service thread
      // can free (the ring to ourselves).
      std::unique_lock<std::mutex> lock(send_locks_[to].m, std::defer_lock);
      if (is_service_thread) {
        while (!lock.try_lock()) keep_inbound_moving();
      } else {
        lock.lock();
      }
      while (!r.try_push(rh, payload)) wait_for_space(r);
    }
    wake_receiver(to);
  }

  // The delayed mode's slot reply: on the delay line, in order with the
  // messages to the caller's node (as a reply through the ring would be),
  // the slot is written once, then, if the caller parked, the record that
  // wakes it is pushed, retried while the ring is full.
  void reply_into_slot_later(const reply_token& t, const void* data, std::size_t len) {
    const auto* bytes = static_cast<const std::byte*>(data);
    delay_->post(t.to, true,
                 [this, t, written = false, parked = false,
                  copy = std::vector<std::byte>(bytes, bytes + len)]() mutable {
                   if (!written) {
                     parked = reply_slots_.write(t.to, t.cookie, copy.data(), copy.size());
                     written = true;
                   }
                   // (The record has no payload; any pointer does.)
                   return !parked || try_push_once(t.to,
                                                   record_header{0, 0, record_kind::slot_ready, 0,
                                                                 t.cookie},
                                                   copy.data());
                 });
  }

  // The delay line's push: false when the ring is full (it retries later).
  // In delayed mode the delay line is the only sender, so the lock is free.
  bool try_push_once(node_id to, const record_header& rh, const void* payload) {
    {
      std::lock_guard<std::mutex> lock(send_locks_[to].m);
      if (!outbound_[to].try_push(rh, payload)) return false;
    }
    wake_receiver(to);
    return true;
  }

  void wake_receiver(node_id to) {
    // Pairs with the fence in service_loop: either the receiver sees our
    // record before it sleeps, or we see that it sleeps and wake it.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (slot(to).sleeping.load(std::memory_order_relaxed)) ring_doorbell(to);
  }

  // Called by the service thread whenever it has to wait on a sender's
  // resource; see the comment at the top.
  void keep_inbound_moving() {
    if (drain_into_backlog() == 0) std::this_thread::yield();
  }

  void wait_for_space(ring_view& r) {
    if (is_service_thread) {
      keep_inbound_moving();
      return;
    }
    ring_header& h = r.header();
    const std::uint32_t seq = h.space_seq.load(std::memory_order_acquire);
    h.space_waiters.fetch_add(1, std::memory_order_seq_cst);
    futex::wait(h.space_seq, seq, futex::scope::shared, 1'000'000);  // 1 ms: bounded
    h.space_waiters.fetch_sub(1, std::memory_order_relaxed);
  }

  void ring_doorbell(node_id to) {
    join_slot& s = slot(to);
    s.doorbell.fetch_add(1, std::memory_order_release);
    futex::wake_all(s.doorbell, futex::scope::shared);
  }

  // --- receiving (service thread) --------------------------------------------

  void service_loop() {
    is_service_thread = true;
    trace::name_this_thread("service", -1);
    join_slot& own = slot(self());
    backoff idle;
    while (!stopping_.load(std::memory_order_acquire)) {
      if (handle_one()) {
        idle.reset();
        continue;
      }
      if (idle.step()) continue;
      const std::uint32_t bell = own.doorbell.load(std::memory_order_acquire);
      own.sleeping.store(1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (inbound_empty() && !stopping_.load(std::memory_order_acquire)) {
        futex::wait(own.doorbell, bell, futex::scope::shared, 100'000'000);  // 100 ms
      }
      own.sleeping.store(0, std::memory_order_relaxed);
      idle.reset();
    }
  }

  bool inbound_empty() const {
    for (const ring_view& r : inbound_) {
      if (!r.empty()) return false;
    }
    return true;
  }

  // Handles the oldest backlog record, else one record from each inbound ring.
  bool handle_one() {
    if (!backlog_.empty()) {
      owned_record rec = std::move(backlog_.front());
      backlog_.pop_front();
      deliver(rec.header, rec.from, rec.payload);
      return true;
    }
    bool any = false;
    for (node_id from = 0; from < nodes() && backlog_.empty(); ++from) {
      ring_view& r = inbound_[from];
      record_header rh;
      if (!r.peek(rh)) continue;
      scratch_.resize(rh.length);
      r.read_payload(rh, scratch_.data());
      r.pop(rh);
      service_watch_.took_one();
      notify_space(r);
      // A handler's sends may drain more records, but only into the backlog,
      // never into scratch_.
      deliver(rh, from, scratch_);
      any = true;
    }
    return any;
  }

  std::size_t drain_into_backlog() {
    std::size_t n = 0;
    for (node_id from = 0; from < nodes(); ++from) {
      ring_view& r = inbound_[from];
      record_header rh;
      while (r.peek(rh)) {
        owned_record rec{rh, from, std::vector<std::byte>(rh.length)};
        r.read_payload(rh, rec.payload.data());
        r.pop(rh);
        service_watch_.took_one();
        backlog_.push_back(std::move(rec));
        ++n;
      }
      if (n) notify_space(r);
    }
    return n;
  }

  void notify_space(ring_view& r) {
    ring_header& h = r.header();
    if (h.space_waiters.load(std::memory_order_seq_cst) == 0) return;
    h.space_seq.fetch_add(1, std::memory_order_release);
    futex::wake_all(h.space_seq, futex::scope::shared);
  }

  void deliver(const record_header& rh, node_id from, const std::vector<std::byte>& payload) {
    std::span<const std::byte> bytes(payload.data(), rh.length);
    switch (rh.kind) {
      case record_kind::send:
        dispatch(rh.handler, from, bytes, false, 0);
        return;
      case record_kind::call:
        dispatch(rh.handler, from, bytes, true, rh.cookie);
        return;
      case record_kind::slot_ready:
        reply_slots_.deliver_ready(rh.cookie);
        return;
      case record_kind::reply: {
        if (reply_slots::is_slot_cookie(rh.cookie)) {
          reply_slots_.deliver_from_ring(rh.cookie, bytes);
          return;
        }
        auto* pending = reinterpret_cast<pending_call*>(static_cast<std::uintptr_t>(rh.cookie));
        pending->reply->assign(bytes.begin(), bytes.end());
        completion* done = pending->done;
        delete pending;
        done->finish();  // the caller may return and free its buffers now
        return;
      }
    }
    fatal("corrupt message from node %u (kind %u)", from, static_cast<unsigned>(rh.kind));
  }

  struct alignas(64) padded_mutex {
    std::mutex m;
  };

  std::uint64_t partition_bytes_;
  segment_fds fds_;
  std::vector<memory_region> regions_;
  control_layout layout_;
  std::vector<ring_view> inbound_;   // indexed by sender
  service_watch service_watch_;      // whether records wait in inbound_ for a starved service thread
  std::vector<ring_view> outbound_;  // indexed by receiver
  std::vector<padded_mutex> send_locks_;
  std::byte* control_ = nullptr;
  reply_slots reply_slots_;
  std::byte* window_ = nullptr;
  std::thread service_;
  std::atomic<bool> stopping_{false};
  std::deque<owned_record> backlog_;  // service thread only
  std::vector<std::byte> scratch_;    // service thread only
  std::unique_ptr<delay_line> delay_;  // delayed mode only; stopped first
};

}  // namespace

home_memory home_memory_for(const launch_info& launch) {
  if (launch.launched) {
    launch_fds.control_fd =
        static_cast<int>(env::required_number(launch::env_shm_control_fd, 0, 1 << 20));
    launch_fds.heap_fd = static_cast<int>(env::required_number(launch::env_shm_heap_fd, 0, 1 << 20));
  } else if (!create_segments(1, launch.partition_bytes, launch_fds)) {
    fatal("cannot create the one-node shared segments: %s", std::strerror(errno));
  }
  // The layout of shm_segments.hpp: partitions by node id, then the static data.
  return {launch_fds.heap_fd, launch.self * launch.partition_bytes,
          launch.nodes * launch.partition_bytes};
}

std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions) {
  if (launch_fds.heap_fd < 0) fatal("the shm transport was made before its home memory");
  return std::make_unique<shm_transport>(launch.self, launch.nodes, launch.partition_bytes,
                                         launch_fds, regions);
}

}  // namespace dstd::rt::shm
