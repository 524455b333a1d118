// Ownership transfer as a hint, at 1, 2 and 4 nodes: a unique_ptr received
// through a channel, or as a new thread's argument, on another node brings
// its pointee's pages with it (the receiver does not fault on them), while
// the same object handed over as a raw pointer is faulted in a page at a
// time.
#include <gtest/gtest.h>

#include <cstdint>
#include <dstd/channel>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <utility>

namespace {

constexpr std::size_t big_bytes = 64 * 1024;  // 16 pages
struct big {
  unsigned char bytes[big_bytes];
};

dstd::unique_ptr<big> filled() {
  auto p = dstd::make_unique_for_overwrite<big>();
  for (std::size_t i = 0; i < big_bytes; ++i) p->bytes[i] = static_cast<unsigned char>(i * 7);
  return p;
}

std::uint64_t expected_sum() {
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < big_bytes; ++i) s += static_cast<unsigned char>(i * 7);
  return s;
}

struct read_result {
  std::uint64_t sum = 0;
  std::uint64_t faults = 0;  // read faults while summing, after the receive
};

read_result sum_counting_faults(const big& b) {
  const std::uint64_t before = dstd::stats().read_faults;
  std::uint64_t s = 0;
  for (unsigned char c : b.bytes) s += c;
  return {s, dstd::stats().read_faults - before};
}

dstd::node_id far_node() { return dstd::node_count() - 1; }

TEST(OwnershipHint, AUniquePtrThroughAChannelArrivesWithItsPages) {
  dstd::channel<dstd::unique_ptr<big>> owners;
  dstd::channel<big*> raw;
  read_result owned, borrowed;
  dstd::thread receiver = dstd::spawn_on(far_node(), [&] {
    dstd::unique_ptr<big> p = *owners.recv();
    owned = sum_counting_faults(*p);
    big* q = *raw.recv();
    borrowed = sum_counting_faults(*q);
    delete q;
  });
  owners.send(filled());
  raw.send(filled().release());
  receiver.join();
  EXPECT_EQ(owned.sum, expected_sum());
  EXPECT_EQ(borrowed.sum, expected_sum());
  if (dstd::node_count() > 1) {
    EXPECT_EQ(owned.faults, 0u) << "the unique_ptr's pages came with it";
    // At least one fault: readahead fetches the later pages of the
    // sequential sum with the earlier faults (coherence/readahead.hpp).
    EXPECT_GE(borrowed.faults, 1u) << "a raw pointer's pages come by faults";
  }
}

TEST(OwnershipHint, AUniquePtrMovedIntoAThreadArrivesWithItsPages) {
  read_result owned;
  dstd::spawn_on(
      far_node(), [&owned](dstd::unique_ptr<big> p) { owned = sum_counting_faults(*p); },
      filled())
      .join();
  EXPECT_EQ(owned.sum, expected_sum());
  if (dstd::node_count() > 1) {
    EXPECT_EQ(owned.faults, 0u);
  }
}

}  // namespace
