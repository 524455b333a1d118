// Page versions and each home's epochs: what lets an acquire keep the cached
// pages nobody changed (docs/DESIGN.md §4, "Versions").
//
// Why versions kept at the home: every change a home makes to its pages on
// behalf of other nodes goes through one place, the handler that applies
// diffs, which bumps the page's version after the bytes. A node records the
// version it read (before the bytes) with each page it caches. Reading every
// version at every acquire would cost as much as v1's dropping, so each home
// also keeps a summary: its diff epoch, bumped after every applied batch,
// which an acquire reads first; only when it moved are the versions of the
// pages cached from that home compared.
//
// Why a separate write epoch: the home's own threads write its pages
// directly, unprotected and untracked (DESIGN §4), so their changes have no
// page versions. Instead every release on the home bumps its write epoch,
// once some node has ever cached from it (`exported`, set by that node with
// a one-sided write before its first fetch); an acquire that sees it moved
// drops every page it cached from that home, as v1 did. (Tracking the
// home's writes page by page would mean protecting its exported pages.)
//
// Layout (layout::version_area_begin, in each partition): a header page —
// diff epoch, write epoch (one 16-byte read), and on another cache line the
// exported word — then one 32-bit version per page the home serves.
#pragma once

#include <cstdint>

#include "runtime/transport/transport.hpp"

namespace dstd::rt {
struct address_space;
}

namespace dstd::rt::coherence {

// A home's summary, as one read returns it.
struct home_summary {
  std::uint64_t diff_epoch = 0;   // diff batches applied at the home
  std::uint64_t write_epoch = 0;  // the home's releases since it was exported
};

class page_versions {
 public:
  void init(const address_space& space);

  // Global addresses, the same on every node. `index` names a page as the
  // page directory does (backing offset / page size).
  gaddr summary_address(node_id home) const;
  gaddr exported_address(node_id home) const;
  gaddr version_address(std::uint64_t index) const;

  // At this node, as the home: after a diff to the page at `page_address`
  // (one of this node's pages) is applied; then, once per batch, the diff
  // epoch, returning its value before.
  void bump_version(std::uintptr_t page_address) const;
  std::uint64_t bump_diff_epoch() const;
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
