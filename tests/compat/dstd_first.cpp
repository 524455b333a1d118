// A translation unit built with compat/ that includes dstd's own headers
// before the standard ones (a program using dstd::spawn_on next to
// std::thread): the std names are still dstd's, and the two spellings mix.
#include <dstd/dstd.hpp>
#include <memory>
#include <mutex>
#include <thread>

#include "std_names_check.hpp"

namespace compat_test {

// Runs a std::thread and a dstd::thread on the last node, both counting
// under one std::mutex; returns the count.
int dstd_first_count() {
  std::mutex m;
  int count = 0;
  auto add = [&] {
    std::lock_guard<dstd::mutex> lock(m);
    ++count;
  };
  std::thread a(add);
  dstd::thread b = dstd::spawn_on(dstd::node_count() - 1, add);
  a.join();
  b.join();
  return count;
}

}  // namespace compat_test
