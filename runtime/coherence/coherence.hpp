// Home-based release consistency at page granularity (docs/DESIGN.md §4).
//
// Other nodes' pages are cache frames in one of three states (see
// page_directory.hpp). A read fault fetches the page from its home with one
// one-sided read; a write fault also takes a twin. release() sends every
// dirty page's diff against its twin to the page's home (one batched message
// per home) and waits until applied; acquire() releases, then reads each
// home's summary (page_versions.hpp) and drops only the cached pages whose
// home changed them, so the next access refetches those. On a one-node
// run, or a node with no cached or dirty page, both are a single check.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dstd::rt::coherence {

// At boot, once the transport exists. Multi-node runs only: installs the
// fault handler.
void init();

// Make this node's writes visible at their homes (unlock, release store,
// thread start, notify, channel send). Returns only when every diff this
// node has in flight — another thread's flush may carry the caller's
// writes — has been applied at its home.
void release();

// See writes released by others (lock, acquire load, join, wait return,
// channel receive). Releases first.
void acquire();

// An ownership transfer's hint (docs/DESIGN.md §5.4): the caller has just
// acquired, and will read [p, p+len) next. Fetches the range's invalid
// pages of other nodes (widened to whole tbox groups, at most
// max_prefetch_bytes) with one read per run, instead of a fault per page.
// Pages another thread holds are left to fault. Not from a message handler.
inline constexpr std::size_t max_prefetch_bytes = 1 << 20;
void prefetch(const void* p, std::size_t len) noexcept;

// Node 0, once every other node has answered the end of the run: nobody is
// left to synchronize with, so from now on release() and acquire() do
// nothing (the shared libraries' destructors still lock mutexes, and an
// acquire would read the summaries of homes that are gone), and a fault on
// a cache frame ends the node with a message instead of a fetch that could
// not be served.
void leave_run() noexcept;

// From the SIGSEGV handler: resolves a fault on a cache frame. False when
// the address is not one (an ordinary segmentation fault).
bool handle_fault(void* address, bool write) noexcept;

// Registers the handler of release diffs (called by
// register_runtime_handlers()).
void register_handlers();

struct counters {
  std::uint64_t read_faults;
  std::uint64_t write_faults;
  std::uint64_t fetches;  // reads that filled cache frames: one per fault, group or hint
  std::uint64_t pages_fetched;
  std::uint64_t bytes_fetched;
  std::uint64_t diff_bytes_sent;
  std::uint64_t pages_invalidated;
  std::uint64_t pages_kept;  // cached pages an acquire kept: no other node had changed them
  // Changed pages an acquire read again instead of dropping (recent_pages.hpp).
  std::uint64_t pages_refetched;
  std::uint64_t fault_ns;  // time spent resolving faults
  std::uint64_t releases;  // releases that had dirty pages to send
  std::uint64_t acquires;  // acquires that had pages to invalidate
  // Acquires that looked at every cached page (a home released, or this
  // node fell further behind a home than its notice ring reaches) instead
  // of just the pages the homes' notices named.
  std::uint64_t acquire_walks;
  // Pages a flush sent and left writable (written again since an earlier
  // flush: coherence.cpp, flush_dirty_pages).
  std::uint64_t pages_kept_writable;
  // Homes an acquire asked which pages they wrote, that said (instead of
  // dropping every page cached from them: coherence.cpp,
  // ask_homes_for_own_writes).
  std::uint64_t homes_asked;
};
counters current_counters() noexcept;

// For tests that count fetches exactly: forgets this node's readahead
// streams (readahead.hpp), so no fault continues one until new ones form
// (a page a fault in an earlier test fetched may precede the test's own).
void forget_readahead_streams() noexcept;

}  // namespace dstd::rt::coherence
