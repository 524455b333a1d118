// Per-page coherence state of this node's cache frames, and the lists that
// release and acquire walk.
//
// A page is named by its index: its offset in the backing of global memory
// divided by the page size (partitions first, then the static data), so one
// directory covers every global page. All tables live in anonymous
// MAP_NORESERVE memory sized for the whole range and are touched only where
// pages are used; the fault handler uses them without allocating.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/coherence/spin_lock.hpp"

namespace dstd::rt::coherence {

enum class page_state : std::uint8_t {
  invalid = 0,    // no access; the next access fetches from the home
  read_only = 1,  // a copy of the home's page; writes fault and make a twin
  dirty = 2,      // writable; its twin holds the bytes as of the last sync
};

// A list of page indices that each page enters at most once between two
// take_all() calls (guaranteed by the state transitions), so capacity = the
// number of pages is enough.
class page_list {
 public:
  void init(std::uint64_t capacity);
  void push(std::uint64_t index) noexcept;
  // Moves up to `max` entries into out; returns how many (0: list empty).
  std::uint64_t take_all(std::uint64_t* out, std::uint64_t max) noexcept;
  bool empty() const noexcept { return count_.load(std::memory_order_acquire) == 0; }
  std::uint64_t size() const noexcept { return count_.load(std::memory_order_acquire); }

 private:
  spin_lock lock_;
  std::uint64_t* entries_ = nullptr;
  std::uint64_t capacity_ = 0;
  std::atomic<std::uint64_t> count_{0};
};

class page_directory {
 public:
  void init(std::uint64_t pages);

  // Spins until the page's lock bit is ours; returns its state.
  page_state lock(std::uint64_t index) noexcept;
  void unlock(std::uint64_t index, page_state s) noexcept;
  // Takes the lock only if it is free and the page is in state `s`, without
  // waiting (a fault may hold another page's lock: waiting here could
  // deadlock with a flush that locks in index order).
  bool try_lock_in(std::uint64_t index, page_state s) noexcept;

  // Twin slot of a dirty page (0: none).
  std::uint32_t twin(std::uint64_t index) const noexcept { return twins_[index]; }
  void set_twin(std::uint64_t index, std::uint32_t slot) noexcept { twins_[index] = slot; }

  // The version of a cached page as read at its home before its bytes
  // (page_versions.hpp); meaningful while the page is read_only or dirty.
  // Fetches read versions straight into this table (contiguous indices,
  // contiguous words), so it is handed out as memory.
  std::uint32_t* versions(std::uint64_t index) noexcept { return versions_ + index; }
  std::uint32_t version(std::uint64_t index) const noexcept {
    return std::atomic_ref<std::uint32_t>(versions_[index]).load(std::memory_order_relaxed);
  }
  void set_version(std::uint64_t index, std::uint32_t v) noexcept {
    std::atomic_ref<std::uint32_t>(versions_[index]).store(v, std::memory_order_relaxed);
  }

  // `cached` holds every page in state read_only or dirty, and may hold
  // invalid ones: an acquire that drops the pages named by a home's notices
  // leaves them listed. So each page has a listed flag, read and written
  // under its lock: set while the page is on `cached` or taken from it by
  // an acquire that has yet to lock it; cleared only by that acquire, when
  // it lets the page go. The list holds each page at most once.
  //
  // Lists the page (locked by the caller) unless it is listed already.
  void list_cached(std::uint64_t index) noexcept;
  // A page taken from `cached` and locked by the caller: listed again, or
  // let go (its flag cleared).
  void relist_taken(std::uint64_t index) noexcept { cached.push(index); }
  void let_go_taken(std::uint64_t index) noexcept { listed_[index] = 0; }

  // Whether a flush has write-protected the page before: a page written
  // again after that is likely written in every interval, and a flush keeps
  // it writable while it is (coherence.cpp, flush_dirty_pages). Hints, read
  // and written under the page's lock.
  bool flushed_before(std::uint64_t index) const noexcept { return flushed_[index] != 0; }
  void note_flushed(std::uint64_t index) noexcept { flushed_[index] = 1; }
  // A flush's verdict on a page flushed before: keep it writable while it
  // is written between flushes, and through up to `unwritten_flushes_kept`
  // flushes in a row that find it unwritten. Why 4: a lock loop's acquire
  // flushes once between two of its writes, and a producer's round of a
  // condition-variable hand-off four times (docs/BENCHMARKS.md, "Diffs
  // and kept pages"). Keeping an unwritten page costs a compare with its
  // twin per flush (about 0.2 us); protecting it costs its share of an
  // mprotect and of a write fault when it is written again (about 1 us),
  // so a page written again after four unwritten flushes still comes out
  // ahead, and one never written again wastes at most four compares.
  static constexpr std::uint8_t unwritten_flushes_kept = 4;
  bool keep_writable(std::uint64_t index, bool written) noexcept {
    // flushed_: 1 + the unwritten flushes in a row so far.
    if (written || flushed_[index] <= unwritten_flushes_kept) {
      flushed_[index] = written ? 1 : static_cast<std::uint8_t>(flushed_[index] + 1);
      return true;
    }
    flushed_[index] = 1;
    return false;
  }

  page_list cached;  // see list_cached
  page_list dirty;   // pages in state dirty

 private:
  static constexpr std::uint8_t locked_bit = 0x80;
  std::uint8_t* states_ = nullptr;
  std::uint32_t* twins_ = nullptr;
  std::uint32_t* versions_ = nullptr;
  std::uint8_t* listed_ = nullptr;  // list_cached
  std::uint8_t* flushed_ = nullptr;  // flushed_before
};

}  // namespace dstd::rt::coherence
