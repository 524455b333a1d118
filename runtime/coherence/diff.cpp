// See diff.hpp.
#include "runtime/coherence/diff.hpp"

#include <cstring>

#include "runtime/common/layout.hpp"

namespace dstd::rt::coherence {

namespace {

template <class T>
void put(std::vector<std::byte>& out, T v) {
  const auto* b = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), b, b + sizeof v);
}

template <class T>
bool get(std::span<const std::byte>& in, T& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in = in.subspan(sizeof v);
  return true;
}

}  // namespace

std::size_t append_diff(std::vector<std::byte>& out, std::uintptr_t page,
                        const unsigned char* now, const unsigned char* twin) {
  constexpr std::size_t words = layout::page_bytes / 8;
  std::size_t count_at = 0;
  std::uint16_t runs = 0;
  std::size_t changed = 0;
  std::size_t run_start = 0, run_len = 0;
  auto close_run = [&] {
    if (run_len == 0) return;
    if (runs == 0) {
      put(out, std::uint64_t{page});
      count_at = out.size();
      put(out, std::uint16_t{0});
    }
    put(out, static_cast<std::uint16_t>(run_start));
    put(out, static_cast<std::uint16_t>(run_len));
    const auto* b = reinterpret_cast<const std::byte*>(now + run_start);
    out.insert(out.end(), b, b + run_len);
    changed += run_len;
    ++runs;
    run_len = 0;
  };
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t a, b;
    std::memcpy(&a, now + w * 8, 8);
    std::memcpy(&b, twin + w * 8, 8);
    if (a == b) {
      close_run();
      continue;
    }
    for (std::size_t i = w * 8; i < w * 8 + 8; ++i) {
      if (now[i] != twin[i]) {
        if (run_len == 0) run_start = i;
        ++run_len;
      } else {
        close_run();
      }
    }
  }
  close_run();
  if (runs != 0) std::memcpy(out.data() + count_at, &runs, sizeof runs);
  return changed;
}

bool apply_diffs(std::span<const std::byte> batch, diff_target& to) {
  while (!batch.empty()) {
    std::uint64_t page = 0;
    std::uint16_t runs = 0;
    if (!get(batch, page) || !get(batch, runs)) return false;
    for (std::uint16_t r = 0; r < runs; ++r) {
      std::uint16_t offset = 0, len = 0;
      if (!get(batch, offset) || !get(batch, len)) return false;
      if (std::size_t(offset) + len > layout::page_bytes || batch.size() < len) return false;
      to.write(page + offset, batch.data(), len);
      batch = batch.subspan(len);
    }
    to.page_done(page);
  }
  return true;
}

}  // namespace dstd::rt::coherence
