// Objects for the smart pointer tests that count their destructions in
// static data (homed at node 0), so a destructor that runs on any node is
// counted where every node can read it.
#pragma once

#include <dstd/atomic>

namespace memory_test {

inline dstd::atomic<int> destroyed{0};

struct base {
  virtual ~base() { destroyed.fetch_add(1); }
  int value = 1;
};

struct derived : base {
  explicit derived(int v) { value = v; }
  int extra = 3;
};

struct counted_element {
  ~counted_element() { destroyed.fetch_add(1); }
  int value = 7;
};

}  // namespace memory_test
