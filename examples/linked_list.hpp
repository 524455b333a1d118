// The singly linked list of DRust's Listing 3, for any owning pointer
// template (dstd::tbox, std::unique_ptr, dstd::unique_ptr): used by
// examples/tbox_list.cpp, bench/tbox_bench.cpp and tests/memory/tbox_test.cpp.
#pragma once

#include <utility>

namespace linked_list {

template <template <class> class Box>
struct element {
  long value;
  Box<element> next;
};

// 1..n, built at the tail, as DRust's listing does: make(v) returns the
// Box of a new element holding v.
template <template <class> class Box, class Make>
Box<element<Box>> build(long n, Make make) {
  Box<element<Box>> head;
  Box<element<Box>>* tail = &head;
  for (long v = 1; v <= n; ++v) {
    *tail = make(v);
    tail = &(*tail)->next;
  }
  return head;
}

// Iteratively: a recursive destructor would need a frame per element.
template <template <class> class Box>
void destroy(Box<element<Box>>& head) {
  while (head) head = std::move(head->next);
}

}  // namespace linked_list
