// Which pages of this node's own memory its threads wrote since the last
// look, from the kernel: userfaultfd's asynchronous write-protect and
// PAGEMAP_SCAN (Linux 6.7; write_tracking_abi.hpp).
//
// Why: a home's threads write its pages directly, without twins or diffs,
// so those writes have no page versions; a home's release bumps its write
// epoch instead, and an acquirer that sees it moved used to drop every
// page it cached from that home. With this, such an acquirer can ask the
// home which pages it wrote (home_apply.hpp's notice_own_writes turns them
// into versions and notices, as a diff's), and keep the rest (DESIGN §4,
// "A home's own writes").
//
// How: at boot the node registers its home memory (its partition and, at
// node 0, the static data) with a user-mode-only userfaultfd in
// asynchronous write-protect mode, which needs no privilege. Nothing is
// protected until the first scan. A scan asks the kernel for the pages of
// the ranges in use that are not write-protected (written since the last
// scan, or never scanned) and protects them again in the same call; the
// next store to such a page takes a fault the kernel resolves itself
// (about 1 us, no signal), which marks it written. A store that races a
// scan is either before it (its page reported) or after it (reported by
// the next scan). Only stores through the home's own mapping count: the
// diffs other nodes (or this node's service thread, through the window)
// apply come with their own notices.
//
// Where the kernel lacks it (Debian 12's 6.1, or userfaultfd disabled),
// or DSTD_TRACK_HOME_WRITES=0, start() says so and acquirers go on
// dropping. A scan the kernel refuses turns tracking off for good: its
// pages may have been protected again without being reported.
#pragma once

#include <cstdint>

namespace dstd::rt {
struct address_space;
}

namespace dstd::rt::coherence::own_writes {

// At boot, once: registers this node's home memory. False if tracking is off.
bool start(const address_space& space);

// Whether this node tracks its own writes (start() succeeded and no scan failed).
bool on();

// each(page, ctx) for every page in use of this node's memory written since
// the last scan (every page, the first time), which is protected again.
// False, with tracking off from now on, if the kernel refused: the pages
// reported so far are not all of them. Not thread-safe: one scan at a time
// (the caller holds the home's apply lock).
bool scan(void (*each)(std::uintptr_t page, void* ctx), void* ctx);

}  // namespace dstd::rt::coherence::own_writes
