// See home_apply.hpp.
#include "runtime/coherence/home_apply.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/coherence/diff.hpp"
#include "runtime/coherence/own_writes.hpp"
#include "runtime/common/backoff.hpp"
#include "runtime/common/chaos.hpp"
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

// The same steps from another node through posted one-sided operations
// (transport::one_sided_bypasses_target without a direct view: delayed
// shm, verbs with NIC atomics). They take effect in post order (one peer's
// operations do, transport.hpp), so posting them in batch_applier's order
// is applying them in it; two waits: the lock with a read of the reserve
// count and of each page's version word, then the rest. The
// decoder hands this target the changed bytes as pieces (diff_target), each
// posted as a write straight from the batch, which outlives the waits.
class posted_batch_applier final : public diff_target {
 public:
  posted_batch_applier(const page_versions& v, node_id home) : v_(v), home_(home) {}
  posted_batch_applier(const posted_batch_applier&) = delete;
  posted_batch_applier& operator=(const posted_batch_applier&) = delete;

  std::byte* bytes_of(std::uintptr_t) override { return nullptr; }

  void store(std::uintptr_t page, std::size_t offset, const std::byte* from,
             std::size_t len) override {
    const gaddr at = page + offset;
    if (!pieces_.empty()) {
      piece& last = pieces_.back();
      if (last.at + last.len == at && last.from + last.len == from) {
        last.len += len;  // adjacent in the page and in the batch
        return;
      }
    }
    pieces_.push_back({at, from, len});
  }

  void page_done(std::uintptr_t page) override {
    const std::uint64_t index =
        locate(reinterpret_cast<const void*>(page)).backing_offset / layout::page_bytes;
    pages_.push_back({index, pieces_.size()});
  }

  // Takes the lock, posts every step and waits until all took effect.
  notice_span apply() {
    const std::uint64_t before = lock_and_read();
    chaos::point();  // the lock held, nothing written: others wait at its word
    transport& t = *current_transport();
    completion done;
    std::uint64_t written = before;
    std::size_t piece_index = 0;
    auto post_write = [&](gaddr at, const void* from, std::size_t len) {
      done.expect();
      t.post_write(at, from, len, done);
    };
    for (std::size_t p = 0; p < pages_.size(); ++p) {
      for (; piece_index < pages_[p].pieces_end; ++piece_index) {
        const piece& s = pieces_[piece_index];
        post_write(s.at, s.from, s.len);
      }
      // The version (in its 8-byte word, which only the lock's holder
      // changes: a whole word is one untorn write), the reserve count, the
      // ring entry. Each source is a slot of its own, unchanged until the
      // end: the transport may read it when the write takes effect.
      std::uint64_t& word = word_of_[p];
      word = bumped(word, pages_[p].index);
      post_write(version_word(pages_[p].index), &word, 8);
      reserves_[p] = written + 1;
      post_write(v_.reserved_address(home_), &reserves_[p], 8);
      post_write(v_.notice_address(home_, written), &pages_[p].index, 8);
      ++written;
      // A later page with a version in the same word (its neighbour, or
      // the page again) starts from this one's bump.
      for (std::size_t q = p + 1; q < pages_.size(); ++q) {
        if (version_word(pages_[q].index) == version_word(pages_[p].index)) word_of_[q] = word;
      }
    }
    chaos::point();  // the pages' steps posted, the count and the unlock not yet
    count_ = written;
    post_write(v_.notice_count_address(home_), &count_, 8);
    post_write(v_.apply_lock_address(home_), &free_, 8);
    done.wait();
    return {before, written};
  }

 private:
  struct piece {
    gaddr at;
    const std::byte* from;
    std::size_t len;
  };
  struct page_entry {
    std::uint64_t index;
    std::size_t pieces_end;  // its pieces end here in pieces_
  };

  gaddr version_word(std::uint64_t index) const {
    return v_.version_address(index) & ~gaddr{7};
  }

  // The word with the page's 32-bit version bumped (wrapping, as the
  // direct path's 32-bit store does), its neighbour's kept.
  std::uint64_t bumped(std::uint64_t word, std::uint64_t index) const {
    const unsigned shift = static_cast<unsigned>((v_.version_address(index) & 7) * 8);
    const std::uint32_t version = static_cast<std::uint32_t>(word >> shift) + 1;
    return (word & ~(std::uint64_t{0xffffffff} << shift)) | (std::uint64_t{version} << shift);
  }

  // The lock, then the reserve count (the notice count, while the lock is
  // free) and each page's version word: the lock's holder is the only
  // writer of both. The reads are posted with the compare-and-swap, not
  // after it: they take effect after it, so when it took the lock they read
  // what its holder may rely on (one round trip, not two); when it did
  // not, they are read again with the next try.
  std::uint64_t lock_and_read() {
    transport& t = *current_transport();
    word_of_.assign(pages_.size(), 0);
    reserves_.assign(pages_.size(), 0);
    std::uint64_t reserved = 0;
    backoff wait;
    for (;;) {
      std::uint64_t held = 1;
      completion c;
      c.expect();
      t.post_compare_swap(v_.apply_lock_address(home_), 0, 1, &held, c);
      c.expect();
      t.post_read(&reserved, v_.reserved_address(home_), 8, c);
      for (std::size_t p = 0; p < pages_.size(); ++p) {
        c.expect();
        t.post_read(&word_of_[p], version_word(pages_[p].index), 8, c);
      }
      c.wait();
      if (held == 0) return reserved;
      if (!wait.step()) wait.reset();
    }
  }

  const page_versions& v_;
  node_id home_;
  std::vector<piece> pieces_;
  std::vector<page_entry> pages_;
  std::vector<std::uint64_t> word_of_;   // each page's version word, as read, then bumped
  std::vector<std::uint64_t> reserves_;  // the reserve count each page's write posts
  std::uint64_t count_ = 0;
  const std::uint64_t free_ = 0;
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

namespace {
bool direct_at(const page_versions& v, node_id home) {
  return current_transport()->direct(v.apply_lock_address(home), sizeof(std::uint64_t)) != nullptr;
}
}  // namespace

bool can_apply_at(const page_versions& v, node_id home, std::size_t pages) {
  if (direct_at(v, home)) return true;
  return current_transport()->one_sided_bypasses_target() && pages <= max_posted_pages;
}

notice_span apply_at(const page_versions& v, node_id home, std::span<const std::byte> batch) {
  if (direct_at(v, home)) {
    batch_applier applier(home_memory{current_transport()}, v, home);
    if (!apply_diffs(batch, applier)) fatal("a diff batch for node %u is malformed", home);
    return applier.finish();
  }
  posted_batch_applier applier(v, home);
  if (!apply_diffs(batch, applier)) fatal("a diff batch for node %u is malformed", home);
  return applier.apply();
}

}  // namespace dstd::rt::coherence
