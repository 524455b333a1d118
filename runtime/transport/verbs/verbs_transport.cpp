// The verbs backend; see verbs_transport.hpp.
//
// Threads: any thread posts work requests (a per-peer mutex keeps a queue
// pair's send queue and its backlog in order). Whoever drives progress
// polls the completion queue, one thread at a time (a flag; the others
// yield): the service thread in its loop, and every thread that blocks on
// a completion, since a worker blocked in a fault handler may hold a page
// lock the service thread waits for inside a handler. Polling never runs a
// handler: messages for handlers go to the inbox, which only the service
// thread dispatches; replies, key requests and atomics served here are
// answered while polling, with inline sends (no staging buffer to wait for).
//
// A send queue that is full does not block its poster: the work request
// waits in its peer's backlog and is posted when a completion frees room
// (or, when per-peer order says it must wait for earlier work, when that
// work completes: may_post), so a thread inside progress can always answer.
#include "runtime/transport/verbs/verbs_transport.hpp"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/runtime_libraries.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/home_window.hpp"
#include "runtime/transport/region_table.hpp"
#include "runtime/transport/service_thread.hpp"
#include "runtime/transport/verbs/verbs_buffers.hpp"
#include "runtime/transport/verbs/verbs_connect.hpp"
#include "runtime/transport/verbs/verbs_device.hpp"
#include "runtime/transport/verbs/verbs_keys.hpp"
#include "runtime/transport/verbs/verbs_wire.hpp"
#include "runtime/transport/waiting.hpp"
#include "runtime/transport/wireup/wireup.hpp"

namespace dstd::rt::verbs {

namespace {

thread_local bool is_service_thread = false;

// A slot holds a whole message (header and the largest payload), or one
// piece of a read or write.
constexpr std::size_t slot_bytes = 64 * 1024;
static_assert(sizeof(wire_header) + transport::max_payload <= slot_bytes);
constexpr std::uint32_t staging_slots = 128;
constexpr std::uint32_t receive_slots = 256;
constexpr std::uint32_t send_depth = 256;       // work requests in flight per queue pair
// Inline bytes a queue pair asks for: what rxe accepts. Answers sent while
// polling (keys, atomics) must fit, since they cannot wait for a slot.
constexpr std::uint32_t inline_limit = 512;
static_assert(sizeof(wire_header) + sizeof(atomic_operands) <= inline_limit);
constexpr std::uint64_t receive_tag = std::uint64_t{1} << 63;  // in a receive's wr_id
// A peer whose connection ends is lost unless the run ends within this.
constexpr auto disconnect_grace = std::chrono::milliseconds(1000);
constexpr auto cm_check_interval = std::chrono::milliseconds(50);
constexpr int idle_sleep_ms = 100;

// A node's wire-up blob.
struct peer_record {
  join_record join;
  char host[64];
  listen_address address;
};

struct pending_call {
  std::vector<std::byte>* reply;
  completion* done;
};

struct key_wait {
  completion done;
  bool found = false;
  std::uint32_t rkey = 0;
};

// An atomic served at its home, until the home answers.
struct atomic_wait {
  std::uint64_t* old;
  completion* done;
  node_id home;
};

// A message for a handler, waiting in the inbox for the service loop.
struct inbound {
  wire_header header;
  std::vector<std::byte> payload;
};

// One work request, from posting to its completion (its wr_id).
struct work {
  enum class what : std::uint8_t { send, read, write, nic_atomic };
  what kind = what::send;
  node_id peer = 0;
  completion* done = nullptr;          // reads, writes, NIC atomics
  std::uint32_t slot = buffer_pool::none;
  void* read_into = nullptr;           // a read's destination
  std::uint64_t* result = nullptr;     // a NIC atomic's old value
  std::vector<std::byte> inline_copy;  // inline sends and writes
  ibv_send_wr wr{};
  ibv_sge sge{};
};

struct peer_state {
  std::mutex mutex;  // the queue pair's send queue and backlog
  ibv_qp* qp = nullptr;
  std::uint32_t in_flight = 0;
  std::uint32_t reads_in_flight = 0;   // RDMA reads and NIC atomics posted, not completed
  std::uint32_t writes_in_flight = 0;  // RDMA writes posted, not completed
  std::deque<work*> backlog;
  std::atomic<std::uint32_t> atomics_at_home{0};  // served there, not answered yet
};

const char* op_name(work::what w) {
  switch (w) {
    case work::what::send: return "a message";
    case work::what::read: return "a read (RDMA_READ)";
    case work::what::write: return "a write (RDMA_WRITE)";
    case work::what::nic_atomic: return "an atomic";
  }
  return "an operation";
}

class verbs_transport final : public transport {
 public:
  verbs_transport(const launch_info& launch, std::span<const memory_region> regions)
      : transport(launch.self, launch.nodes),
        launch_(launch),
        regions_(regions.begin(), regions.end()),
        peers_(std::make_unique<peer_state[]>(launch.nodes)) {
    home_window::map(launch, regions_, "verbs");
    device_ = open_device();
    // libibverbs, librdmacm, the device's provider and libnl keep their
    // locks in the global heap: they are the runtime's own code.
    static constexpr const char* libraries[] = {"/libibverbs.so", "/librdmacm.so", "/libibverbs/",
                                                "/libnl-3.so", "/libnl-route-3.so"};
    note_runtime_libraries(libraries, std::size(libraries));
    make_queues();
    keys_home_ = std::make_unique<home_keys>(pd_, regions_, self());
    connector_ = std::make_unique<connector>(device_);
    waiting::set_progress_driver(&drive, this);
  }

  const char* name() const override { return "verbs"; }
  // Without NIC atomics that are atomic with the CPU's, each atomic is a
  // message to the home (atomic_at_home).
  bool one_sided_bypasses_target() const override { return device_.atomics_with_cpu; }
  bool on_service_thread() const override { return is_service_thread; }

  // --- lifecycle -------------------------------------------------------------

  std::vector<join_record> rendezvous(const join_record& mine, unsigned timeout_ms) override {
    peer_record record{};
    record.join = mine;
    std::memcpy(record.host, launch_.host, sizeof record.host);
    record.address = connector_->address();
    std::vector<std::byte> blob(sizeof record);
    std::memcpy(blob.data(), &record, sizeof record);
    const auto blobs = wireup::exchange(launch_, blob, timeout_ms);

    std::vector<join_record> joins(nodes());
    std::vector<listen_address> addresses(nodes());
    hosts_.resize(nodes());
    for (node_id n = 0; n < nodes(); ++n) {
      peer_record r{};
      if (blobs[n].size() != sizeof r) fatal("node %u's wire-up record has the wrong length", n);
      std::memcpy(&r, blobs[n].data(), sizeof r);
      r.host[sizeof r.host - 1] = '\0';
      joins[n] = r.join;
      hosts_[n] = r.host;
      addresses[n] = r.address;
    }
    const queue_pair_shape shape{pd_, cq_, srq_, send_depth, inline_limit, device_.read_depth};
    const std::vector<ibv_qp*> qps =
        connector_->connect_all(self(), addresses, hosts_, shape, timeout_ms);
    for (node_id n = 0; n < nodes(); ++n) peers_[n].qp = qps[n];
    return joins;
  }

  void start() override { service_ = std::thread([this] { service_loop(); }); }

  void drain() override {
    while (outstanding_.load(std::memory_order_acquire) != 0) {
      if (progress() == 0) sched_yield();
    }
  }

  void stop() override {
    run_ending();
    drain();
    if (!service_.joinable()) return;
    stopping_.store(true, std::memory_order_release);
    wakeup_.ring();
    service_.join();
  }

  void run_ending() override { ending_.store(true, std::memory_order_release); }

  // --- one-sided -------------------------------------------------------------

  void post_read(void* dst, gaddr src, std::size_t len, completion& c) override {
    const memory_region& r = rt::region_of(regions_, src, len, "read");
    count_one_sided();
    if (r.home == self()) {
      home_window::read_here(r, dst, src, len);
      done_here(c);
      return;
    }
    wait_for_atomics_at(r.home);
    rt::for_each_piece(src, len, chunk_bytes, slot_bytes, c,
                       [&](gaddr at, std::size_t n, std::size_t offset) {
      work* w = new work{};
      w->kind = work::what::read;
      w->peer = r.home;
      w->done = &c;
      w->read_into = static_cast<std::byte*>(dst) + offset;
      stage(*w, nullptr, n);
      remote(*w, IBV_WR_RDMA_READ, r, at);
      submit(w);
    });
  }

  void post_write(gaddr dst, const void* src, std::size_t len, completion& c) override {
    const memory_region& r = rt::region_of(regions_, dst, len, "write");
    count_one_sided();
    if (r.home == self()) {
      home_window::write_here(r, dst, src, len);
      done_here(c);
      return;
    }
    wait_for_atomics_at(r.home);
    rt::for_each_piece(dst, len, chunk_bytes, slot_bytes, c,
                       [&](gaddr at, std::size_t n, std::size_t offset) {
      work* w = new work{};
      w->kind = work::what::write;
      w->peer = r.home;
      w->done = &c;
      stage(*w, static_cast<const std::byte*>(src) + offset, n);
      remote(*w, IBV_WR_RDMA_WRITE, r, at);
      submit(w);
    });
  }

  void post_compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired,
                         std::uint64_t* old, completion& c) override {
    const memory_region& r = rt::atomic_region(regions_, target, "compare-and-swap");
    count_one_sided();
    if (r.home == self()) {
      *old = home_window::compare_swap_here(r, target, expected, desired);
      done_here(c);
      return;
    }
    if (!device_.atomics_with_cpu) {
      atomic_at_home(atomic_op::compare_swap, r.home, target, expected, desired, old, c);
      return;
    }
    work* w = nic_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, r, target, old, c);
    w->wr.wr.atomic.compare_add = expected;
    w->wr.wr.atomic.swap = desired;
    submit(w);
  }

  void post_fetch_add(gaddr target, std::uint64_t add, std::uint64_t* old,
                      completion& c) override {
    const memory_region& r = rt::atomic_region(regions_, target, "fetch-and-add");
    count_one_sided();
    if (r.home == self()) {
      *old = home_window::fetch_add_here(r, target, add);
      done_here(c);
      return;
    }
    if (!device_.atomics_with_cpu) {
      atomic_at_home(atomic_op::fetch_add, r.home, target, add, 0, old, c);
      return;
    }
    work* w = nic_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, r, target, old, c);
    w->wr.wr.atomic.compare_add = add;
    submit(w);
  }

  // --- two-sided -------------------------------------------------------------

  void post_send(node_id to, handler_id h, const void* payload, std::size_t len) override {
    send_message(to, wire_header{self(), h, wire_kind::send, atomic_op{}, 0}, payload, len);
  }

  void post_call(node_id to, handler_id h, const void* payload, std::size_t len,
                 std::vector<std::byte>& reply, completion& c) override {
    auto* pending = new pending_call{&reply, &c};
    send_message(to,
                 wire_header{self(), h, wire_kind::call, atomic_op{},
                             reinterpret_cast<std::uintptr_t>(pending)},
                 payload, len);
  }

  void reply(const reply_token& t, const void* data, std::size_t len) override {
    send_message(t.to, wire_header{self(), 0, wire_kind::reply, atomic_op{}, t.cookie}, data, len);
  }

 private:
  // --- setting up ------------------------------------------------------------

  void make_queues() {
    pd_ = ibv_alloc_pd(device_.context);
    if (pd_ == nullptr) fatal("verbs: cannot allocate a protection domain on %s", device_.name.c_str());
    channel_ = ibv_create_comp_channel(device_.context);
    if (channel_ == nullptr) {
      fatal("verbs: cannot create a completion channel on %s: %s", device_.name.c_str(),
            std::strerror(errno));
    }
    const int flags = fcntl(channel_->fd, F_GETFL);
    if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) != 0) {
      fatal("verbs: cannot make the completion channel non-blocking: %s", std::strerror(errno));
    }
    const std::uint64_t entries = std::uint64_t{nodes()} * send_depth + receive_slots + 16;
    if (entries > device_.max_cqe || send_depth > device_.max_qp_wr ||
        receive_slots > device_.max_srq_wr) {
      fatal("verbs: device %s is too small for %u nodes (%lu completion entries, %u send and "
            "%u receive entries needed)", device_.name.c_str(), nodes(),
            static_cast<unsigned long>(entries), send_depth, receive_slots);
    }
    cq_ = ibv_create_cq(device_.context, static_cast<int>(entries), nullptr, channel_, 0);
    if (cq_ == nullptr) {
      fatal("verbs: cannot create a completion queue on %s: %s", device_.name.c_str(),
            std::strerror(errno));
    }
    ibv_srq_init_attr srq{};
    srq.attr.max_wr = receive_slots;
    srq.attr.max_sge = 1;
    srq_ = ibv_create_srq(pd_, &srq);
    if (srq_ == nullptr) {
      fatal("verbs: cannot create a shared receive queue on %s: %s", device_.name.c_str(),
            std::strerror(errno));
    }
    staging_ = std::make_unique<buffer_pool>(pd_, staging_slots, slot_bytes,
                                             IBV_ACCESS_LOCAL_WRITE, "staging buffers");
    receives_ = std::make_unique<buffer_pool>(pd_, receive_slots, slot_bytes,
                                              IBV_ACCESS_LOCAL_WRITE, "receive buffers");
    for (std::uint32_t i = 0; i < receive_slots; ++i) post_receive(i);
  }

  void post_receive(std::uint32_t i) {
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(receives_->slot(i)),
                static_cast<std::uint32_t>(slot_bytes), receives_->lkey()};
    ibv_recv_wr wr{};
    wr.wr_id = receive_tag | i;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (const int e = ibv_post_srq_recv(srq_, &wr, &bad); e != 0) {
      fatal("verbs: cannot post a receive buffer on %s: %s", device_.name.c_str(), std::strerror(e));
    }
  }

  // --- posting ---------------------------------------------------------------

  void done_here(completion& c) {
    chaos::point();
    c.finish();
  }

  std::string peer_name(node_id n) const {
    const char* host = n < hosts_.size() ? hosts_[n].c_str() : "?";
    return "node " + std::to_string(n) + " (host " + host + ")";
  }

  // Puts `bytes` bytes of `w` in a staging slot (copied from `from` unless
  // null: a read's), or inline when it is a small send or write.
  void stage(work& w, const void* from, std::size_t bytes) {
    std::byte* at = nullptr;
    if (from != nullptr && bytes <= inline_limit) {
      w.inline_copy.assign(static_cast<const std::byte*>(from),
                           static_cast<const std::byte*>(from) + bytes);
      at = w.inline_copy.data();
      w.wr.send_flags |= IBV_SEND_INLINE;
    } else {
      w.slot = take_slot();
      at = staging_->slot(w.slot);
      w.sge.lkey = staging_->lkey();
      if (from != nullptr) std::memcpy(at, from, bytes);
    }
    w.sge.addr = reinterpret_cast<std::uintptr_t>(at);
    w.sge.length = static_cast<std::uint32_t>(bytes);
  }

  // A free staging slot, making progress until one is. Never called while
  // polling (answers are inline).
  std::uint32_t take_slot() {
    for (;;) {
      const std::uint32_t s = staging_->try_take();
      if (s != buffer_pool::none) return s;
      if (progress() == 0) sched_yield();
    }
  }

  void remote(work& w, ibv_wr_opcode op, const memory_region& r, gaddr at) {
    w.wr.opcode = op;
    w.wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(home_window::of(r, at));
    w.wr.wr.rdma.rkey = key_for(r.home, at);
  }

  work* nic_atomic(ibv_wr_opcode op, const memory_region& r, gaddr target, std::uint64_t* old,
                   completion& c) {
    wait_for_atomics_at(r.home);
    work* w = new work{};
    w->kind = work::what::nic_atomic;
    w->peer = r.home;
    w->done = &c;
    w->result = old;
    stage(*w, nullptr, sizeof(std::uint64_t));
    w->wr.opcode = op;
    w->wr.wr.atomic.remote_addr = reinterpret_cast<std::uintptr_t>(home_window::of(r, target));
    w->wr.wr.atomic.rkey = key_for(r.home, target);
    return w;
  }

  // Per-peer order for atomics served at the home: they take effect when
  // the home's poller gets them, which a later RDMA read or write does not
  // wait for; so one-sided operations to that peer wait for their answers.
  void wait_for_atomics_at(node_id home) {
    while (peers_[home].atomics_at_home.load(std::memory_order_acquire) != 0) {
      if (progress() == 0) sched_yield();
    }
  }

  void atomic_at_home(atomic_op op, node_id home, gaddr target, std::uint64_t operand,
                      std::uint64_t desired, std::uint64_t* old, completion& c) {
    auto* wait = new atomic_wait{old, &c, home};
    peers_[home].atomics_at_home.fetch_add(1, std::memory_order_acq_rel);
    const atomic_operands body{target, operand, desired};
    send_wire(home, wire_header{self(), 0, wire_kind::atomic_request, op,
                                reinterpret_cast<std::uintptr_t>(wait)},
              &body, sizeof body);
  }

  // The key of `home`'s chunk holding `a`: asked for once, then kept.
  std::uint32_t key_for(node_id home, gaddr a) {
    const std::uint64_t chunk = chunk_of(a);
    if (auto key = keys_.find(home, chunk)) return *key;
    key_wait wait;
    wait.done.expect();
    send_wire(home, wire_header{self(), 0, wire_kind::key_request, atomic_op{},
                                reinterpret_cast<std::uintptr_t>(&wait)},
              &chunk, sizeof chunk);
    wait.done.wait();
    if (!wait.found) {
      fatal("verbs: %s registers no memory at %#lx", peer_name(home).c_str(),
            static_cast<unsigned long>(a));
    }
    keys_.add(home, chunk, wait.rkey);
    return wait.rkey;
  }

  void send_message(node_id to, const wire_header& h, const void* payload, std::size_t len) {
    if (to >= nodes()) fatal("message to node %u, but the run has %u nodes", to, nodes());
    if (len > max_payload) fatal("message of %zu bytes exceeds the limit of %zu", len, max_payload);
    note_message_sent(to, h.kind == wire_kind::reply ? "reply" : handler_name(h.handler), len);
    chaos::point();  // about to send
    send_wire(to, h, payload, len);
  }

  // A SEND of the header and body, from a copy. To this node itself, no
  // queue pair: the message is answered (queued, for a handler) at once.
  void send_wire(node_id to, const wire_header& h, const void* body, std::size_t len) {
    if (to == self()) {
      answer(h, std::span<const std::byte>(static_cast<const std::byte*>(body), len));
      return;
    }
    std::byte message[inline_limit];
    const std::size_t bytes = sizeof h + len;
    work* w = new work{};
    w->kind = work::what::send;
    w->peer = to;
    if (bytes <= sizeof message) {
      std::memcpy(message, &h, sizeof h);
      if (len != 0) std::memcpy(message + sizeof h, body, len);
      stage(*w, message, bytes);
    } else {
      stage(*w, nullptr, bytes);
      std::byte* at = staging_->slot(w->slot);
      std::memcpy(at, &h, sizeof h);
      std::memcpy(at + sizeof h, body, len);
    }
    w->wr.opcode = IBV_WR_SEND;
    submit(w);
  }

  // Posts `w` on its peer's queue pair, or queues it behind the backlog.
  void submit(work* w) {
    w->wr.wr_id = reinterpret_cast<std::uintptr_t>(w);
    w->wr.sg_list = &w->sge;
    w->wr.num_sge = 1;
    w->wr.send_flags |= IBV_SEND_SIGNALED;
    peer_state& p = peers_[w->peer];
    if (p.qp == nullptr) fatal("verbs: %s is not connected", peer_name(w->peer).c_str());
    // After stop() nothing would complete it: say so rather than hang.
    if (stopping_.load(std::memory_order_acquire)) {
      fatal("verbs: %s to %s after this node left the run", op_name(w->kind),
            peer_name(w->peer).c_str());
    }
    outstanding_.fetch_add(1, std::memory_order_acq_rel);
    std::lock_guard<std::mutex> lock(p.mutex);
    p.backlog.push_back(w);
    post_backlog(p);
  }

  // Per-peer order. The responder runs a queue pair's requests in order,
  // but a read's (or an atomic's) data may be fetched after a later request
  // has taken effect: so what changes memory or runs a handler after an
  // unfinished read or atomic waits for it. A read after an unfinished
  // write waits too (the order the old fence gave, below).
  //
  // Waiting is done here, not by the device: work that must wait stays at
  // the head of the backlog (and all later work behind it) until the
  // completions it waits for are polled. It used to be posted at once with
  // IBV_SEND_FENCE, but Soft-RoCE's requester parks a fenced request
  // until its completer, retiring an earlier one, restarts it, and the two
  // race: now and then the restart was lost and the run hung with every
  // thread idle (45 requests posted, none sent, nothing unacknowledged on
  // either queue pair, no packet in 10 s; transport_test's
  // PostedReadsWritesAndMessages... hung at its first run over rxe). Reads
  // and NIC atomics beyond the connection's read depth wait here too, as
  // rxe parks those the same way. The cost is the fence's: it also held
  // the queue pair until the earlier requests were acknowledged.
  bool may_post(const peer_state& p, const work& w) const {
    if (p.in_flight >= send_depth) return false;
    if (is_read(w)) return p.writes_in_flight == 0 && p.reads_in_flight < device_.read_depth;
    return p.reads_in_flight == 0;
  }

  static bool is_read(const work& w) {
    return w.kind == work::what::read || w.kind == work::what::nic_atomic;
  }

  // Posts the backlog's head while it may go (the peer's mutex held).
  void post_backlog(peer_state& p) {
    while (!p.backlog.empty() && may_post(p, *p.backlog.front())) {
      post_now(p, p.backlog.front());
      p.backlog.pop_front();
    }
  }

  void post_now(peer_state& p, work* w) {
    ibv_send_wr* bad = nullptr;
    if (const int e = ibv_post_send(p.qp, &w->wr, &bad); e != 0) {
      fatal("verbs: cannot post %s to %s: %s", op_name(w->kind), peer_name(w->peer).c_str(),
            std::strerror(e));
    }
    count_in_flight(p, *w, +1);
  }

  static void count_in_flight(peer_state& p, const work& w, int step) {
    p.in_flight += step;
    if (is_read(w)) p.reads_in_flight += step;
    if (w.kind == work::what::write) p.writes_in_flight += step;
  }

  // --- completions (whichever thread progresses) ------------------------------

  // The progress driver of every blocked wait (waiting.hpp).
  static void drive(void* self) {
    if (static_cast<verbs_transport*>(self)->progress() == 0) sched_yield();
  }

  // Polls the completion queue, unless another thread is doing it (then 0).
  unsigned progress() {
    if (progressing_.exchange(true, std::memory_order_acquire)) return 0;
    ibv_wc done[16];
    const int n = ibv_poll_cq(cq_, 16, done);
    if (n < 0) fatal("verbs: polling the completion queue of %s failed", device_.name.c_str());
    for (int i = 0; i < n; ++i) {
      if (done[i].wr_id & receive_tag) {
        received(done[i]);
      } else {
        finished(done[i]);
      }
    }
    progressing_.store(false, std::memory_order_release);
    return static_cast<unsigned>(n);
  }

  bool ending() const { return ending_.load(std::memory_order_acquire); }

  void finished(const ibv_wc& wc) {
    work* w = reinterpret_cast<work*>(static_cast<std::uintptr_t>(wc.wr_id));
    if (wc.status != IBV_WC_SUCCESS && !ending()) {
      fatal("verbs: %s to %s failed: %s (its queue pair is in the error state; is the node "
            "gone?)", op_name(w->kind), peer_name(w->peer).c_str(), ibv_wc_status_str(wc.status));
    }
    if (wc.status == IBV_WC_SUCCESS) {
      if (w->kind == work::what::read) {
        std::memcpy(w->read_into, staging_->slot(w->slot), w->sge.length);
      } else if (w->kind == work::what::nic_atomic) {
        std::memcpy(w->result, staging_->slot(w->slot), sizeof(std::uint64_t));
      }
    }
    if (w->slot != buffer_pool::none) staging_->give_back(w->slot);
    completion* c = wc.status == IBV_WC_SUCCESS ? w->done : nullptr;
    {
      peer_state& p = peers_[w->peer];
      std::lock_guard<std::mutex> lock(p.mutex);
      count_in_flight(p, *w, -1);
      post_backlog(p);
    }
    delete w;
    outstanding_.fetch_sub(1, std::memory_order_acq_rel);
    if (c != nullptr) c->finish();
  }

  void received(const ibv_wc& wc) {
    const auto slot = static_cast<std::uint32_t>(wc.wr_id & ~receive_tag);
    if (wc.status != IBV_WC_SUCCESS) {
      if (ending()) return;
      fatal("verbs: a receive on %s failed: %s", device_.name.c_str(), ibv_wc_status_str(wc.status));
    }
    const std::byte* bytes = receives_->slot(slot);
    wire_header h;
    if (wc.byte_len < sizeof h) fatal("verbs: a message of %u bytes, shorter than its header", wc.byte_len);
    std::memcpy(&h, bytes, sizeof h);
    if (h.from >= nodes()) fatal("verbs: a message from node %u, but the run has %u nodes", h.from, nodes());
    const std::span<const std::byte> body(bytes + sizeof h, wc.byte_len - sizeof h);
    answer(h, body);
    post_receive(slot);
  }

  template <class T>
  T body_as(const wire_header& h, std::span<const std::byte> body) const {
    T v;
    if (body.size() != sizeof v) {
      fatal("verbs: a malformed message (kind %u, %zu bytes) from %s", static_cast<unsigned>(h.kind),
            body.size(), peer_name(h.from).c_str());
    }
    std::memcpy(&v, body.data(), sizeof v);
    return v;
  }

  void answer(const wire_header& h, std::span<const std::byte> body) {
    switch (h.kind) {
      case wire_kind::reply: {
        auto* pending = reinterpret_cast<pending_call*>(static_cast<std::uintptr_t>(h.cookie));
        pending->reply->assign(body.begin(), body.end());
        completion* done = pending->done;
        delete pending;
        done->finish();  // the caller may return and free its buffers now
        return;
      }
      case wire_kind::key_request: {
        const auto key = keys_home_->rkey(body_as<std::uint64_t>(h, body));
        const key_answer a{key ? 1u : 0u, key.value_or(0)};
        send_wire(h.from, wire_header{self(), 0, wire_kind::key_reply, atomic_op{}, h.cookie}, &a,
                  sizeof a);
        return;
      }
      case wire_kind::key_reply: {
        const auto a = body_as<key_answer>(h, body);
        auto* wait = reinterpret_cast<key_wait*>(static_cast<std::uintptr_t>(h.cookie));
        wait->found = a.found != 0;
        wait->rkey = a.rkey;
        wait->done.finish();
        return;
      }
      case wire_kind::atomic_request: {
        const std::uint64_t old = serve_atomic(h, body_as<atomic_operands>(h, body));
        send_wire(h.from, wire_header{self(), 0, wire_kind::atomic_reply, h.op, h.cookie}, &old,
                  sizeof old);
        return;
      }
      case wire_kind::atomic_reply: {
        const auto old = body_as<std::uint64_t>(h, body);
        auto* wait = reinterpret_cast<atomic_wait*>(static_cast<std::uintptr_t>(h.cookie));
        *wait->old = old;
        completion* done = wait->done;
        peers_[wait->home].atomics_at_home.fetch_sub(1, std::memory_order_acq_rel);
        delete wait;
        done->finish();
        return;
      }
      case wire_kind::send:
      case wire_kind::call: {
        inbox_.push(inbound{h, std::vector<std::byte>(body.begin(), body.end())});
        if (!is_service_thread) wakeup_.posted();
        return;
      }
    }
    fatal("verbs: a message of unknown kind %u from %s", static_cast<unsigned>(h.kind),
          peer_name(h.from).c_str());
  }

  // A peer's atomic, as a CPU atomic on the window: atomic with the home's
  // own (home_window.hpp), which is why atomics are served here.
  std::uint64_t serve_atomic(const wire_header& h, const atomic_operands& a) {
    const memory_region& r = rt::atomic_region(regions_, a.target, "an atomic served here");
    if (r.home != self()) {
      fatal("verbs: %s asked this node for an atomic at %#lx, which node %u homes",
            peer_name(h.from).c_str(), static_cast<unsigned long>(a.target), r.home);
    }
    if (h.op == atomic_op::compare_swap) {
      return home_window::compare_swap_here(r, a.target, a.operand, a.desired);
    }
    return home_window::fetch_add_here(r, a.target, a.operand);
  }

  // --- the service thread ------------------------------------------------------

  // Runs the handlers of the oldest messages, a bounded batch so that the
  // loop keeps polling; false when the inbox was empty.
  bool dispatch_inbox() {
    return inbox_.dispatch_batch([this](inbound& m) {
      dispatch(m.header.handler, m.header.from, m.payload, m.header.kind == wire_kind::call,
               m.header.cookie);
    });
  }

  // A peer whose connection ended is lost, unless the run ends within the
  // grace (at the end of a run peers leave on their own, maybe before this
  // node hears that it is ending).
  // The rdma_cm channel is read every cm_check_interval (a system call
  // each), not at every turn of the loop.
  void end_if_a_peer_is_lost() {
    const auto now = std::chrono::steady_clock::now();
    if (!lost_) {
      if (now - last_cm_check_ < cm_check_interval) return;
      last_cm_check_ = now;
      if (auto peer = connector_->lost_peer()) lost_ = {*peer, now};
      return;
    }
    if (ending()) return;
    if (now - lost_->since >= disconnect_grace) {
      fatal("lost %s: its RDMA connection ended", peer_name(lost_->node).c_str());
    }
  }

  template <class B>
  friend void rt::run_service_loop(B&, const std::atomic<bool>&, const service_wakeup&);

  void service_loop() {
    is_service_thread = true;
    trace::name_this_thread("service", -1);
    run_service_loop(*this, stopping_, wakeup_);
  }

  // Sleeps until a completion, a queued message or a connection event, at
  // most idle_sleep_ms (10 ms while a lost peer's grace runs).
  void sleep_until_traffic(std::uint64_t posts_seen) {
    pollfd fds[2] = {{channel_->fd, POLLIN, 0}, {connector_->event_fd(), POLLIN, 0}};
    wakeup_.sleep(posts_seen, [this] { return arm_completions(); }, fds,
                  lost_ ? 10 : idle_sleep_ms);
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if ((fds[0].revents & POLLIN) && ibv_get_cq_event(channel_, &cq, &context) == 0) {
      ibv_ack_cq_events(cq, 1);
    }
  }

  // Asks for an event at the next completion; false when completions are
  // already waiting (poll them instead of sleeping) or another thread polls.
  bool arm_completions() {
    if (progressing_.load(std::memory_order_acquire)) return false;
    if (const int e = ibv_req_notify_cq(cq_, 0); e != 0) {
      fatal("verbs: cannot arm the completion queue of %s: %s", device_.name.c_str(),
            std::strerror(e));
    }
    return progress() == 0 && !progressing_.load(std::memory_order_acquire);
  }

  struct lost_peer {
    node_id node;
    std::chrono::steady_clock::time_point since;
  };

  launch_info launch_;
  std::vector<memory_region> regions_;
  device device_;
  ibv_pd* pd_ = nullptr;
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_srq* srq_ = nullptr;
  std::unique_ptr<buffer_pool> staging_;
  std::unique_ptr<buffer_pool> receives_;
  std::unique_ptr<home_keys> keys_home_;
  peer_keys keys_;
  std::unique_ptr<connector> connector_;
  std::unique_ptr<peer_state[]> peers_;
  std::vector<std::string> hosts_;
  std::atomic<std::uint64_t> outstanding_{0};  // work requests not completed yet
  std::atomic<bool> progressing_{false};       // a thread is polling the completion queue
  std::atomic<bool> ending_{false};
  std::optional<lost_peer> lost_;              // service thread only
  std::chrono::steady_clock::time_point last_cm_check_{};  // service thread only
  service_inbox<inbound> inbox_;
  service_wakeup wakeup_{"verbs"};             // other threads wake the service thread
  std::thread service_;
  std::atomic<bool> stopping_{false};
};

}  // namespace

home_memory home_memory_for(const launch_info& launch) {
  // The static data follows the partition (node 0 only uses it).
  return home_window::create(launch, "verbs");
}

std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions) {
  return std::make_unique<verbs_transport>(launch, regions);
}

}  // namespace dstd::rt::verbs
