// The ucx backend; see ucx_transport.hpp.
//
// Threads: any thread may post (the worker is made thread-safe, UCS
// thread mode MULTI). The service thread progresses the worker in its
// loop, and so does every thread that blocks on a completion
// (waiting.hpp's progress driver), one thread at a time: a worker blocked
// in a fault handler holds a page lock that the service thread may be
// waiting for inside a handler, so it must be able to finish its own read.
// So UCX callbacks run on any thread. Receive callbacks never run
// handlers: they copy the message into the inbox, which the service loop
// dispatches outside progress, and wake the service thread when another
// thread queued it. Replies, key requests and key replies are answered
// inside the callback (they run no user code), so a thread waiting inside
// a handler still gets them.
//
// Home memory is a node-private memfd. The node maps it twice: at its
// global addresses, for the program, and in a window (the same layout as
// shm's: layout::window_at(the region table's backing offsets))
// that peers' one-sided operations and the node's own transport operations
// use. The window is never protected by coherence, so UCX's copies at the
// home never fault.
#include "runtime/transport/ucx/ucx_transport.hpp"

#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <ucm/api/ucm.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/common/backoff.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/common/runtime_libraries.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/home_window.hpp"
#include "runtime/transport/peer_lifelines.hpp"
#include "runtime/transport/region_table.hpp"
#include "runtime/transport/service_thread.hpp"
#include "runtime/transport/ucx/peer_health.hpp"
#include "runtime/transport/ucx/ucx_keys.hpp"
#include "runtime/transport/ucx/ucx_status.hpp"
#include "runtime/transport/waiting.hpp"
#include "runtime/transport/wireup/wireup.hpp"

namespace dstd::rt::ucx {

namespace {

thread_local bool is_service_thread = false;

// --- what travels --------------------------------------------------------------

enum am_id : unsigned { am_message = 1, am_key_request = 2, am_key_reply = 3, am_heartbeat = 4 };
enum class message_kind : std::uint8_t { send, call, reply };

struct message_header {
  std::uint32_t from;
  std::uint16_t handler;
  message_kind kind;
  std::uint8_t unused;
  std::uint64_t cookie;  // call: its pending_call; reply: the call's cookie
};

struct key_request_header {
  std::uint32_t from;
  std::uint32_t unused;
  std::uint64_t chunk;
  std::uint64_t cookie;  // the requester's key_wait
};

struct key_reply_header {
  std::uint32_t from;
  std::uint32_t found;  // 0: no memory homed there; the data is the packed key
  std::uint64_t chunk;
  std::uint64_t cookie;
};

struct heartbeat_header {
  std::uint32_t from;
};

// A node's wire-up blob: this, then `address_bytes` of UCP worker address.
struct peer_record {
  join_record join;
  char host[64];
  lifeline_offer lifelines;  // node 0's, when it keeps them
  std::uint32_t address_bytes;
};

struct pending_call {
  std::vector<std::byte>* reply;
  completion* done;
};

struct key_wait {
  completion done;
  bool found = false;
  std::vector<std::byte> packed;
};

// A message received, waiting in the inbox for the service loop.
struct inbound {
  node_id from;
  message_header header;
  std::vector<std::byte> payload;
};

// An active message's header and data, owned until UCX has sent them.
struct owned_send {
  std::size_t header_bytes;
  std::size_t data_bytes;
  std::byte* header() { return reinterpret_cast<std::byte*>(this + 1); }
  std::byte* data() { return header() + header_bytes; }

  static owned_send* make(const void* header, std::size_t header_bytes, const void* data,
                          std::size_t data_bytes) {
    void* raw = std::malloc(sizeof(owned_send) + header_bytes + data_bytes);
    if (raw == nullptr) fatal("out of memory for a message of %zu bytes", data_bytes);
    auto* s = new (raw) owned_send{header_bytes, data_bytes};
    std::memcpy(s->header(), header, header_bytes);
    if (data_bytes != 0) std::memcpy(s->data(), data, data_bytes);
    return s;
  }
};

void free_owned(void* request, ucs_status_t, void* user) {
  std::free(user);
  if (request != nullptr) ucp_request_free(request);
}

// A one-sided operation's end. On failure the endpoint's error handler has
// the peer; the operation stays unfinished and the node ends.
void finish_completion(void* request, ucs_status_t status, void* user) {
  if (status == UCS_OK) static_cast<completion*>(user)->finish();
  ucp_request_free(request);
}

ucp_request_param_t with_callback(ucp_send_nbx_callback_t cb, void* user) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = cb;
  p.user_data = user;
  return p;
}

class ucx_transport;

struct endpoint_context {
  ucx_transport* transport;
  node_id peer;
};

class ucx_transport final : public transport {
 public:
  ucx_transport(const launch_info& launch, std::span<const memory_region> regions)
      : transport(launch.self, launch.nodes),
        launch_(launch),
        regions_(regions.begin(), regions.end()),
        health_(launch.self, launch.nodes, peer_health::clock::now()) {
    home_window::map(launch, regions_, "ucx");
    init_ucx();
    keys_home_ = std::make_unique<home_keys>(context_, regions_, self());
  }

  const char* name() const override { return "ucx"; }
  bool on_service_thread() const override { return is_service_thread; }

  // --- lifecycle -------------------------------------------------------------

  std::vector<join_record> rendezvous(const join_record& mine, unsigned timeout_ms) override {
    ucp_address_t* address = nullptr;
    std::size_t address_bytes = 0;
    check(ucp_worker_get_address(worker_, &address, &address_bytes), "getting the worker address");
    // Without dstdrun nobody else watches the hosts (peer_lifelines.hpp).
    if (launch_.by != launcher::dstdrun) {
      lifelines_ = std::make_unique<peer_lifelines>(self(), nodes());
    }
    peer_record record{};
    record.join = mine;
    std::memcpy(record.host, launch_.host, sizeof record.host);
    if (lifelines_) record.lifelines = lifelines_->offer();
    record.address_bytes = static_cast<std::uint32_t>(address_bytes);
    std::vector<std::byte> blob(sizeof record + address_bytes);
    std::memcpy(blob.data(), &record, sizeof record);
    std::memcpy(blob.data() + sizeof record, address, address_bytes);
    ucp_worker_release_address(worker_, address);

    const auto blobs = wireup::exchange(launch_, blob, timeout_ms);
    std::vector<join_record> joins(nodes());
    lifeline_offer node0_lifelines;
    hosts_.resize(nodes());
    endpoints_.resize(nodes());
    endpoint_contexts_.resize(nodes());
    for (node_id n = 0; n < nodes(); ++n) {
      peer_record r{};
      if (blobs[n].size() < sizeof r) fatal("node %u's wire-up record is too short", n);
      std::memcpy(&r, blobs[n].data(), sizeof r);
      if (blobs[n].size() != sizeof r + r.address_bytes) {
        fatal("node %u's wire-up record has the wrong length", n);
      }
      joins[n] = r.join;
      r.host[sizeof r.host - 1] = '\0';
      hosts_[n] = r.host;
      endpoint_contexts_[n] = endpoint_context{this, n};
      if (n == 0) node0_lifelines = r.lifelines;
      connect(n, blobs[n].data() + sizeof r);
    }
    if (lifelines_) lifelines_->connect(node0_lifelines, hosts_, timeout_ms);
    return joins;
  }

  void start() override {
    if (lifelines_) {
      lifelines_->watch([this](node_id n, bool unreachable, std::string why) {
        const auto now = peer_health::clock::now();
        if (unreachable) {
          health_.unreachable(n, std::move(why), now);
        } else {
          health_.disconnected(n, std::move(why), now);
        }
        posted();  // the service thread judges it now, not after its sleep
      });
    }
    service_ = std::thread([this] { service_loop(); });
  }

  void drain() override {
    completion flushed;
    flushed.expect();
    const ucp_request_param_t p = with_callback(finish_completion, &flushed);
    finish_now_or_later(ucp_worker_flush_nbx(worker_, &p), flushed, "flushing the worker");
    if (service_.joinable() || is_service_thread) {
      flushed.wait();
    } else {
      while (!flushed.done()) progress();
    }
  }

  void stop() override {
    health_.run_ending();
    drain();
    if (!service_.joinable()) return;
    stopping_.store(true, std::memory_order_release);
    wakeup_.ring();
    service_.join();
  }

  void run_ending() override { health_.run_ending(); }

  // --- one-sided -------------------------------------------------------------

  void post_read(void* dst, gaddr src, std::size_t len, completion& c) override {
    const memory_region& r = region_of(src, len, "read");
    count_one_sided();
    if (r.home == self()) {
      home_window::read_here(r, dst, src, len);
      done_here(c);
      return;
    }
    fence_before_read();
    for_each_piece(src, len, c, [&](gaddr at, std::size_t n, std::size_t offset) {
      const ucp_request_param_t p = with_callback(finish_completion, &c);
      finish_now_or_later(ucp_get_nbx(endpoints_[r.home], static_cast<std::byte*>(dst) + offset,
                                      n, remote(r, at), key_for(r.home, at), &p),
                          c, "a read (ucp_get_nbx)");
    });
    note_one_sided(false);
    posted();
  }

  void post_write(gaddr dst, const void* src, std::size_t len, completion& c) override {
    const memory_region& r = region_of(dst, len, "write");
    count_one_sided();
    if (r.home == self()) {
      home_window::write_here(r, dst, src, len);
      done_here(c);
      return;
    }
    fence_before_change();
    for_each_piece(dst, len, c, [&](gaddr at, std::size_t n, std::size_t offset) {
      // The source is copied at posting: the caller may reuse it at once.
      void* copy = std::malloc(n);
      if (copy == nullptr) fatal("out of memory for a write of %zu bytes", n);
      std::memcpy(copy, static_cast<const std::byte*>(src) + offset, n);
      const ucp_request_param_t put = with_callback(free_owned, copy);
      const ucs_status_ptr_t sent =
          ucp_put_nbx(endpoints_[r.home], copy, n, remote(r, at), key_for(r.home, at), &put);
      if (sent == nullptr || UCS_PTR_IS_ERR(sent)) std::free(copy);
      check_posted(sent, "a write (ucp_put_nbx)");
      // A put's own completion only frees its source; a flush of the
      // endpoint says the bytes are at the home.
      const ucp_request_param_t flush = with_callback(finish_completion, &c);
      finish_now_or_later(ucp_ep_flush_nbx(endpoints_[r.home], &flush), c, "flushing a write");
    });
    note_one_sided(true);
    posted();
  }

  void post_compare_swap(gaddr target, std::uint64_t expected, std::uint64_t desired,
                         std::uint64_t* old, completion& c) override {
    const memory_region& r = atomic_region(target, "compare-and-swap");
    count_one_sided();
    if (r.home == self()) {
      *old = home_window::compare_swap_here(r, target, expected, desired);
      done_here(c);
      return;
    }
    // UCX's compare-and-swap compares with the operand and swaps in what
    // the reply buffer holds going out; the old value comes back there.
    *old = desired;
    atomic(UCP_ATOMIC_OP_CSWAP, r, target, expected, old, c, "a compare-and-swap");
  }

  void post_fetch_add(gaddr target, std::uint64_t add, std::uint64_t* old,
                      completion& c) override {
    const memory_region& r = atomic_region(target, "fetch-and-add");
    count_one_sided();
    if (r.home == self()) {
      *old = home_window::fetch_add_here(r, target, add);
      done_here(c);
      return;
    }
    atomic(UCP_ATOMIC_OP_ADD, r, target, add, old, c, "a fetch-and-add");
  }

  // --- two-sided -------------------------------------------------------------

  void post_send(node_id to, handler_id h, const void* payload, std::size_t len) override {
    send_message(to, message_header{self(), h, message_kind::send, 0, 0}, payload, len);
  }

  void post_call(node_id to, handler_id h, const void* payload, std::size_t len,
                 std::vector<std::byte>& reply, completion& c) override {
    auto* pending = new pending_call{&reply, &c};
    send_message(to,
                 message_header{self(), h, message_kind::call, 0,
                                reinterpret_cast<std::uintptr_t>(pending)},
                 payload, len);
  }

  void reply(const reply_token& t, const void* data, std::size_t len) override {
    send_message(t.to, message_header{self(), 0, message_kind::reply, 0, t.cookie}, data, len);
  }

 private:
  // --- setting up ------------------------------------------------------------

  void init_ucx() {
    // UCX's memory hooks patch malloc, free and mmap in every loaded
    // library so that its registration cache can follow unmaps; over
    // libdstd's allocator (tcmalloc on the global heap) that mixes two
    // allocators and corrupts messages. dstd registers only its own home
    // memory, which is never unmapped, so it needs none of them.
    // (libucm read UCX_MEM_* when it loaded; its options are set directly,
    // before ucp_init installs anything.)
    ucm_global_config_t memory_options = ucm_global_opts;
    memory_options.enable_events = 0;
    memory_options.enable_malloc_hooks = 0;
    memory_options.enable_malloc_reloc = 0;
    ucm_set_global_opts(&memory_options);
    ucp_config_t* config = nullptr;
    check(ucp_config_read(nullptr, nullptr, &config), "reading the UCX configuration");
    // Transport atomics must be atomic with the home's own CPU atomics
    // (transport.hpp): only devices whose atomics are, else emulation at
    // the home. Not a user's choice.
    check(ucp_config_modify(config, "ATOMIC_MODE", "cpu"), "setting UCX_ATOMIC_MODE=cpu");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    const ucs_status_t status = ucp_init(&params, config, &context_);
    ucp_config_release(config);
    check(status, "initializing UCX (ucp_init; check UCX_TLS and UCX_NET_DEVICES)");
    // UCX's own locks are node-private, like the runtime's; its plug-ins
    // (ucx/libuct_*.so) are loaded by now.
    static constexpr const char* libraries[] = {"/libucp.so", "/libuct.so", "/libucs.so",
                                                "/libucm.so", "/ucx/"};
    note_runtime_libraries(libraries, std::size(libraries));

    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_MULTI;
    check(ucp_worker_create(context_, &wp, &worker_), "creating the UCX worker");
    ucp_worker_attr_t attr{};
    attr.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE;
    check(ucp_worker_query(worker_, &attr), "querying the UCX worker");
    if (attr.thread_mode != UCS_THREAD_MODE_MULTI) {
      fatal("this UCX library cannot make a thread-safe worker (built without --enable-mt)");
    }
    check(ucp_worker_get_efd(worker_, &wakeup_fd_), "getting the worker's wake-up descriptor");
    waiting::set_progress_driver(&drive, this);
    set_receiver(am_message, &receive<&ucx_transport::on_message>);
    set_receiver(am_key_request, &receive<&ucx_transport::on_key_request>);
    set_receiver(am_key_reply, &receive<&ucx_transport::on_key_reply>);
    set_receiver(am_heartbeat, &receive<&ucx_transport::on_heartbeat>);
  }

  using receiver = void (ucx_transport::*)(const void* header, std::size_t header_bytes,
                                           const void* data, std::size_t length);

  template <receiver R>
  static ucs_status_t receive(void* arg, const void* header, std::size_t header_bytes, void* data,
                              std::size_t length, const ucp_am_recv_param_t* param) {
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
      fatal("UCX delivered a message by rendezvous; dstd sends every message eagerly");
    }
    (static_cast<ucx_transport*>(arg)->*R)(header, header_bytes, data, length);
    return UCS_OK;
  }

  void set_receiver(am_id id, ucp_am_recv_callback_t cb) {
    ucp_am_handler_param_t p{};
    p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                   UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    p.id = id;
    p.flags = UCP_AM_FLAG_WHOLE_MSG;
    p.cb = cb;
    p.arg = this;
    check(ucp_worker_set_am_recv_handler(worker_, &p), "registering a message receiver");
  }

  void connect(node_id n, const std::byte* address) {
    ucp_ep_params_t p{};
    p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                   UCP_EP_PARAM_FIELD_ERR_HANDLER;
    p.address = reinterpret_cast<const ucp_address_t*>(address);
    p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    p.err_handler.cb = &on_endpoint_error;
    p.err_handler.arg = &endpoint_contexts_[n];
    const ucs_status_t status = ucp_ep_create(worker_, &p, &endpoints_[n]);
    if (status != UCS_OK) {
      fatal("cannot connect to node %u on host %s: %s", n, hosts_[n].c_str(),
            ucs_status_string(status));
    }
  }

  static void on_endpoint_error(void* arg, ucp_ep_h, ucs_status_t status) {
    auto* ctx = static_cast<endpoint_context*>(arg);
    ctx->transport->health_.disconnected(
        ctx->peer, std::string("its connection failed: ") + ucs_status_string(status),
        peer_health::clock::now());
  }

  // --- addressing ------------------------------------------------------------

  const memory_region& region_of(gaddr a, std::size_t len, const char* op) const {
    return rt::region_of(regions_, a, len, op);
  }

  const memory_region& atomic_region(gaddr a, const char* op) const {
    return rt::atomic_region(regions_, a, op);
  }

  static std::byte* window(const memory_region& r, gaddr a) { return home_window::of(r, a); }
  static std::uint64_t remote(const memory_region& r, gaddr a) {
    return reinterpret_cast<std::uintptr_t>(window(r, a));
  }

  // Calls op(at, bytes, offset) for each piece of [a, a+len) inside one
  // registration chunk; the completion expects every piece.
  template <class Op>
  void for_each_piece(gaddr a, std::size_t len, completion& c, Op op) {
    rt::for_each_piece(a, len, chunk_bytes, chunk_bytes, c, op);
  }

  // The key for `home`'s chunk holding `a`: asked for once, then kept.
  ucp_rkey_h key_for(node_id home, gaddr a) {
    const std::uint64_t chunk = chunk_of(a);
    if (ucp_rkey_h key = keys_.find(home, chunk)) return key;
    key_wait wait;
    wait.done.expect();
    const key_request_header h{self(), 0, chunk, reinterpret_cast<std::uintptr_t>(&wait)};
    send_am(home, am_key_request, &h, sizeof h, nullptr, 0);
    wait.done.wait();
    if (!wait.found) {
      fatal("node %u (host %s) registers no memory at %#lx", home, hosts_[home].c_str(),
            static_cast<unsigned long>(a));
    }
    return keys_.add(home, chunk, endpoints_[home], wait.packed);
  }

  // --- posting ---------------------------------------------------------------

  void done_here(completion& c) {
    chaos::point();
    c.finish();
  }

  void finish_now_or_later(ucs_status_ptr_t r, completion& c, const char* what) {
    if (r == nullptr) {
      c.finish();
      return;
    }
    check_posted(r, what);
  }

  // A one-sided operation UCX refuses at once: the node ends, naming it;
  // but once the run is ending the peer may have left, as for a send
  // (send_am) and as the verbs transport does: the operation stays
  // unfinished, and this node is leaving too.
  void check_posted(ucs_status_ptr_t r, const char* what) {
    if (UCS_PTR_IS_ERR(r) && health_.ending()) return;
    check_ptr(r, what);
  }

  // Per-peer order (transport.hpp): what is posted takes effect after what
  // was posted before it. UCX orders neither puts nor gets without a fence
  // (ucp_worker_fence), so a post fences the earlier one-sided operations
  // it could overtake, posted on any thread as far as this thread can know:
  // a read those that change memory (writes and atomics; an earlier read
  // does not change what it sees), anything else every earlier one (a write
  // must not land before an earlier read of its bytes has read them). By a
  // fence this thread makes now, or by one another thread made after
  // seeing them all. (Worker-wide: one call fences every endpoint.)
  void fence_before_read() { fence_through(last_change_.load(std::memory_order_seq_cst)); }
  void fence_before_change() { fence_through(posts_.load(std::memory_order_seq_cst)); }

  void fence_through(std::uint64_t posted) {
    if (fenced_through_.load(std::memory_order_seq_cst) >= posted) return;
    check(ucp_worker_fence(worker_), "ordering operations (ucp_worker_fence)");
    raise_to(fenced_through_, posted);
  }

  // After posting a one-sided operation: its number in posts_, and, for a
  // write or an atomic, that number as the last change.
  void note_one_sided(bool changes_memory) {
    const std::uint64_t number = posts_.fetch_add(1, std::memory_order_seq_cst) + 1;
    if (changes_memory) raise_to(last_change_, number);
  }

  static void raise_to(std::atomic<std::uint64_t>& word, std::uint64_t value) {
    std::uint64_t now = word.load(std::memory_order_relaxed);
    while (now < value && !word.compare_exchange_weak(now, value, std::memory_order_seq_cst)) {
    }
  }

  void atomic(ucp_atomic_op_t op, const memory_region& r, gaddr target, std::uint64_t operand,
              std::uint64_t* result, completion& c, const char* what) {
    fence_before_change();
    ucp_request_param_t p = with_callback(finish_completion, &c);
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.datatype = ucp_dt_make_contig(sizeof(std::uint64_t));
    p.reply_buffer = result;
    finish_now_or_later(ucp_atomic_op_nbx(endpoints_[r.home], op, &operand, 1, remote(r, target),
                                          key_for(r.home, target), &p),
                        c, what);
    note_one_sided(true);
    posted();
  }

  void send_message(node_id to, const message_header& h, const void* payload, std::size_t len) {
    if (to >= nodes()) fatal("message to node %u, but the run has %u nodes", to, nodes());
    if (len > max_payload) fatal("message of %zu bytes exceeds the limit of %zu", len, max_payload);
    note_message_sent(to, h.kind == message_kind::reply ? "reply" : handler_name(h.handler), len);
    chaos::point();  // about to send
    fence_before_change();
    send_am(to, am_message, &h, sizeof h, payload, len);
  }

  // Sends an active message eagerly (its receiver gets it whole, in one
  // callback), from copies of header and data.
  void send_am(node_id to, am_id id, const void* header, std::size_t header_bytes,
               const void* data, std::size_t len) {
    owned_send* s = owned_send::make(header, header_bytes, data, len);
    ucp_request_param_t p = with_callback(free_owned, s);
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    const ucs_status_ptr_t r =
        ucp_am_send_nbx(endpoints_[to], id, s->header(), header_bytes, s->data(), len, &p);
    posted();
    if (r == nullptr) {
      std::free(s);
      return;
    }
    if (UCS_PTR_IS_ERR(r)) {
      std::free(s);
      const ucs_status_t status = UCS_PTR_STATUS(r);
      if (!peer_failure(status)) {
        fatal("cannot send to node %u on host %s: %s", to, hosts_[to].c_str(),
              ucs_status_string(status));
      }
      // The peer is gone. At the end of a run it may have left before this
      // node's own shutdown message arrived (node 0 tells the nodes one
      // after another): so this counts as its disconnection, which ends
      // the run, naming it, after peer_health's grace unless the run is
      // ending by then. The message is dropped either way. (The clean-clone
      // CI of e13235b failed transport_test.ucx.4nodes so, after all its
      // tests had passed: "cannot send to node 2 ...: Endpoint timeout".)
      health_.disconnected(to, std::string("a send to it failed: ") + ucs_status_string(status),
                           peer_health::clock::now());
    }
  }

  // The statuses of an operation on an endpoint whose peer has failed or
  // left (its error handler has run, or is about to).
  static bool peer_failure(ucs_status_t status) {
    return status == UCS_ERR_ENDPOINT_TIMEOUT || status == UCS_ERR_CONNECTION_RESET ||
           status == UCS_ERR_UNREACHABLE || status == UCS_ERR_NOT_CONNECTED ||
           status == UCS_ERR_CANCELED;
  }

  // --- receiving (UCX callbacks: the service thread, inside progress) --------

  template <class H>
  static H header_as(const void* header, std::size_t bytes) {
    H h;
    if (bytes != sizeof h) fatal("a UCX message with a malformed header (%zu bytes)", bytes);
    std::memcpy(&h, header, sizeof h);
    return h;
  }

  void heard(node_id from) {
    if (from >= nodes()) fatal("a UCX message from node %u, but the run has %u nodes", from, nodes());
    health_.heard_from(from, peer_health::clock::now());
  }

  void on_message(const void* header, std::size_t header_bytes, const void* data,
                  std::size_t length) {
    const auto h = header_as<message_header>(header, header_bytes);
    heard(h.from);
    const auto* bytes = static_cast<const std::byte*>(data);
    if (h.kind == message_kind::reply) {
      auto* pending = reinterpret_cast<pending_call*>(static_cast<std::uintptr_t>(h.cookie));
      pending->reply->assign(bytes, bytes + length);
      completion* done = pending->done;
      delete pending;
      done->finish();  // the caller may return and free its buffers now
      return;
    }
    inbox_.push(inbound{h.from, h, std::vector<std::byte>(bytes, bytes + length)});
    posted();  // for the service thread to dispatch
  }

  void on_key_request(const void* header, std::size_t header_bytes, const void*, std::size_t) {
    const auto h = header_as<key_request_header>(header, header_bytes);
    heard(h.from);
    const std::vector<std::byte> packed = keys_home_->packed(h.chunk);
    const key_reply_header reply{self(), packed.empty() ? 0u : 1u, h.chunk, h.cookie};
    send_am(h.from, am_key_reply, &reply, sizeof reply, packed.data(), packed.size());
  }

  void on_key_reply(const void* header, std::size_t header_bytes, const void* data,
                    std::size_t length) {
    const auto h = header_as<key_reply_header>(header, header_bytes);
    heard(h.from);
    auto* wait = reinterpret_cast<key_wait*>(static_cast<std::uintptr_t>(h.cookie));
    wait->found = h.found != 0;
    const auto* bytes = static_cast<const std::byte*>(data);
    wait->packed.assign(bytes, bytes + length);
    wait->done.finish();
  }

  void on_heartbeat(const void* header, std::size_t header_bytes, const void*, std::size_t) {
    heard(header_as<heartbeat_header>(header, header_bytes).from);
  }

  // --- the service thread ------------------------------------------------------

  // The progress driver of every blocked wait (waiting.hpp).
  static void drive(void* self) {
    if (static_cast<ucx_transport*>(self)->progress() == 0) sched_yield();
  }

  // Progresses the worker, unless another thread is doing it (then 0: the
  // caller yields to it rather than queue on UCX's worker lock), and sends
  // the heartbeats when due: the service thread may be busy in a handler
  // for a while, and the progressing thread is proof this node is alive.
  // Callbacks never wait, so the thread inside never comes back here.
  unsigned progress() {
    if (progressing_.exchange(true, std::memory_order_acquire)) return 0;
    const unsigned events = ucp_worker_progress(worker_);
    progressing_.store(false, std::memory_order_release);
    send_heartbeats_if_due();
    return events;
  }

  void send_heartbeats_if_due() {
    if (!health_.heartbeat_due(peer_health::clock::now()) || health_.ending()) return;
    const heartbeat_header h{self()};
    for (node_id n = 0; n < nodes(); ++n) {
      if (n != self()) send_am(n, am_heartbeat, &h, sizeof h, nullptr, 0);
    }
  }

  // Work for the service thread from another thread: an operation that may
  // need progress to leave, or a message in the inbox.
  void posted() {
    if (!is_service_thread) wakeup_.posted();
  }

  // Runs the handlers of the oldest messages in the inbox, a bounded batch
  // so that the loop keeps progressing the network (and heartbeats flow);
  // false when it was empty.
  bool dispatch_inbox() {
    return inbox_.dispatch_batch([this](inbound& m) {
      dispatch(m.header.handler, m.from, m.payload, m.header.kind == message_kind::call,
               m.header.cookie);
    });
  }

  void end_if_a_peer_is_lost() {
    if (auto lost = health_.check(peer_health::clock::now())) {
      fatal("lost node %u on host %s: %s", lost->node, hosts_[lost->node].c_str(),
            lost->why.c_str());
    }
  }

  template <class B>
  friend void rt::run_service_loop(B&, const std::atomic<bool>&, const service_wakeup&);

  void service_loop() {
    is_service_thread = true;
    trace::name_this_thread("service", -1);
    run_service_loop(*this, stopping_, wakeup_);
  }

  // Sleeps until the worker has events or another thread posted, at most
  // one heartbeat interval (service_wakeup::sleep).
  void sleep_until_traffic(std::uint64_t posts_seen) {
    pollfd worker{wakeup_fd_, POLLIN, 0};
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(peer_health::heartbeat_interval);
    wakeup_.sleep(posts_seen, [this] { return arm_worker(); }, std::span(&worker, 1),
                  static_cast<int>(ms.count()));
  }

  // False when events are waiting (progress them instead of sleeping), or
  // another thread is progressing the worker (it may be consuming them).
  bool arm_worker() {
    if (progressing_.exchange(true, std::memory_order_acquire)) return false;
    const ucs_status_t armed = ucp_worker_arm(worker_);
    progressing_.store(false, std::memory_order_release);
    if (armed == UCS_ERR_BUSY) return false;
    check(armed, "arming the worker for sleep");
    return true;
  }

  launch_info launch_;
  std::vector<memory_region> regions_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int wakeup_fd_ = -1;
  std::vector<ucp_ep_h> endpoints_;  // by node, ours included
  std::vector<endpoint_context> endpoint_contexts_;
  std::vector<std::string> hosts_;
  std::unique_ptr<home_keys> keys_home_;
  peer_keys keys_;
  peer_health health_;
  std::unique_ptr<peer_lifelines> lifelines_;  // without dstdrun only
  // One-sided operations posted so far (numbered from 1), the number of
  // the last write or atomic among them, and how many of them the last
  // fence covers (fence_through).
  std::atomic<std::uint64_t> posts_{0};
  std::atomic<std::uint64_t> last_change_{0};
  std::atomic<std::uint64_t> fenced_through_{0};
  service_inbox<inbound> inbox_;
  std::atomic<bool> progressing_{false};  // a thread is inside ucp_worker_progress
  service_wakeup wakeup_{"ucx"};           // posted() wakes the service thread
  std::thread service_;
  std::atomic<bool> stopping_{false};
};

}  // namespace

home_memory home_memory_for(const launch_info& launch) {
  // The static data follows the partition (node 0 only uses it).
  return home_window::create(launch, "ucx");
}

std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions) {
  return std::make_unique<ucx_transport>(launch, regions);
}

}  // namespace dstd::rt::ucx
