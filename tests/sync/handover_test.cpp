// Fair hand-over between nodes (issue 18 item 4): a node that takes a sync
// object again and again in a loop must not starve a waiter on another
// node. Each test parks a waiter on node 1 while node 0 holds the object,
// waits until the waiter is in line at the object's home, then lets node 0
// loop (give, take, look) and counts how often the waiter was passed over
// before it got in. Before the hand-over at the home (runtime/sync/
// home_mutex.hpp) such a waiter was passed over thousands of times.
//
// Each test can fail: with the hand-over turned off (home_mutex.cpp's
// `passes >= max_passes` never true, and the semaphore's fast path not
// looking at its gate) all five failed, the waiter passed over 88-409
// times at 2 nodes and 71-92,578 at 4. The semaphore's test does not
// depend on the pass bound (its waiter holds the gate, so what node 0
// releases is the waiter's): with only the bound off it passes.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <dstd/sync>
#include <dstd/thread>

#include "runtime/sync/home_mutex.hpp"
#include "tests/sync/sync_test_util.hpp"

namespace {

using dstd::test::make_on;
using dstd::test::start_on;

// Give up counting here: the waiter has been starved.
constexpr unsigned starved = 100000;

// Waits until the waiter is queued at the home (the object lives on node 0,
// here).
template <class Queued>
void wait_until_queued(Queued queued) {
  while (!queued()) dstd::this_thread::yield();
}

// The waiter in line for the lock word at `word`.
auto in_line_for(const void* word) {
  return [w = static_cast<const std::uint64_t*>(word)] {
    return dstd::rt::home_mutex::waiters_at_home(w) > 0;
  };
}

// Node 0 holds the object (`give` gives it back, `take` takes it again);
// the waiter has been started and sets `waiter_had_it` once it got in.
// Counts node 0's re-acquisitions until the waiter had it.
template <class Give, class Take>
unsigned passes_before_waiter_gets_in(const dstd::atomic<int>& waiter_had_it, Give give,
                                      Take take) {
  give();
  unsigned passes = 0;
  for (;;) {
    take();
    const bool had_it = waiter_had_it.load() == 1;
    give();
    if (had_it || ++passes > starved) return passes;
  }
}

// A semaphore's waiter has taken its gate (bits/semaphore.hpp: the top two
// bits of its word, its only member), and units are now its own.
auto gate_taken(const void* semaphore) {
  return [w = static_cast<const dstd::atomic<std::uint64_t>*>(semaphore)] {
    return (w->load() >> 62) != 0;
  };
}

// The whole test for an object homed on node 0: node 0 takes it; a waiter
// on node 1 waits to get in (`wait_in`, then `leave`); once `queued()`,
// node 0 gives and re-takes it in a loop. Returns the passes.
template <class Take, class Give, class WaitIn, class Leave, class Queued>
unsigned passes_over_a_waiter(const char* what, Take take, Give give, WaitIn wait_in, Leave leave,
                              Queued queued) {
  if (dstd::node_count() < 2) return 0;
  dstd::atomic<int> waiter_had_it{0};
  take();
  dstd::thread waiter = start_on(1, [&] {
    wait_in();
    waiter_had_it.store(1);
    leave();
  });
  wait_until_queued(queued);
  const unsigned passes = passes_before_waiter_gets_in(waiter_had_it, give, take);
  waiter.join();
  std::printf("%s passed over %u times\n", what, passes);
  return passes;
}

// A node that re-takes a mutex in a loop must let a waiter on another node
// have it: within max_passes of its own acquisitions (home_mutex.hpp). A
// futex lock (unlock frees the word, then wakes the waiter, who races for
// it) lost that race every time to the compare-and-swap of the node that
// had just unlocked: thousands of acquisitions per hand-over.
TEST(Handover, MutexWaiterOnAnotherNodeIsPassedOverABoundedNumberOfTimes) {
  auto m = make_on<dstd::mutex>(0);  // homed here, on node 0
  const auto lock = [&] { m->lock(); };
  const auto unlock = [&] { m->unlock(); };
  // The mutex's word is its first member.
  EXPECT_LE(passes_over_a_waiter("mutex waiter", lock, unlock, lock, unlock, in_line_for(m.get())),
            dstd::rt::home_mutex::max_passes);
}

TEST(Handover, SharedMutexWriterIsNotStarvedByALoopingWriter) {
  auto m = make_on<dstd::shared_mutex>(0);
  const auto lock = [&] { m->lock(); };
  const auto unlock = [&] { m->unlock(); };
  EXPECT_LE(passes_over_a_waiter("shared_mutex writer", lock, unlock, lock, unlock,
                                 in_line_for(m.get())),
            dstd::rt::home_mutex::max_passes);
}

TEST(Handover, SharedMutexReaderIsNotStarvedByALoopingWriter) {
  auto m = make_on<dstd::shared_mutex>(0);
  EXPECT_LE(passes_over_a_waiter(
                "shared_mutex reader", [&] { m->lock(); }, [&] { m->unlock(); },
                [&] { m->lock_shared(); }, [&] { m->unlock_shared(); }, in_line_for(m.get())),
            dstd::rt::home_mutex::max_passes);
}

TEST(Handover, SemaphoreAcquirerIsNotStarvedByALoopingNode) {
  auto s = make_on<dstd::binary_semaphore>(0, 1);
  const auto acquire = [&] { s->acquire(); };
  const auto release = [&] { s->release(); };
  EXPECT_LE(passes_over_a_waiter("semaphore acquirer", acquire, release, acquire, release,
                                 gate_taken(s.get())),
            dstd::rt::home_mutex::max_passes);
}

// A timed waiter that gives up leaves the gate as it found it: out of the
// line, or the gate given back (bits/shared_mutex.hpp, bits/semaphore.hpp),
// so the next taker gets in with its one compare-and-swap.
TEST(Handover, TimedWaitersThatGiveUpLeaveNothingBehind) {
  using namespace std::chrono_literals;
  auto m = make_on<dstd::shared_timed_mutex>(0);
  auto s = make_on<dstd::binary_semaphore>(0, 0);
  m->lock_shared();  // a timed writer takes the gate, then waits for this reader
  start_on(1, [&] { EXPECT_FALSE(m->try_lock_for(20ms)); }).join();
  EXPECT_TRUE(m->try_lock_shared());
  m->unlock_shared();
  m->unlock_shared();
  m->lock();  // a timed writer and a timed reader wait in the gate's line
  start_on(1, [&] {
    EXPECT_FALSE(m->try_lock_for(20ms));
    EXPECT_FALSE(m->try_lock_shared_for(20ms));
  }).join();
  m->unlock();
  EXPECT_TRUE(m->try_lock());  // the word is 0 again
  m->unlock();
  // A timed acquirer takes the semaphore's gate, then waits for a release.
  start_on(1, [&] { EXPECT_FALSE(s->try_acquire_for(20ms)); }).join();
  EXPECT_FALSE(gate_taken(s.get())());
  s->release();
  EXPECT_TRUE(s->try_acquire());
}

// A notified waiter wakes first (the variable's wake is oldest first, at
// its home) and then relocks through the mutex's line: node 0, notifying
// and re-taking the mutex in a loop, passes it over a bounded number of
// times.
TEST(Handover, NotifiedWaiterIsNotStarvedByALoopingNotifier) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs a waiter on another node";
  struct guarded {
    dstd::mutex m;
    dstd::condition_variable cv;
    int waiting = 0;
    bool ready = false;
  };
  auto g = make_on<guarded>(0);
  dstd::atomic<int> waiter_had_it{0};
  dstd::thread waiter = start_on(1, [&] {
    std::unique_lock<dstd::mutex> lock(g->m);
    g->waiting = 1;
    g->cv.wait(lock, [&] { return g->ready; });
    waiter_had_it.store(1);
  });
  for (;;) {
    std::lock_guard<dstd::mutex> lock(g->m);
    if (g->waiting == 1) break;
  }
  // The waiter is waiting (it reads the variable before it unlocks): wake
  // it while holding the mutex, so that it queues for the mutex.
  g->m.lock();
  g->ready = true;
  g->cv.notify_one();
  wait_until_queued(in_line_for(&g->m));
  const unsigned passes = passes_before_waiter_gets_in(
      waiter_had_it, [&] { g->m.unlock(); }, [&] { g->m.lock(); });
  waiter.join();
  std::printf("notified waiter passed over %u times\n", passes);
  EXPECT_LE(passes, dstd::rt::home_mutex::max_passes);
}

// Every thread of this process (this node) on one CPU, until destroyed.
class process_on_cpu {
 public:
  explicit process_on_cpu(int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_getaffinity(0, sizeof all_, &all_);
    for_each_thread([&](pid_t tid) {
      cpu_set_t was;
      if (sched_getaffinity(tid, sizeof was, &was) != 0) return;
      if (sched_setaffinity(tid, sizeof one, &one) == 0) saved_.push_back({tid, was});
    });
  }
  // Each thread back on its CPUs; one started meanwhile (it inherited the
  // one CPU) on those of the thread that pinned.
  ~process_on_cpu() {
    for_each_thread([&](pid_t tid) {
      const cpu_set_t* was = &all_;
      for (const auto& [t, mask] : saved_) {
        if (t == tid) was = &mask;
      }
      sched_setaffinity(tid, sizeof *was, was);
    });
  }
  process_on_cpu(const process_on_cpu&) = delete;
  process_on_cpu& operator=(const process_on_cpu&) = delete;

 private:
  template <class F>
  static void for_each_thread(F f) {
    DIR* d = opendir("/proc/self/task");
    if (d == nullptr) return;
    while (dirent* e = readdir(d)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      if (tid > 0) f(tid);
    }
    closedir(d);
  }

  cpu_set_t all_{};
  std::vector<std::pair<pid_t, cpu_set_t>> saved_;
};

// One contest of the test below: passes over node 1's waiter, counted
// from when its request was sent.
unsigned passes_over_a_request(dstd::mutex& m) {
  dstd::atomic<int> pinned{0}, go{0}, asked{0}, waiter_had_it{0};
  m.lock();
  // Node 1's waiter asks once node 0 loops; a watcher says when the
  // waiter's request has been sent (node 1's messages sent went up), and
  // passes are counted from then, so that a waiter slow to ask (its CPU
  // taken by some other program) does not count against the home.
  dstd::thread waiter = start_on(1, [&] {
    const process_on_cpu there(1);
    pinned.store(1);
    while (go.load() == 0) {
    }
    m.lock();
    waiter_had_it.store(1);
    m.unlock();
  });
  while (pinned.load() != 1) dstd::this_thread::yield();
  dstd::thread watcher = start_on(1, [&] {
    const std::uint64_t before = dstd::stats().messages_sent;
    pinned.store(2);
    while (go.load() == 0) {
    }
    while (dstd::stats().messages_sent == before) {
    }
    asked.store(1);
  });
  while (pinned.load() != 2) dstd::this_thread::yield();
  m.unlock();
  unsigned passes = 0;
  const auto warm = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  for (;;) {
    m.lock();
    if (go.load() == 0 && std::chrono::steady_clock::now() >= warm) go.store(1);
    const bool had_it = waiter_had_it.load() == 1;
    const bool counting = asked.load() == 1;
    m.unlock();
    if (had_it || (counting && ++passes > starved)) break;
  }
  watcher.join();
  waiter.join();
  return passes;
}

// Before a waiter is in line, its request is a message that the home's
// service thread must take. Here that thread shares its CPU with node 0's
// thread, which re-takes the mutex in a loop (node 1 has the other CPU, as
// an idle machine gives it): a thread in a loop keeps its CPU until its
// time slice ends, so the request used to wait for node 0's loop to end or
// to be preempted. A 2-node counter then had node 0 make all its 20,000
// increments in about half the runs (docs/BENCHMARKS.md, "The service
// thread behind a busy worker"). Node 0's synchronization now gives the
// CPU up when its node's messages have waited (shm_transport.cpp).
TEST(Handover, ARequestIsTakenWhileTheHomeLoopsOnTheSameCpu) {
  if (dstd::node_count() < 2) GTEST_SKIP() << "needs a waiter on another node";
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || !CPU_ISSET(0, &cpus) || !CPU_ISSET(1, &cpus)) {
    GTEST_SKIP() << "needs CPUs 0 and 1";
  }
  auto m = make_on<dstd::mutex>(0);
  const process_on_cpu here(0);
  unsigned most = 0;
  for (int contest = 0; contest < 20; ++contest) {
    // Time apart, so that each contest finds the service thread asleep
    // (one that has just been kept waiting is let in at once next time).
    dstd::this_thread::sleep_for(std::chrono::milliseconds(50));
    most = std::max(most, passes_over_a_request(*m));
  }
  std::printf("a waiter whose request waited for the home's service thread: passed over at most %u times\n",
              most);
  // Node 0's messages are let through after 20 µs (a few hundred passes
  // of its loop), then the line's bound holds. Measured: at most 17-164
  // per run, at 2 and 4 nodes, and beside two CPU-bound programs. Before,
  // in each of eight runs some contests passed the waiter over 42,743-
  // 51,959 times (others let it in at once: a woken thread sometimes does
  // get the CPU, hence 20 contests).
  EXPECT_LE(most, 5000u);
}

}  // namespace
