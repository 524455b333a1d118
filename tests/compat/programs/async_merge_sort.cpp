// A parallel merge sort: each level sorts its left half with std::async
// while the calling thread sorts the right half, then merges. The answer:
// a checksum of the sorted numbers and whether they are in order.
#include <algorithm>
#include <cstdint>
#include <future>
#include <iostream>
#include <iterator>
#include <vector>

using numbers = std::vector<std::uint32_t>;

// Sorts v[from, to) using `scratch` as room for merging.
void merge_sort(numbers& v, numbers& scratch, std::size_t from, std::size_t to, int depth) {
  if (to - from < 2048 || depth == 0) {
    std::sort(v.begin() + static_cast<std::ptrdiff_t>(from),
              v.begin() + static_cast<std::ptrdiff_t>(to));
    return;
  }
  const std::size_t mid = from + (to - from) / 2;
  std::future<void> left = std::async(std::launch::async, merge_sort, std::ref(v),
                                      std::ref(scratch), from, mid, depth - 1);
  merge_sort(v, scratch, mid, to, depth - 1);
  left.get();
  const auto first = v.begin() + static_cast<std::ptrdiff_t>(from);
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(mid);
  const auto last = v.begin() + static_cast<std::ptrdiff_t>(to);
  std::merge(first, middle, middle, last, scratch.begin() + static_cast<std::ptrdiff_t>(from));
  std::copy(scratch.begin() + static_cast<std::ptrdiff_t>(from),
            scratch.begin() + static_cast<std::ptrdiff_t>(to), first);
}

int main() {
  constexpr std::size_t count = 400000;
  numbers v(count);
  std::uint64_t x = 88172645463325252ULL;  // xorshift64: the same numbers every run
  for (std::uint32_t& n : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    n = static_cast<std::uint32_t>(x >> 32);
  }
  numbers scratch(count);
  merge_sort(v, scratch, 0, v.size(), 4);  // 16 leaves, 15 asyncs

  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) checksum = checksum * 1000003 + v[i] * (i + 1);
  std::cout << "sorted " << v.size() << " numbers: "
            << (std::is_sorted(v.begin(), v.end()) ? "in order" : "NOT in order") << "\n";
  std::cout << "smallest " << v.front() << ", largest " << v.back() << "\n";
  std::cout << "checksum " << checksum << "\n";
  return 0;
}
