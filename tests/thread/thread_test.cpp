// dstd::thread, jthread, this_thread and stop tokens, at 1, 2 and 4 nodes:
// what a program written against std::thread relies on, plus placement.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <dstd/dstd.hpp>
#include <dstd/atomic>
#include <dstd/stop_token>
#include <dstd/thread>
#include <functional>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <vector>

#include "runtime/sched/scheduler.hpp"

namespace {

using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

dstd::node_id last_node() { return dstd::node_count() - 1; }

TEST(Thread, ThousandThreadsWriteSlotsOfMainsVector) {
  constexpr int threads = 1000;
  std::vector<std::uint64_t> slot(threads, 0);
  std::vector<dstd::node_id> ran_on(threads, 0);
  std::vector<dstd::thread> all;
  all.reserve(threads);
  for (int i = 0; i < threads; ++i) {
    all.emplace_back([&slot, &ran_on, i] {
      slot[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i) * i + 1;
      ran_on[static_cast<std::size_t>(i)] = dstd::this_node();
    });
  }
  for (auto& t : all) t.join();
  std::uint64_t sum = std::accumulate(slot.begin(), slot.end(), std::uint64_t{0});
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < threads; ++i) expected += i * i + 1;
  EXPECT_EQ(sum, expected);
  // Spread placement: every node ran some of them. (How many depends on
  // how fast each node finishes its share, which is the point of placing
  // by load; equal loads go round the nodes, so each gets at least one.)
  const std::set<dstd::node_id> nodes(ran_on.begin(), ran_on.end());
  EXPECT_EQ(nodes.size(), dstd::node_count());
}

TEST(Thread, SpawnOnAndSpawnToLandOnTheRequestedNode) {
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    std::unique_ptr<int> on_n;
    dstd::node_id ran = 99;
    dstd::spawn_on(n, [&] {
      ran = dstd::this_node();
      on_n = std::make_unique<int>(static_cast<int>(n));
    }).join();
    EXPECT_EQ(ran, n);
    ASSERT_EQ(dstd::home_of(on_n.get()), n);
    dstd::node_id to = 99;
    int seen = -1;
    dstd::spawn_to(on_n.get(), [&to, &seen](const int* p) {
      to = dstd::this_node();
      seen = *p;
    }, on_n.get()).join();
    EXPECT_EQ(to, n);
    EXPECT_EQ(seen, static_cast<int>(n));
  }
}

// spawn_on a node that does not exist throws std::system_error, and the
// callable and arguments it had copied are destroyed, not leaked or run.
TEST(Thread, SpawnOnAMissingNodeThrowsAndDestroysTheCopies) {
  auto alive = std::make_shared<int>(0);
  bool ran = false;
  EXPECT_THROW(dstd::spawn_on(dstd::node_count(), [&ran, alive] { ran = true; }),
               std::system_error);
  EXPECT_FALSE(ran);
  EXPECT_EQ(alive.use_count(), 1) << "the thread's copy of the callable was not destroyed";
}

// A thread on the last node spawns threads (placed anywhere) that each
// spawn one more on node 0; everything comes back to main.
TEST(Thread, NestedSpawningFromARemoteThread) {
  constexpr int fan_out = 8;
  std::vector<std::uint64_t> got(fan_out, 0);
  std::vector<dstd::node_id> middle(fan_out, 99), leaf(fan_out, 99);
  dstd::spawn_on(last_node(), [&] {
    std::vector<dstd::thread> mids;
    for (int i = 0; i < fan_out; ++i) {
      mids.emplace_back([&, i] {
        middle[static_cast<std::size_t>(i)] = dstd::this_node();
        std::uint64_t value = 0;
        dstd::spawn_on(0, [&value, &leaf, i] {
          leaf[static_cast<std::size_t>(i)] = dstd::this_node();
          value = 100u + static_cast<std::uint64_t>(i);
        }).join();
        got[static_cast<std::size_t>(i)] = value * 2;
      });
    }
    for (auto& t : mids) t.join();
  }).join();
  for (int i = 0; i < fan_out; ++i) {
    EXPECT_EQ(got[static_cast<std::size_t>(i)], 2 * (100u + static_cast<std::uint64_t>(i)));
    EXPECT_EQ(leaf[static_cast<std::size_t>(i)], 0u);
    EXPECT_LT(middle[static_cast<std::size_t>(i)], dstd::node_count());
  }
  if (dstd::node_count() > 1) {
    const std::set<dstd::node_id> mids(middle.begin(), middle.end());
    EXPECT_GT(mids.size(), 1u) << "the middle threads were not spread";
  }
}

// sleep_for never returns early and is not late by more than a generous
// bound (CI machines are busy): in a dstd thread on every node, and in main.
// A sleep lasts at least as long as asked (std's promise) and ends soon
// after: the upper bound catches a sleeper that is not woken by its timer
// (it would wait for an unrelated event), yet leaves room for a loaded
// 2-core CI machine running other tests beside this one.
TEST(Thread, SleepForIsAccurate) {
  auto measure = [] {
    const auto t0 = clk::now();
    dstd::this_thread::sleep_for(20ms);
    return clk::now() - t0;
  };
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    clk::duration slept{};
    dstd::spawn_on(n, [&] { slept = measure(); }).join();
    EXPECT_GE(slept, 20ms) << "node " << n;
    EXPECT_LT(slept, 2s) << "node " << n;
  }
  const auto in_main = measure();
  EXPECT_GE(in_main, 20ms);
  EXPECT_LT(in_main, 2s);
  const auto t0 = std::chrono::system_clock::now();
  dstd::this_thread::sleep_until(t0 + 15ms);
  EXPECT_GE(std::chrono::system_clock::now() - t0, 15ms);
  dstd::this_thread::sleep_for(-5ms);  // returns at once
}

// 200 threads sleeping at once do not hold the workers: they take about
// one sleep, not 200.
TEST(Thread, SleepingThreadsDoNotHoldWorkers) {
  const auto t0 = clk::now();
  std::vector<dstd::thread> sleepers;
  for (int i = 0; i < 200; ++i) sleepers.emplace_back([] { dstd::this_thread::sleep_for(50ms); });
  for (auto& t : sleepers) t.join();
  EXPECT_LT(clk::now() - t0, 2s);
}

TEST(Thread, JthreadRequestsStopAndJoinsOnDestruction) {
  std::uint64_t rounds = 0;
  bool saw_stop = false;
  {
    dstd::jthread worker([&](dstd::stop_token st) {
      while (!st.stop_requested()) {
        ++rounds;
        dstd::this_thread::sleep_for(1ms);
      }
      saw_stop = true;
    });
    EXPECT_TRUE(worker.joinable());
    EXPECT_TRUE(worker.get_stop_token().stop_possible());
    dstd::this_thread::sleep_for(20ms);
  }  // ~jthread: request_stop, then join
  EXPECT_TRUE(saw_stop);
  EXPECT_GT(rounds, 0u);
  // A callable without a stop_token parameter gets only its arguments.
  int value = 0;
  dstd::jthread([](int& v, int x) { v = x; }, std::ref(value), 7).join();
  EXPECT_EQ(value, 7);
}

// A stop request on node 0 reaches a thread polling on the last node, with
// what main wrote before it, and runs the callback that thread registered.
TEST(Thread, StopRequestCrossesNodesWithCallbacks) {
  dstd::stop_source source;
  std::string message;
  bool callback_ran = false, saw_message = false;
  dstd::node_id callback_node = 99;
  std::uint64_t registered = 0;
  dstd::stop_source ready;
  dstd::thread poller = dstd::spawn_on(last_node(), [&](dstd::stop_token st) {
    dstd::stop_callback cb(st, [&] {
      callback_ran = true;
      callback_node = dstd::this_node();
    });
    registered = 1;
    ready.request_stop();
    while (!st.stop_requested()) dstd::this_thread::yield();
    saw_message = message == "stop now";
  }, source.get_token());
  while (!ready.stop_requested()) dstd::this_thread::yield();
  EXPECT_EQ(registered, 1u);
  message = "stop now";
  EXPECT_TRUE(source.request_stop());
  EXPECT_FALSE(source.request_stop());
  poller.join();
  EXPECT_TRUE(saw_message);
  EXPECT_TRUE(callback_ran);
  EXPECT_EQ(callback_node, 0u);  // callbacks run on the requesting thread
  // Registered after the request: runs at once, on the registering thread.
  bool late = false;
  dstd::stop_callback late_cb(source.get_token(), [&] { late = true; });
  EXPECT_TRUE(late);
  EXPECT_FALSE(dstd::stop_source(dstd::nostopstate).stop_possible());
  EXPECT_FALSE(dstd::stop_token().stop_possible());
}

// request_stop synchronizes with stop_requested() returning true: a thread
// that sees the request sees what the requester wrote before it. The value
// lives at the poller's node, so the poller reads it at its home, where the
// requester's write lands only when the requester releases.
TEST(Thread, StopRequestPublishesEarlierWrites) {
  std::unique_ptr<std::uint64_t> value;
  dstd::spawn_on(last_node(), [&] { value = std::make_unique<std::uint64_t>(0); }).join();
  for (std::uint64_t round = 1; round <= 30; ++round) {
    dstd::stop_source source;
    dstd::stop_source ready;
    std::uint64_t seen = 0;
    dstd::thread poller = dstd::spawn_on(last_node(), [&](dstd::stop_token st) {
      ready.request_stop();
      while (!st.stop_requested()) {
      }
      seen = *value;
    }, source.get_token());
    while (!ready.stop_requested()) dstd::this_thread::yield();
    *value = round;
    source.request_stop();
    poller.join();
    ASSERT_EQ(seen, round);
  }
}

// stop_callbacks registered and destroyed on every node while the last node
// requests stop: none runs twice or after its stop_callback is gone, and one
// still registered when request_stop returns has run exactly once (by the
// requester, or at registration if it came later).
TEST(Thread, StopCallbacksRaceARequestFromAnotherNode) {
  constexpr unsigned per_node = 3;
  constexpr int short_lived = 20;
  for (int round = 0; round < 10; ++round) {
    dstd::stop_source source;
    dstd::atomic<bool> request_returned{false};
    dstd::atomic<int> ran_late{0}, ran_twice{0}, missed{0};
    std::vector<dstd::thread> t;
    for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
      for (unsigned k = 0; k < per_node; ++k) {
        t.push_back(dstd::spawn_on(n, [&, tok = source.get_token()] {
          for (int i = 0; i < short_lived; ++i) {
            dstd::atomic<int> ran{0};
            {
              dstd::stop_callback cb(tok, [&ran] { ran.fetch_add(1); });
              if (i % 2 == 0) dstd::this_thread::yield();
            }
            const int after = ran.load();
            dstd::this_thread::yield();
            if (after > 1) ran_twice.fetch_add(1);
            if (ran.load() != after) ran_late.fetch_add(1);
          }
          dstd::atomic<int> ran{0};
          {
            dstd::stop_callback cb(tok, [&ran] { ran.fetch_add(1); });
            request_returned.wait(false);
          }
          if (ran.load() != 1) missed.fetch_add(1);
        }));
      }
    }
    t.push_back(dstd::spawn_on(last_node(), [&, round] {
      for (int i = 0; i < round * 3; ++i) dstd::this_thread::yield();
      source.request_stop();
      request_returned.store(true);
      request_returned.notify_all();
    }));
    for (auto& th : t) th.join();
    ASSERT_EQ(ran_twice.load(), 0) << "round " << round;
    ASSERT_EQ(ran_late.load(), 0) << "round " << round;
    ASSERT_EQ(missed.load(), 0) << "round " << round;
  }
}

// A thread that runs no fiber (a plain std::thread) can start and join dstd
// threads too: it parks on a futex instead of a fiber switch.
TEST(Thread, PlainOsThreadsStartAndJoinDstdThreads) {
  dstd::node_id ran = 99;
  std::thread os_thread([&ran] {
    dstd::spawn_on(last_node(), [&ran] { ran = dstd::this_node(); }).join();
  });
  os_thread.join();
  EXPECT_EQ(ran, last_node());
}

TEST(Thread, HardwareConcurrencyIsTheWorkersOfEveryNode) {
  unsigned sum = 0;
  for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
    unsigned workers = 0;
    dstd::spawn_on(n, [&] { workers = dstd::rt::sched::configured_workers(); }).join();
    EXPECT_GT(workers, 0u);
    sum += workers;
  }
  EXPECT_EQ(dstd::thread::hardware_concurrency(), sum);
  EXPECT_EQ(dstd::jthread::hardware_concurrency(), sum);
}

TEST(Thread, IdsAreUniqueHashablePrintableAndMatchInside) {
  constexpr int threads = 64;
  std::vector<dstd::thread::id> inside(threads);
  std::vector<dstd::thread> all;
  for (int i = 0; i < threads; ++i) {
    all.emplace_back([&inside, i] { inside[static_cast<std::size_t>(i)] = dstd::this_thread::get_id(); });
  }
  std::vector<dstd::thread::id> outside;
  for (auto& t : all) outside.push_back(t.get_id());
  for (auto& t : all) t.join();
  EXPECT_EQ(inside, outside);
  std::unordered_set<dstd::thread::id> distinct(inside.begin(), inside.end());
  distinct.insert(dstd::this_thread::get_id());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(threads) + 1);
  EXPECT_EQ(dstd::this_thread::get_id(), dstd::this_thread::get_id());
  EXPECT_EQ(all[0].get_id(), dstd::thread::id());  // joined: no thread
  std::ostringstream os;
  os << outside[0];
  EXPECT_EQ(os.str().rfind("0.", 0), 0u) << os.str();  // made on node 0
  // An id made on another node names that node.
  dstd::thread::id remote_made;
  dstd::spawn_on(last_node(), [&] {
    dstd::thread t([] {});
    remote_made = t.get_id();
    t.join();
  }).join();
  std::ostringstream rs;
  rs << remote_made;
  EXPECT_EQ(rs.str().rfind(std::to_string(last_node()) + ".", 0), 0u) << rs.str();
}

TEST(Thread, StdSemanticsOfJoinDetachMoveSwapAndArguments) {
  dstd::thread none;
  EXPECT_FALSE(none.joinable());
  try {
    none.join();
    ADD_FAILURE() << "join of a non-joinable thread did not throw";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
  }
  EXPECT_THROW(none.detach(), std::system_error);

  // Joining itself.
  std::error_code self_join;
  dstd::thread* self = nullptr;
  dstd::stop_source go;
  dstd::thread t([&] {
    while (!go.stop_requested()) dstd::this_thread::yield();
    try {
      self->join();
    } catch (const std::system_error& e) {
      self_join = e.code();
    }
  });
  // Move and swap keep the thread.
  dstd::thread moved = std::move(t);
  EXPECT_FALSE(t.joinable());
  dstd::thread other;
  swap(moved, other);
  EXPECT_FALSE(moved.joinable());
  EXPECT_TRUE(other.joinable());
  self = &other;
  go.request_stop();
  other.join();
  EXPECT_EQ(self_join, std::errc::resource_deadlock_would_occur);

  // Arguments are decay-copied; std::ref passes a reference; move-only works.
  std::string text = "copied";
  std::string seen;
  int counter = 0;
  auto owned = std::make_unique<int>(41);
  dstd::thread args([&seen](std::string s, int& c, std::unique_ptr<int> p) {
    seen = s;
    c = *p + 1;
  }, text, std::ref(counter), std::move(owned));
  text = "changed";
  args.join();
  EXPECT_EQ(seen, "copied");
  EXPECT_EQ(counter, 42);

  // A detached thread keeps running; it signals through a stop source.
  dstd::stop_source finished;
  std::uint64_t result = 0;
  dstd::thread([&result, finished]() mutable {
    result = 12345;
    finished.request_stop();
  }).detach();
  while (!finished.stop_requested()) dstd::this_thread::sleep_for(1ms);
  EXPECT_EQ(result, 12345u);
}

}  // namespace
