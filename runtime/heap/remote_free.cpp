// See remote_free.hpp.
#include "runtime/heap/remote_free.hpp"

#include <gperftools/tcmalloc.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "runtime/common/fatal.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/heap/free_routing.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::rt {

namespace {

constexpr std::size_t batch_capacity = 512;  // 4 KiB of pointers per message

// One queue per home node, in static storage: free() must not allocate.
struct alignas(64) batch {
  std::mutex lock;
  std::size_t count = 0;
  void* blocks[batch_capacity];
};
batch batches[layout::max_nodes];

std::atomic<bool> dropping{false};
std::atomic<std::uint64_t> queued{0};  // blocks in the batches, not yet sent
std::atomic<before_sending_frees_fn> before_sending{nullptr};
std::atomic<std::uint64_t> sent{0};
std::atomic<std::uint64_t> received{0};


// A batch of blocks for their home to free (a whole number of pointers).
constexpr handler_decl<any_bytes> free_blocks{handler_ids::remote_free};
// malloc_usable_size of a block, asked of its home.
constexpr handler_decl<void*, std::size_t> usable_size{handler_ids::usable_size};

void send_batch(node_id home, void* const* blocks, std::size_t count) {
  transport* t = current_transport();
  if (t == nullptr) fatal("memory homed at node %u was freed before the run started", home);
  send(*t, home, free_blocks, std::as_bytes(std::span(blocks, count)));
}

// Frees taken out of a batch go home only after this node's writes: the
// hook (the coherence layer's) flushes every page dirtied before now,
// which covers the writes to these blocks, made before they were freed.
void send_taken(node_id home, void* const* blocks, std::size_t count) {
  if (auto fn = before_sending.load(std::memory_order_acquire)) fn();
  send_batch(home, blocks, count);
}

void flush_one(node_id home) {
  void* out[batch_capacity];
  std::size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(batches[home].lock);
    n = batches[home].count;
    std::memcpy(out, batches[home].blocks, n * sizeof(void*));
    batches[home].count = 0;
  }
  if (n == 0) return;
  queued.fetch_sub(n, std::memory_order_relaxed);
  send_taken(home, out, n);
}

void on_remote_free(message& m) {
  const std::size_t n = m.payload().size() / sizeof(void*);
  if (m.payload().size() % sizeof(void*) != 0 || n > batch_capacity) {
    m.malformed(std::min(n, batch_capacity) * sizeof(void*));
  }
  void* blocks[batch_capacity];
  std::memcpy(blocks, m.payload().data(), n * sizeof(void*));
  for (std::size_t i = 0; i < n; ++i) route_free(blocks[i], [p = blocks[i]] { tc_free(p); });
  received.fetch_add(n, std::memory_order_relaxed);
}

void on_usable_size(message& m) {
  void* p = m.payload_as<void*>();
  const std::size_t size = tc_malloc_size(p);
  m.reply(&size, sizeof size);
}

}  // namespace

void register_remote_free_handlers() {
  register_handler(free_blocks, &on_remote_free);
  register_handler(usable_size, &on_usable_size);
}

remote_block_bounds heap_bounds{0, 0, 0};

// At boot, before any thread but main exists.
void enable_remote_frees() noexcept {
  const address_space& s = ensure_address_space();
  heap_bounds = {s.partition_base(s.self), s.partition_bytes,
                 s.partitions_end() - layout::global_base};
}


void set_before_sending_frees(before_sending_frees_fn fn) noexcept {
  before_sending.store(fn, std::memory_order_release);
}

void drop_remote_frees() noexcept { dropping.store(true, std::memory_order_relaxed); }

void queue_remote_free(void* p) noexcept {
  if (dropping.load(std::memory_order_relaxed)) return;
  const node_id home = locate(p).home;
  sent.fetch_add(1, std::memory_order_relaxed);
  batch& b = batches[home];
  std::unique_lock<std::mutex> lock(b.lock);
  b.blocks[b.count++] = p;
  queued.fetch_add(1, std::memory_order_relaxed);
  if (b.count < batch_capacity) return;
  void* out[batch_capacity];
  std::memcpy(out, b.blocks, sizeof out);
  b.count = 0;
  queued.fetch_sub(batch_capacity, std::memory_order_relaxed);
  lock.unlock();
  send_taken(home, out, batch_capacity);
}

void flush_remote_frees() noexcept {
  // The common case, at every release: nothing queued (or a forked child,
  // whose copies of the parent's queues are not its to send).
  if (queued.load(std::memory_order_relaxed) == 0 || dropping.load(std::memory_order_relaxed)) {
    return;
  }
  const address_space& s = ensure_address_space();
  for (node_id n = 0; n < s.nodes; ++n) {
    if (n != s.self) flush_one(n);
  }
}

std::size_t remote_usable_size(void* p) {
  return call(*current_transport(), locate(p).home, usable_size, p);
}

remote_free_counts remote_free_stats() noexcept {
  return {sent.load(std::memory_order_relaxed), received.load(std::memory_order_relaxed)};
}

}  // namespace dstd::rt
