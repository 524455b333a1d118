// Stress for the coherence protocol under a node's own concurrency: several
// threads on every node, on several workers, fault on, flush and invalidate
// the same cache frames at once. Issue 10 found two lost updates this way:
//  - a page whose fetch was in flight on one worker while another worker of
//    the node acquired was missed by that acquire and kept bytes older than
//    the release it synchronized with (the counters below catch it);
//  - a page made writable before it was listed dirty let another worker
//    write it without a fault and release with the write still local (the
//    Treiber stack catches it).
//
// Two programs a user would write, each checked exactly against a replay of
// the same seeded operations in one process:
//  - counters packed into shared pages, each behind its own dstd::mutex,
//    incremented under std::lock_guard or, two at once, std::scoped_lock;
//  - a Treiber stack of plain nodes linked through a dstd::atomic head; the
//    nodes carry plain payloads written before a push and checked after a
//    pop;
//  - threads that each own every Nth byte of a run of pages and write
//    their bytes first to last, round after round between barriers: every
//    write stream sets off write-ahead (pages made writable ahead of the
//    writes, issue 18) on pages the node's other thread and other nodes
//    write at the same time;
//  - a page one thread writes and releases in a loop, so that flushes keep
//    it writable (issue 18), while another thread of its node stores into
//    it and publishes each store through an atomic.
// Run at 3, 4 and 8 nodes with 2 workers each, and under DSTD_CHAOS
// (tests/CMakeLists.txt). DSTD_STRESS_OPS sets the operations per thread,
// DSTD_STRESS_THREADS the threads per node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dstd/dstd.hpp>
#include <dstd/sync>
#include <dstd/thread>
#include <mutex>
#include <random>
#include <vector>

namespace {

// Operations per thread: DSTD_STRESS_OPS, default 1500.
int ops_per_thread() {
  const char* v = std::getenv("DSTD_STRESS_OPS");
  const int n = v != nullptr ? std::atoi(v) : 1500;
  return n > 0 ? n : 1500;
}

// Threads per node: DSTD_STRESS_THREADS, default 2.
unsigned threads_per_node() {
  const char* v = std::getenv("DSTD_STRESS_THREADS");
  const int n = v != nullptr ? std::atoi(v) : 2;
  return n > 0 ? static_cast<unsigned>(n) : 2;
}

unsigned thread_count() { return threads_per_node() * dstd::node_count(); }

// threads_per_node() threads on every node, placed there explicitly so that
// each node's workers really run them side by side.
template <class Body>
void run_threads_on_every_node(Body body) {
  std::vector<dstd::thread> threads;
  const unsigned count = thread_count();
  for (unsigned i = 0; i < count; ++i) {
    threads.push_back(dstd::spawn_on(i % dstd::node_count(), body, i));
  }
  for (auto& t : threads) t.join();
}

// --- counters sharing pages, each behind its own mutex -------------------------

constexpr int counter_count = 4;  // 2 pages of 2 counters, 2 KiB apart

struct alignas(4096) counter_pages {
  struct slot {
    long value;
    long updates;
    char pad[2048 - 2 * sizeof(long)];
  };
  slot slots[counter_count];
};

struct counter_op {
  int first;
  int second;  // == first: one lock; else both, under std::scoped_lock
  long delta;
};

// The two threads of a node use different counters of the same pages: their
// critical sections run at the same time on the node's two workers, faulting
// on, flushing and invalidating the same frames. One op in eight takes two
// locks at once (the other may be another node's thread's counter).
std::vector<counter_op> counter_ops_of(unsigned thread, int count) {
  std::mt19937_64 rng(0xc0ffee + thread);
  std::vector<counter_op> ops;
  const unsigned lane = thread / dstd::node_count() % 2;  // alternates between a node's threads
  auto pick = [&] { return static_cast<int>(2 * (rng() % (counter_count / 2)) + lane); };
  for (int i = 0; i < count; ++i) {
    const int a = pick();
    const int b = rng() % 8 == 0 ? static_cast<int>(rng() % counter_count) : a;
    ops.push_back({a, b, static_cast<long>(rng() % 9) - 4});
  }
  return ops;
}

TEST(CoherenceStress, CountersSharingPagesUnderTheirOwnMutexesLoseNoUpdate) {
  const int per_thread = ops_per_thread();
  auto pages = std::make_unique<counter_pages>();  // node 0's heap
  std::vector<dstd::mutex> locks(counter_count);
  run_threads_on_every_node([&](unsigned thread) {
    for (const counter_op& op : counter_ops_of(thread, per_thread)) {
      auto& a = pages->slots[op.first];
      if (op.second == op.first) {
        std::lock_guard<dstd::mutex> g(locks[static_cast<std::size_t>(op.first)]);
        a.value += op.delta;
        ++a.updates;
      } else {
        auto& b = pages->slots[op.second];
        std::scoped_lock g(locks[static_cast<std::size_t>(op.first)],
                           locks[static_cast<std::size_t>(op.second)]);
        a.value += op.delta;
        ++a.updates;
        b.value -= op.delta;
        ++b.updates;
      }
    }
  });

  std::vector<long> value(counter_count, 0), updates(counter_count, 0);
  for (unsigned t = 0; t < thread_count(); ++t) {
    for (const counter_op& op : counter_ops_of(t, per_thread)) {
      value[static_cast<std::size_t>(op.first)] += op.delta;
      ++updates[static_cast<std::size_t>(op.first)];
      if (op.second != op.first) {
        value[static_cast<std::size_t>(op.second)] -= op.delta;
        ++updates[static_cast<std::size_t>(op.second)];
      }
    }
  }
  long lost = 0;
  for (int c = 0; c < counter_count; ++c) {
    const auto i = static_cast<std::size_t>(c);
    EXPECT_EQ(pages->slots[c].value, value[i]) << "counter " << c;
    EXPECT_EQ(pages->slots[c].updates, updates[i]) << "counter " << c;
    lost += updates[i] - pages->slots[c].updates;
  }
  EXPECT_EQ(lost, 0) << "updates lost in all";
}

// --- a Treiber stack on a dstd::atomic head -----------------------------------

// A plain node: `next` and the payload are ordinary fields, published by the
// release of the push's compare-exchange and read after the acquire of the
// pop's load.
struct stack_node {
  std::uint32_t next;  // index + 1 into the pool; 0 ends the stack
  std::uint32_t pops;
  std::uint64_t value;
  std::uint64_t check;  // ~value: a torn or stale payload shows
};

// The head: (tag << 32) | (index + 1); the tag grows with every change, so a
// node popped and pushed back between a pop's load and its compare-exchange
// (ABA) makes that compare-exchange fail.
struct treiber_stack {
  dstd::atomic<std::uint64_t> head{0};
  stack_node* pool = nullptr;

  void push(std::uint32_t index) {
    std::uint64_t h = head.load(std::memory_order_relaxed);
    do {
      pool[index].next = static_cast<std::uint32_t>(h);
    } while (!head.compare_exchange_weak(h, ((h >> 32) + 1) << 32 | (index + 1),
                                         std::memory_order_release, std::memory_order_relaxed));
  }

  // Index of the popped node, or -1 when empty.
  long pop() {
    std::uint64_t h = head.load(std::memory_order_acquire);
    for (;;) {
      const auto top = static_cast<std::uint32_t>(h);
      if (top == 0) return -1;
      const std::uint32_t next = pool[top - 1].next;
      if (head.compare_exchange_weak(h, ((h >> 32) + 1) << 32 | next, std::memory_order_acquire,
                                     std::memory_order_acquire)) {
        return static_cast<long>(top) - 1;
      }
    }
  }
};

std::uint64_t delta_of(unsigned thread, int op) {
  return (std::uint64_t{thread} << 40) ^ (std::uint64_t(op) * 0x9e3779b97f4a7c15ull >> 24);
}

TEST(CoherenceStress, TreiberStackOnAnAtomicHeadKeepsEveryNodeAndPayload) {
  const int per_thread = ops_per_thread();
  constexpr std::uint32_t pool_size = 512;  // 12 KiB: 4 pages of nodes
  std::vector<stack_node> pool(pool_size);
  treiber_stack stack;
  stack.pool = pool.data();
  for (std::uint32_t i = 0; i < pool_size; ++i) {
    pool[i] = {0, 0, i, ~std::uint64_t{i}};
    stack.push(i);
  }
  std::vector<long> garbled(thread_count(), 0);
  run_threads_on_every_node([&](unsigned thread) {
    long bad = 0;
    for (int op = 0; op < per_thread; ++op) {
      const long i = stack.pop();
      if (i < 0) continue;  // cannot happen: fewer threads than nodes
      stack_node& n = pool[static_cast<std::size_t>(i)];
      if (n.check != ~n.value) ++bad;
      n.value += delta_of(thread, op);
      n.check = ~n.value;
      ++n.pops;
      stack.push(static_cast<std::uint32_t>(i));
    }
    garbled[thread] = bad;
  });

  std::vector<bool> seen(pool_size, false);
  std::uint32_t reachable = 0;
  std::uint64_t sum = 0, pops = 0;
  for (std::uint32_t top = static_cast<std::uint32_t>(stack.head.load()); top != 0;
       top = pool[top - 1].next) {
    ASSERT_LE(top, pool_size) << "a garbled link";
    ASSERT_FALSE(seen[top - 1]) << "node " << top - 1 << " is on the stack twice (a cycle)";
    seen[top - 1] = true;
    ++reachable;
    EXPECT_EQ(pool[top - 1].check, ~pool[top - 1].value) << "node " << top - 1;
    sum += pool[top - 1].value;
    pops += pool[top - 1].pops;
  }
  std::uint64_t expected_sum = 0;
  for (std::uint32_t i = 0; i < pool_size; ++i) expected_sum += i;
  for (unsigned t = 0; t < thread_count(); ++t) {
    for (int op = 0; op < per_thread; ++op) expected_sum += delta_of(t, op);
    EXPECT_EQ(garbled[t], 0) << "thread " << t << " popped nodes with a torn payload";
  }
  EXPECT_EQ(reachable, pool_size) << "nodes lost from the stack";
  EXPECT_EQ(pops, std::uint64_t(per_thread) * thread_count());
  EXPECT_EQ(sum, expected_sum) << "payload updates lost";
}

// --- interleaved sequential writers (write-ahead) ------------------------------

// Thread t owns the bytes whose index is t modulo the thread count. Each
// round it writes all of them first to last, then waits at a barrier; then
// every thread checks every byte against the round's value of its owner,
// and waits again. A page twinned ahead whose diff carried bytes its
// writer did not write, or a write lost to a flush racing the write-ahead,
// shows as a byte of the wrong value.
TEST(CoherenceStress, InterleavedSequentialWritersSeeEveryByteOfEveryRound) {
  constexpr std::size_t page_count = 96;
  const int rounds = std::max(4, ops_per_thread() / 100);
  const unsigned threads = thread_count();
  auto* bytes = static_cast<unsigned char*>(std::aligned_alloc(4096, page_count * 4096));
  std::memset(bytes, 0, page_count * 4096);
  auto value = [](int round, std::size_t owner) {
    return static_cast<unsigned char>(round * 7 + owner * 13 + 1);
  };
  dstd::barrier<> sync(static_cast<std::ptrdiff_t>(threads));
  dstd::atomic<long> wrong{0};
  run_threads_on_every_node([&](unsigned me) {
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t i = me; i < page_count * 4096; i += threads) bytes[i] = value(r, me);
      sync.arrive_and_wait();
      long bad = 0;
      for (std::size_t i = 0; i < page_count * 4096; ++i) bad += bytes[i] != value(r, i % threads);
      if (bad != 0) wrong.fetch_add(bad);
      sync.arrive_and_wait();
    }
  });
  EXPECT_EQ(wrong.load(), 0) << "bytes read with another value than their owner wrote";
  for (std::size_t i = 0; i < page_count * 4096; ++i) {
    ASSERT_EQ(bytes[i], value(rounds - 1, i % threads)) << "byte " << i;
  }
  std::free(bytes);
}


// --- a store into a page another worker's flush keeps writable -------------------

// A page written in every interval stays writable across flushes (DESIGN
// §4). While a flush runs, such a page is writable and on no list, so a
// worker that stores into it and releases may find the dirty list empty;
// it must then see that a flush ran, even one over by the time it looks
// (sync_generation; the prototype checked only for a flush in flight and
// returned with the store unsent). Node 1: one thread writes the page and
// releases in a loop, so it is kept and flushed all the time; the other
// stores each round's number into the same page and publishes it through
// an atomic. Node 0, the page's home, reads the atomic (acquire) and then
// the page: it must hold at least the round published.
TEST(CoherenceStress, AStoreIntoAPageAnotherWorkerKeepsWritableIsPublishedByItsRelease) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs two nodes";
  struct alignas(4096) shared_page {
    long churn;
    long round;
  };
  auto* page = new shared_page{};  // node 0's heap
  const long rounds = 4L * ops_per_thread();
  dstd::atomic<long> published{0};
  dstd::atomic<long> churned{0};
  dstd::thread churn = dstd::spawn_on(1, [&] {
    while (published.load(std::memory_order_relaxed) < rounds) {
      ++page->churn;
      churned.store(page->churn, std::memory_order_release);  // a release: a flush
    }
  });
  dstd::thread writer = dstd::spawn_on(1, [&] {
    // Not before the churn has begun: on a busy machine the writer could
    // otherwise finish every round before the churn thread first runs.
    while (churned.load(std::memory_order_acquire) == 0) dstd::this_thread::yield();
    for (long r = 1; r <= rounds; ++r) {
      page->round = r;
      published.store(r, std::memory_order_release);
    }
  });
  long stale = 0, first_stale = 0;
  for (long seen = 0; seen < rounds;) {
    seen = published.load(std::memory_order_acquire);
    const long at_home = page->round;
    if (at_home < seen) {
      if (stale++ == 0) first_stale = seen;
    }
  }
  writer.join();
  churn.join();
  EXPECT_EQ(stale, 0) << "node 0 saw a round published before the page held it (first: round "
                      << first_stale << ")";
  EXPECT_EQ(page->round, rounds);
  EXPECT_GT(churned.load(), 0);
  delete page;
}

}  // namespace
