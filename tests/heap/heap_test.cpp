// The global allocator, main's stack and the shared static data, at 1, 2
// and 4 nodes (see tests/CMakeLists.txt). gtest's main runs on node 0, on
// the main fiber; other nodes run checks through run_on().
#include <gtest/gtest.h>

#include <dstd/memory>
#include <dstd/sync>
#include <dstd/thread>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdlib>
#include <dstd/dstd.hpp>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "runtime/heap/address_space.hpp"
#include "runtime/heap/heap_stats.hpp"
#include "runtime/heap/remote_free.hpp"
#include "tests/support/run_on.hpp"

namespace {

using dstd::node_id;
using dstd::test::bytes_of;
using dstd::test::run_on;
using dstd::test::value_of;

// Globals of the program: .data and .bss.
long initialized_global = 42;
long zeroed_global;

// Describes every allocation that does not lie in the caller's own
// partition, is misaligned or too small; empty when all is well.
class placement_check {
 public:
  void expect(const char* what, const void* p, std::size_t size, std::size_t align = 16) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const dstd::rt::address_space& s = dstd::rt::ensure_address_space();
    const std::uintptr_t lo = s.partition_base(s.self);
    if (p == nullptr) {
      problems_ += std::string(what) + ": null; ";
    } else if (a < lo || a + size > lo + s.partition_bytes) {
      problems_ += std::string(what) + ": outside this node's partition; ";
    } else if (dstd::home_of(p) != dstd::this_node()) {
      problems_ += std::string(what) + ": home_of is not this node; ";
    } else if (a % align != 0) {
      problems_ += std::string(what) + ": misaligned; ";
    }
  }
  void expect_usable(const char* what, void* p, std::size_t size) {
    if (p != nullptr && malloc_usable_size(p) < size) {
      problems_ += std::string(what) + ": malloc_usable_size too small; ";
    }
  }
  const std::string& problems() const { return problems_; }

 private:
  std::string problems_;
};

// Runs on any node: every allocation function, small, large and aligned.
std::string check_every_allocation_form(const std::string&) {
  placement_check c;
  void* m = std::malloc(24);
  if (m) std::memset(m, 1, 24);
  c.expect("malloc", m, 24);
  c.expect_usable("malloc", m, 24);
  void* big = std::malloc(64u << 20);
  c.expect("malloc 64 MiB", big, 64u << 20);
  void* z = std::calloc(1000, 8);
  c.expect("calloc", z, 8000);
  for (int i = 0; i < 1000 && z; ++i) {
    if (static_cast<long*>(z)[i] != 0) c.expect("calloc zeroed", nullptr, 0);
  }
  m = std::realloc(m, 100000);
  c.expect("realloc", m, 100000);
  void* pm = nullptr;
  if (posix_memalign(&pm, 4096, 10000) != 0) pm = nullptr;
  c.expect("posix_memalign", pm, 10000, 4096);
  void* aa = std::aligned_alloc(64, 640);
  c.expect("aligned_alloc", aa, 640, 64);
  void* ma = memalign(2u << 20, 3u << 20);
  c.expect("memalign 2 MiB", ma, 3u << 20, 2u << 20);
  void* va = valloc(5000);
  c.expect("valloc", va, 5000, 4096);
  void* pva = pvalloc(5000);
  c.expect("pvalloc", pva, 8192, 4096);
  auto* one = new int(7);
  c.expect("new", one, sizeof(int), alignof(int));
  auto* many = new long[1000];
  c.expect("new[]", many, 8000, alignof(long));
  auto* nt = new (std::nothrow) char[100];
  c.expect("new nothrow", nt, 100, 1);
  struct alignas(256) wide {
    char bytes[256];
  };
  auto* w = new wide;
  c.expect("aligned new", w, sizeof(wide), 256);
  auto* wa = new wide[3];
  c.expect("aligned new[]", wa, 3 * sizeof(wide), 256);
  std::vector<int> v(1'000'000, 1);
  c.expect("std::vector buffer", v.data(), v.size() * sizeof(int), alignof(int));
  std::string s(1000, 'x');
  c.expect("std::string buffer", s.data(), s.size(), 1);
  auto sp = std::make_shared<std::map<int, int>>();
  c.expect("make_shared", sp.get(), sizeof(std::map<int, int>), alignof(std::map<int, int>));
  std::free(m);
  std::free(big);
  std::free(z);
  std::free(pm);
  std::free(aa);
  std::free(ma);
  std::free(va);
  std::free(pva);
  delete one;
  delete[] many;
  delete[] nt;
  delete w;
  delete[] wa;
  return c.problems();
}

TEST(GlobalAllocator, EveryFormLandsInTheHomePartitionOnEveryNode) {
  for (node_id n = 0; n < dstd::node_count(); ++n) {
    EXPECT_EQ(run_on(n, check_every_allocation_form), "") << "node " << n;
  }
}

// tcmalloc's whole heap (spans it took from the system) must have come from
// the partition: proof that the SysAllocator was installed before the very
// first allocation of the process.
struct heap_sizes {
  std::uint64_t heap;
  std::uint64_t from_partition;
};
std::string heap_sizes_here(const std::string&) {
  const auto st = dstd::rt::current_heap_stats();
  return bytes_of(heap_sizes{st.heap_bytes, st.partition_used});
}

TEST(GlobalAllocator, AllOfTcmallocsHeapCameFromThePartition) {
  for (node_id n = 0; n < dstd::node_count(); ++n) {
    const auto sizes = value_of<heap_sizes>(run_on(n, heap_sizes_here));
    EXPECT_GT(sizes.heap, 0u) << "node " << n;
    EXPECT_LE(sizes.heap, sizes.from_partition) << "node " << n;
  }
}

TEST(GlobalAllocator, ThreadsAllocateInThePartitionToo) {
  std::string problems;
  std::thread t([&] { problems = check_every_allocation_form({}); });
  t.join();
  EXPECT_EQ(problems, "");
}

// --- remote frees -------------------------------------------------------------

constexpr std::size_t block_bytes = 256 * 1024;
constexpr int block_count = 64;

std::string allocated_bytes_here(const std::string&) {
  return bytes_of(dstd::rt::current_heap_stats().allocated_bytes);
}
struct free_counts {
  std::uint64_t sent;
  std::uint64_t received;
};
std::string remote_free_counts_here(const std::string&) {
  const auto st = dstd::rt::current_heap_stats();
  return bytes_of(free_counts{st.remote_frees_sent, st.remote_frees_received});
}
std::string allocate_blocks_here(const std::string&) {
  std::string out;
  for (int i = 0; i < block_count; ++i) {
    void* p = std::malloc(block_bytes);
    std::memset(p, 0xab, block_bytes);
    out += bytes_of(p);
  }
  return out;
}
std::string free_blocks_here(const std::string& blocks) {
  for (std::size_t i = 0; i < blocks.size(); i += sizeof(void*)) {
    std::free(value_of<void*>(blocks.substr(i, sizeof(void*))));
  }
  dstd::rt::flush_remote_frees();
  return {};
}

TEST(GlobalAllocator, BlockFreedOnAnotherNodeReturnsToItsHome) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs two nodes";
  const node_id owner = 1;
  const node_id freer = dstd::node_count() > 2 ? 2 : 0;
  using counts = free_counts;
  const auto before = value_of<std::uint64_t>(run_on(owner, allocated_bytes_here));
  const auto owner_counts_before = value_of<counts>(run_on(owner, remote_free_counts_here));
  const auto freer_counts_before = value_of<counts>(run_on(freer, remote_free_counts_here));

  const std::string blocks = run_on(owner, allocate_blocks_here);
  ASSERT_EQ(blocks.size(), block_count * sizeof(void*));
  for (std::size_t i = 0; i < blocks.size(); i += sizeof(void*)) {
    ASSERT_EQ(dstd::home_of(value_of<void*>(blocks.substr(i, sizeof(void*)))), owner);
  }
  const auto during = value_of<std::uint64_t>(run_on(owner, allocated_bytes_here));
  EXPECT_GE(during, before + block_count * block_bytes);

  run_on(freer, free_blocks_here, blocks);
  // The home frees them when the batch arrives.
  std::uint64_t after = during;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (after > before + block_bytes && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    after = value_of<std::uint64_t>(run_on(owner, allocated_bytes_here));
  }
  EXPECT_LE(after, before + block_bytes) << "the owner's heap did not shrink back";
  const auto owner_counts = value_of<counts>(run_on(owner, remote_free_counts_here));
  const auto freer_counts = value_of<counts>(run_on(freer, remote_free_counts_here));
  EXPECT_EQ(owner_counts.received - owner_counts_before.received, std::uint64_t(block_count));
  EXPECT_EQ(freer_counts.sent - freer_counts_before.sent, std::uint64_t(block_count));
}

// A few remote frees (far from a full batch) reach their home at the next
// release point: here the unlock of a mutex, with no explicit flush.
TEST(GlobalAllocator, RemoteFreesAreSentHomeAtAReleasePoint) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs two nodes";
  const node_id owner = 1;
  auto received_at_owner = [&] {
    std::uint64_t n = 0;
    dstd::spawn_on(owner, [&] { n = dstd::stats().remote_frees_received; }).join();
    return n;
  };
  std::vector<int*> blocks(3);
  dstd::spawn_on(owner, [&] {
    for (int*& b : blocks) b = new int[64];
  }).join();
  const std::uint64_t before = received_at_owner();
  for (int* b : blocks) delete[] b;  // queued on node 0 for node 1
  dstd::mutex m;
  m.lock();
  m.unlock();  // a release
  std::uint64_t after = before;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (after < before + blocks.size() && std::chrono::steady_clock::now() < deadline) {
    dstd::this_thread::sleep_for(std::chrono::milliseconds(2));
    after = received_at_owner();
  }
  EXPECT_EQ(after - before, blocks.size()) << "remote frees still queued after a release";
}

// A full batch of remote frees leaves free() at once; the writes this node
// made to those blocks must reach their home before the home frees (and
// reuses) them. Before that was so, the late diffs landed in tcmalloc's
// free lists at the home, which then crashed or handed out clobbered
// blocks.
TEST(GlobalAllocator, FullBatchOfRemoteFreesFollowsTheWritesToThoseBlocks) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs two nodes";
  const node_id owner = 1;
  std::vector<char*> blocks(2000);  // about four batches of 512
  dstd::spawn_on(owner, [&] {
    for (char*& b : blocks) b = new char[64];
  }).join();
  for (int round = 1; round <= 5; ++round) {
    for (char* b : blocks) std::memset(b, 0x5a, 64);  // dirty cache frames here
    for (char* b : blocks) delete[] b;                // full batches sent from free()
    dstd::spawn_on(owner, [&] {  // the home reuses the blocks
      for (char*& b : blocks) {
        b = new char[64];
        std::memset(b, round, 64);
      }
    }).join();
    long clobbered = 0;
    dstd::spawn_on(owner, [&] {
      for (char* b : blocks) {
        for (int i = 0; i < 64; ++i) clobbered += b[i] != round;
      }
    }).join();
    EXPECT_EQ(clobbered, 0) << "round " << round;
  }
  for (char* b : blocks) delete[] b;
}

std::string allocate_pattern_here(const std::string&) {
  auto* p = static_cast<unsigned char*>(std::malloc(1000));
  for (int i = 0; i < 1000; ++i) p[i] = static_cast<unsigned char>(i);
  return bytes_of(p);
}

TEST(GlobalAllocator, ReallocAndUsableSizeOfARemoteBlock) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs two nodes";
  auto* remote = value_of<unsigned char*>(run_on(1, allocate_pattern_here));
  ASSERT_EQ(dstd::home_of(remote), 1u);
  EXPECT_GE(malloc_usable_size(remote), 1000u);
  auto* local = static_cast<unsigned char*>(std::realloc(remote, 5000));
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(dstd::home_of(local), 0u);
  bool same = true;
  for (int i = 0; i < 1000; ++i) same = same && local[i] == static_cast<unsigned char>(i);
  EXPECT_TRUE(same) << "realloc lost the bytes of the remote block";
  std::free(local);
}

// --- main's stack and static data ----------------------------------------------

struct global_homes {
  node_id data;
  node_id bss;
};
std::string home_of_globals_here(const std::string&) {
  return bytes_of(global_homes{dstd::home_of(&initialized_global), dstd::home_of(&zeroed_global)});
}

TEST(GlobalAddresses, LocalsOfMainAreInNodeZerosPartition) {
  int local = 0;
  const auto a = reinterpret_cast<std::uintptr_t>(&local);
  const dstd::rt::address_space& s = dstd::rt::ensure_address_space();
  EXPECT_GE(a, s.partition_base(0));
  EXPECT_LT(a, s.partition_base(0) + s.partition_bytes);
  EXPECT_EQ(dstd::home_of(&local), 0u);
}

TEST(GlobalAddresses, GlobalsAreHomedAtNodeZeroEverywhere) {
  for (node_id n = 0; n < dstd::node_count(); ++n) {
    const auto homes = value_of<global_homes>(run_on(n, home_of_globals_here));
    EXPECT_EQ(homes.data, 0u) << ".data as seen from node " << n;
    EXPECT_EQ(homes.bss, 0u) << ".bss as seen from node " << n;
  }
}

std::string read_global_via_transport(const std::string&) {
  long v = 0;
  dstd::rt::current_transport()->read(&v, reinterpret_cast<dstd::rt::gaddr>(&initialized_global),
                                      sizeof v);
  return bytes_of(v);
}
std::string write_global_via_transport(const std::string& arg) {
  const long v = value_of<long>(arg);
  dstd::rt::current_transport()->write(reinterpret_cast<dstd::rt::gaddr>(&zeroed_global), &v,
                                       sizeof v);
  return {};
}

TEST(GlobalAddresses, PeersReachNodeZerosGlobalsThroughTheTransport) {
  EXPECT_EQ(initialized_global, 42);  // static initialization survived the move
  for (node_id n = 0; n < dstd::node_count(); ++n) {
    initialized_global = 1000 + n;
    EXPECT_EQ(value_of<long>(run_on(n, read_global_via_transport)), long(1000 + n));
    run_on(n, write_global_via_transport, bytes_of(long(2000 + n)));
    EXPECT_EQ(zeroed_global, long(2000 + n));
  }
  initialized_global = 42;
}

// --- fork -----------------------------------------------------------------------

TEST(Fork, AChildsAllocationsNeverReachTheParentsMemory) {
  std::vector<long> mine(100000, 7);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Reuse freed memory and overwrite whatever the allocator hands out.
    std::vector<long>().swap(mine);
    for (int i = 0; i < 100; ++i) {
      auto* p = static_cast<long*>(std::malloc(800000));
      for (int j = 0; j < 100000; ++j) p[j] = -1;
    }
    initialized_global = -1;
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  bool intact = true;
  for (long v : mine) intact = intact && v == 7;
  EXPECT_TRUE(intact) << "the child's writes reached the parent's heap";
  EXPECT_EQ(initialized_global, 42) << "the child's writes reached the parent's globals";
}

// tbox pointees live in the partition's group area: a child sees them as
// they were and its writes (and new tboxes) stay its own.
TEST(Fork, AChildSeesTboxPointeesAndNeverWritesTheParents) {
  auto box = dstd::make_tbox<long>(7);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (*box != 7) _exit(3);
    *box = -1;
    for (int i = 0; i < 10000; ++i) *dstd::make_tbox<long>(-1) = -2;
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: the child did not see the tbox's value";
  EXPECT_EQ(*box, 7) << "the child's write reached the parent's tbox";
}

}  // namespace
