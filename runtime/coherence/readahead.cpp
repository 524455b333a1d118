// See readahead.hpp.
#include "runtime/coherence/readahead.hpp"

#include <algorithm>

namespace dstd::rt::coherence {

std::uint64_t readahead::after_fault(std::uint64_t index) noexcept {
  constexpr auto relaxed = std::memory_order_relaxed;
  for (stream& s : streams_) {
    if (s.next.load(relaxed) != index) continue;
    const std::uint64_t w = std::clamp<std::uint64_t>(2 * s.window.load(relaxed), 2, max_pages);
    s.window.store(w, relaxed);
    s.next.store(index + 1 + w, relaxed);
    return w;
  }
  stream& s = streams_[oldest_.fetch_add(1, relaxed) % streams];
  s.window.store(0, relaxed);
  s.next.store(index + 1, relaxed);
  return 0;
}

void readahead::forget() noexcept {
  for (stream& s : streams_) s.next.store(~0ull, std::memory_order_relaxed);
}

}  // namespace dstd::rt::coherence
