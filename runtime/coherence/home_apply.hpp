// Applying a release's diff batch at the pages' home: the bytes, then per
// page its version and its notice, then the home's notice count
// (page_versions.hpp says what each is for).
//
// Who applies. Over a network the home's service thread does, when the
// batch arrives as a message (coherence.cpp's diff handler). Where the
// transport gives direct access to the home's memory (shm without its
// delay: transport::direct), the releasing node applies its batch itself,
// with the same loads and stores, and waits for nothing else: no message,
// no hop through two service threads (issue 18 item 1). Where one-sided
// operations are served without the home's CPU but not as loads and
// stores (delayed shm; verbs with NIC atomics: transport::
// one_sided_bypasses_target), the releasing node posts the same steps as
// one-sided operations, in order, and waits twice (the lock posted with
// the reads of the reserve count and the pages' versions, then the rest):
// two round trips that no thread of the home takes part in, against one
// that waits for its service thread. For batches of more than max_posted_pages pages,
// and over ucx (whose TCP lanes serve one-sided operations with the
// target's progress), the batch goes as a message.
//
// One batch at a time per home, whoever applies it: the apply lock, a word
// in the home's version area, taken with compare-and-swap (a CPU atomic,
// at the home and through the direct view alike). Under it the versions,
// the reserve count, the ring and the count change only by the holder, so
// plain reads and ordered writes suffice; the number of notices written so far is the reserve count, which
// equals it whenever the lock is free. The order of the steps is the one
// tests/model/coherence.pml checks (its home_server): a releaser that
// applies its own batch runs those steps at a point the model already
// allows (between its send and its wait for the reply).
#pragma once

#include <cstddef>
#include <span>

#include "runtime/coherence/page_versions.hpp"

namespace dstd::rt::coherence {

// At this node, as the batch's home (the diff handler). False if the batch
// is malformed.
bool apply_here(const page_versions& v, std::span<const std::byte> batch, notice_span& span);

// What notice_own_writes tells the node that asked.
struct own_writes_reply {
  std::uint64_t write_epoch = 0;  // the epoch read before the scan: its releases are covered
  std::uint64_t tracked = 0;      // 1: the scan ran; 0: this node does not track its writes
};

// At this node, as the home, when a node asks (coherence.cpp's handler):
// under the apply lock, reads the write epoch, scans for the pages its own
// threads wrote (own_writes.hpp), and gives each a version and a notice as
// a diff's page does, then publishes the count. Every release numbered up
// to the epoch returned ended before the scan, so its writes are noticed
// now or were by an earlier scan (tests/model/coherence.pml, SCAN).
own_writes_reply notice_own_writes(const page_versions& v);

// The most pages a home's batches posted as one-sided operations may
// change: each page costs a read and four or more posted writes, and a
// message takes any number in one round trip. Measured in the delayed mode
// at 2 us (docs/BENCHMARKS.md, "Posted diffs"): with the delay line busy
// (a lock loop) one page posted took half a call's time; with it idle,
// the same at 1 page and 5 us more at 16.
inline constexpr std::size_t max_posted_pages = 8;

// Whether this node applies a batch of `pages` pages at `home` itself: the
// transport gives direct access to its memory, or serves one-sided
// operations without the home's CPU and the batch is small.
bool can_apply_at(const page_versions& v, node_id home, std::size_t pages);

// From another node, when can_apply_at(home, pages). The batch is this
// node's own, so well formed.
notice_span apply_at(const page_versions& v, node_id home, std::span<const std::byte> batch);

}  // namespace dstd::rt::coherence
