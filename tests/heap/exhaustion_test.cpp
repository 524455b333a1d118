// A full partition gives nullptr from malloc and std::bad_alloc from new,
// never a crash, and memory freed afterwards can be allocated again. Run
// with 1 GiB partitions (tests/CMakeLists.txt), at 1 and 2 nodes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <dstd/dstd.hpp>
#include <new>
#include <vector>

#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"
#include "tests/support/run_on.hpp"

namespace {

constexpr std::size_t chunk = 64u << 20;

// Fills the partition with 64 MiB blocks until malloc says no; frees them;
// reports how many fit and whether memory could be had again afterwards.
std::string fill_and_drain(const std::string&) {
  std::vector<void*> blocks;
  blocks.reserve(64);
  while (void* p = std::malloc(chunk)) blocks.push_back(p);
  const std::size_t fitted = blocks.size();
  bool threw = false;
  try {
    auto* q = new char[chunk];
    dstd::test::keep(q);
    delete[] q;
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  for (void* p : blocks) std::free(p);
  void* again = std::malloc(chunk);
  const bool recovered = again != nullptr;
  std::free(again);
  return dstd::test::bytes_of(fitted) + dstd::test::bytes_of(threw) +
         dstd::test::bytes_of(recovered);
}

TEST(PartitionExhaustion, HugeRequestsFailCleanly) {
  ASSERT_EQ(dstd::rt::ensure_address_space().partition_bytes, 1ull << 30)
      << "run this test with 1 GiB partitions";
  void* p = std::malloc(std::size_t{2} << 30);
  dstd::test::keep(p);
  EXPECT_EQ(p, nullptr);
  EXPECT_THROW(dstd::test::keep(new char[std::size_t{2} << 30]), std::bad_alloc);
  std::vector<char> v;
  EXPECT_THROW(v.reserve(std::size_t{3} << 30), std::bad_alloc);
  char* q = new (std::nothrow) char[std::size_t{2} << 30];
  dstd::test::keep(q);
  EXPECT_EQ(q, nullptr);
}

TEST(PartitionExhaustion, FillingThePartitionFailsThenRecoversOnEveryNode) {
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    const std::string r = dstd::test::run_on(n, fill_and_drain);
    const auto fitted = dstd::test::value_of<std::size_t>(r.substr(0, sizeof(std::size_t)));
    const bool threw = r[sizeof(std::size_t)] != 0;
    const bool recovered = r[sizeof(std::size_t) + 1] != 0;
    // The heap is the partition below the group and stack areas (5/8 of
    // 1 GiB): at most that many 64 MiB blocks, and tcmalloc's own metadata
    // may cost one or two.
    const std::size_t most = dstd::rt::layout::group_area_begin(1ull << 30) / chunk;
    EXPECT_GE(fitted, most - 2) << "node " << n;
    EXPECT_LE(fitted, most) << "node " << n;
    EXPECT_TRUE(threw) << "node " << n << ": new did not throw std::bad_alloc when full";
    EXPECT_TRUE(recovered) << "node " << n << ": freed memory could not be allocated again";
  }
}

}  // namespace
