// Diffs: the bytes of a page that changed since its twin, as runs, and
// their application at the home.
//
// Byte-exact on purpose: C++ lets two threads on two nodes write adjacent
// bytes of one word at once, and each node's diff must carry only its own
// bytes so that both survive at the home.
//
// Encoding of one page's diff: u64 page address, u16 count, then one of
// two forms, whichever is smaller:
//  - runs (count < 0x8000 runs): per run u16 offset, u16 length, the bytes;
//  - masked (count = 0x8000 | words): u16 first word, then per 8-byte word
//    of the span a mask byte (bit k: byte k changed), then the changed
//    bytes, word after word.
//    Words whose low bytes change (counters, small integers) would take a
//    run each; here they take a byte of mask.
// A message carries several pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dstd::rt::coherence {

// The largest encoding one page's diff can take: the masked form with every
// byte changed (the form chosen is never larger than that).
inline constexpr std::size_t max_page_diff_bytes = 8 + 2 + 2 + 512 * 9;

// What append_diff does to the twin: nothing (the page was write-protected
// before its diff, and its twin is dropped after), or give it exactly the
// bytes the diff carries, each copied from the diff as written (a page
// that stays writable across a flush, which another thread may write while
// it is diffed: a byte changed after it was encoded then still differs
// from the twin, and goes in the next diff).
enum class twin_update { none, to_sent_bytes };

// Appends the diff of `now` against `twin` for the page at `page`; returns
// the number of changed bytes (0: nothing appended).
std::size_t append_diff(std::vector<std::byte>& out, std::uintptr_t page,
                        const unsigned char* now, unsigned char* twin,
                        twin_update update = twin_update::none);

// Where a decoded batch goes: the home's bytes of each page, which the
// decoder stores into (byte-exact: only changed bytes), then, once they are
// written, the page (home_apply.cpp: the home's memory, at the home or
// through the transport's direct view of it). A target that cannot store
// into the page (it reaches the home through posted writes) returns null
// from bytes_of and is handed each piece of changed bytes instead, in page
// order (a run, a masked word's contiguous bytes, or a single byte; the
// target may merge pieces adjacent in the page and in the batch).
class diff_target {
 public:
  virtual std::byte* bytes_of(std::uintptr_t page) = 0;
  virtual void store(std::uintptr_t page, std::size_t offset, const std::byte* from,
                     std::size_t len);
  virtual void page_done(std::uintptr_t page) = 0;

 protected:
  ~diff_target() = default;
};

// Decodes every page diff in `batch` into `to`, in order. Returns false if
// the batch is malformed (what was decoded before that point is written).
bool apply_diffs(std::span<const std::byte> batch, diff_target& to);

}  // namespace dstd::rt::coherence
