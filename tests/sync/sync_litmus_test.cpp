// Memory-model litmus tests across nodes, and the atomic types' interface:
// what a program relying on std::atomic's guarantees would check.
#include <gtest/gtest.h>

#include <cstdint>
#include <dstd/atomic>
#include <dstd/sync>
#include <dstd/thread>
#include <vector>

#include "tests/sync/sync_test_util.hpp"

namespace {

using dstd::test::make_on;
using dstd::test::start_on;

// Message passing: data written with plain stores, then a flag with a
// release store; a reader that sees the flag with an acquire load must see
// the data. Data on node 0 (main's heap), flag on node 3, writer on node 1,
// reader on node 2; the reader acknowledges each round (also release/acquire)
// before the writer overwrites the data.
TEST(Litmus, MessagePassingNeverSeesTheFlagWithoutTheData) {
  constexpr int rounds = 100;
  constexpr int words = 1500;  // more than a page
  std::vector<int> data(words, 0);
  auto flag = make_on<dstd::atomic<int>>(3, 0);
  auto ack = make_on<dstd::atomic<int>>(0, 0);
  int stale = 0;
  dstd::thread reader = start_on(2, [&] {
    for (int r = 1; r <= rounds; ++r) {
      while (flag->load(dstd::memory_order_acquire) != r) dstd::this_thread::yield();
      for (int i = 0; i < words; ++i) {
        if (data[static_cast<std::size_t>(i)] != r) ++stale;
      }
      ack->store(r, dstd::memory_order_release);
    }
  });
  dstd::thread writer = start_on(1, [&] {
    for (int r = 1; r <= rounds; ++r) {
      while (ack->load(dstd::memory_order_acquire) != r - 1) dstd::this_thread::yield();
      for (int i = 0; i < words; ++i) data[static_cast<std::size_t>(i)] = r;
      flag->store(r, dstd::memory_order_release);
    }
  });
  writer.join();
  reader.join();
  EXPECT_EQ(stale, 0);
}

// Store buffering with seq_cst: x.store(1); r1 = y.load() against
// y.store(1); r2 = x.load() never gives r1 == r2 == 0.
TEST(Litmus, StoreBufferingWithSeqCstNeverBothZero) {
  auto x = make_on<dstd::atomic<int>>(1, 0);
  auto y = make_on<dstd::atomic<int>>(2, 0);
  int both_zero = 0;
  for (int round = 0; round < 150; ++round) {
    x->store(0);
    y->store(0);
    dstd::atomic<int> go{0};
    int r1 = -1, r2 = -1;
    dstd::thread a = start_on(1, [&] {
      while (go.load() == 0) dstd::this_thread::yield();
      x->store(1);
      r1 = y->load();
    });
    dstd::thread b = start_on(3, [&] {
      while (go.load() == 0) dstd::this_thread::yield();
      y->store(1);
      r2 = x->load();
    });
    go.store(1);
    a.join();
    b.join();
    if (r1 == 0 && r2 == 0) ++both_zero;
  }
  EXPECT_EQ(both_zero, 0);
}

// IRIW with seq_cst: two readers never see the two independent writes in
// opposite orders.
TEST(Litmus, IndependentReadsOfIndependentWritesAgreeWithSeqCst) {
  auto x = make_on<dstd::atomic<int>>(0, 0);
  auto y = make_on<dstd::atomic<int>>(1, 0);
  int disagreements = 0;
  for (int round = 0; round < 100; ++round) {
    x->store(0);
    y->store(0);
    dstd::atomic<int> go{0};
    int r1 = -1, r2 = -1, r3 = -1, r4 = -1;
    std::vector<dstd::thread> t;
    t.push_back(start_on(0, [&] {
      while (go.load() == 0) dstd::this_thread::yield();
      x->store(1);
    }));
    t.push_back(start_on(1, [&] {
      while (go.load() == 0) dstd::this_thread::yield();
      y->store(1);
    }));
    t.push_back(start_on(2, [&] {
      while (go.load() == 0) dstd::this_thread::yield();
      r1 = x->load();
      r2 = y->load();
    }));
    t.push_back(start_on(3, [&] {
      while (go.load() == 0) dstd::this_thread::yield();
      r3 = y->load();
      r4 = x->load();
    }));
    go.store(1);
    for (auto& th : t) th.join();
    if (r1 == 1 && r2 == 0 && r3 == 1 && r4 == 0) ++disagreements;
  }
  EXPECT_EQ(disagreements, 0);
}

TEST(Atomics, KeepStdSizesAndLockFreedom) {
  static_assert(sizeof(dstd::atomic<int>) == sizeof(int));
  static_assert(sizeof(dstd::atomic<char>) == sizeof(char));
  static_assert(sizeof(dstd::atomic<long>) == sizeof(long));
  static_assert(sizeof(dstd::atomic<bool>) == sizeof(bool));
  static_assert(sizeof(dstd::atomic<double>) == sizeof(double));
  static_assert(sizeof(dstd::atomic<int*>) == sizeof(int*));
  static_assert(dstd::atomic<std::uint64_t>::is_always_lock_free);
  static_assert(sizeof(dstd::atomic_flag) == 1);
  struct big {
    long a, b, c;
  };
  static_assert(!dstd::atomic<big>::is_always_lock_free);
  EXPECT_TRUE(dstd::atomic<int>{}.is_lock_free());
}

// Every kind of atomic, operated on from every node, at a home on node 1.
struct all_kinds {
  dstd::atomic<char> c{0};
  dstd::atomic<short> s{0};
  dstd::atomic<int> i{0};
  dstd::atomic<std::uint64_t> u{0};
  dstd::atomic<double> d{0.0};
  dstd::atomic<bool> b{false};
  dstd::atomic_flag flag;
  struct pair {
    long first, second;
  };
  dstd::atomic<pair> big{pair{0, 0}};
  int target[8] = {};
  dstd::atomic<int*> p{nullptr};
};

TEST(Atomics, EveryOperationFromEveryNode) {
  auto a = make_on<all_kinds>(1);
  a->p.store(a->target);
  constexpr int per_node = 50;
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    t.push_back(dstd::spawn_on(n, [&a] {
      for (int k = 0; k < per_node; ++k) {
        a->c.fetch_add(1);
        a->s += 2;
        ++a->i;
        a->u.fetch_add(3, dstd::memory_order_relaxed);
        a->d.fetch_add(0.5);
        a->i.fetch_or(1 << 20);
        all_kinds::pair seen = a->big.load();
        while (!a->big.compare_exchange_weak(seen, {seen.first + 1, seen.second + 2})) {
        }
      }
      a->b.exchange(true);
      a->flag.test_and_set();
    }));
  }
  for (auto& th : t) th.join();
  const int n = static_cast<int>(dstd::node_count());
  EXPECT_EQ(a->c.load(), static_cast<char>(n * per_node));
  EXPECT_EQ(a->s.load(), static_cast<short>(2 * n * per_node));
  EXPECT_EQ(a->i.load() & ~(1 << 20), n * per_node);
  EXPECT_NE(a->i.load() & (1 << 20), 0);
  EXPECT_EQ(a->u.load(), 3u * static_cast<unsigned>(n * per_node));
  EXPECT_DOUBLE_EQ(a->d.load(), 0.5 * n * per_node);
  EXPECT_TRUE(a->b.load());
  EXPECT_TRUE(a->flag.test());
  EXPECT_EQ(a->big.load().first, n * per_node);
  EXPECT_EQ(a->big.load().second, 2 * n * per_node);
  // Pointer arithmetic, exchange, compare_exchange failure reporting.
  int* old = a->p.fetch_add(3);
  EXPECT_EQ(old, a->target);
  EXPECT_EQ(a->p.load(), a->target + 3);
  int* wrong = a->target;
  EXPECT_FALSE(a->p.compare_exchange_strong(wrong, nullptr));
  EXPECT_EQ(wrong, a->target + 3);
  a->flag.clear();
  EXPECT_FALSE(a->flag.test());
  // Free functions and atomic_ref.
  const int before = a->i.load();
  EXPECT_EQ(dstd::atomic_fetch_sub(&a->i, 1), before);
  EXPECT_EQ(dstd::atomic_load(&a->i), before - 1);
  int plain = 5;
  dstd::atomic_ref<int> ref(plain);
  dstd::spawn_on(dstd::test::wrap(2), [&ref] { ref.fetch_add(10); }).join();
  EXPECT_EQ(plain, 15);
  dstd::atomic_thread_fence(dstd::memory_order_seq_cst);
}

// std's volatile members and the free functions on volatile objects (a
// program built with compat/ may declare `volatile std::atomic<int>`), from
// a node other than the atomic's home.
struct volatile_kinds {
  volatile dstd::atomic<int> i{1};
  volatile dstd::atomic<long*> p{nullptr};
  volatile dstd::atomic_flag flag;
  long target[4] = {};
};

TEST(Atomics, VolatileMembersAndFreeFunctions) {
  auto a = make_on<volatile_kinds>(1);
  dstd::spawn_on(dstd::test::wrap(2), [&a] {
    a->i = 2;
    a->i += 3;
    ++a->i;
    EXPECT_EQ(a->i.fetch_add(1), 6);
    int expected = 7;
    EXPECT_TRUE(a->i.compare_exchange_strong(expected, 8));
    EXPECT_EQ(dstd::atomic_fetch_add(&a->i, 2), 8);
    dstd::atomic_store_explicit(&a->i, dstd::atomic_load(&a->i) * 2, dstd::memory_order_release);
    a->p.store(a->target);
    a->p += 2;
    EXPECT_FALSE(dstd::atomic_flag_test_and_set(&a->flag));
    EXPECT_TRUE(a->flag.test());
  }).join();
  EXPECT_EQ(static_cast<int>(a->i), 20);
  EXPECT_EQ(a->p.load(), a->target + 2);
  EXPECT_TRUE(dstd::atomic_flag_test(&a->flag));
  dstd::atomic_flag_clear(&a->flag);
  EXPECT_FALSE(a->flag.test());
}

// Atomics too large for a hardware word take a lock of the cluster's lock
// table. Contended by three threads on every node, no update is lost and no
// load or compare-exchange ever sees a torn value.
struct triple {
  std::uint64_t count, twice, tag;  // twice == 2 * count, tag == count ^ mask
};
constexpr std::uint64_t mask = 0x5a5a5a5a5a5a5a5a;
bool whole(const triple& t) { return t.twice == 2 * t.count && t.tag == (t.count ^ mask); }
triple next(const triple& t) { return {t.count + 1, 2 * (t.count + 1), (t.count + 1) ^ mask}; }

TEST(Atomics, LargeObjectsStayWholeUnderContentionFromEveryNode) {
  auto on_1 = make_on<dstd::atomic<triple>>(1, triple{0, 0, mask});
  auto on_last = make_on<dstd::atomic<triple>>(dstd::node_count() - 1, triple{0, 0, mask});
  constexpr unsigned per_node = 3;
  constexpr int updates = 100;
  dstd::atomic<int> torn{0};
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    for (unsigned k = 0; k < per_node; ++k) {
      t.push_back(dstd::spawn_on(n, [&, k] {
        dstd::atomic<triple>& a = k % 2 == 0 ? *on_1 : *on_last;
        for (int i = 0; i < updates; ++i) {
          triple seen = a.load();
          do {
            if (!whole(seen)) torn.fetch_add(1);
          } while (!a.compare_exchange_weak(seen, next(seen)));
        }
      }));
    }
  }
  for (auto& th : t) th.join();
  const std::uint64_t nodes = dstd::node_count();
  const triple one = on_1->load(), last = on_last->load();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_TRUE(whole(one) && whole(last));
  EXPECT_EQ(one.count, nodes * 2 * updates);  // k = 0 and 2 on every node
  EXPECT_EQ(last.count, nodes * 1 * updates);
}

// wait/notify across nodes: a ping-pong of 100 turns between nodes 1 and 3.
TEST(Atomics, WaitAndNotifyAcrossNodes) {
  auto turn = make_on<dstd::atomic<int>>(2, 0);
  constexpr int turns = 100;
  auto player = [&turn](int me) {
    for (int k = me; k < turns; k += 2) {
      for (int v = turn->load(); v != k; v = turn->load()) turn->wait(v);
      turn->store(k + 1);
      turn->notify_all();
    }
  };
  dstd::thread a = start_on(1, [&] { player(0); });
  dstd::thread b = start_on(3, [&] { player(1); });
  a.join();
  b.join();
  EXPECT_EQ(turn->load(), turns);
  // atomic_flag wait: a thread on node 1 waits until main sets the flag.
  auto flag = make_on<dstd::atomic_flag>(0);
  bool woke = false;
  dstd::thread waiter = start_on(1, [&] {
    flag->wait(false);
    woke = true;
  });
  dstd::this_thread::sleep_for(std::chrono::milliseconds(10));
  flag->test_and_set();
  flag->notify_one();
  waiter.join();
  EXPECT_TRUE(woke);
}

}  // namespace
