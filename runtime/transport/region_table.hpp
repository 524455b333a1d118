// Looking up global addresses in a backend's region table, and cutting an
// operation into pieces a network backend can post.
//
// Why shared: every network backend checks that a one-sided operation is
// inside the global heap or the shared static data (else a fatal error, not
// a stray access), that an atomic is 8-byte aligned, and splits operations
// at its registration chunks (a key covers one chunk) and, for verbs, at
// the size of its staging buffers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "runtime/common/fatal.hpp"
#include "runtime/transport/backend.hpp"
#include "runtime/transport/completion.hpp"

namespace dstd::rt {

// The region holding [a, a+len), or a fatal error naming `op`.
inline const memory_region& region_of(std::span<const memory_region> regions, gaddr a,
                                      std::size_t len, const char* op) {
  for (const memory_region& r : regions) {
    if (a >= r.begin && a < r.end && len <= r.end - a) return r;
  }
  fatal("%s of %zu bytes at %#lx: not inside the global heap or the shared static data", op, len,
        static_cast<unsigned long>(a));
}

// The region of an 8-byte atomic at `a`; misalignment is a fatal error.
inline const memory_region& atomic_region(std::span<const memory_region> regions, gaddr a,
                                          const char* op) {
  if (a % 8 != 0) {
    fatal("%s at %#lx: transport atomics need 8-byte alignment", op, static_cast<unsigned long>(a));
  }
  return region_of(regions, a, 8, op);
}

// The part of [begin, end) inside the first of `regions` that touches it
// (a registration chunk of a backend's own regions), or nothing.
struct region_part {
  const memory_region* region;
  gaddr from;
  gaddr to;
};
inline std::optional<region_part> first_part_inside(std::span<const memory_region> regions,
                                                    gaddr begin, gaddr end) {
  for (const memory_region& r : regions) {
    const gaddr from = std::max(begin, r.begin);
    const gaddr to = std::min(end, r.end);
    if (from < to) return region_part{&r, from, to};
  }
  return std::nullopt;
}

// Calls op(at, bytes, offset) for each piece of [a, a+len) that stays inside
// one aligned `chunk_bytes` chunk and is at most `max_piece` bytes; the
// completion expects every piece beyond the one the caller announced.
template <class Op>
void for_each_piece(gaddr a, std::size_t len, std::uint64_t chunk_bytes, std::size_t max_piece,
                    completion& c, Op op) {
  if (len == 0) {
    c.finish();  // nothing to move
    return;
  }
  std::uint32_t pieces = 0;
  std::size_t offset = 0;
  auto piece_at = [&](std::size_t from) {
    const gaddr at = a + from;
    const gaddr chunk_end = (at / chunk_bytes + 1) * chunk_bytes;
    return std::min<std::size_t>({len - from, chunk_end - at, max_piece});
  };
  for (offset = 0; offset < len; offset += piece_at(offset)) ++pieces;
  if (pieces > 1) c.expect(pieces - 1);
  for (offset = 0; offset < len;) {
    const std::size_t n = piece_at(offset);
    op(a + offset, n, offset);
    offset += n;
  }
}

}  // namespace dstd::rt
