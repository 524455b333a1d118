// A dstd thread has a stack like std::thread's: 6 MiB of recursion (which
// a std::thread's 8 MiB holds) runs on a dstd thread on every node.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <vector>

namespace {

constexpr std::size_t frame_bytes = 64 * 1024;
constexpr int six_mib_of_frames = 96;  // 96 * 64 KiB = 6 MiB

// Each level fills a 64 KiB local array and sums it after the recursive
// call, so no level can be folded away or turned into a loop.
[[gnu::noinline]] std::uint64_t recurse(int depth, std::uint8_t seed) {
  volatile std::uint8_t frame[frame_bytes];
  for (std::size_t i = 0; i < frame_bytes; i += 512) frame[i] = static_cast<std::uint8_t>(seed + i);
  const std::uint64_t below = depth > 1 ? recurse(depth - 1, static_cast<std::uint8_t>(seed + 1)) : 0;
  std::uint64_t sum = below;
  for (std::size_t i = 0; i < frame_bytes; i += 512) sum += frame[i];
  return sum;
}

std::uint64_t expected_sum(int depth, std::uint8_t seed) {
  std::uint64_t sum = 0;
  for (int d = 0; d < depth; ++d) {
    for (std::size_t i = 0; i < frame_bytes; i += 512) {
      sum += static_cast<std::uint8_t>(static_cast<std::uint8_t>(seed + d) + i);
    }
  }
  return sum;
}

TEST(DeepStack, SixMiBOfRecursionOnEveryNode) {
  const unsigned nodes = dstd::node_count();
  std::vector<std::uint64_t> sums(nodes * 2);
  std::vector<dstd::thread> threads;
  for (unsigned n = 0; n < nodes; ++n) {
    for (unsigned k = 0; k < 2; ++k) {  // two at once per node: neighbouring stacks
      threads.push_back(dstd::spawn_on(n, [&sums, n, k] {
        sums[n * 2 + k] = recurse(six_mib_of_frames, static_cast<std::uint8_t>(n * 2 + k));
      }));
    }
  }
  for (auto& t : threads) t.join();
  for (unsigned i = 0; i < nodes * 2; ++i) {
    EXPECT_EQ(sums[i], expected_sum(six_mib_of_frames, static_cast<std::uint8_t>(i))) << i;
  }
}

}  // namespace
