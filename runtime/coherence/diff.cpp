// See diff.hpp.
#include "runtime/coherence/diff.hpp"

#include <array>
#include <cstring>
#include <emmintrin.h>

#include "runtime/common/fatal.hpp"
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

// Bits set in a 64-bit word, in a few instructions for the reason
// bit_counts gives (a table lookup per byte would be eight here).
unsigned bits_set(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
}

// The changed bytes of each word, and what each form would take.
//
// A bit per byte of the page, set where it changed: SSE2 (in every x86-64)
// compares 16 bytes at once and its movemask gives their 16 bits, so the
// bitmap of a 64-byte block is four compares. Byte i of the page is bit
// i % 64 of changed[i / 64], so byte w % 8 of changed[w / 8] is word w's
// mask byte, which is what both forms carry.
struct page_changes {
  static constexpr std::size_t blocks = page_bytes / 64;
  std::array<std::uint64_t, blocks> changed;
  std::size_t first = page_words, last = 0;  // changed words [first, last)
  std::size_t runs = 0, bytes = 0;

  page_changes(const unsigned char* now, const unsigned char* twin) {
    std::uint64_t carry = 0;  // the byte before this block changed
    std::size_t first_block = blocks, last_block = 0, run_count = 0, byte_count = 0;
    for (std::size_t k = 0; k < blocks; ++k) {
      __m128i a[4], b[4], differ = _mm_setzero_si128();
      for (unsigned q = 0; q < 4; ++q) {
        a[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(now + k * 64 + q * 16));
        b[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin + k * 64 + q * 16));
        differ = _mm_or_si128(differ, _mm_xor_si128(a[q], b[q]));
      }
      // Most of a page is usually unchanged: one test per 64 bytes.
      if (_mm_movemask_epi8(_mm_cmpeq_epi8(differ, _mm_setzero_si128())) == 0xffff) {
        changed[k] = 0;
        carry = 0;
        continue;
      }
      std::uint64_t bits = 0;
      for (unsigned q = 0; q < 4; ++q) {
        const auto same = static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a[q], b[q])));
        bits |= std::uint64_t(static_cast<std::uint16_t>(~same)) << (16 * q);
      }
      changed[k] = bits;
      if (first_block == blocks) first_block = k;
      last_block = k;
      // A run starts at each changed byte whose predecessor did not change.
      run_count += bits_set(bits & ~((bits << 1) | carry));
      byte_count += bits_set(bits);
      carry = bits >> 63;
    }
    if (byte_count == 0) return;
    first = first_block * 8 + static_cast<std::size_t>(__builtin_ctzll(changed[first_block])) / 8;
    last = last_block * 8 + static_cast<std::size_t>(63 - __builtin_clzll(changed[last_block])) / 8 + 1;
    runs = run_count;
    bytes = byte_count;
  }
  std::uint8_t mask(std::size_t w) const {
    return static_cast<std::uint8_t>(changed[w / 8] >> (8 * (w % 8)));
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
    // The common long run: 64 bytes at a time, then a word at a time.
    if (len != 0 && w % 8 == 0 && w + 8 <= c.last && c.changed[w / 8] == ~0ull) {
      len += 64;
      w += 7;
      continue;
    }
    const std::uint8_t m = c.mask(w);
    if (m == 0xff && len != 0) {
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

// Each byte of a word whose bit is set in a mask byte, all ones.
constexpr std::array<std::uint64_t, 256> byte_masks = [] {
  std::array<std::uint64_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    for (unsigned b = 0; b < 8; ++b) t[m] |= ((m >> b) & 1ull) * (0xffull << (8 * b));
  }
  return t;
}();

// A mask whose set bits are one run (the common case: a counter's or a
// small integer's low bytes) is `lowest` shifted left, `count` bits set.
bool contiguous(std::uint8_t m, unsigned lowest, unsigned count) {
  return static_cast<unsigned>(m >> lowest) == (1u << count) - 1;
}

// Masked: u16 first word, the mask bytes of [first, last), then the bytes
// they name, in order. With `advance`, the twin also takes the bytes written
// out (append_diff). Each word is read once, so the bytes out and the
// twin's agree even while another thread writes the page. Writes up to 8
// bytes past the encoding's end (the caller leaves room).
std::byte* put_masked(std::byte* at, const page_changes& c, const unsigned char* now,
                      unsigned char* advance) {
  at = put_at(at, static_cast<std::uint16_t>(c.first));
  std::byte* const masks = at;
  at += c.last - c.first;
  for (std::size_t w = c.first; w < c.last; ++w) {
    const std::uint8_t m = c.mask(w);
    masks[w - c.first] = static_cast<std::byte>(m);
    if (m == 0) continue;
    const std::uint64_t word = word_at(now, w);
    const unsigned lowest = static_cast<unsigned>(__builtin_ctz(m)), count = bit_counts[m];
    if (contiguous(m, lowest, count)) {
      put_at(at, word >> (8 * lowest));  // the run's bytes first, then spare ones
      at += count;
    } else {
      for (unsigned bits = m; bits != 0; bits &= bits - 1) {
        *at++ = static_cast<std::byte>(word >> (8 * __builtin_ctz(bits)));
      }
    }
    if (advance != nullptr) {
      const std::uint64_t keep = word_at(advance, w) & ~byte_masks[m];
      const std::uint64_t sent = keep | (word & byte_masks[m]);
      std::memcpy(advance + w * 8, &sent, 8);
    }
  }
  return at;
}

// Decoding. `store(offset, from, len)` gets each piece of a page's changed
// bytes; a target with the page's bytes at hand stores them (store_into), one
// that posts writes gets them as they come (diff_target::store).
template <class Store>
bool decode_runs(std::span<const std::byte>& batch, std::uint16_t runs, Store store) {
  for (std::uint16_t r = 0; r < runs; ++r) {
    std::uint16_t offset = 0, len = 0;
    if (!get(batch, offset) || !get(batch, len)) return false;
    if (std::size_t(offset) + len > page_bytes || batch.size() < len) return false;
    store(offset, batch.data(), len);
    batch = batch.subspan(len);
  }
  return true;
}

// Only the bytes a mask names: the home's own threads may be writing the
// other bytes of these words. (The masks come before the bytes so that
// reading the next mask does not wait for the sum of the counts before it.)
template <class Store>
bool decode_masked(std::span<const std::byte>& batch, std::size_t words, Store store) {
  std::uint16_t first = 0;
  if (!get(batch, first) || first + words > page_words || batch.size() < words) return false;
  const std::byte* const masks = batch.data();
  const std::byte* from = masks + words;
  const std::byte* const end = batch.data() + batch.size();
  for (std::size_t i = 0; i < words; ++i) {
    const auto m = static_cast<std::uint8_t>(masks[i]);
    if (m == 0) continue;
    const unsigned lowest = static_cast<unsigned>(__builtin_ctz(m)), count = bit_counts[m];
    if (static_cast<std::size_t>(end - from) < count) return false;
    const std::size_t word = (first + i) * 8;
    if (contiguous(m, lowest, count)) {
      store(word + lowest, from, count);
      from += count;
    } else {
      for (unsigned bits = m; bits != 0; bits &= bits - 1) {
        store(word + static_cast<unsigned>(__builtin_ctz(bits)), from++, 1);
      }
    }
  }
  batch = batch.subspan(static_cast<std::size_t>(from - batch.data()));
  return true;
}

template <class Store>
bool decode_page(std::span<const std::byte>& batch, std::uint16_t count, Store store) {
  return (count & masked_flag) != 0 ? decode_masked(batch, count & ~masked_flag, store)
                                    : decode_runs(batch, count, store);
}

// Stores `count` bytes from `from` at `to`: up to 8 (a masked word's) as
// few stores as whole sizes allow (at most three), more with memcpy.
void store_into(std::byte* to, const std::byte* from, std::size_t count) {
  if (count == 8) {
    std::memcpy(to, from, 8);
    return;
  }
  if (count > 8) {
    std::memcpy(to, from, count);
    return;
  }
  if (count & 4) std::memcpy(to, from, 4), to += 4, from += 4;
  if (count & 2) std::memcpy(to, from, 2), to += 2, from += 2;
  if (count & 1) *to = *from;
}

}  // namespace

std::size_t append_diff(std::vector<std::byte>& out, std::uintptr_t page,
                        const unsigned char* now, unsigned char* twin, twin_update update) {
  const page_changes c(now, twin);
  if (c.bytes == 0) return 0;
  const bool masked = c.masked_size() < c.runs_size();
  const std::size_t begin = out.size();
  const std::size_t end = begin + 10 + (masked ? c.masked_size() : c.runs_size());
  out.resize(end + 8);  // put_masked's spare bytes
  std::byte* at = put_at(out.data() + begin, std::uint64_t{page});
  at = put_at(at, static_cast<std::uint16_t>(masked ? masked_flag | (c.last - c.first) : c.runs));
  unsigned char* const advance = update == twin_update::to_sent_bytes ? twin : nullptr;
  masked ? put_masked(at, c, now, advance) : put_runs(at, c, now, advance);
  out.resize(end);
  return c.bytes;
}

void diff_target::store(std::uintptr_t page, std::size_t, const std::byte*, std::size_t) {
  fatal("a diff target gave no bytes for the page at %#lx and takes no pieces",
        static_cast<unsigned long>(page));
}

bool apply_diffs(std::span<const std::byte> batch, diff_target& to) {
  while (!batch.empty()) {
    std::uint64_t page = 0;
    std::uint16_t count = 0;
    if (!get(batch, page) || !get(batch, count) || page % page_bytes != 0) return false;
    std::byte* const bytes = to.bytes_of(page);
    const bool ok =
        bytes != nullptr
            ? decode_page(batch, count,
                          [bytes](std::size_t offset, const std::byte* from, std::size_t len) {
                            store_into(bytes + offset, from, len);
                          })
            : decode_page(batch, count,
                          [&to, page](std::size_t offset, const std::byte* from, std::size_t len) {
                            to.store(page, offset, from, len);
                          });
    if (!ok) return false;
    to.page_done(page);
  }
  return true;
}

}  // namespace dstd::rt::coherence
