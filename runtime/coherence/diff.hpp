// Diffs: the bytes of a page that changed since its twin, as runs, and
// their application at the home.
//
// Byte-exact on purpose: C++ lets two threads on two nodes write adjacent
// bytes of one word at once, and each node's diff must carry only its own
// bytes so that both survive at the home.
//
// Encoding of one page's diff: u64 page address, u16 run count, then per
// run u16 offset, u16 length, the bytes. A message carries several pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dstd::rt::coherence {

// The largest encoding one page's diff can take (every other byte changed).
inline constexpr std::size_t max_page_diff_bytes = 8 + 2 + 2048 * 5;

// Appends the diff of `now` against `twin` for the page at `page`; returns
// the number of changed bytes (0: nothing appended).
std::size_t append_diff(std::vector<std::byte>& out, std::uintptr_t page,
                        const unsigned char* now, const unsigned char* twin);

// Where a decoded batch goes: the bytes of each run, then, once a page's
// runs are written, the page (home_apply.cpp writes them into the home's
// memory, directly or with one-sided writes).
class diff_target {
 public:
  virtual void write(std::uintptr_t at, const std::byte* bytes, std::size_t len) = 0;
  virtual void page_done(std::uintptr_t page) = 0;

 protected:
  ~diff_target() = default;
};

// Decodes every page diff in `batch` into `to`, in order. Returns false if
// the batch is malformed (what was decoded before that point is written).
bool apply_diffs(std::span<const std::byte> batch, diff_target& to);

}  // namespace dstd::rt::coherence
