// See coherence.hpp.
//
// Concurrency on one node: each page has a lock (page_directory); the fault
// handler holds it while fetching or twinning. release() write-protects a
// page before diffing it, so a write racing the flush faults, waits for the
// page lock and then twins the page again: no write is lost. Releases and
// acquires of one node are serialized by sync_mutex, so that neither a
// release returns while another thread's flush of the same pages is still
// in flight, nor an acquire invalidates a page whose diff has not reached
// its home. A page found dirty during an acquire (written after that
// acquire's own flush) is refreshed, not dropped: the home's copy with the
// local changes on top.
//
// What makes them complete (docs/DESIGN.md §4.1; issue 10 broke both):
//  - every page whose frame is readable, or is being fetched, is on the
//    cached list or locked by an acquire that took it from there: a fault
//    lists the page before it fetches (an acquire that takes the list later
//    began before the fetch, so the fetch sees what it synchronized with);
//  - every page whose frame is writable is on the dirty list or locked by
//    a flush that took it from there: a fault lists the page before it
//    makes the frame writable (another worker may write it without a fault
//    and release at once).
// A list push is followed by a seq_cst fence, as is the start of the fast
// path that skips a release or acquire when both lists are empty.
#include "runtime/coherence/coherence.hpp"

#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/coherence/diff.hpp"
#include "runtime/coherence/home_apply.hpp"
#include "runtime/coherence/own_writes.hpp"
#include "runtime/coherence/page_directory.hpp"
#include "runtime/coherence/page_versions.hpp"
#include "runtime/coherence/readahead.hpp"
#include "runtime/coherence/recent_pages.hpp"
#include "runtime/coherence/twin_pool.hpp"
#include "runtime/common/chaos.hpp"
#include "runtime/common/clock.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/trace.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/heap/remote_free.hpp"
#include "runtime/heap/static_exclusions.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"
#include "runtime/transport/waiting.hpp"

namespace dstd::rt::coherence {

void install_fault_handler();  // fault_signal.cpp

namespace {

constexpr std::uint64_t page = layout::page_bytes;
constexpr std::uint32_t twin_capacity = 1u << 20;  // 4 GiB of dirty pages
constexpr std::uint64_t take_chunk = 4096;

struct atomic_counters {
  std::atomic<std::uint64_t> read_faults{0}, write_faults{0}, fetches{0}, pages_fetched{0},
      bytes_fetched{0},
      diff_bytes_sent{0}, pages_invalidated{0}, pages_kept{0}, pages_refetched{0}, fault_ns{0},
      releases{0},
      acquires{0}, acquire_walks{0}, pages_kept_writable{0}, homes_asked{0};
};

page_directory directory;
page_versions versions;
readahead streams;        // read faults: pages fetched ahead
readahead write_streams;  // write faults: pages made writable ahead
recent_pages recent;      // pages an acquire reads again instead of dropping
// What this node knows of each home it caches from (page_versions.hpp).
struct home_view {
  // This node has set the home's exported word (before its first fetch).
  std::atomic<bool> exported{false};
  // The home's summary when this node last looked: at an acquire, or moved
  // on by a reply that shows only this node's diffs came since. Under
  // sync_mutex.
  home_summary seen;
  // False once the home said it does not track its own writes
  // (notice_own_writes). Under sync_mutex.
  bool tracks_own_writes = true;
  // Acquires that drop this home's pages without asking, after acquires
  // that asked it and still dropped half of what this node caches
  // (judge_asks), and whether it ever answered. Under sync_mutex.
  std::uint32_t asks_skipped = 0, asks_to_skip = 0;
  bool asked_before = false;
};
std::array<home_view, layout::max_nodes> homes;
twin_pool twins;
atomic_counters stats;
std::atomic<bool> enabled{false};
std::atomic<bool> left_run{false};  // leave_run()
std::mutex sync_mutex;
// Odd while a thread holds sync_mutex to flush or invalidate: bumped as it
// starts and as it ends. The fast path (nothing_to_sync) reads it before
// and after it looks at the lists, and returns at once only if it was even
// and did not move: a flush in flight, or one that ran between its reads,
// may carry this thread's writes (SPIN, coherence_mt.pml:
// BUG_WAIT_OWN_ACKS_ONLY), or may have had a page kept writable off the
// dirty list while this thread wrote it (BUG_KEEP_WRITABLE_NO_GENERATION:
// the list looked empty, and the flush was over by the time a flag was
// read).
std::atomic<std::uint64_t> sync_generation{0};
// Pages the flush under way keeps writable (flush_dirty_pages); under
// sync_mutex, one buffer reused.
std::vector<std::uint64_t> kept_writable;
// The chunk of a list a flush or an acquire takes at a time. Under
// sync_mutex: one buffer, not 32 KiB allocated and zeroed per flush (it was
// a twentieth of a remote node's lock loop).
std::array<std::uint64_t, take_chunk> taken_chunk;
const address_space* space = nullptr;
// Bytes of the static region that stay private to this node; fixed at init.
std::vector<byte_range> per_node_bytes;

void protect(std::uintptr_t a, int prot) {
  if (mprotect(reinterpret_cast<void*>(a), page, prot) != 0) {
    fatal("cannot change the protection of the cache frame at %#lx: %s",
          static_cast<unsigned long>(a), std::strerror(errno));
  }
}

std::uintptr_t page_address(std::uint64_t index) {
  const std::uint64_t offset = index * page;
  const std::uint64_t partitions = std::uint64_t(space->nodes) * space->partition_bytes;
  return offset < partitions ? layout::global_base + offset
                             : space->static_begin + (offset - partitions);
}

unsigned char* alias_of(std::uint64_t index) {
  return reinterpret_cast<unsigned char*>(address_space::cache_alias(index * page));
}

// Copies the per-node bytes of the static page at `a` from one page image
// to another (nothing for any other page).
void keep_per_node_bytes(std::uintptr_t a, unsigned char* to, const unsigned char* from) {
  if (!space->in_static_region(a)) return;
  for (const byte_range& r : per_node_bytes) {
    const std::uintptr_t lo = std::max(r.begin, a), hi = std::min(r.end, a + page);
    if (lo < hi) std::memcpy(to + (lo - a), from + (lo - a), hi - lo);
  }
}

// Before this node's first fetch from `home`: sets the home's exported
// word, so that its releases bump its write epoch from now on. Waits until
// the write is done; the caller then fences (seq_cst) before reading pages.
void export_from(node_id home) {
  home_view& h = homes[home];
  if (h.exported.load(std::memory_order_acquire)) return;
  const std::uint64_t one = 1;
  current_transport()->write(versions.exported_address(home), &one, sizeof one);
  h.exported.store(true, std::memory_order_release);
}

// A release's page diffs for their home (diff.hpp's format, checked by
// apply_diffs). The reply says they are applied, and carries the home's
// notice count before and after this batch: when the count before is the
// one the sender last caught up with, no other node's diff came in between
// (page_versions.hpp).
constexpr handler_decl<any_bytes, notice_span> diffs_for_home{handler_ids::apply_diffs};
constexpr handler_decl<no_bytes, own_writes_reply> own_writes_of_home{
    handler_ids::notice_own_writes};

// Diffs go home in batches, one message per home per batch, or applied at
// the home by this node where one-sided operations are the home's memory
// (home_apply.hpp). Batches are built while pages are locked and sent
// only after every page lock is dropped: a sender waiting for ring space
// (or for a home's apply lock) must never hold a page lock that a peer's
// service thread (faulting in a handler) might be waiting for.
class diff_batcher {
 public:
  explicit diff_batcher(node_id nodes) : open_(nodes) {}

  // The page's diff against its twin; returns the bytes changed. A page
  // that stays writable has its twin advanced to the bytes sent (diff.hpp,
  // twin_update).
  std::size_t add(node_id home, std::uint64_t index, std::uintptr_t a, unsigned char* twin,
                  twin_update update) {
    batch& b = open_[home];
    const std::size_t changed = append_diff(b.bytes, a, alias_of(index), twin, update);
    stats.diff_bytes_sent.fetch_add(changed, std::memory_order_relaxed);
    if (changed != 0) b.pages.push_back(index);
    if (b.bytes.size() + max_page_diff_bytes > transport::max_payload) close(home);
    return changed;
  }

  // Sends every batch and waits until every home has applied its diffs.
  // Caller holds sync_mutex (the replies move homes' seen summaries on).
  void send_and_wait() {
    for (node_id n = 0; n < open_.size(); ++n) {
      if (!open_[n].bytes.empty()) close(n);
    }
    // Who applies is chosen per home, so that one home still applies one
    // node's batches in the order sent.
    std::vector<std::size_t> pages_for(open_.size(), 0);
    for (const batch& b : ready_) pages_for[b.home] += b.pages.size();
    std::vector<bool> applies_itself(open_.size());
    for (node_id n = 0; n < open_.size(); ++n) {
      applies_itself[n] = pages_for[n] != 0 && can_apply_at(versions, n, pages_for[n]);
    }
    std::deque<std::vector<std::byte>> replies;
    completion acks;
    for (batch& b : ready_) {
      if (applies_itself[b.home]) continue;
      acks.expect();
      current_transport()->post_call(b.home, diffs_for_home.id, b.bytes.data(), b.bytes.size(),
                                     replies.emplace_back(), acks);
    }
    acks.wait();
    // In the order sent: one home applies one node's batches in that order.
    // Batches for homes this node applies itself are applied here, now.
    for (std::size_t i = 0, reply = 0; i < ready_.size(); ++i) {
      if (applies_itself[ready_[i].home]) {
        note_applied(ready_[i], apply_at(versions, ready_[i].home, ready_[i].bytes));
        continue;
      }
      const std::vector<std::byte>& r = replies[reply++];
      if (r.size() != sizeof(notice_span)) {
        malformed_reply(diffs_for_home.id, ready_[i].home, r.size(), sizeof(notice_span));
      }
      notice_span span;
      std::memcpy(&span, r.data(), sizeof span);
      note_applied(ready_[i], span);
    }
  }

 private:
  struct batch {
    node_id home = 0;
    std::vector<std::byte> bytes;
    std::vector<std::uint64_t> pages;  // those with a non-empty diff
  };

  void close(node_id home) {
    batch& b = open_[home];
    b.home = home;
    ready_.push_back(std::move(b));
    b = batch{};
  }

  // The home's notice count before the batch was the one this node last
  // caught up with: only this node's diffs changed that home since, so each
  // page in the batch is now the home's copy at its cached version + 1 (the
  // home bumped it once), and the notices the batch wrote need not be read.
  // Otherwise nothing moves, and the next acquire reads the notices.
  static void note_applied(const batch& b, const notice_span& span) {
    home_summary& seen = homes[b.home].seen;
    if (span.before != seen.notices) return;
    seen.notices = span.after;
    for (std::uint64_t index : b.pages) directory.set_version(index, directory.version(index) + 1);
  }

  std::vector<batch> open_;
  std::vector<batch> ready_;
};

// One mprotect per run of adjacent pages in `sorted`.
void protect_runs(const std::uint64_t* sorted, std::uint64_t n, int prot) {
  for (std::uint64_t i = 0; i < n;) {
    const std::uintptr_t start = page_address(sorted[i]);
    std::uint64_t j = i + 1;
    while (j < n && page_address(sorted[j]) == start + (j - i) * page) ++j;
    if (mprotect(reinterpret_cast<void*>(start), (j - i) * page, prot) != 0) {
      fatal("cannot change the protection of cache frames at %#lx: %s",
            static_cast<unsigned long>(start), std::strerror(errno));
    }
    i = j;
  }
}

// Calls run(i, count, home) for each run sorted[i..i+count) of adjacent
// pages of one home; returns how many runs.
template <class Run>
std::uint64_t for_each_run(const std::uint64_t* sorted, std::uint64_t n, Run run) {
  std::uint64_t runs = 0;
  for (std::uint64_t i = 0; i < n; ++runs) {
    const std::uintptr_t start = page_address(sorted[i]);
    std::uint64_t j = i + 1;
    while (j < n && sorted[j] == sorted[i] + (j - i) &&
           space->home(page_address(sorted[j])) == space->home(start)) {
      ++j;
    }
    run(i, j - i, space->home(start));
    i = j;
  }
  return runs;
}

// Reads the versions of `sorted` pages from their homes into the directory,
// one read per run (adjacent pages of one home have adjacent version
// words), before the caller reads their bytes: so the bytes are at least
// as new as the version (a diff applied in between only makes the version
// look old, and the page is dropped at the next acquire that sees its home
// changed). Sets each home's exported word first (export_from).
void read_versions(const std::uint64_t* sorted, std::uint64_t n) {
  for_each_run(sorted, n, [](std::uint64_t, std::uint64_t, node_id home) { export_from(home); });
  std::atomic_thread_fence(std::memory_order_seq_cst);
  completion got_versions;
  for_each_run(sorted, n, [&](std::uint64_t i, std::uint64_t count, node_id) {
    got_versions.expect();
    current_transport()->post_read(directory.versions(sorted[i]),
                                   versions.version_address(sorted[i]),
                                   count * sizeof(std::uint32_t), got_versions);
  });
  got_versions.wait();
  std::atomic_thread_fence(std::memory_order_acquire);
}

// One page into `to`: its version, then its bytes (read_versions).
void read_version_then_page(std::uint64_t index, unsigned char* to, std::uintptr_t a) {
  read_versions(&index, 1);
  current_transport()->read(to, a, page);
}

// A page of the executable's static data from its home into its frame:
// its per-node bytes stay this node's. Caller holds the page lock. The home's
// bytes go to a buffer first and the frame takes them with this node's
// per-node bytes already in place, so a page that stays readable meanwhile
// (an acquire's refetch) never shows another node's per-node bytes; the
// other bytes it rewrites with their own values or with the home's newer
// ones, as a refetch of a partition's page does.
void fetch_static_page(std::uint64_t index, std::uintptr_t a) {
  unsigned char* frame = alias_of(index);
  unsigned char fresh[page];
  read_version_then_page(index, fresh, a);
  keep_per_node_bytes(a, fresh, frame);
  std::memcpy(frame, fresh, page);
}

// `sorted` pages (locked by the caller): their versions, then their bytes
// into their frames through the alias, one read per run of adjacent pages
// of one home, all in flight at once. Returns the reads of bytes.
std::uint64_t read_into_frames(const std::uint64_t* sorted, std::uint64_t n) {
  read_versions(sorted, n);
  completion done;
  const std::uint64_t reads =
      for_each_run(sorted, n, [&](std::uint64_t i, std::uint64_t count, node_id) {
        done.expect();
        current_transport()->post_read(alias_of(sorted[i]), page_address(sorted[i]), count * page,
                                       done);
      });
  done.wait();
  return reads;
}

// Reads pages of the partitions from their homes into their frames and
// makes them readable: `sorted` pages, locked by the caller, invalid and
// already listed as cached (with the fence after the pushes). One read per
// run of adjacent pages of one home, all in flight at once.
void fetch_pages(const std::uint64_t* sorted, std::uint64_t n) {
  const std::uint64_t reads = read_into_frames(sorted, n);
  chaos::point();  // fetched, not yet readable
  protect_runs(sorted, n, PROT_READ);
  stats.fetches.fetch_add(reads, std::memory_order_relaxed);
  stats.pages_fetched.fetch_add(n, std::memory_order_relaxed);
  stats.bytes_fetched.fetch_add(n * page, std::memory_order_relaxed);
}

// The pages of [begin, end) (page-aligned) in other nodes' partitions that
// are invalid and not locked by anyone: locked and appended to `out` (room
// for every page of the range). Static data is left to faults
// (fetch_static_page).
std::uint64_t lock_invalid_pages(std::uintptr_t begin, std::uintptr_t end, std::uint64_t* out) {
  std::uint64_t n = 0;
  for (std::uintptr_t a = begin; a < end; a += page) {
    const location where = locate(reinterpret_cast<const void*>(a));
    if (where.here || !where.global || space->in_static_region(a)) continue;
    const std::uint64_t index = where.backing_offset / page;
    if (directory.try_lock_in(index, page_state::invalid)) out[n++] = index;
  }
  return n;
}

// Fetches `sorted` (locked by the caller, invalid) as cache pages: listed
// before the fetch (issue 10: an acquire on another worker that takes the
// list after this push waits on the page lock and then drops the page; one
// that took the list before it began before this fetch). The fence keeps
// the fetch's reads from passing the pushes (else they could still read
// bytes older than a release that acquire then sees).
void list_and_fetch(const std::uint64_t* sorted, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) directory.list_cached(sorted[i]);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  chaos::point();
  fetch_pages(sorted, n);
}

constexpr std::uint64_t group_pages = layout::group_bytes / page;

// A fault's fetch of the page at `a` (locked by the caller, invalid): the
// page alone, or with the pages after it when it continues a sequential
// stream (readahead.hpp), or, in a tbox group (layout.hpp), the whole
// group's invalid pages; in each case only pages no one else holds, taken
// in index order with try-locks (never a wait while holding a page lock),
// with one read per run.
void fetch_for_fault(std::uint64_t index, std::uintptr_t a) {
  if (space->in_static_region(a)) {
    directory.list_cached(index);  // as in list_and_fetch
    std::atomic_thread_fence(std::memory_order_seq_cst);
    chaos::point();
    fetch_static_page(index, a);
    stats.fetches.fetch_add(1, std::memory_order_relaxed);
    stats.pages_fetched.fetch_add(1, std::memory_order_relaxed);
    stats.bytes_fetched.fetch_add(page, std::memory_order_relaxed);
    chaos::point();  // fetched, not yet readable
    protect(a, PROT_READ);
    return;
  }
  const std::uintptr_t group = space->group_begin(a);
  if (group == 0) {
    std::uint64_t pages[1 + readahead::max_pages];
    pages[0] = index;
    const std::uint64_t ahead = streams.after_fault(index);
    const std::uint64_t n = 1 + lock_invalid_pages(a + page, a + (1 + ahead) * page, pages + 1);
    list_and_fetch(pages, n);
    for (std::uint64_t i = 1; i < n; ++i) directory.unlock(pages[i], page_state::read_only);
    return;
  }
  std::uint64_t pages[group_pages];
  const std::uint64_t before = lock_invalid_pages(group, a, pages);
  pages[before] = index;
  const std::uint64_t n =
      before + 1 + lock_invalid_pages(a + page, group + layout::group_bytes, pages + before + 1);
  list_and_fetch(pages, n);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (pages[i] != index) directory.unlock(pages[i], page_state::read_only);
  }
}

// Twins a locked read-only page and lists it dirty: before it is made
// writable (issue 10: once it is, another worker may write the page
// without a fault and then release; that release must find the page on the
// dirty list, and wait for its lock, or it returns with the write still
// here). The caller fences after the pushes, then unprotects.
void twin_and_list_dirty(std::uint64_t index) {
  const std::uint32_t slot = twins.take();
  std::memcpy(twins.bytes(slot), alias_of(index), page);
  directory.set_twin(index, slot);
  directory.dirty.push(index);
}

// Write-ahead: a write fault that continues a sequential stream of write
// faults (readahead.hpp's table, a second one for writes) makes the next
// pages writable with the faulting one, so a thread filling a remote buffer
// takes a fault per window instead of per page. The pages after `a` that
// no one holds and that are read-only, or invalid (fetched first, as
// readahead fetches them): locked, twinned, listed dirty and appended to
// `out` (room for readahead::max_pages), in address order; stops at the
// first page it cannot take. A page twinned ahead but never written has an
// empty diff at the release: nothing goes home for it.
std::uint64_t take_writable_ahead(std::uint64_t index, std::uintptr_t a, std::uint64_t* out) {
  const std::uint64_t ahead = write_streams.after_fault(index);
  std::uint64_t n = 0, invalid[readahead::max_pages], fetching = 0;
  for (std::uintptr_t p = a + page; p < a + (1 + ahead) * page; p += page) {
    const location where = locate(reinterpret_cast<const void*>(p));
    if (where.here || !where.global || space->in_static_region(p)) break;
    const std::uint64_t i = where.backing_offset / page;
    if (directory.try_lock_in(i, page_state::read_only)) {
      out[n++] = i;
    } else if (directory.try_lock_in(i, page_state::invalid)) {
      out[n++] = i;
      invalid[fetching++] = i;
    } else {
      break;
    }
  }
  if (fetching != 0) list_and_fetch(invalid, fetching);
  for (std::uint64_t k = 0; k < n; ++k) twin_and_list_dirty(out[k]);
  return n;
}

// Takes up to a chunk of `list`, sorted, and locks each page; keeps (in
// place, returning how many) those in state `keep`, unlocks the others.
// ~0 when the list was empty.
std::uint64_t take_and_lock(page_list& list, std::uint64_t* pages, page_state keep) {
  const std::uint64_t n = list.take_all(pages, take_chunk);
  std::sort(pages, pages + n);
  std::uint64_t kept = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    chaos::point();  // taken off the list, not yet locked
    const page_state st = directory.lock(pages[i]);
    if (st == keep) {
      pages[kept++] = pages[i];
    } else {
      directory.unlock(pages[i], st);
    }
  }
  return n == 0 ? ~0ull : kept;
}

// Caller holds sync_mutex. Returns the number of pages it flushed.
//
// A page is write-protected, diffed, and left read-only, so that the next
// write faults and twins it again. A page that was flushed before and has
// been written again is likely written in every interval (a counter under
// a lock, a buffer refilled each round): it stays writable, and costs no
// fault and no mprotect, while its diff is not empty. Its diff is taken
// while other workers may write it, so its twin then takes exactly the
// bytes the diff carries (twin_update): a byte written after it was
// encoded still differs, and goes in the next flush. It stays locked and
// off the dirty list until the flush has taken the whole list, then is
// listed again before it is unlocked (a release that finds the list empty
// meanwhile waits for this flush: sync_generation). After a few empty
// diffs in a row (page_directory::keep_writable) it goes the usual way:
// protected, diffed again (a write may have come in between), read-only.
std::uint64_t flush_dirty_pages() {
  const std::uint64_t traced_from = trace::start();
  const std::uint64_t diff_bytes_before = stats.diff_bytes_sent.load(std::memory_order_relaxed);
  diff_batcher batcher(space->nodes);
  std::uint64_t* const pages = taken_chunk.data();
  kept_writable.clear();
  // Returns the bytes changed; the static region's per-node bytes are never sent home.
  auto add_diff = [&](std::uint64_t index, unsigned char* twin, twin_update update) {
    const std::uintptr_t a = page_address(index);
    keep_per_node_bytes(a, twin, alias_of(index));
    return batcher.add(space->home(a), index, a, twin, update);
  };
  std::uint64_t flushed = 0;
  for (std::uint64_t n; (n = take_and_lock(directory.dirty, pages, page_state::dirty)) != ~0ull;) {
    flushed += n;
    std::uint64_t to_protect = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t index = pages[i];
      if (directory.flushed_before(index)) {
        unsigned char* twin = twins.bytes(directory.twin(index));
        const bool written = add_diff(index, twin, twin_update::to_sent_bytes) != 0;
        if (directory.keep_writable(index, written)) {
          kept_writable.push_back(index);
          continue;
        }
      }
      pages[to_protect++] = index;
    }
    protect_runs(pages, to_protect, PROT_READ);  // from here a racing write faults and waits
    for (std::uint64_t i = 0; i < to_protect; ++i) {
      const std::uint64_t index = pages[i];
      const std::uint32_t slot = directory.twin(index);
      add_diff(index, twins.bytes(slot), twin_update::none);
      twins.give_back(slot);
      directory.set_twin(index, 0);
      directory.note_flushed(index);
      directory.unlock(index, page_state::read_only);
    }
  }
  chaos::point();  // kept pages diffed, writable, off the dirty list
  for (std::uint64_t index : kept_writable) {
    directory.dirty.push(index);
    directory.unlock(index, page_state::dirty);
  }
  stats.pages_kept_writable.fetch_add(kept_writable.size(), std::memory_order_relaxed);
  chaos::point();  // pages unlocked, diffs not yet sent
  batcher.send_and_wait();
  if (flushed) {
    stats.releases.fetch_add(1, std::memory_order_relaxed);
    trace::span(trace::kind::release, traced_from, flushed,
                stats.diff_bytes_sent.load(std::memory_order_relaxed) - diff_bytes_before);
  }
  return flushed;
}

// Pages dirty at this acquire (written after its flush by another worker,
// or kept writable by a flush) whose home changed them: keep the local
// changes, bring in the home's changes around them, and make the home's
// copy the new twin. `sorted` pages are locked by the caller. Their
// versions, then their bytes, one read per run. They stay writable: the
// node's other workers may store into them meanwhile, so the merge writes
// only the bytes the home changed (home != twin) that this node did not
// (now == twin), each loaded and stored on its own. A store by another
// worker to such a byte during the merge would race with the home's
// write: had it been ordered after that write, its worker's acquire would
// have come first (acquires hold sync_mutex) and made the home's byte the
// twin's. Any other byte is left as it is, so no store is lost. (This
// write-protected the pages around the merge before: two mprotects, each
// a TLB shootdown of 10-100 µs on a 2-vCPU VM, were most of a turn of two
// nodes alternating on a lock; docs/BENCHMARKS.md.)
void refresh_dirty_pages(const std::vector<std::uint64_t>& sorted) {
  if (sorted.empty()) return;
  const std::uint64_t n = sorted.size();
  read_versions(sorted.data(), n);
  const auto fresh = std::make_unique_for_overwrite<unsigned char[]>(n * page);
  completion done;
  for_each_run(sorted.data(), n, [&](std::uint64_t i, std::uint64_t count, node_id) {
    done.expect();
    current_transport()->post_read(&fresh[i * page], page_address(sorted[i]), count * page, done);
  });
  done.wait();
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t index = sorted[i];
    unsigned char* twin = twins.bytes(directory.twin(index));
    unsigned char* home = &fresh[i * page];
    keep_per_node_bytes(page_address(index), home, twin);  // never the home's to change
    unsigned char* now = alias_of(index);
    for (std::uint64_t b = 0; b < page; b += sizeof(std::uint64_t)) {
      if (std::memcmp(home + b, twin + b, sizeof(std::uint64_t)) == 0) continue;
      for (std::uint64_t k = b; k < b + sizeof(std::uint64_t); ++k) {
        if (home[k] == twin[k]) continue;
        std::atomic_ref<unsigned char> mine(now[k]);
        if (mine.load(std::memory_order_relaxed) == twin[k]) {
          mine.store(home[k], std::memory_order_relaxed);
        }
      }
    }
    std::memcpy(twin, home, page);
  }
}

// Read-only pages that their homes changed and this node read lately
// (recent_pages.hpp), locked by the acquire: read again in its batch, the
// version first, one read per run (a page of static data on its own,
// fetch_static_page), into frames that stay readable. A worker
// of this node that reads one meanwhile has not synchronized with the
// change, so old bytes, new bytes or a mix are all it may see (only a
// data race could tell, DESIGN §4). Relisted, then unlocked.
void refetch_read_only_pages(const std::vector<std::uint64_t>& sorted) {
  if (sorted.empty()) return;
  // The static data's pages come last (after every partition in the
  // backing), one at a time: they keep their per-node bytes.
  const auto statics = std::partition_point(sorted.begin(), sorted.end(), [](std::uint64_t i) {
    return !space->in_static_region(page_address(i));
  });
  read_into_frames(sorted.data(), static_cast<std::uint64_t>(statics - sorted.begin()));
  for (auto i = statics; i != sorted.end(); ++i) fetch_static_page(*i, page_address(*i));
  for (std::uint64_t index : sorted) {
    directory.list_cached(index);  // if the walk took it: listed again before anyone can use it
    directory.unlock(index, page_state::read_only);
  }
  stats.pages_refetched.fetch_add(sorted.size(), std::memory_order_relaxed);
}

// What an acquire does with the pages it caches from one home.
enum class home_change : std::uint8_t {
  none,        // its summary has not moved: keep them all
  noticed,     // only diffs were applied, and its notices say to which pages
  diffs,       // only diffs were applied, more than its notice ring holds:
               // drop the pages whose version moved
  home_wrote,  // the home released: its writes have no versions, drop them all
};

struct home_changes {
  std::array<home_summary, layout::max_nodes> now{};
  std::array<home_change, layout::max_nodes> change{};
  std::array<bool, layout::max_nodes> looked{};  // exported when the reads were posted
  std::vector<std::uint64_t> noticed;            // pages named by notices, of every home
  bool any = false;
};

// A counter at another node, read whole. A one-sided read (a memcpy on
// shm) may split a word that changes meanwhile, and a torn notice count or
// reserve count could hide notices; an atomic add of 0 cannot.
std::uint64_t read_counter(gaddr a) { return current_transport()->fetch_add(a, 0); }

// Reads the summary of every home this node caches from (one read each, all
// in flight) and says for each what changed since this node last looked.
// A torn summary only ever makes a change look like another change (see
// "Reading counters without tearing", DESIGN §4); the counts an acquire
// keeps are read again whole (read_all_notices).
home_changes read_summaries() {
  home_changes c;
  completion done;
  for (node_id h = 0; h < space->nodes; ++h) {
    if (h == space->self || !homes[h].exported.load(std::memory_order_acquire)) continue;
    c.looked[h] = true;
    done.expect();
    current_transport()->post_read(&c.now[h], versions.summary_address(h), sizeof c.now[h], done);
  }
  done.wait();
  std::atomic_thread_fence(std::memory_order_acquire);  // summaries before notices and versions
  for (node_id h = 0; h < space->nodes; ++h) {
    if (!c.looked[h]) continue;
    const home_summary& seen = homes[h].seen;
    c.change[h] = c.now[h].write_epoch != seen.write_epoch ? home_change::home_wrote
                  : c.now[h].notices != seen.notices       ? home_change::diffs
                                                           : home_change::none;
    c.any |= c.change[h] != home_change::none;
  }
  return c;
}

// An acquire caching at least this many pages asks a home whose write epoch
// moved which pages it wrote, rather than dropping every page it caches
// from it: a round trip and the home's scan (tens of microseconds at most)
// against refaulting, one by one at about 5 us each, the dropped pages it
// uses again.
constexpr std::uint64_t ask_home_from_cached_pages = 64;

// An ask does not pay when the home wrote most of what this node caches:
// the pages are dropped anyway, and each scan makes the home's next store
// to every page it wrote take a fault (own_writes.hpp), about 1 us each: a
// 1 MiB producer homed at the producer went from 0.35 to 0.75-0.98 ms per
// round. So after an acquire that asked and still dropped (or refreshed)
// half of what it cached, this node drops that home's pages without asking
// for the next 1, 2, 4 ... up to max_asks_skipped acquires that find its
// epoch moved, and asks again after that; an ask that paid resets it.
constexpr std::uint32_t max_asks_skipped = 64;

bool will_ask(home_view& h) {
  if (!h.tracks_own_writes) return false;
  if (h.asks_skipped < h.asks_to_skip) {
    ++h.asks_skipped;
    return false;
  }
  return true;
}

// After an acquire that asked (the homes in `asked`): whether it paid, by
// how many of the `cached` pages it still had to drop or refresh. With
// several homes asked at once, each is judged by the whole acquire.
void judge_asks(const std::array<bool, layout::max_nodes>& asked, std::uint64_t changed,
                std::uint64_t cached) {
  const bool paid = changed * 2 < cached;
  for (node_id n = 0; n < space->nodes; ++n) {
    if (!asked[n]) continue;
    home_view& h = homes[n];
    h.asks_skipped = 0;
    // Not the first answer: a home's first scan names every page it ever
    // wrote, also those written before this node fetched them.
    if (h.asked_before && !paid) {
      h.asks_to_skip = std::min(max_asks_skipped, std::max(1u, h.asks_to_skip * 2));
    } else {
      h.asks_to_skip = 0;
    }
    h.asked_before = true;
  }
}

// For each home whose write epoch moved, if this node caches enough pages:
// asks it (all in flight) to notice its own writes. Where it did, the
// home's changes are notices, as for diffs (read_all_notices reads them),
// and the epoch it read before its scan becomes the one seen. Returns the
// homes that answered so.
std::array<bool, layout::max_nodes> ask_homes_for_own_writes(home_changes& c) {
  std::array<bool, layout::max_nodes> asked{};
  if (directory.cached.size() < ask_home_from_cached_pages) return asked;
  std::array<std::vector<std::byte>, layout::max_nodes> replies;
  completion done;
  for (node_id h = 0; h < space->nodes; ++h) {
    if (c.change[h] != home_change::home_wrote || !will_ask(homes[h])) continue;
    asked[h] = true;
    done.expect();
    current_transport()->post_call(h, own_writes_of_home.id, nullptr, 0, replies[h], done);
  }
  done.wait();
  for (node_id h = 0; h < space->nodes; ++h) {
    if (!asked[h]) continue;
    own_writes_reply r;
    if (replies[h].size() != sizeof r) {
      malformed_reply(own_writes_of_home.id, h, replies[h].size(), sizeof r);
    }
    std::memcpy(&r, replies[h].data(), sizeof r);
    if (r.tracked == 0) {
      homes[h].tracks_own_writes = false;
      asked[h] = false;
      continue;
    }
    c.now[h].write_epoch = r.write_epoch;
    c.change[h] = home_change::diffs;
    stats.homes_asked.fetch_add(1, std::memory_order_relaxed);
  }
  return asked;
}

// The notices [from, to) of `home` appended to `out`; false (and `out` as it
// was) when its ring no longer holds them all (page_versions.hpp).
bool read_notices(node_id home, std::uint64_t from, std::uint64_t to,
                  std::vector<std::uint64_t>& out) {
  if (to - from > layout::notice_capacity) return false;
  const std::size_t at = out.size();
  out.resize(at + (to - from));
  completion done;
  for (std::uint64_t n = from; n < to;) {  // two reads where the ring wraps
    const std::uint64_t count =
        std::min(to - n, layout::notice_capacity - n % layout::notice_capacity);
    done.expect();
    current_transport()->post_read(&out[at + (n - from)], versions.notice_address(home, n),
                                   count * sizeof(std::uint64_t), done);
    n += count;
  }
  done.wait();
  std::atomic_thread_fence(std::memory_order_acquire);  // the entries before the reserve count
  const std::uint64_t reserved = read_counter(versions.reserved_address(home));
  if (reserved - from > layout::notice_capacity) {  // some entry was being overwritten
    out.resize(at);
    return false;
  }
  return true;
}

// For each home whose summary moved: its counters read again, whole (they
// become what this node has caught up with); where only diffs moved it, the
// notices since the last look, read into c.noticed (sorted, each page
// once), or the version comparison where the ring fell behind.
void read_all_notices(home_changes& c) {
  for (node_id h = 0; h < space->nodes; ++h) {
    if (c.change[h] != home_change::diffs && c.change[h] != home_change::home_wrote) continue;
    c.now[h].notices = read_counter(versions.notice_count_address(h));
    if (c.change[h] == home_change::home_wrote) {
      c.now[h].write_epoch = read_counter(versions.write_epoch_address(h));
    }
    if (c.change[h] == home_change::diffs &&
        read_notices(h, homes[h].seen.notices, c.now[h].notices, c.noticed)) {
      c.change[h] = home_change::noticed;
    }
  }
  std::sort(c.noticed.begin(), c.noticed.end());
  c.noticed.erase(std::unique(c.noticed.begin(), c.noticed.end()), c.noticed.end());
}

// Takes the whole cached list, sorted. Each page stays on it, or locked by
// the caller, as the list invariant asks (DESIGN §4.1): the caller locks
// them all and relists every page it keeps before unlocking it.
std::vector<std::uint64_t> take_cached_list() {
  std::vector<std::uint64_t> taken;
  for (std::uint64_t n; (n = directory.cached.take_all(taken_chunk.data(), take_chunk)) != 0;) {
    taken.insert(taken.end(), taken_chunk.begin(),
                 taken_chunk.begin() + static_cast<std::ptrdiff_t>(n));
  }
  std::sort(taken.begin(), taken.end());
  return taken;
}

// The home's current versions of `sorted` (locked by the caller), one read
// per run; false for each page whose version is not the cached one.
std::vector<bool> still_current(const std::vector<std::uint64_t>& sorted) {
  std::vector<std::uint32_t> at_home(sorted.size());
  completion done;
  for_each_run(sorted.data(), sorted.size(), [&](std::uint64_t i, std::uint64_t count, node_id) {
    done.expect();
    current_transport()->post_read(&at_home[i], versions.version_address(sorted[i]),
                                   count * sizeof(std::uint32_t), done);
  });
  done.wait();
  std::vector<bool> current(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    current[i] = at_home[i] == directory.version(sorted[i]);
  }
  return current;
}

// A taken page kept: listed again before anyone else can lock it.
void keep_taken_page(std::uint64_t index, page_state st) {
  directory.relist_taken(index);
  directory.unlock(index, st);
  stats.pages_kept.fetch_add(1, std::memory_order_relaxed);
}

// What an acquire's pass over pages decided, to be done once the pass is
// over: pages to drop (locked, read-only) and pages to refresh (locked,
// dirty: written after the flush by another worker).
struct page_verdicts {
  std::vector<std::uint64_t> drop, refresh;
  void changed(std::uint64_t index, page_state st) {
    (st == page_state::dirty ? refresh : drop).push_back(index);
  }
};

// The walk over every cached page, for homes whose notices cannot say what
// changed (`home_wrote`, `diffs`); the pages of the other homes are kept.
void walk_cached_pages(const home_changes& changes, page_verdicts& v) {
  std::vector<std::uint64_t> to_check;
  std::vector<page_state> check_states;
  for (std::uint64_t index : take_cached_list()) {
    chaos::point();  // taken off the list, not yet locked
    const page_state st = directory.lock(index);
    if (st == page_state::invalid) {
      directory.let_go_taken(index);
      directory.unlock(index, st);
      continue;
    }
    switch (changes.change[space->home(page_address(index))]) {
      case home_change::none:
      case home_change::noticed:  // its changed pages are the noticed pass's
        keep_taken_page(index, st);
        break;
      case home_change::diffs:
        to_check.push_back(index);
        check_states.push_back(st);
        break;
      case home_change::home_wrote:
        directory.let_go_taken(index);
        v.changed(index, st);
        break;
    }
  }
  const std::vector<bool> current = still_current(to_check);
  for (std::size_t i = 0; i < to_check.size(); ++i) {
    if (current[i]) {
      keep_taken_page(to_check[i], check_states[i]);
    } else {
      directory.let_go_taken(to_check[i]);
      v.changed(to_check[i], check_states[i]);
    }
  }
}

// The pages named by notices: each cached one locked and judged changed (it
// may have been fetched after the change; dropping it is only a refault).
// They stay listed: a page on the list may be invalid.
void judge_noticed_pages(const std::vector<std::uint64_t>& noticed, page_verdicts& v) {
  for (std::uint64_t index : noticed) {
    chaos::point();
    const page_state st = directory.lock(index);
    if (st == page_state::invalid) {
      directory.unlock(index, st);
    } else {
      v.changed(index, st);
    }
  }
}

// The acquire's second half (caller holds sync_mutex; its flush is done):
// drops the cached pages another node may have changed, keeps the others.
// A page dirtied after the flush (by another worker) whose home changed it
// is refreshed instead: the home's copy with the local changes on top.
// Every page it decides on stays locked until its verdict is carried out.
// Returns the number of pages dropped.
std::uint64_t drop_changed_pages() {
  home_changes changes = read_summaries();
  if (!changes.any) {  // every cached page is the home's copy
    stats.pages_kept.fetch_add(directory.cached.size(), std::memory_order_relaxed);
    return 0;
  }
  const std::uint64_t traced_from = trace::start();
  const std::uint64_t cached = directory.cached.size();
  const std::array<bool, layout::max_nodes> asked = ask_homes_for_own_writes(changes);
  read_all_notices(changes);
  page_verdicts v;
  const bool walk = std::any_of(changes.change.begin(), changes.change.end(), [](home_change c) {
    return c == home_change::diffs || c == home_change::home_wrote;
  });
  if (walk) {
    walk_cached_pages(changes, v);
    stats.acquire_walks.fetch_add(1, std::memory_order_relaxed);
  }
  judge_noticed_pages(changes.noticed, v);
  if (!walk) {  // about: the list may hold invalid pages
    stats.pages_kept.fetch_add(directory.cached.size() - std::min<std::uint64_t>(
                                   directory.cached.size(), v.drop.size() + v.refresh.size()),
                               std::memory_order_relaxed);
  }
  judge_asks(asked, v.drop.size() + v.refresh.size(), cached);
  std::sort(v.drop.begin(), v.drop.end());
  const std::vector<std::uint64_t> refetch = recent.take_recent(v.drop);
  protect_runs(v.drop.data(), v.drop.size(), PROT_NONE);
  for (std::uint64_t index : v.drop) directory.unlock(index, page_state::invalid);
  std::sort(v.refresh.begin(), v.refresh.end());
  chaos::point();
  refresh_dirty_pages(v.refresh);
  for (std::uint64_t index : v.refresh) {
    directory.list_cached(index);  // if the walk took it: listed again before anyone can use it
    directory.unlock(index, page_state::dirty);
  }
  chaos::point();
  refetch_read_only_pages(refetch);
  for (node_id h = 0; h < space->nodes; ++h) {
    if (changes.looked[h]) homes[h].seen = changes.now[h];
  }
  stats.pages_invalidated.fetch_add(v.drop.size(), std::memory_order_relaxed);
  if (!v.drop.empty() || !v.refresh.empty() || !refetch.empty()) {
    stats.acquires.fetch_add(1, std::memory_order_relaxed);
    trace::span(trace::kind::acquire, traced_from, v.drop.size(), v.refresh.size() + refetch.size());
  }
  return v.drop.size();
}

void refuse_on_service_thread(const char* what) {
  if (current_transport()->on_service_thread()) {
    fatal("%s from a message handler: it waits for other nodes, which needs this thread", what);
  }
}

// The versions and notices after the bytes, the notice count after them: a
// node that sees the count moved reads notices that say which pages changed.
// One batch at a time: the notices of a batch are written and published by
// one thread (page_versions.hpp).
void on_apply_diffs(message& m) {
  notice_span span;
  if (!apply_here(versions, m.payload(), span)) {
    fatal("a malformed diff batch arrived from node %u", m.from());
  }
  m.reply(&span, sizeof span);
}

// A node that caches from this one asks which pages this node wrote
// (home_apply.hpp; the service thread, one scan at a time under the apply
// lock).
void on_notice_own_writes(message& m) {
  const own_writes_reply r = notice_own_writes(versions);
  m.reply(&r, sizeof r);
}

}  // namespace

void register_handlers() {
  register_handler(diffs_for_home, &on_apply_diffs);
  register_handler(own_writes_of_home, &on_notice_own_writes);
}

namespace {

// Nodes other than 0: the executable's static data becomes cache frames of
// node 0's copy. The current bytes go to the frames' alias first, so the
// per-node bytes (and everything until the first fetch) keep their values.
void adopt_static_region() {
  const std::uintptr_t begin = space->static_begin, end = space->static_end;
  if (space->self == 0 || begin == end) return;
  per_node_bytes = per_node_static_ranges(begin, end);
  const std::uint64_t offset = locate(reinterpret_cast<const void*>(begin)).backing_offset;
  std::memcpy(address_space::cache_alias(offset), reinterpret_cast<void*>(begin), end - begin);
  void* at = reinterpret_cast<void*>(begin);
  if (mmap(at, end - begin, PROT_NONE, MAP_SHARED | MAP_FIXED, cache_frames_fd(),
           static_cast<off_t>(offset)) != at) {
    fatal("cannot turn the program's static data into cache frames: %s", std::strerror(errno));
  }
}

}  // namespace

namespace {

void flush_diffs(bool publishes_home_writes) noexcept;

// Before remote frees are sent: the node's writes to those blocks go home
// first. (Not possible on the service thread, which must not wait for other
// nodes; it frees no remote blocks of its own.)
void flush_diffs_before_sending_frees() noexcept {
  if (current_transport() != nullptr && !current_transport()->on_service_thread()) {
    flush_diffs(false);
  }
}

}  // namespace

void init() {
  space = &ensure_address_space();
  if (space->nodes < 2) return;
  set_before_sending_frees(&flush_diffs_before_sending_frees);
  directory.init(space->backing_bytes() / page);
  versions.init(*space);
  twins.init(twin_capacity);
  install_fault_handler();
  enabled.store(true, std::memory_order_release);
  adopt_static_region();
  own_writes::start(*space);  // where the kernel can: acquirers may ask which pages this node wrote
}

void leave_run() noexcept {
  left_run.store(true, std::memory_order_release);
  enabled.store(false, std::memory_order_release);
}

bool handle_fault(void* address, bool write) noexcept {
  if (left_run.load(std::memory_order_acquire)) {
    const location where = locate(address);
    if (!where.here) {
      fatal("node %u touched %p, homed on node %u, after the end of the run, when the other "
            "nodes have left",
            unsigned(space->self), address, unsigned(where.home));
    }
    return false;
  }
  if (!enabled.load(std::memory_order_acquire) || current_transport() == nullptr) return false;
  // A signal handler: its waits block the thread, never park (waiting.hpp).
  waiting::no_park_scope in_fault_handler;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(address) & ~(page - 1);
  // Global regions are whole pages, so the page's first byte answers for it.
  const location where = locate(reinterpret_cast<const void*>(a));
  if (where.here) return false;  // not a cache frame: home memory, or not global
  const std::uint64_t index = where.backing_offset / page;
  const std::uint64_t start = monotonic_ns();
  chaos::point();
  page_state st = directory.lock(index);
  chaos::point();
  if (st == page_state::invalid) {
    fetch_for_fault(index, a);
    recent.faulted(index);
    st = page_state::read_only;
  }
  if (write && st == page_state::read_only) {
    std::uint64_t pages[1 + readahead::max_pages];
    pages[0] = index;
    twin_and_list_dirty(index);
    const std::uint64_t n = 1 + take_writable_ahead(index, a, pages + 1);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    chaos::point();
    protect_runs(pages, n, PROT_READ | PROT_WRITE);
    for (std::uint64_t i = 1; i < n; ++i) directory.unlock(pages[i], page_state::dirty);
    st = page_state::dirty;
  }
  chaos::point();
  directory.unlock(index, st);
  (write ? stats.write_faults : stats.read_faults).fetch_add(1, std::memory_order_relaxed);
  stats.fault_ns.fetch_add(monotonic_ns() - start, std::memory_order_relaxed);
  trace::span(trace::kind::fault, start, a, where.home, write ? 1 : 0);
  return true;
}

void forget_readahead_streams() noexcept {
  streams.forget();
  write_streams.forget();
}

void prefetch(const void* p, std::size_t len) noexcept {
  if (!enabled.load(std::memory_order_acquire) || len == 0 || current_transport() == nullptr ||
      current_transport()->on_service_thread()) {
    return;
  }
  std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  std::uintptr_t end = begin + std::min<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p) + len - begin,
                                                       max_prefetch_bytes);
  end = (end + page - 1) & ~(page - 1);
  if (const std::uintptr_t g = space->group_begin(begin)) begin = g;
  if (const std::uintptr_t g = space->group_begin(end - 1)) end = g + layout::group_bytes;
  // A pointee is one allocation, in one partition: this node's memory at
  // both ends is this node's throughout (a transfer between two threads of
  // one node costs two checks).
  if (locate(reinterpret_cast<const void*>(begin)).here &&
      locate(reinterpret_cast<const void*>(end - 1)).here) {
    return;
  }
  // Page locks are held across the read: block, never park (waiting.hpp).
  waiting::no_park_scope holding_page_locks;
  std::uint64_t pages[max_prefetch_bytes / page + 2 * group_pages];
  const std::uint64_t n = lock_invalid_pages(begin, end, pages);
  if (n == 0) return;
  list_and_fetch(pages, n);
  for (std::uint64_t i = 0; i < n; ++i) directory.unlock(pages[i], page_state::read_only);
}

namespace {

// Runs `work` holding sync_mutex, with sync_generation odd around it.
//
// Its transport waits block the worker instead of parking the fiber
// (waiting.hpp): it holds sync_mutex and page locks, which another fiber of
// this worker may ask for (a fault takes a page lock; a release takes
// sync_mutex), and that fiber would then block the worker its holder needs
// to resume on. A fiber-aware lock would let the worker run other fibers
// meanwhile, but both locks are also taken in the fault handler, which
// cannot park; and the wait is bounded (diff acks, a page read), so it
// costs this worker one round trip.
template <class Work>
void synchronized(const char* what, Work work) {
  refuse_on_service_thread(what);
  waiting::no_park_scope blocking_waits;
  std::lock_guard<std::mutex> lock(sync_mutex);
  sync_generation.fetch_add(1, std::memory_order_seq_cst);
  work();
  sync_generation.fetch_add(1, std::memory_order_seq_cst);
}

// The fast path. The fence pairs with the one after each push in
// handle_fault: either this thread sees the push, or the faulting thread's
// fetch (or its writer's stores) come after everything this thread's
// synchronization operation made visible. Then: no synchronized block ran
// while it looked (sync_generation).
bool nothing_to_sync(bool cached_matters) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::uint64_t before = sync_generation.load(std::memory_order_seq_cst);
  if (before & 1) return false;
  chaos::point();
  if (!directory.dirty.empty()) return false;
  chaos::point();
  if (cached_matters && !directory.cached.empty()) return false;
  chaos::point();
  return sync_generation.load(std::memory_order_seq_cst) == before;
}

}  // namespace

namespace {

// The diff half of a release. A release proper also publishes this node's
// writes to its own pages, which have no versions: it bumps its write epoch
// once other nodes cache from it (page_versions.hpp). Its exported check
// comes after nothing_to_sync's seq_cst fence, which orders the writes
// before it.
void flush_diffs(bool publishes_home_writes) noexcept {
  const bool quiet = nothing_to_sync(false);
  if (publishes_home_writes) versions.note_release();
  if (!quiet) synchronized("release", [] { flush_dirty_pages(); });
}

}  // namespace

// Queued remote frees go home after the diffs (flush_remote_frees flushes
// diffs again between taking them and sending them): a block this node
// wrote and then freed must not be freed (and reused) at its home before
// the home has applied those writes, or they would land in its next owner.
void release() {
  if (!enabled.load(std::memory_order_acquire)) return;
  flush_diffs(true);
  flush_remote_frees();
}

void acquire() {
  if (!enabled.load(std::memory_order_acquire)) return;
  if (!nothing_to_sync(true)) {
    synchronized("acquire", [] {
      flush_dirty_pages();
      drop_changed_pages();
    });
  }
  flush_remote_frees();
}

counters current_counters() noexcept {
  auto get = [](const std::atomic<std::uint64_t>& v) { return v.load(std::memory_order_relaxed); };
  return {get(stats.read_faults),     get(stats.write_faults),    get(stats.fetches),
          get(stats.pages_fetched),   get(stats.bytes_fetched),   get(stats.diff_bytes_sent),
          get(stats.pages_invalidated), get(stats.pages_kept),    get(stats.pages_refetched),
          get(stats.fault_ns),
          get(stats.releases),        get(stats.acquires),        get(stats.acquire_walks),
          get(stats.pages_kept_writable), get(stats.homes_asked)};
}

}  // namespace dstd::rt::coherence
