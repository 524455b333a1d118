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

// Applies every page diff in `batch` to the pages at their addresses (the
// home's own memory), calling `applied` with each page's address after its
// bytes. Returns false if the batch is malformed.
bool apply_diffs(std::span<const std::byte> batch, void (*applied)(std::uintptr_t page));

}  // namespace dstd::rt::coherence
