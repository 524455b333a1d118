// thread_local in dstd threads, as with std::thread: every thread has its
// own copy at its own address, constructed on first use and destroyed when
// the thread ends (before join returns), errno included, and the
// thread-local state of shared libraries (libstdc++'s exception globals)
// too. Several threads run on every node and yield and park in between, so
// they take turns on the same workers (DSTD_WORKERS=1 variants: all of a
// node's threads on one worker).
#include <dlfcn.h>
#include <sys/mman.h>
#include <gperftools/malloc_extension.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <exception>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <system_error>
#include <set>
#include <vector>

#include "runtime/sched/extra_workers.hpp"

namespace {

using namespace std::chrono_literals;

constexpr int per_node = 6;

// Starts per_node threads on every node running fn(k, out) and joins them.
template <class F>
std::vector<std::uint64_t> run_everywhere(F fn) {
  const int total = per_node * static_cast<int>(dstd::node_count());
  std::vector<std::uint64_t> out(static_cast<std::size_t>(total), 0);
  std::vector<dstd::thread> all;
  for (int k = 0; k < total; ++k) {
    all.push_back(dstd::spawn_on(static_cast<dstd::node_id>(k / per_node), fn, k, &out[static_cast<std::size_t>(k)]));
  }
  for (auto& t : all) t.join();
  return out;
}

// A pause that gives the worker to another thread: a yield, and now and
// then a park (a sleep).
void pause(int i) {
  dstd::this_thread::yield();
  if (i % 100 == 0) dstd::this_thread::sleep_for(50us);
}

// Starts at 7 (an initialized thread_local: its image is copied, on
// every node, into each new thread's storage).
thread_local int counter = 7;

TEST(ThreadLocal, EachThreadCountsInItsOwnCopy) {
  const auto seen = run_everywhere([](int, std::uint64_t* out) {
    for (int i = 0; i < 1000; ++i) {
      ++counter;
      pause(i);
    }
    *out = static_cast<std::uint64_t>(counter);
  });
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], 1007u) << "thread " << k;
}

thread_local char marker = 0;

TEST(ThreadLocal, ThreadsAliveTogetherHaveDistinctAddresses) {
  auto* recorded = new dstd::atomic<int>(0);
  const int total = per_node * static_cast<int>(dstd::node_count());
  const auto addresses = run_everywhere([recorded, total](int, std::uint64_t* out) {
    *out = reinterpret_cast<std::uintptr_t>(&marker);
    recorded->fetch_add(1);
    // Stay alive until every thread has taken its address.
    for (int i = 0; recorded->load() < total; ++i) pause(i);
  });
  // Distinct in the whole run, not only per node: a program may use the
  // address as a thread id in a structure that threads on every node share.
  const std::set<std::uint64_t> distinct(addresses.begin(), addresses.end());
  EXPECT_EQ(distinct.size(), addresses.size());
  delete recorded;
}

struct lifetime_counts {
  dstd::atomic<int> constructed{0};
  dstd::atomic<int> destroyed{0};
};
lifetime_counts* counts = nullptr;  // shared static: the same on every node

struct tracked {
  lifetime_counts* to;
  int uses = 0;
  tracked() : to(counts) { to->constructed.fetch_add(1); }
  ~tracked() { to->destroyed.fetch_add(1); }
};
thread_local tracked tracked_object;

TEST(ThreadLocal, ConstructedOnFirstUseAndDestroyedOnceBeforeJoinReturns) {
  counts = new lifetime_counts;
  const int total = per_node * static_cast<int>(dstd::node_count());
  // Even-numbered threads use the object (across pauses), odd ones do not.
  run_everywhere([](int k, std::uint64_t*) {
    if (k % 2 != 0) return;
    for (int i = 0; i < 200; ++i) {
      ++tracked_object.uses;
      pause(i);
    }
  });
  EXPECT_EQ(counts->constructed.load(), total / 2);
  EXPECT_EQ(counts->destroyed.load(), total / 2);
  // One thread, joined at once: its destructor has run when join returns.
  dstd::thread one = dstd::spawn_on(dstd::node_count() - 1, [] { ++tracked_object.uses; });
  one.join();
  EXPECT_EQ(counts->destroyed.load(), total / 2 + 1);
  delete counts;
  counts = nullptr;
}

TEST(ThreadLocal, ErrnoIsPerThreadAcrossParks) {
  const auto kept = run_everywhere([](int k, std::uint64_t* out) {
    std::uint64_t good = 1;
    for (int i = 0; i < 300; ++i) {
      errno = 1000 + k;
      pause(i);
      if (errno != 1000 + k) good = 0;
    }
    *out = good;
  });
  for (std::size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(kept[k], 1u) << "thread " << k;
}

// libstdc++ keeps its exception globals in its own thread-local storage: a
// thread unwinding (a destructor that pauses while an exception is in
// flight) must not show its exception to the others.
struct pauses_while_unwinding {
  ~pauses_while_unwinding() {
    for (int i = 1; i <= 50; ++i) pause(i);
  }
};

TEST(ThreadLocal, ALibrarysThreadLocalStateIsPerThread) {
  const auto seen = run_everywhere([](int k, std::uint64_t* out) {
    if (k % 2 == 0) {
      try {
        pauses_while_unwinding p;
        throw 1;
      } catch (int) {
      }
      *out = 0;
      return;
    }
    int most = 0;
    for (int i = 1; i <= 50; ++i) {
      if (std::uncaught_exceptions() > most) most = std::uncaught_exceptions();
      pause(i);
    }
    *out = static_cast<std::uint64_t>(most);
  });
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], 0u) << "thread " << k;
}

}  // namespace

namespace {

// Each node's process loads the library itself (dlopen counts references).
int* library_counter() {
  void* lib = dlopen(THREAD_LOCAL_LIB, RTLD_NOW);
  if (lib == nullptr) return nullptr;
  auto* get = reinterpret_cast<int* (*)()>(dlsym(lib, "thread_local_lib_counter"));
  return get != nullptr ? get() : nullptr;
}

TEST(ThreadLocal, ADlopenedLibrarysThreadLocalIsPerThread) {
  const auto seen = run_everywhere([](int, std::uint64_t* out) {
    int* mine = nullptr;
    for (int i = 0; i < 1000; ++i) {
      mine = library_counter();
      if (mine == nullptr) return;
      ++*mine;
      pause(i);
    }
    if (mine != nullptr) *out = static_cast<std::uint64_t>(*mine);
  });
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], 1000u) << "thread " << k;
}

// tcmalloc's count of per-thread caches ("Thread heaps in use").
long allocator_thread_caches() {
  char stats[16384];
  MallocExtension::instance()->GetStats(stats, sizeof stats);
  const char* line = std::strstr(stats, "Thread heaps in use");
  if (line == nullptr) return -1;
  while (line > stats && line[-1] != ':') --line;  // "MALLOC:   <n> Thread heaps in use"
  return std::strtol(line, nullptr, 10);
}

// glibc's mutexes record their owner by the thread id in the thread's
// descriptor: two dstd threads that take turns on one worker must still be
// two owners. A std::recursive_mutex held across pauses by one thread
// excludes the others of its node (with the worker's id in every thread's
// descriptor, a second thread "re-entered" it), and a std::shared_mutex
// held exclusively makes the others wait (not fail with EDEADLK, which
// libstdc++ throws as resource_deadlock_would_occur). On each node, in the
// node's own memory (mmap: glibc serves the objects at every node count).
struct owned_locks {
  std::recursive_mutex recursive;
  std::shared_mutex shared;
  int inside_recursive = 0, inside_shared = 0;  // threads inside each now (under it)
  int overlaps = 0, entries = 0;                // (under either: atomic)
  std::atomic<int> errors{0};
};

template <class Lock>
void hold_across_pauses(owned_locks& o, Lock& lock, int& inside) {
  try {
    lock.lock();
  } catch (const std::system_error&) {
    ++o.errors;
    return;
  }
  if (++inside != 1) __atomic_add_fetch(&o.overlaps, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&o.entries, 1, __ATOMIC_RELAXED);
  for (int i = 1; i <= 20; ++i) pause(i);
  --inside;
  lock.unlock();
}

TEST(ThreadLocal, GlibcMutexesTellThreadsOfOneWorkerApart) {
  std::vector<owned_locks*> locks_of_node;
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    owned_locks* o = nullptr;
    dstd::spawn_on(n, [&o] {
      void* p = mmap(nullptr, sizeof(owned_locks), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) o = new (p) owned_locks;
    }).join();
    ASSERT_NE(o, nullptr);
    locks_of_node.push_back(o);
  }
  run_everywhere([&](int k, std::uint64_t*) {
    owned_locks& o = *locks_of_node[static_cast<std::size_t>(k / per_node)];
    hold_across_pauses(o, o.recursive, o.inside_recursive);
    hold_across_pauses(o, o.shared, o.inside_shared);
  });
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    owned_locks* o = locks_of_node[n];
    int overlaps = 0, errors = 0, entries = 0;
    dstd::spawn_on(n, [&] {
      overlaps = o->overlaps;
      errors = o->errors;
      entries = o->entries;
      o->~owned_locks();
      munmap(o, sizeof(owned_locks));
    }).join();
    EXPECT_EQ(overlaps, 0) << "node " << n << ": two threads inside one lock";
    EXPECT_EQ(errors, 0) << "node " << n << ": a lock failed (EDEADLK)";
    EXPECT_EQ(entries, 2 * per_node) << "node " << n;
  }
}

// A dstd thread uses its worker's allocator cache: starting threads does
// not make caches (nor leak the ones a fresh thread-local block would make).
TEST(ThreadLocal, ThreadsShareTheirWorkersAllocatorCache) {
  dstd::spawn_on(0, [] {}).join();  // the workers have started and allocated
  const long before = allocator_thread_caches();
  const std::uint64_t extra_before = dstd::rt::sched::current_worker_counts().added;
  ASSERT_GT(before, 0);
  for (int i = 0; i < 200; ++i) {
    dstd::spawn_on(0, [] {
      void* volatile p = std::malloc(100);
      std::free(p);
    }).join();
  }
  // The runtime's own OS threads may make their caches meanwhile: an extra
  // worker (a worker held on a busy machine: runtime/sched/extra_workers.hpp),
  // the worker monitor, a service thread's first allocation. A few at most;
  // a cache per dstd thread would be 200 more.
  const auto extra = static_cast<long>(dstd::rt::sched::current_worker_counts().added - extra_before);
  constexpr long runtime_threads = 4;
  EXPECT_LE(allocator_thread_caches(), before + extra + runtime_threads);
}

}  // namespace
