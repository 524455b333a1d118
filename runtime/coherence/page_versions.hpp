// Page versions, change notices and each home's counters: what lets an
// acquire keep the cached pages nobody changed, and find the few that
// changed without looking at the others (docs/DESIGN.md §4, "Versions and
// notices").
//
// Why kept at the home: every change other nodes make to a home's pages
// goes through one place, the application of a diff batch there (by the
// home's diff handler, or by the releaser itself on shm: home_apply.hpp).
// For each page it changes it bumps the page's version (after the bytes) and
// writes the page's index into its notice ring; after the batch it
// publishes the number of notices written so far. A node records the
// version it read (before the bytes) with each page it caches, and per home
// the notice count it has caught up with. An acquire reads each home's
// summary first; where the count moved, it reads just the notices since
// (one or two reads) and drops those pages. Only a node that fell more than
// the ring's capacity behind compares the versions of every page it caches
// from that home, as the first version of v2 always did.
//
// Why a reserve count: the ring is overwritten as it wraps. The home raises
// `reserved` before it writes each entry; a reader that, after reading its
// entries, finds `reserved` at most its start + capacity knows none of them
// was being overwritten.
//
// Why a separate write epoch: the home's own threads write its pages
// directly, unprotected and untracked (DESIGN §4), so their changes have no
// page versions. Instead every release on the home bumps its write epoch,
// once some node has ever cached from it (`exported`, set by that node with
// a one-sided write before its first fetch); an acquire that sees it moved
// drops every page it cached from that home, as v1 did. (Tracking the
// home's writes page by page would mean protecting its exported pages.)
//
// Who writes versions, notices and counts: whoever applies a diff batch at
// the home, one batch at a time (runtime/coherence/home_apply.hpp).
//
// Layout (layout::version_area_begin, in each partition): a header page —
// notice count, write epoch (one 16-byte read), and each on its own cache
// line the exported word, the reserve count and the apply lock — then the
// notice ring
// (layout::notice_capacity 8-byte page indices), then one 32-bit version
// per page the home serves.
#pragma once

#include <cstdint>

#include "runtime/transport/transport.hpp"

namespace dstd::rt {
struct address_space;
}

namespace dstd::rt::coherence {

// A home's summary, as one read returns it.
struct home_summary {
  std::uint64_t notices = 0;      // page changes applied at the home (notices written)
  std::uint64_t write_epoch = 0;  // the home's releases since it was exported
};

// The notice counts around one applied batch (the reply to a diff batch).
struct notice_span {
  std::uint64_t before = 0, after = 0;
};

class page_versions {
 public:
  void init(const address_space& space);
  node_id self() const;

  // Global addresses, the same on every node. `index` names a page as the
  // page directory does (backing offset / page size).
  gaddr summary_address(node_id home) const;
  gaddr exported_address(node_id home) const;
  gaddr version_address(std::uint64_t index) const;

  // The summary's two words, for reading each whole.
  gaddr notice_count_address(node_id home) const { return summary_address(home); }
  gaddr write_epoch_address(node_id home) const { return summary_address(home) + 8; }
  gaddr reserved_address(node_id home) const;
  // The word whose holder applies a batch at `home` (home_apply.hpp).
  gaddr apply_lock_address(node_id home) const;
  // The ring slot of notice number `n` (layout::notice_capacity slots).
  gaddr notice_address(node_id home, std::uint64_t n) const;

  // At this node, as the home, at every release, after a seq_cst fence
  // (pairs with the fence after a fetcher's exported write: either this
  // sees it, or the fetch sees the home's writes before the release).
  void note_release() const;

 private:
  const address_space* space_ = nullptr;
  std::uint64_t area_offset_ = 0;        // version area, from a partition's base
  std::uint64_t partition_pages_ = 0;
};

}  // namespace dstd::rt::coherence
