// The blocking sync types across nodes: mutexes (plain, recursive, timed,
// shared), condition variables, latch, barrier, semaphores, call_once —
// each checked the way a program using the std type would check it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <dstd/sync>
#include <dstd/thread>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <vector>

#include "tests/sync/sync_test_util.hpp"

namespace {

using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;
using dstd::test::make_on;
using dstd::test::start_on;

constexpr unsigned threads_per_node = 3;

// Runs f(node, index) on threads_per_node threads on every node; joins.
template <class F>
void on_every_node(F f) {
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    for (unsigned k = 0; k < threads_per_node; ++k) {
      t.push_back(dstd::spawn_on(n, [&f, n, k] { f(n, k); }));
    }
  }
  for (auto& th : t) th.join();
}

// Objects that live in static data (homed at node 0) work like heap ones.
dstd::mutex static_mutex;
long static_counter = 0;

TEST(Mutex, ProtectedCounterIsExactAcrossNodes) {
  constexpr int increments = 300;
  auto m = make_on<dstd::mutex>(1);
  long counter = 0;  // on main's stack (node 0)
  dstd::recursive_mutex rm;
  long recursive_counter = 0;
  on_every_node([&](unsigned, unsigned) {
    for (int i = 0; i < increments; ++i) {
      {
        std::lock_guard<dstd::mutex> g(*m);
        ++counter;
      }
      {
        std::scoped_lock g(static_mutex);
        ++static_counter;
      }
      std::lock_guard<dstd::recursive_mutex> outer(rm);
      std::lock_guard<dstd::recursive_mutex> inner(rm);  // re-entry
      ++recursive_counter;
    }
  });
  const long expected = static_cast<long>(dstd::node_count() * threads_per_node) * increments;
  EXPECT_EQ(counter, expected);
  EXPECT_EQ(static_counter, expected);
  EXPECT_EQ(recursive_counter, expected);
}

// Uncontended lock and unlock of a mutex homed on the caller's node are CPU
// atomics: no message. The lock is an acquire, which on a node that caches
// other nodes' pages reads each of those homes' summary (one one-sided read
// per home, DESIGN §4 "Versions and notices"), so at most nodes - 1 one-sided reads per
// lock. Homed on another node, they are one-sided atomics, still without a
// message.
// What 1000 lock/unlock pairs of an uncontended mutex cost a thread on
// `node`, in messages and one-sided operations: of `shared`, or, when it is
// null, of a mutex on the thread's own stack (homed on `node`). Up to three
// tries, until one sends no message: the node's other work (a queued free
// sent home, a late reply) may send one meanwhile, while a lock that sent
// any would fail every try.
struct lock_costs {
  std::uint64_t messages = 0;
  std::uint64_t one_sided = 0;
};
lock_costs uncontended_costs(unsigned node, dstd::mutex* shared) {
  lock_costs costs;
  for (int attempt = 0; attempt < 3; ++attempt) {
    dstd::spawn_on(node, [shared, &costs] {
      dstd::mutex own;
      dstd::mutex& m = shared != nullptr ? *shared : own;
      m.lock();  // a first sync point sends home any frees still queued
      m.unlock();
      const dstd::node_stats before = dstd::stats();
      for (int i = 0; i < 1000; ++i) {
        m.lock();
        m.unlock();
      }
      const dstd::node_stats after = dstd::stats();
      costs.messages = after.messages_sent - before.messages_sent;
      costs.one_sided = after.one_sided_operations - before.one_sided_operations;
    }).join();
    if (costs.messages == 0) break;
  }
  return costs;
}

// The checks run here, on node 0: a failed gtest assertion on another node
// cannot report (gtest's per-thread reporter is a pthread key of node 0's
// process).
TEST(Mutex, UncontendedLockSendsNoMessage) {
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    const lock_costs c = uncontended_costs(n, nullptr);
    EXPECT_EQ(c.messages, 0u) << "node " << n;
    EXPECT_LE(c.one_sided, 1000u * (dstd::node_count() - 1)) << "node " << n;
  }
  if (dstd::node_count() < 2) return;
  auto remote = make_on<dstd::mutex>(0);
  const lock_costs c = uncontended_costs(1, remote.get());
  EXPECT_EQ(c.messages, 0u);
  EXPECT_GE(c.one_sided, 2000u);
}

TEST(Mutex, TryLockAndTimedVariants) {
  auto m = make_on<dstd::timed_mutex>(2);
  dstd::atomic<int> held{0};
  dstd::atomic<int> release{0};
  dstd::thread holder = start_on(1, [&] {
    m->lock();
    held.store(1);
    while (release.load() == 0) dstd::this_thread::sleep_for(1ms);
    m->unlock();
  });
  while (held.load() == 0) dstd::this_thread::yield();
  EXPECT_FALSE(m->try_lock());
  const auto t0 = clk::now();
  EXPECT_FALSE(m->try_lock_for(30ms));
  EXPECT_GE(clk::now() - t0, 30ms);
  EXPECT_FALSE(m->try_lock_until(std::chrono::system_clock::now() + 10ms));
  release.store(1);
  EXPECT_TRUE(m->try_lock_for(5s));  // the holder lets go meanwhile
  m->unlock();
  holder.join();
  std::unique_lock<dstd::timed_mutex> lk(*m, std::try_to_lock);
  EXPECT_TRUE(lk.owns_lock());

  dstd::recursive_timed_mutex rtm;
  EXPECT_TRUE(rtm.try_lock());
  EXPECT_TRUE(rtm.try_lock_for(1ms));  // re-entry
  bool other_got_it = true;
  start_on(3, [&] { other_got_it = rtm.try_lock_for(20ms); }).join();
  EXPECT_FALSE(other_got_it);
  rtm.unlock();
  rtm.unlock();
  start_on(3, [&] {
    other_got_it = rtm.try_lock();
    if (other_got_it) rtm.unlock();
  }).join();
  EXPECT_TRUE(other_got_it);
}

// Writers keep a == b under the exclusive lock; readers, under the shared
// lock, must never see them differ.
TEST(SharedMutex, ReadersNeverSeeAHalfDoneWrite) {
  struct guarded {
    dstd::shared_mutex m;
    long a = 0, b = 0;
  };
  auto g = make_on<guarded>(1);
  dstd::atomic<long> torn{0}, reads{0};
  on_every_node([&](unsigned, unsigned k) {
    for (int i = 0; i < 100; ++i) {
      if (k == 0) {
        std::unique_lock<dstd::shared_mutex> w(g->m);
        ++g->a;
        ++g->b;
      } else {
        std::shared_lock<dstd::shared_mutex> r(g->m);
        if (g->a != g->b) torn.fetch_add(1);
        reads.fetch_add(1);
      }
    }
  });
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(g->a, 100L * dstd::node_count());
  EXPECT_EQ(reads.load(), 200L * dstd::node_count());
  dstd::shared_timed_mutex stm;
  stm.lock_shared();
  EXPECT_TRUE(stm.try_lock_shared());
  EXPECT_FALSE(stm.try_lock());
  EXPECT_FALSE(stm.try_lock_for(10ms));
  stm.unlock_shared();
  stm.unlock_shared();
  EXPECT_TRUE(stm.try_lock_for(10ms));
  EXPECT_FALSE(stm.try_lock_shared_for(5ms));
  stm.unlock();
}

// A bounded queue (capacity 4) in node 0's heap: producers on every node,
// consumers on every node; every item arrives exactly once.
TEST(ConditionVariable, BoundedQueueDeliversEveryItemOnce) {
  struct queue {
    dstd::mutex m;
    dstd::condition_variable not_full, not_empty;
    std::deque<int> items;
    int producers_left = 0;
  };
  queue q;
  constexpr int per_producer = 150;
  const int producers = static_cast<int>(dstd::node_count());
  q.producers_left = producers;
  std::vector<long> consumed_sum(dstd::node_count(), 0);
  std::vector<int> consumed_count(dstd::node_count(), 0);
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    t.push_back(dstd::spawn_on(n, [&q, n] {
      for (int i = 0; i < per_producer; ++i) {
        std::unique_lock<dstd::mutex> lk(q.m);
        q.not_full.wait(lk, [&] { return q.items.size() < 4; });
        q.items.push_back(static_cast<int>(n) * per_producer + i);
        q.not_empty.notify_one();
      }
      std::lock_guard<dstd::mutex> lk(q.m);
      if (--q.producers_left == 0) q.not_empty.notify_all();
    }));
    t.push_back(dstd::spawn_on(n, [&, n] {
      for (;;) {
        std::unique_lock<dstd::mutex> lk(q.m);
        q.not_empty.wait(lk, [&] { return !q.items.empty() || q.producers_left == 0; });
        if (q.items.empty()) return;
        consumed_sum[n] += q.items.front();
        ++consumed_count[n];
        q.items.pop_front();
        q.not_full.notify_one();
      }
    }));
  }
  for (auto& th : t) th.join();
  long sum = 0;
  int count = 0;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    sum += consumed_sum[n];
    count += consumed_count[n];
  }
  const long total = static_cast<long>(producers) * per_producer;
  EXPECT_EQ(count, total);
  EXPECT_EQ(sum, total * (total - 1) / 2);
}

TEST(ConditionVariable, TimedWaitsAndStopTokens) {
  dstd::mutex m;
  dstd::condition_variable cv;
  std::unique_lock<dstd::mutex> lk(m);
  const auto t0 = clk::now();
  EXPECT_EQ(cv.wait_for(lk, 20ms), dstd::cv_status::timeout);
  EXPECT_GE(clk::now() - t0, 20ms);
  EXPECT_FALSE(cv.wait_for(lk, 5ms, [] { return false; }));
  lk.unlock();
  // condition_variable_any with a stop token: a stop from main wakes a
  // waiter on the last node.
  dstd::condition_variable_any cva;
  dstd::mutex am;
  dstd::stop_source stop;
  bool result = true;
  dstd::thread waiter = start_on(3, [&] {
    std::unique_lock<dstd::mutex> l(am);
    result = cva.wait(l, stop.get_token(), [] { return false; });
  });
  dstd::this_thread::sleep_for(10ms);
  stop.request_stop();
  waiter.join();
  EXPECT_FALSE(result);
}

// notify_all_at_thread_exit: the lock stays held to the thread's end, so
// what the thread writes after the call is seen by the waiter it wakes, on
// another node.
TEST(ConditionVariable, NotifyAllAtThreadExitHoldsTheLockToTheEnd) {
  dstd::mutex m;
  dstd::condition_variable cv;
  bool ready = false;
  int written_after_the_call = 0;
  dstd::thread t = start_on(3, [&] {
    std::unique_lock<dstd::mutex> lk(m);
    ready = true;
    dstd::notify_all_at_thread_exit(cv, std::move(lk));
    dstd::this_thread::sleep_for(5ms);  // still holding m
    written_after_the_call = 1;
  });
  {
    std::unique_lock<dstd::mutex> lk(m);
    cv.wait(lk, [&] { return ready; });
    EXPECT_EQ(written_after_the_call, 1);
  }
  t.join();
}

TEST(LatchAndBarrier, PhasesSeeEachOthersWrites) {
  const unsigned nodes = dstd::node_count();
  std::vector<long> slot(nodes * threads_per_node, -1);
  dstd::latch done(static_cast<std::ptrdiff_t>(slot.size()));
  std::vector<dstd::thread> t;
  for (unsigned i = 0; i < slot.size(); ++i) {
    t.push_back(start_on(i, [&, i] {
      slot[i] = i * 10;
      done.count_down();
    }));
  }
  done.wait();  // no join yet: the latch alone must publish the writes
  for (unsigned i = 0; i < slot.size(); ++i) EXPECT_EQ(slot[i], i * 10);
  EXPECT_TRUE(done.try_wait());
  for (auto& th : t) th.join();

  // One thread per node, 10 phases: write own slot, barrier, read all.
  constexpr long phases = 10;
  std::vector<long> value(nodes, 0);
  long completions = 0;
  dstd::barrier sync(static_cast<std::ptrdiff_t>(nodes), [&]() noexcept { ++completions; });
  dstd::atomic<long> mismatches{0};
  std::vector<dstd::thread> members;
  for (unsigned n = 0; n < nodes; ++n) {
    members.push_back(dstd::spawn_on(n, [&, n] {
      for (long p = 1; p <= phases; ++p) {
        value[n] = p;
        sync.arrive_and_wait();
        for (unsigned m = 0; m < nodes; ++m) {
          if (value[m] != p) mismatches.fetch_add(1);
        }
        sync.arrive_and_wait();
      }
    }));
  }
  for (auto& th : members) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(completions, 2 * phases);
}

TEST(CallOnce, RunsExactlyOnceClusterWide) {
  struct once_state {
    dstd::once_flag flag;
    dstd::atomic<int> calls{0};
    std::vector<int> made;  // written by the one call, read by everyone
  };
  auto s = make_on<once_state>(2);
  dstd::atomic<int> saw_it{0};
  on_every_node([&](unsigned, unsigned) {
    dstd::call_once(s->flag, [&] {
      s->calls.fetch_add(1);
      dstd::this_thread::sleep_for(5ms);  // others must wait, not run it
      s->made.assign(100, 7);
    });
    if (s->made.size() == 100 && s->made[99] == 7) saw_it.fetch_add(1);
  });
  EXPECT_EQ(s->calls.load(), 1);
  EXPECT_EQ(saw_it.load(), static_cast<int>(dstd::node_count() * threads_per_node));
  // A call that throws leaves the flag unset; the next call runs.
  dstd::once_flag retry;
  EXPECT_THROW(dstd::call_once(retry, [] { throw 1; }), int);
  int ran = 0;
  dstd::call_once(retry, [&] { ++ran; });
  dstd::call_once(retry, [&] { ++ran; });
  EXPECT_EQ(ran, 1);
}

TEST(Semaphore, BoundsConcurrencyAndSignals) {
  auto permits = make_on<dstd::counting_semaphore<2>>(1, 2);
  dstd::atomic<int> inside{0}, most{0};
  on_every_node([&](unsigned, unsigned) {
    for (int i = 0; i < 20; ++i) {
      permits->acquire();
      const int now = inside.fetch_add(1) + 1;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      dstd::this_thread::yield();
      inside.fetch_sub(1);
      permits->release();
    }
  });
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
  EXPECT_EQ(dstd::counting_semaphore<2>::max(), 2);
  // The default counts up to what its word holds below the gate's bits,
  // and says so: a count of max() is a count, not a taken gate.
  using big = dstd::counting_semaphore<>;
  EXPECT_EQ(big::max(), (std::ptrdiff_t{1} << 62) - 1);
  big full(big::max() - 1);
  full.release();
  EXPECT_TRUE(full.try_acquire());
  EXPECT_TRUE(full.try_acquire_for(1ms));

  dstd::binary_semaphore ready(0);
  std::string message;
  dstd::thread sender = start_on(3, [&] {
    message = "from the last node";
    ready.release();
  });
  ready.acquire();
  EXPECT_EQ(message, "from the last node");
  sender.join();
  EXPECT_FALSE(ready.try_acquire());
  const auto t0 = clk::now();
  EXPECT_FALSE(ready.try_acquire_for(15ms));
  EXPECT_GE(clk::now() - t0, 15ms);
}

}  // namespace
