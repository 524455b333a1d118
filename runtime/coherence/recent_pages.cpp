// Which changed pages an acquire reads again; see recent_pages.hpp.
#include "runtime/coherence/recent_pages.hpp"

#include <algorithm>

namespace dstd::rt::coherence {

namespace {

// The entry for `page` in `sorted` (by page), or null.
const recent_pages::entry* find(const std::vector<recent_pages::entry>& sorted,
                                std::uint64_t page) {
  const auto at = std::lower_bound(
      sorted.begin(), sorted.end(), page,
      [](const recent_pages::entry& e, std::uint64_t p) { return e.page < p; });
  return at != sorted.end() && at->page == page ? &*at : nullptr;
}

}  // namespace

std::vector<std::uint64_t> recent_pages::take_recent(std::vector<std::uint64_t>& drop) {
  // The candidates: faulted since the last acquire (age 0; a ring slot
  // claimed but not yet written reads as an older page: a guess either
  // way), and refetched by the last acquires. A page that faulted after the
  // last acquire dropped it at its limit starts with twice that limit.
  std::vector<entry> candidates;
  const std::uint64_t to = next_.load(std::memory_order_relaxed);
  for (std::uint64_t at = std::max(read_to_, to < ring_size ? 0 : to - ring_size); at < to; ++at) {
    const std::uint64_t slot = ring_[at % ring_size].load(std::memory_order_relaxed);
    if (slot == 0) continue;
    const entry* expired = find(expired_, slot - 1);
    candidates.push_back(
        {slot - 1, 0, expired != nullptr ? std::min(2 * expired->limit, max_limit) : first_limit});
  }
  read_to_ = to;
  candidates.insert(candidates.end(), refetched_.begin(), refetched_.end());
  std::sort(candidates.begin(), candidates.end(), [](const entry& a, const entry& b) {
    return a.page != b.page ? a.page < b.page : a.age < b.age;  // the youngest first
  });
  std::vector<entry> refetched, last_refetch, expired;
  std::vector<std::uint64_t> chosen, dropped;
  auto c = candidates.begin();
  for (std::uint64_t index : drop) {
    while (c != candidates.end() && c->page < index) ++c;
    if (c != candidates.end() && c->page == index && chosen.size() < budget) {
      chosen.push_back(index);
      (c->age < c->limit ? refetched : last_refetch).push_back({index, c->age + 1, c->limit});
    } else {
      dropped.push_back(index);
      if (const entry* e = find(last_refetch_, index)) expired.push_back(*e);
    }
  }
  drop.swap(dropped);
  refetched_.swap(refetched);
  last_refetch_.swap(last_refetch);
  expired_.swap(expired);
  return chosen;
}

}  // namespace dstd::rt::coherence
