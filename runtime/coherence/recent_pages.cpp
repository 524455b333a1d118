// Which changed pages an acquire reads again; see recent_pages.hpp.
#include "runtime/coherence/recent_pages.hpp"

#include <algorithm>

namespace dstd::rt::coherence {

std::vector<std::uint64_t> recent_pages::take_recent(std::vector<std::uint64_t>& drop) {
  // The candidates and their ages: faulted since the last acquire (0), and
  // refetched by the last acquires. A ring slot claimed but not yet written
  // reads as an older page: a guess either way.
  std::vector<std::pair<std::uint64_t, unsigned>> candidates;
  const std::uint64_t to = next_.load(std::memory_order_relaxed);
  for (std::uint64_t at = std::max(read_to_, to < ring_size ? 0 : to - ring_size); at < to; ++at) {
    const std::uint64_t entry = ring_[at % ring_size].load(std::memory_order_relaxed);
    if (entry != 0) candidates.emplace_back(entry - 1, 0);
  }
  read_to_ = to;
  candidates.insert(candidates.end(), refetched_.begin(), refetched_.end());
  std::sort(candidates.begin(), candidates.end());  // by page, the youngest age first
  refetched_.clear();
  std::vector<std::uint64_t> chosen;
  std::vector<std::uint64_t> dropped;
  auto c = candidates.begin();
  for (std::uint64_t index : drop) {
    while (c != candidates.end() && c->first < index) ++c;
    if (c != candidates.end() && c->first == index && chosen.size() < budget) {
      chosen.push_back(index);
      if (c->second < max_age) refetched_.emplace_back(index, c->second + 1);
    } else {
      dropped.push_back(index);
    }
  }
  drop.swap(dropped);
  return chosen;
}

}  // namespace dstd::rt::coherence
