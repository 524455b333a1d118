// The diff encoder and decoder (runtime/coherence/diff.hpp), in one
// process: a page changed in patterns that take either encoding (runs, or
// masked words), encoded against its twin and applied to a home copy that
// another node changed meanwhile, must come out with exactly this node's
// changed bytes and the other node's bytes around them — never an
// unchanged byte written back.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <span>
#include <vector>

#include "runtime/coherence/diff.hpp"
#include "runtime/common/layout.hpp"

namespace {

using namespace dstd::rt::coherence;
constexpr std::size_t page = dstd::rt::layout::page_bytes;

// A home of a few pages in a local buffer; counts the bytes written.
struct local_home final : diff_target {
  explicit local_home(std::size_t pages)
      : size(pages * page), bytes(new (std::align_val_t{page}) unsigned char[size]()) {}
  ~local_home() { ::operator delete[](bytes, std::align_val_t{page}); }
  local_home(const local_home&) = delete;
  local_home& operator=(const local_home&) = delete;
  std::uintptr_t base() const { return reinterpret_cast<std::uintptr_t>(bytes); }
  std::byte* bytes_of(std::uintptr_t page_at) override {
    EXPECT_GE(page_at, base());
    EXPECT_LE(page_at + page, base() + size);
    return reinterpret_cast<std::byte*>(bytes + (page_at - base()));
  }
  void page_done(std::uintptr_t) override { ++pages_done; }
  // Page-aligned, as the runtime's pages are.
  std::size_t size;
  unsigned char* bytes;
  std::size_t pages_done = 0;
};

// Changes `n` random spans of up to `longest` bytes of `p`.
void scribble(std::mt19937_64& rng, unsigned char* p, int n, std::size_t longest) {
  for (int k = 0; k < n; ++k) {
    const std::size_t at = rng() % page, len = 1 + rng() % longest;
    for (std::size_t i = at; i < at + len && i < page; ++i) p[i] = static_cast<unsigned char>(p[i] + 1 + rng() % 255);
  }
}

TEST(Diff, CarriesExactlyTheChangedBytesInRandomPatterns) {
  std::mt19937_64 rng(20261124);
  int masked_pages = 0, run_pages = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<unsigned char> twin(page), now(page);
    for (auto& b : twin) b = static_cast<unsigned char>(rng());
    now = twin;
    // Patterns: a few spans, many short ones, two bytes of every word,
    // the whole page, every other byte, long spans, counters moved by
    // small amounts (a run of low bytes per word), nothing.
    switch (trial % 8) {
      case 0: scribble(rng, now.data(), 1 + static_cast<int>(rng() % 4), 64); break;
      case 1: scribble(rng, now.data(), 500, 3); break;
      case 2:
        for (std::size_t i = 0; i < page; i += 8) now[i] ^= 1, now[i + 2] ^= 0x80;
        break;
      case 3: for (auto& b : now) b = static_cast<unsigned char>(~b); break;
      case 4:
        for (std::size_t i = rng() % 2; i < page; i += 2) now[i] = static_cast<unsigned char>(~now[i]);
        break;
      case 5: scribble(rng, now.data(), 40, 200); break;
      case 6:  // counters and small integers: words moved by small amounts
        for (std::size_t i = 0; i < page; i += 8) {
          std::uint64_t w;
          std::memcpy(&w, &now[i], 8);
          w += rng() % 3 == 0 ? 0 : rng() >> (40 + rng() % 24);
          std::memcpy(&now[i], &w, 8);
        }
        break;
      default: break;
    }
    std::vector<std::byte> out;
    local_home home(2);
    const std::uintptr_t at = home.base() + page;  // the second page
    const std::size_t changed = append_diff(out, at, now.data(), twin.data());
    std::size_t expect_changed = 0;
    for (std::size_t i = 0; i < page; ++i) expect_changed += now[i] != twin[i];
    ASSERT_EQ(changed, expect_changed) << "trial " << trial;
    // The same diff with the twin advanced (a page kept writable): the
    // same bytes out, and the twin then holds them, so nothing is left.
    std::vector<unsigned char> advanced = twin;
    std::vector<std::byte> again;
    ASSERT_EQ(append_diff(again, at, now.data(), advanced.data(), twin_update::to_sent_bytes),
              changed);
    ASSERT_EQ(again, out) << "trial " << trial;
    ASSERT_EQ(advanced, now) << "trial " << trial;
    std::vector<std::byte> rest;
    ASSERT_EQ(append_diff(rest, at, now.data(), advanced.data()), 0u) << "trial " << trial;
    if (changed == 0) {
      EXPECT_TRUE(out.empty());
      continue;
    }
    ASSERT_LE(out.size(), max_page_diff_bytes);
    std::uint16_t count = 0;
    std::memcpy(&count, out.data() + 8, sizeof count);
    ++((count & 0x8000) != 0 ? masked_pages : run_pages);
    // The home: the twin, with bytes another node changed where this one did not.
    std::vector<unsigned char> other = twin;
    for (std::size_t i = 0; i < page; ++i) {
      if (now[i] == twin[i] && rng() % 7 == 0) other[i] = static_cast<unsigned char>(twin[i] + 1);
    }
    std::memcpy(home.bytes + page, other.data(), page);
    ASSERT_TRUE(apply_diffs(out, home));
    EXPECT_EQ(home.pages_done, 1u);
    for (std::size_t i = 0; i < page; ++i) {
      const unsigned char want = now[i] != twin[i] ? now[i] : other[i];
      ASSERT_EQ(home.bytes[page + i], want) << "trial " << trial << " byte " << i;
    }
  }
  EXPECT_GT(masked_pages, 0);
  EXPECT_GT(run_pages, 0);
}

TEST(Diff, AMalformedBatchIsRefused) {
  std::vector<unsigned char> twin(page, 0), now(page, 0);
  now[100] = now[101] = 1;
  local_home home(1);
  std::vector<std::byte> out;
  append_diff(out, home.base(), now.data(), twin.data());
  std::vector<std::byte> cut(out.begin(), out.end() - 1);
  EXPECT_FALSE(apply_diffs(cut, home));
  std::vector<std::byte> unaligned = out;
  const std::uint64_t odd = home.base() + 8;
  std::memcpy(unaligned.data(), &odd, sizeof odd);
  EXPECT_FALSE(apply_diffs(unaligned, home));
  std::vector<std::byte> past_end = out;
  const std::uint16_t offset = page - 1;  // its two bytes would cross the page's end
  std::memcpy(past_end.data() + 10, &offset, sizeof offset);
  const std::uint16_t len = 2;
  std::memcpy(past_end.data() + 12, &len, sizeof len);
  EXPECT_FALSE(apply_diffs(past_end, home));
  // The masked form (every other byte of words 1..3) with its span moved
  // past the page's last word.
  for (std::size_t i = 8; i < 32; i += 2) now[i] = 1;
  std::vector<std::byte> masked;
  append_diff(masked, home.base(), now.data(), twin.data());
  std::uint16_t count = 0;
  std::memcpy(&count, masked.data() + 8, sizeof count);
  ASSERT_NE(count & 0x8000, 0) << "expected the masked form";
  EXPECT_TRUE(apply_diffs(masked, home));
  const std::uint16_t last_word = page / 8 - 1;
  std::memcpy(masked.data() + 10, &last_word, sizeof last_word);
  EXPECT_FALSE(apply_diffs(masked, home));
}

}  // namespace
