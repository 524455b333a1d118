// See home_apply.hpp.
#include "runtime/coherence/home_apply.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "runtime/coherence/diff.hpp"
#include "runtime/coherence/own_writes.hpp"
#include "runtime/common/backoff.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd::rt::coherence {

namespace {

// The home's memory as loads and stores: at the home its window (the
// second mapping every transport keeps of a node's home memory,
// layout::window_at), elsewhere the transport's direct view of it. Why the window at the home too: stores through the
// home's own addresses count as the home's own writes (own_writes.hpp), and
// a diff's pages need no second notice from the next scan.
struct home_memory {
  const transport* via = nullptr;  // null: this node is the home

  std::byte* bytes(gaddr a, std::size_t len) const {
    if (via != nullptr) return via->direct(a, len);
    return layout::window_at(locate(reinterpret_cast<const void*>(a)).backing_offset);
  }
  template <class T>
  std::atomic_ref<T> word(gaddr a) const {
    return std::atomic_ref<T>(*reinterpret_cast<T*>(bytes(a, sizeof(T))));
  }
};

// The steps: under the home's apply lock, each page's bytes, then its
// version (after the bytes), then the reserve count (before the entry: a
// reader that finds an entry torn by the wrap sees it), then the ring
// entry; after the batch, the count. Only the lock's holder writes these
// words, so it reads them relaxed; its stores are releases, so a reader
// that sees one sees everything stored before it.
class batch_applier final : public diff_target {
 public:
  batch_applier(home_memory home, const page_versions& v, node_id at)
      : home_(home), v_(v), at_(at), lock_(home_.word<std::uint64_t>(v.apply_lock_address(at))) {
    backoff wait;
    for (std::uint64_t free = 0;
         !lock_.compare_exchange_weak(free, 1, std::memory_order_acquire); free = 0) {
      if (!wait.step()) wait.reset();
    }
    written_ = home_.word<std::uint64_t>(v_.reserved_address(at_)).load(std::memory_order_relaxed);
  }
  batch_applier(const batch_applier&) = delete;
  batch_applier& operator=(const batch_applier&) = delete;

  std::byte* bytes_of(std::uintptr_t page) override {
    return home_.bytes(page, layout::page_bytes);
  }

  void page_done(std::uintptr_t page) override {
    const std::uint64_t index =
        locate(reinterpret_cast<const void*>(page)).backing_offset / layout::page_bytes;
    auto version = home_.word<std::uint32_t>(v_.version_address(index));
    version.store(version.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    home_.word<std::uint64_t>(v_.reserved_address(at_))
        .store(written_ + 1, std::memory_order_release);
    home_.word<std::uint64_t>(v_.notice_address(at_, written_))
        .store(index, std::memory_order_release);
    ++written_;
  }

  // Publishes the count and gives the lock back.
  notice_span finish() {
    auto count = home_.word<std::uint64_t>(v_.notice_count_address(at_));
    const notice_span span{count.load(std::memory_order_relaxed), written_};
    count.store(written_, std::memory_order_release);
    lock_.store(0, std::memory_order_release);
    return span;
  }

 private:
  home_memory home_;
  const page_versions& v_;
  node_id at_;
  std::atomic_ref<std::uint64_t> lock_;
  std::uint64_t written_ = 0;
};

}  // namespace

bool apply_here(const page_versions& v, std::span<const std::byte> batch, notice_span& span) {
  batch_applier applier(home_memory{}, v, v.self());
  const bool well_formed = apply_diffs(batch, applier);
  span = applier.finish();
  return well_formed;
}

own_writes_reply notice_own_writes(const page_versions& v) {
  batch_applier applier(home_memory{}, v, v.self());
  own_writes_reply r;
  r.write_epoch = home_memory{}.word<std::uint64_t>(v.write_epoch_address(v.self()))
                      .load(std::memory_order_seq_cst);
  r.tracked = own_writes::scan(
      [](std::uintptr_t page, void* a) { static_cast<batch_applier*>(a)->page_done(page); },
      &applier);
  applier.finish();
  return r;
}

bool can_apply_at(const page_versions& v, node_id home) {
  return current_transport()->direct(v.apply_lock_address(home), sizeof(std::uint64_t)) != nullptr;
}

notice_span apply_at(const page_versions& v, node_id home, std::span<const std::byte> batch) {
  batch_applier applier(home_memory{current_transport()}, v, home);
  if (!apply_diffs(batch, applier)) fatal("a diff batch for node %u is malformed", home);
  return applier.finish();
}

}  // namespace dstd::rt::coherence
