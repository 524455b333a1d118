// Plain std and POSIX synchronization (not dstd's types, no compat/) in
// objects that dstd::threads on every node share: a function-local static,
// std::mutex, std::condition_variable, sem_t, std::shared_mutex,
// std::recursive_mutex, pthread_once, pthread_barrier_t, pthread_spinlock_t
// and std::osyncstream, each checked as a program using it would check it.
// libdstd serves them cluster-wide (dstd/interpose/); with glibc's
// implementation they hung or counted wrong from the second node on.
//
// Threads that block in glibc (a one-node run) hold their worker, so each
// test keeps its blocking threads per node at most the workers a node has.
#include <gtest/gtest.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <dstd/atomic>
#include <dstd/sync>
#include <dstd/thread>
#include <mutex>
#include <new>
#include <set>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <syncstream>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Runs f(node, index) on `per_node` threads on every node, all starting
// together (so that nodes overlap); joins. In a one-node run they start as
// they come: there glibc serves the objects, and a thread blocked in glibc
// holds its worker, so two threads that a common start bound to one worker
// (scheduler.cpp) could wait for each other forever.
template <class F>
void on_every_node(unsigned per_node, F f) {
  const bool together = dstd::node_count() > 1;
  dstd::latch start(together ? static_cast<std::ptrdiff_t>(per_node * dstd::node_count()) : 0);
  std::vector<dstd::thread> t;
  for (unsigned n = 0; n < dstd::node_count(); ++n) {
    for (unsigned k = 0; k < per_node; ++k) {
      t.push_back(dstd::spawn_on(n, [&f, &start, together, n, k] {
        if (together) start.arrive_and_wait();
        f(n, k);
      }));
    }
  }
  for (auto& th : t) th.join();
}

// Inside a critical section: long enough that the other nodes' threads
// are waiting meanwhile (with glibc's locks, each node took its own copy
// and the nodes' updates overwrote each other).
void hold_a_moment() { std::this_thread::sleep_for(20us); }

// --- a slow Meyers singleton -------------------------------------------

dstd::atomic<int> constructions{0};

struct slow_singleton {
  slow_singleton() {
    constructions.fetch_add(1);
    std::this_thread::sleep_for(30ms);  // others arrive while it is built
    for (int i = 0; i < 1000; ++i) table.push_back(i);
  }
  std::vector<int> table;
};

slow_singleton& instance() {
  static slow_singleton s;
  return s;
}

TEST(StaticLocal, SlowSingletonIsConstructedOnceAndSeenWhole) {
  dstd::atomic<int> wrong{0};
  on_every_node(2, [&](unsigned, unsigned) {
    const slow_singleton& s = instance();
    if (s.table.size() != 1000 || s.table[999] != 999) wrong.fetch_add(1);
  });
  EXPECT_EQ(constructions.load(), 1);
  EXPECT_EQ(wrong.load(), 0);
}

// A node that read the object's memory while another node was building it
// (its cache holds those pages as they were), then finds the guard done,
// must see the object as built: the compiler's inline guard check is a
// plain load, and a guard read fresh from its home while the object's
// pages are stale gave the old bytes. The node reads only the middle pages
// of a large object (the guard is outside them) and waits with relaxed
// loads, which do not acquire, so nothing else refreshes its cache.
struct large_static {
  static constexpr std::size_t words = 8 * 4096 / sizeof(std::uint64_t);  // 8 pages
  large_static();
  std::uint64_t w[words];
};

dstd::atomic<std::uintptr_t> large_static_building{0};  // its address, while built
dstd::atomic<int> large_static_peeked{0};

large_static::large_static() {
  large_static_building.store(reinterpret_cast<std::uintptr_t>(this));
  while (large_static_peeked.load() == 0) std::this_thread::sleep_for(100us);
  for (std::size_t i = 0; i < words; ++i) w[i] = i + 1;
}

large_static& large_instance() {
  static large_static s;
  return s;
}

TEST(StaticLocal, ANodeThatReadTheObjectWhileItWasBuiltSeesItBuilt) {
  const dstd::node_id builder = 0, reader = dstd::node_count() - 1;
  dstd::atomic<int> built{0};
  dstd::thread b = dstd::spawn_on(builder, [&] {
    large_instance();
    built.store(1);
  });
  std::uint64_t before = 1, after = 0;
  dstd::thread r = dstd::spawn_on(reader, [&] {
    std::uintptr_t at = 0;
    while ((at = large_static_building.load(dstd::memory_order_relaxed)) == 0) {
      dstd::this_thread::yield();
    }
    const auto* middle = reinterpret_cast<const volatile std::uint64_t*>(at) + large_static::words / 2;
    before = *middle;  // caches a middle page, unbuilt
    large_static_peeked.store(1);
    while (built.load(dstd::memory_order_relaxed) == 0) dstd::this_thread::yield();
    after = large_instance().w[large_static::words / 2];
  });
  b.join();
  r.join();
  EXPECT_EQ(before, 0u) << "the reader did not see the object unbuilt: the test proves nothing";
  EXPECT_EQ(after, large_static::words / 2 + 1) << "a stale copy of the static local";
}

// --- a library-style blocking queue ---------------------------------------

// As a library would write it: std::mutex, std::condition_variable and a
// POSIX semaphore counting free slots, in an object in the global heap.
class bounded_queue {
 public:
  explicit bounded_queue(unsigned slots) { sem_init(&free_slots_, 0, slots); }
  ~bounded_queue() { sem_destroy(&free_slots_); }

  void push(long v) {
    sem_wait(&free_slots_);
    {
      std::lock_guard<std::mutex> g(m_);
      items_.push_back(v);
    }
    ready_.notify_one();
  }
  long pop() {
    std::unique_lock<std::mutex> lk(m_);
    ready_.wait(lk, [this] { return !items_.empty(); });
    const long v = items_.front();
    items_.pop_front();
    lk.unlock();
    sem_post(&free_slots_);
    return v;
  }
  int free_slots() {
    int v = -1;
    sem_getvalue(&free_slots_, &v);
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable ready_;
  std::deque<long> items_;
  sem_t free_slots_;
};

TEST(LibraryObject, ProducersAndConsumersOnEveryNodeCountExactly) {
  constexpr long per_producer = 400;
  constexpr unsigned slots = 3;  // small: producers wait for consumers too
  auto* q = new bounded_queue(slots);
  dstd::atomic<long> consumed_sum{0}, consumed{0};
  // Node 0's two threads consume what one thread on each other node
  // produces, so every item crosses nodes (one node: one of each).
  const bool alone = dstd::node_count() == 1;
  const long producers = alone ? 1 : dstd::node_count() - 1;
  const long per_consumer = alone ? per_producer : producers * per_producer / 2;
  on_every_node(2, [&](unsigned n, unsigned k) {
    const bool consumes = alone ? k == 1 : n == 0;
    const bool produces = alone ? k == 0 : n != 0 && k == 0;
    if (produces) {
      for (long i = 1; i <= per_producer; ++i) q->push(static_cast<long>(n) * 100000 + i);
    } else if (consumes) {
      for (long i = 0; i < per_consumer; ++i) {
        consumed_sum.fetch_add(q->pop());
        consumed.fetch_add(1);
      }
    }
  });
  long expected_sum = 0;
  for (long n = alone ? 0 : 1; n < static_cast<long>(dstd::node_count()); ++n) {
    expected_sum += n * 100000 * per_producer + per_producer * (per_producer + 1) / 2;
  }
  EXPECT_EQ(consumed.load(), per_producer * producers);
  EXPECT_EQ(consumed_sum.load(), expected_sum);
  EXPECT_EQ(q->free_slots(), static_cast<int>(slots));
  delete q;
}

TEST(LibraryObject, StdMutexCounterIsExact) {
  constexpr int increments = 100;
  struct counter {
    std::mutex m;
    std::recursive_mutex rm;
    long plain = 0, recursive = 0;
  };
  auto* c = new counter;
  on_every_node(2, [&](unsigned, unsigned) {
    for (int i = 0; i < increments; ++i) {
      {
        std::lock_guard<std::mutex> g(c->m);
        ++c->plain;
        hold_a_moment();
      }
      std::lock_guard<std::recursive_mutex> outer(c->rm);
      std::lock_guard<std::recursive_mutex> inner(c->rm);  // re-entry
      ++c->recursive;
    }
  });
  EXPECT_EQ(c->plain, 2L * increments * dstd::node_count());
  EXPECT_EQ(c->recursive, 2L * increments * dstd::node_count());
  delete c;
}

TEST(LibraryObject, ConditionVariableAnyPingPongsBetweenNodes) {
  constexpr int rounds = 100;
  struct table {
    std::mutex m;
    std::condition_variable_any cv;  // its own mutex is libstdc++'s, in the heap
    int turn = 0;
  };
  auto* t = new table;
  auto player = [t](int me) {
    for (int i = 0; i < rounds; ++i) {
      std::unique_lock<std::mutex> lk(t->m);
      t->cv.wait(lk, [&] { return t->turn == me; });
      t->turn = 1 - me;
      t->cv.notify_all();
    }
  };
  dstd::thread a = dstd::spawn_on(0, player, 0);
  dstd::thread b = dstd::spawn_on(dstd::node_count() - 1, player, 1);
  a.join();
  b.join();
  EXPECT_EQ(t->turn, 0);
  delete t;
}

TEST(PthreadMutex, ErrorCheckingTryAndTimedLockAnswerAsGlibcAcrossNodes) {
  auto* m = new pthread_mutex_t;  // in the heap of node 0
  pthread_mutexattr_t error_checking;
  pthread_mutexattr_init(&error_checking);
  pthread_mutexattr_settype(&error_checking, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(m, &error_checking);
  ASSERT_EQ(pthread_mutex_lock(m), 0);
  EXPECT_EQ(pthread_mutex_lock(m), EDEADLK);
  int try_elsewhere = -1, timed_elsewhere = -1, unlock_elsewhere = -1;
  dstd::spawn_on(dstd::node_count() - 1, [&] {
    try_elsewhere = pthread_mutex_trylock(m);
    timespec past{};
    clock_gettime(CLOCK_REALTIME, &past);
    timed_elsewhere = pthread_mutex_timedlock(m, &past);
    unlock_elsewhere = pthread_mutex_unlock(m);  // not the owner
  }).join();
  EXPECT_EQ(try_elsewhere, EBUSY);
  EXPECT_EQ(timed_elsewhere, ETIMEDOUT);
  EXPECT_EQ(unlock_elsewhere, EPERM);
  EXPECT_EQ(pthread_mutex_unlock(m), 0);
  int relock_elsewhere = -1;
  dstd::spawn_on(dstd::node_count() - 1, [&] {
    relock_elsewhere = pthread_mutex_trylock(m);
    if (relock_elsewhere == 0) pthread_mutex_unlock(m);
  }).join();
  EXPECT_EQ(relock_elsewhere, 0);
  pthread_mutex_destroy(m);
  delete m;
}

TEST(PthreadCond, TimedWaitMeasuresAgainstTheVariablesClock) {
  struct waitable {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c;
  };
  auto* w = new waitable;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->c, &attr);
  int result = 0;
  std::chrono::steady_clock::duration waited{};
  // On the last node: the variable (homed on node 0) is the cluster's there.
  dstd::spawn_on(dstd::node_count() - 1, [&] {
    timespec deadline{};
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_nsec += 100'000'000;
    if (deadline.tv_nsec >= 1'000'000'000) {
      deadline.tv_nsec -= 1'000'000'000;
      ++deadline.tv_sec;
    }
    const auto start = std::chrono::steady_clock::now();
    pthread_mutex_lock(&w->m);
    do {
      result = pthread_cond_timedwait(&w->c, &w->m, &deadline);
    } while (result == 0);  // spurious wake-ups
    pthread_mutex_unlock(&w->m);
    waited = std::chrono::steady_clock::now() - start;
  }).join();
  EXPECT_EQ(result, ETIMEDOUT);
  // A monotonic deadline read as a realtime one is in 1970: no wait at all.
  EXPECT_GE(waited, 100ms);
  pthread_cond_destroy(&w->c);
  delete w;
}

// --- std::shared_mutex ------------------------------------------------------

TEST(SharedMutex, ReadersNeverSeeAHalfWrittenPair) {
  constexpr int rounds = 100;
  struct pair_guarded {
    std::shared_mutex m;
    long a = 0, b = 0;
  };
  auto* p = new pair_guarded;
  dstd::atomic<int> torn{0};
  on_every_node(2, [&](unsigned, unsigned k) {
    for (int i = 0; i < rounds; ++i) {
      if (k == 0) {
        std::unique_lock<std::shared_mutex> w(p->m);
        ++p->a;
        hold_a_moment();
        ++p->b;
      } else {
        std::shared_lock<std::shared_mutex> r(p->m);
        if (p->a != p->b) torn.fetch_add(1);
      }
    }
  });
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(p->a, static_cast<long>(rounds) * dstd::node_count());
  EXPECT_EQ(p->b, p->a);
  delete p;
}

// --- pthread_once, pthread_barrier_t, pthread_spinlock_t --------------------

pthread_once_t once_control = PTHREAD_ONCE_INIT;
dstd::atomic<int> once_runs{0};
void run_once() {
  once_runs.fetch_add(1);
  std::this_thread::sleep_for(10ms);
}

TEST(PthreadOnce, RunsOnceInTheWholeRun) {
  on_every_node(2, [](unsigned, unsigned) { pthread_once(&once_control, run_once); });
  EXPECT_EQ(once_runs.load(), 1);
}

TEST(PthreadBarrier, EveryRoundHasOneSerialThreadAndSeesAllWrites) {
  constexpr int rounds = 30;
  struct shared_state {
    pthread_barrier_t b;
    long slot[64] = {};
  };
  auto* s = new shared_state;
  const unsigned parties = dstd::node_count();
  pthread_barrier_init(&s->b, nullptr, parties);
  dstd::atomic<int> serial{0}, wrong{0};
  on_every_node(1, [&](unsigned n, unsigned) {
    for (int r = 1; r <= rounds; ++r) {
      s->slot[n] = r;
      if (pthread_barrier_wait(&s->b) == PTHREAD_BARRIER_SERIAL_THREAD) serial.fetch_add(1);
      for (unsigned o = 0; o < parties; ++o) {
        if (s->slot[o] < r) wrong.fetch_add(1);
      }
      pthread_barrier_wait(&s->b);  // nobody writes round r+1 before all read
    }
  });
  EXPECT_EQ(serial.load(), rounds);
  EXPECT_EQ(wrong.load(), 0);
  pthread_barrier_destroy(&s->b);
  delete s;
}

TEST(PthreadSpin, CounterIsExact) {
  constexpr int increments = 100;
  struct spin_counter {
    pthread_spinlock_t lock;
    long n = 0;
  };
  auto* c = new spin_counter;
  pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
  on_every_node(2, [&](unsigned, unsigned) {
    for (int i = 0; i < increments; ++i) {
      pthread_spin_lock(&c->lock);
      ++c->n;
      hold_a_moment();
      pthread_spin_unlock(&c->lock);
    }
  });
  EXPECT_EQ(c->n, 2L * increments * dstd::node_count());
  pthread_spin_destroy(&c->lock);
  delete c;
}

// --- std::osyncstream ---------------------------------------------------------

TEST(SyncStream, LinesFromEveryNodeArriveWhole) {
  constexpr int lines = 50;
  auto* out = new std::ostringstream;
  on_every_node(2, [&](unsigned n, unsigned k) {
    for (int i = 0; i < lines; ++i) {
      std::osyncstream line(*out);
      line << "node " << n << " thread " << k;
      hold_a_moment();  // the nodes' lines overlap
      line << " line " << i << " end\n";
    }
  });
  std::istringstream in(out->str());
  std::set<std::string> seen;
  int whole = 0;
  for (std::string line; std::getline(in, line);) {
    unsigned n = 0, k = 0;
    int i = 0;
    char end[4] = {};
    if (std::sscanf(line.c_str(), "node %u thread %u line %d %3s", &n, &k, &i, end) == 4 &&
        std::string(end) == "end") {
      ++whole;
    }
    seen.insert(line);
  }
  EXPECT_EQ(whole, static_cast<int>(2 * lines * dstd::node_count()));
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(whole));
  delete out;
}

// --- node-private objects mixed with shared ones -----------------------------

// Memory outside the global regions (mmap'ed here) is node-private: glibc's.
template <class T>
T* private_object() {
  void* p = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return new (p) T();
}

template <class Mutex, class Cond>
void ping_pong(Mutex& m, Cond& c) {
  constexpr int rounds = 200;
  int turn = 0;  // on main's stack: global
  auto player = [&](int me) {
    for (int i = 0; i < rounds; ++i) {
      std::unique_lock<std::mutex> lk(m);
      c.wait(lk, [&] { return turn == me; });
      turn = 1 - me;
      c.notify_all();
    }
  };
  dstd::thread a = dstd::spawn_on(dstd::this_node(), player, 0);
  dstd::thread b = dstd::spawn_on(dstd::this_node(), player, 1);
  a.join();
  b.join();
  EXPECT_EQ(turn, 0);
}

TEST(MixedPlaces, SharedConditionVariableWithPrivateMutex) {
  auto* c = new std::condition_variable;
  auto* m = private_object<std::mutex>();
  ping_pong(*m, *c);
  delete c;
}

TEST(MixedPlaces, PrivateConditionVariableWithSharedMutex) {
  auto* m = new std::mutex;
  auto* c = private_object<std::condition_variable>();
  ping_pong(*m, *c);
  delete m;
}

}  // namespace
