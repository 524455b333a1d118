// A thread that blocks in the kernel or spins does not stall its node
// (issue 13 item 5): pipe readers blocked in read() on every worker and a
// writer started after them; threads sleeping with ::sleep, usleep,
// nanosleep, clock_nanosleep and std::this_thread::sleep_for while another
// thread of their worker goes on; spin-waits on every worker for a flag
// that a thread not yet started sets, and the extra worker that needs going
// away again. Each runs on node 0 and on the last node, at 1, 2 and 4 nodes
// and with DSTD_WORKERS=1 (tests/CMakeLists.txt). Before extra workers and
// the sleep shim, these hung (the watchdog below ends them) or the sleeping
// threads stalled the others.
#include <gtest/gtest.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/thread>
#include <mutex>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "runtime/sched/extra_workers.hpp"
#include "runtime/sched/scheduler.hpp"
#include "tests/support/run_on.hpp"

namespace {

namespace sched = dstd::rt::sched;
using dstd::test::bytes_of;
using dstd::test::run_on;
using dstd::test::value_of;
using namespace std::chrono_literals;

// Node 0 (main's) and the last node.
std::vector<dstd::node_id> nodes_under_test() {
  if (dstd::node_count() == 1) return {0};
  return {0, static_cast<dstd::node_id>(dstd::node_count() - 1)};
}

// Main (an OS thread, never a worker) waits until ready() holds. A stalled
// node never gets there: after 60 s the program ends with `what` (its
// threads still use the test's objects, so the test cannot just fail).
template <class Ready>
void await(const char* what, Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "blocking_test: not within 60 s: %s\n", what);
      std::abort();
    }
    std::this_thread::sleep_for(1ms);
  }
}

// Node n's scheduler counts (runtime/sched/extra_workers.hpp).
std::string worker_counts_here(const std::string&) {
  return bytes_of(sched::current_worker_counts());
}

sched::worker_counts counts_on(dstd::node_id n) {
  return value_of<sched::worker_counts>(run_on(n, worker_counts_here));
}

// ---- pipes ----

using pipe_fds = std::array<int, 2>;

std::string open_pipe(const std::string&) {
  pipe_fds p{-1, -1};
  if (pipe(p.data()) != 0) return {};
  return bytes_of(p);
}

std::string close_pipe(const std::string& arg) {
  const auto p = value_of<pipe_fds>(arg);
  close(p[0]);
  close(p[1]);
  return {};
}

// A pipe per worker of node n (file descriptors are per node: opened on
// n), a reader thread per pipe on n, and what was read and written.
struct pipe_readers {
  dstd::node_id n;
  unsigned k = sched::configured_workers();
  std::vector<pipe_fds> pipes;
  std::vector<int> got = std::vector<int>(k, -1);
  std::vector<long> wrote = std::vector<long>(k, -1);  // (checked by main: a failure on another node is lost)
  dstd::atomic<unsigned> reading{0}, finished{0};
  std::vector<dstd::thread> readers;

  explicit pipe_readers(dstd::node_id node) : n(node) {
    for (unsigned i = 0; i < k; ++i) {
      const std::string fds = run_on(n, open_pipe);
      if (fds.size() != sizeof(pipe_fds)) {
        std::fprintf(stderr, "blocking_test: no pipe on node %u\n", n);
        std::abort();
      }
      pipes.push_back(value_of<pipe_fds>(fds));
    }
  }
  void start_readers() {
    for (unsigned i = 0; i < k; ++i) {
      readers.push_back(dstd::spawn_on(n, [this, i] {
        reading.fetch_add(1);
        char c = 0;
        got[i] = read(pipes[i][0], &c, 1) == 1 ? c : -2;
        finished.fetch_add(1);
      }));
    }
  }
  // On the writer thread: a byte to each pipe, `first` and on.
  void write_all(char first) {
    for (unsigned i = 0; i < k; ++i) {
      const char c = static_cast<char>(first + i % 26);
      wrote[i] = write(pipes[i][1], &c, 1);
    }
  }
  // Waits for the readers (`what` names the stall), joins everything, checks.
  void finish(const char* what, dstd::thread& writer, char first) {
    await(what, [&] { return finished.load() == k; });
    writer.join();
    for (auto& r : readers) r.join();
    for (unsigned i = 0; i < k; ++i) {
      EXPECT_EQ(wrote[i], 1) << "pipe " << i << " on node " << n;
      EXPECT_EQ(got[i], first + static_cast<int>(i % 26)) << "reader " << i << " on node " << n;
      run_on(n, close_pipe, bytes_of(pipes[i]));
    }
  }
};

TEST(BlockedWorkers, PipeReadersOnEveryWorkerGetWhatAWriterStartedLaterWrites) {
  for (dstd::node_id n : nodes_under_test()) {
    pipe_readers p(n);
    p.start_readers();
    await("every reader started", [&] { return p.reading.load() == p.k; });
    dstd::thread writer = dstd::spawn_on(n, [&] { p.write_all('a'); });
    p.finish("the readers got the writer's bytes (a reader blocked in read() stalls its node)",
             writer, 'a');
  }
}

// A writer that has already run, so that it is bound to a worker, waits
// (yielding, or sleeping with a timer) until a reader blocks in read() on
// every worker of its node, then writes. Every worker is then held by a
// reader and the writer waits in a held worker's queue (or on a timer no
// worker is free to fire): only handing it to another worker lets it run.
void readers_block_every_worker_then_a_bound_writer_writes(dstd::node_id n, bool sleep_first) {
  pipe_readers p(n);
  dstd::atomic<bool> writer_ran{false};
  dstd::thread writer = dstd::spawn_on(n, [&] {
    writer_ran.store(true);
    while (p.reading.load() < p.k) dstd::this_thread::yield();
    if (sleep_first) dstd::this_thread::sleep_for(20ms);
    p.write_all('A');
  });
  await("the writer ran", [&] { return writer_ran.load(); });
  p.start_readers();
  p.finish("the readers got the bytes of a writer bound to a worker a reader holds", writer, 'A');
}

TEST(BlockedWorkers, AYieldingThreadBoundToAWorkerAReaderHoldsStillRuns) {
  for (dstd::node_id n : nodes_under_test()) {
    readers_block_every_worker_then_a_bound_writer_writes(n, false);
  }
}

TEST(BlockedWorkers, ASleepOfAThreadBoundToAWorkerAReaderHoldsEnds) {
  for (dstd::node_id n : nodes_under_test()) {
    readers_block_every_worker_then_a_bound_writer_writes(n, true);
  }
}

// ---- waits that glibc serves ----

// A std::condition_variable and std::mutex outside the global heap (mmap'ed
// on the node: node-private, so glibc serves them at every node count, as
// it serves every one of a one-node run). Waiters block their workers in
// the kernel; the notifier has already run, bound to one of those workers.
struct private_wait {
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  unsigned waiting = 0, woke = 0;
};

// run_on functions: a T made in node-private memory on the node that runs
// them (its address, as bytes), and T's destruction there.
template <class T>
std::string new_private(const std::string&) {
  void* p = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return {};
  return bytes_of(new (p) T);
}

template <class T>
std::string delete_private(const std::string& arg) {
  auto* t = value_of<T*>(arg);
  t->~T();
  munmap(t, sizeof(T));
  return {};
}

TEST(BlockedWorkers, GlibcConditionVariableWaitersDoNotStallTheirNotifier) {
  for (dstd::node_id n : nodes_under_test()) {
    const unsigned k = sched::configured_workers();
    const std::string made = run_on(n, new_private<private_wait>);
    ASSERT_EQ(made.size(), sizeof(private_wait*));
    auto* w = value_of<private_wait*>(made);
    dstd::atomic<bool> notifier_ran{false};
    dstd::atomic<unsigned> woke{0};
    dstd::thread notifier = dstd::spawn_on(n, [&] {
      notifier_ran.store(true);
      for (;;) {
        {
          std::lock_guard<std::mutex> lk(w->m);
          if (w->waiting == k) {
            w->go = true;
            break;
          }
        }
        dstd::this_thread::yield();
      }
      w->cv.notify_all();
    });
    await("the notifier ran", [&] { return notifier_ran.load(); });
    std::vector<dstd::thread> waiters;
    for (unsigned i = 0; i < k; ++i) {
      waiters.push_back(dstd::spawn_on(n, [&] {
        std::unique_lock<std::mutex> lk(w->m);
        ++w->waiting;
        w->cv.wait(lk, [&] { return w->go; });
        ++w->woke;
        woke.fetch_add(1);
      }));
    }
    await("condition-variable waiters woken by a notifier bound to a worker they hold",
          [&] { return woke.load() == k; });
    notifier.join();
    for (auto& t : waiters) t.join();
    run_on(n, delete_private<private_wait>, made);
  }
}

// Many threads of one node contend for a std::mutex in node-private memory
// (glibc's: a waiter blocks its worker in the kernel), allocate and free
// while holding it (now and then yielding there too), and yield or sleep
// in between: workers are held again
// and again, and their queued threads are handed to other workers (each
// move switches a thread's allocator cache and descriptor). The count must
// be exact and the allocator sound.
struct private_counter {
  std::mutex m;
  unsigned long count = 0;
  unsigned long bytes = 0;
};

std::string totals_of(const std::string& arg) {
  const auto* c = value_of<private_counter*>(arg);
  return bytes_of(std::array<unsigned long, 2>{c->count, c->bytes});
}

TEST(BlockedWorkers, ThreadsHandedFromWorkerToWorkerCountExactly) {
  constexpr unsigned threads = 12, rounds = 300;
  for (dstd::node_id n : nodes_under_test()) {
    const std::string made = run_on(n, new_private<private_counter>);
    ASSERT_EQ(made.size(), sizeof(private_counter*));
    auto* c = value_of<private_counter*>(made);
    const sched::worker_counts before = counts_on(n);
    std::vector<dstd::thread> all;
    for (unsigned t = 0; t < threads; ++t) {
      all.push_back(dstd::spawn_on(n, [c, t] {
        for (unsigned i = 0; i < rounds; ++i) {
          {
            std::lock_guard<std::mutex> lk(c->m);
            std::vector<unsigned> v(1 + (i * 7 + t) % 300, t);  // allocated and freed under the lock
            ++c->count;
            c->bytes += v.size();
            // Another thread of this worker then blocks on the lock, and
            // this one waits in a held worker's queue until handed off.
            if (i % 10 == 0) dstd::this_thread::yield();
          }
          std::unique_ptr<char[]> between(new char[64 + i % 512]);  // and between
          between[0] = static_cast<char>(i);
          if (i % 50 == 0) {
            dstd::this_thread::sleep_for(100us);
          } else {
            dstd::this_thread::yield();
          }
        }
      }));
    }
    for (auto& th : all) th.join();
    const auto totals = value_of<std::array<unsigned long, 2>>(run_on(n, totals_of, made));
    run_on(n, delete_private<private_counter>, made);
    unsigned long want_bytes = 0;
    for (unsigned t = 0; t < threads; ++t) {
      for (unsigned i = 0; i < rounds; ++i) want_bytes += 1 + (i * 7 + t) % 300;
    }
    EXPECT_EQ(totals[0], static_cast<unsigned long>(threads) * rounds) << "node " << n;
    EXPECT_EQ(totals[1], want_bytes) << "node " << n;
    EXPECT_GT(counts_on(n).handed_off, before.handed_off) << "node " << n << ": no thread changed workers";
  }
}

// ---- sleeping ----

enum class sleep_call { sleep, usleep, nanosleep, clock_nanosleep, sleep_for, kinds };

void sleep_two_seconds(sleep_call how) {
  switch (how) {
    case sleep_call::sleep:
      ::sleep(2);
      break;
    case sleep_call::usleep:
      ::usleep(2'000'000);
      break;
    case sleep_call::nanosleep: {
      const timespec t{2, 0};
      ::nanosleep(&t, nullptr);
      break;
    }
    case sleep_call::clock_nanosleep: {
      const timespec t{2, 0};
      ::clock_nanosleep(CLOCK_MONOTONIC, 0, &t, nullptr);
      break;
    }
    default:
      std::this_thread::sleep_for(2s);
  }
}

// A thread that has run (so it is bound to its worker) keeps counting while
// more sleepers than workers sleep on its node: main sees every sleeper
// asleep, then the count move, before any sleeper wakes.
TEST(BlockedWorkers, SleepingThreadsDoNotStallTheOthersOfTheirWorker) {
  for (dstd::node_id n : nodes_under_test()) {
    const unsigned k = sched::configured_workers();
    const unsigned sleepers = std::max(2 * k, static_cast<unsigned>(sleep_call::kinds));
    dstd::atomic<unsigned long> progress{0};
    dstd::atomic<bool> stop{false};
    dstd::atomic<unsigned> asleep{0}, woke{0};
    dstd::thread counter = dstd::spawn_on(n, [&] {
      while (!stop.load()) {
        progress.fetch_add(1);
        dstd::this_thread::yield();
      }
    });
    await("the counting thread started", [&] { return progress.load() > 0; });
    std::vector<dstd::thread> sleeping;
    for (unsigned i = 0; i < sleepers; ++i) {
      sleeping.push_back(dstd::spawn_on(n, [&, i] {
        asleep.fetch_add(1);
        sleep_two_seconds(static_cast<sleep_call>(i % static_cast<unsigned>(sleep_call::kinds)));
        woke.fetch_add(1);
      }));
    }
    await("every sleeper asleep, or one awake", [&] { return asleep.load() == sleepers || woke.load() > 0; });
    EXPECT_EQ(woke.load(), 0u) << "node " << n
                               << ": a sleeper woke before all were asleep (sleeping holds a worker)";
    const unsigned long before = progress.load();
    unsigned long now = 0;
    unsigned awake = 0;
    await("the count moved, or a sleeper woke", [&] {
      now = progress.load();
      awake = woke.load();  // read after the count: the count moved before this
      return now >= before + 10 || awake > 0;
    });
    EXPECT_EQ(awake, 0u) << "node " << n << ": the counting thread stalled while others slept ("
                         << now - before << " counts)";
    stop.store(true);
    counter.join();
    for (auto& t : sleeping) t.join();
  }
}

// The sleep family on a dstd thread keeps its contract: return values,
// EINVAL, and never less than the time asked for (a lower bound only). On
// main's node, where the thread's failures are reported.
TEST(BlockedWorkers, TheSleepFamilyOnADstdThreadKeepsItsContract) {
  dstd::spawn_on(0, [] {
    ASSERT_NE(sched::current(), nullptr);  // on a fiber: the shim's own path
    EXPECT_EQ(::sleep(0), 0u);
    EXPECT_EQ(::usleep(0), 0);
    const timespec bad{0, 1'000'000'000};
    errno = 0;
    EXPECT_EQ(::nanosleep(&bad, nullptr), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(::clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, nullptr), EINVAL);
    const timespec negative{-1, 0};
    EXPECT_EQ(::clock_nanosleep(CLOCK_MONOTONIC, 0, &negative, nullptr), EINVAL);

    const auto start = std::chrono::steady_clock::now();
    const timespec twenty_ms{0, 20'000'000};
    EXPECT_EQ(::nanosleep(&twenty_ms, nullptr), 0);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);

    timespec until{};  // an absolute realtime deadline is reached
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 30'000'000;
    if (until.tv_nsec >= 1'000'000'000) {
      until.tv_nsec -= 1'000'000'000;
      ++until.tv_sec;
    }
    EXPECT_EQ(::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, nullptr), 0);
    timespec after{};
    clock_gettime(CLOCK_REALTIME, &after);
    EXPECT_TRUE(after.tv_sec > until.tv_sec ||
                (after.tv_sec == until.tv_sec && after.tv_nsec >= until.tv_nsec));
    EXPECT_EQ(::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, nullptr), 0);  // past

    const auto mark = std::chrono::steady_clock::now();
    EXPECT_EQ(::usleep(15'000), 0);
    EXPECT_GE(std::chrono::steady_clock::now() - mark, 15ms);
  }).join();
}

// ---- spinning ----

// Lives on the spinners' node (allocated there): they and the setter touch
// nothing else, so they never park and each holds its worker.
struct spin_state {
  std::atomic<unsigned> entered{0}, left{0};
  std::atomic<bool> go{false};
};

std::string new_spin_state(const std::string&) { return bytes_of(new spin_state); }
std::string entered_of(const std::string& arg) {
  return bytes_of(value_of<spin_state*>(arg)->entered.load());
}
std::string left_of(const std::string& arg) {
  return bytes_of(value_of<spin_state*>(arg)->left.load());
}
std::string delete_spin_state(const std::string& arg) {
  delete value_of<spin_state*>(arg);
  return {};
}

TEST(BlockedWorkers, SpinnersOnEveryWorkerSeeAFlagSetByAThreadStartedAfterThem) {
  for (dstd::node_id n : nodes_under_test()) {
    const unsigned k = sched::configured_workers();
    dstd::spawn_on(n, [] {}).join();  // n's workers have started
    // Extra workers from the tests before have gone (retired when idle).
    await("the extra workers of earlier tests retired",
          [&] { return counts_on(n).running == k; });
    // And the monitor sleeps: the spinners' stall must wake it.
    await("the monitor asleep", [&] { return counts_on(n).monitor_asleep; });
    const sched::worker_counts before = counts_on(n);
    auto* st = value_of<spin_state*>(run_on(n, new_spin_state));
    std::vector<dstd::thread> spinners;
    for (unsigned i = 0; i < k; ++i) {
      spinners.push_back(dstd::spawn_on(n, [st] {
        st->entered.fetch_add(1);
        while (!st->go.load(std::memory_order_acquire)) {
        }
        st->left.fetch_add(1);
      }));
    }
    await("every spinner spinning",
          [&] { return value_of<unsigned>(run_on(n, entered_of, bytes_of(st))) == k; });
    dstd::thread setter = dstd::spawn_on(n, [st] { st->go.store(true, std::memory_order_release); });
    await("the spinners saw the flag (a spinning thread stalls its node)",
          [&] { return value_of<unsigned>(run_on(n, left_of, bytes_of(st))) == k; });
    setter.join();
    for (auto& t : spinners) t.join();
    run_on(n, delete_spin_state, bytes_of(st));

    // The setter could only run on a worker added for it, which retires
    // once idle; the workers DSTD_WORKERS asked for stay.
    EXPECT_GT(counts_on(n).added, before.added) << "node " << n;
    await("the extra worker retired", [&] { return counts_on(n).running == k; });
    const sched::worker_counts after = counts_on(n);
    EXPECT_GT(after.retired, before.retired) << "node " << n;
    EXPECT_EQ(after.running, k) << "node " << n;
  }
}

}  // namespace
