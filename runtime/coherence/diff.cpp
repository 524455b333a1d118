// See diff.hpp.
#include "runtime/coherence/diff.hpp"

#include <array>
#include <cstring>

#include "runtime/common/layout.hpp"

namespace dstd::rt::coherence {

namespace {

constexpr std::size_t page_bytes = layout::page_bytes;
constexpr std::size_t page_words = page_bytes / 8;
constexpr std::uint16_t masked_flag = 0x8000;  // in a page's count: the masked form

std::uint64_t word_at(const unsigned char* p, std::size_t w) {
  std::uint64_t v;
  std::memcpy(&v, p + w * 8, 8);
  return v;
}

// A bit per byte of a little-endian word: set where the byte is nonzero.
std::uint8_t nonzero_bytes(std::uint64_t x) {
  x |= x >> 4;
  x |= x >> 2;
  x |= x >> 1;
  x &= 0x0101010101010101ull;
  return static_cast<std::uint8_t>((x * 0x0102040810204080ull) >> 56);
}

// Bits set in a mask byte (a table: the portable build has no popcount
// instruction, and the library call was a fifth of a release).
constexpr std::array<std::uint8_t, 256> bit_counts = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    for (unsigned b = 0; b < 8; ++b) t[m] = static_cast<std::uint8_t>(t[m] + ((m >> b) & 1));
  }
  return t;
}();

template <class T>
std::byte* put_at(std::byte* at, T v) {
  std::memcpy(at, &v, sizeof v);
  return at + sizeof v;
}

template <class T>
bool get(std::span<const std::byte>& in, T& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in = in.subspan(sizeof v);
  return true;
}

// The changed bytes of each word, and what each form would take.
struct page_changes {
  std::array<std::uint8_t, page_words> mask;
  std::size_t first = page_words, last = 0;  // changed words [first, last)
  std::size_t runs = 0, bytes = 0;

  page_changes(const unsigned char* now, const unsigned char* twin) {
    bool carry = false;  // the byte before this word changed
    for (std::size_t block = 0; block < page_words; block += block_words) {
      // Most of a page is usually unchanged: eight words XORed and ORed
      // with one branch per 64 bytes, and only a block that differs is
      // looked at word by word.
      if (same_block(now, twin, block)) {
        std::memset(&mask[block], 0, block_words);
        carry = false;
        continue;
      }
      for (std::size_t w = block; w < block + block_words; ++w) {
        const std::uint8_t m = nonzero_bytes(word_at(now, w) ^ word_at(twin, w));
        mask[w] = m;
        if (m == 0) {
          carry = false;
          continue;
        }
        if (first == page_words) first = w;
        last = w + 1;
        // A run starts at each changed byte whose predecessor did not change.
        runs += bit_counts[m & ~((m << 1) | (carry ? 1u : 0u)) & 0xffu];
        bytes += bit_counts[m];
        carry = (m & 0x80) != 0;
      }
    }
  }
  static constexpr std::size_t block_words = 8;  // 64 bytes
  static bool same_block(const unsigned char* now, const unsigned char* twin, std::size_t block) {
    std::uint64_t differ = 0;
    for (std::size_t w = block; w < block + block_words; ++w) {
      differ |= word_at(now, w) ^ word_at(twin, w);
    }
    return differ == 0;
  }
  std::size_t runs_size() const { return runs * 4 + bytes; }
  std::size_t masked_size() const { return 2 + (last - first) + bytes; }
};

// Runs: per run u16 offset, u16 length, the bytes. With `advance`, the
// twin also takes the bytes written out (append_diff).
std::byte* put_runs(std::byte* at, const page_changes& c, const unsigned char* now,
                    unsigned char* advance) {
  std::size_t start = 0, len = 0;
  auto close = [&] {
    if (len == 0) return;
    at = put_at(at, static_cast<std::uint16_t>(start));
    at = put_at(at, static_cast<std::uint16_t>(len));
    std::memcpy(at, now + start, len);
    if (advance != nullptr) std::memcpy(advance + start, at, len);
    at += len;
    len = 0;
  };
  for (std::size_t w = c.first; w < c.last; ++w) {
    const std::uint8_t m = c.mask[w];
    if (m == 0xff && len != 0) {  // the common long run: a word at a time
      len += 8;
      continue;
    }
    for (unsigned b = 0; b < 8; ++b) {
      if (m & (1u << b)) {
        if (len == 0) start = w * 8 + b;
        ++len;
      } else {
        close();
      }
    }
  }
  close();
  return at;
}

// Masked: u16 first word, then per word of [first, last) its mask byte and
// the bytes it names. With `advance`, the twin also takes the bytes written
// out (append_diff).
std::byte* put_masked(std::byte* at, const page_changes& c, const unsigned char* now,
                      unsigned char* advance) {
  at = put_at(at, static_cast<std::uint16_t>(c.first));
  for (std::size_t w = c.first; w < c.last; ++w) {
    const std::uint8_t m = c.mask[w];
    *at++ = static_cast<std::byte>(m);
    for (unsigned b = 0; b < 8; ++b) {
      if (m & (1u << b)) {
        *at = static_cast<std::byte>(now[w * 8 + b]);
        if (advance != nullptr) advance[w * 8 + b] = static_cast<unsigned char>(*at);
        ++at;
      }
    }
  }
  return at;
}

bool apply_runs(std::span<const std::byte>& batch, std::uint16_t runs, std::byte* to) {
  for (std::uint16_t r = 0; r < runs; ++r) {
    std::uint16_t offset = 0, len = 0;
    if (!get(batch, offset) || !get(batch, len)) return false;
    if (std::size_t(offset) + len > page_bytes || batch.size() < len) return false;
    std::memcpy(to + offset, batch.data(), len);
    batch = batch.subspan(len);
  }
  return true;
}

// Byte stores only: the home's own threads may be writing the other bytes
// of these words.
bool apply_masked(std::span<const std::byte>& batch, std::size_t words, std::byte* to) {
  std::uint16_t first = 0;
  if (!get(batch, first) || first + words > page_words) return false;
  for (std::size_t w = first; w < first + words; ++w) {
    std::uint8_t m = 0;
    if (!get(batch, m)) return false;
    const std::size_t n = bit_counts[m];
    if (batch.size() < n) return false;
    if (m == 0xff) {
      std::memcpy(to + w * 8, batch.data(), 8);
    } else {
      const std::byte* from = batch.data();
      for (unsigned b = 0; b < 8; ++b) {
        if (m & (1u << b)) to[w * 8 + b] = *from++;
      }
    }
    batch = batch.subspan(n);
  }
  return true;
}

}  // namespace

std::size_t append_diff(std::vector<std::byte>& out, std::uintptr_t page,
                        const unsigned char* now, unsigned char* twin, twin_update update) {
  const page_changes c(now, twin);
  if (c.bytes == 0) return 0;
  const bool masked = c.masked_size() < c.runs_size();
  const std::size_t begin = out.size();
  out.resize(begin + 10 + (masked ? c.masked_size() : c.runs_size()));
  std::byte* at = put_at(out.data() + begin, std::uint64_t{page});
  at = put_at(at, static_cast<std::uint16_t>(masked ? masked_flag | (c.last - c.first) : c.runs));
  unsigned char* const advance = update == twin_update::to_sent_bytes ? twin : nullptr;
  masked ? put_masked(at, c, now, advance) : put_runs(at, c, now, advance);
  return c.bytes;
}

bool apply_diffs(std::span<const std::byte> batch, diff_target& to) {
  while (!batch.empty()) {
    std::uint64_t page = 0;
    std::uint16_t count = 0;
    if (!get(batch, page) || !get(batch, count) || page % page_bytes != 0) return false;
    std::byte* bytes = to.bytes_of(page);
    const bool ok = (count & masked_flag) != 0
                        ? apply_masked(batch, count & ~masked_flag, bytes)
                        : apply_runs(batch, count, bytes);
    if (!ok) return false;
    to.page_done(page);
  }
  return true;
}

}  // namespace dstd::rt::coherence
