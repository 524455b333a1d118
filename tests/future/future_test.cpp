// <dstd/future>: std's interface (values, references, void, move-only
// values, every future_errc, timeouts, deferred functions, thread-exit
// readiness) and results that cross nodes: set on one node and got on
// another, exceptions rethrown where they were not thrown, shared_futures
// read by threads on every node, packaged_tasks run elsewhere, asyncs that
// spread over the nodes. Orderings are checked, never durations.
#include <gtest/gtest.h>

#include <chrono>
#include <dstd/dstd.hpp>
#include <dstd/future>
#include <dstd/sync>
#include <dstd/thread>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "tests/sync/sync_test_util.hpp"

namespace {

using namespace std::chrono_literals;
using dstd::test::start_on;

// The last node (node 0 in a one-node run): where a producer runs so that
// its consumer, on node 0, is elsewhere whenever there is an elsewhere.
unsigned far_node() { return dstd::node_count() - 1; }

// Long enough to live in the heap, different for every n.
std::string text_of(int n) {
  std::string s = "text " + std::to_string(n) + ":";
  while (s.size() < 300) s += static_cast<char>('a' + (n + static_cast<int>(s.size())) % 26);
  return s;
}

// An exception type of the program's own, with a payload.
struct node_error : std::runtime_error {
  node_error(const std::string& what, unsigned on) : std::runtime_error(what), node(on) {}
  unsigned node;
};

// Runs f() and returns the future_errc of the future_error it throws (or
// fails the test).
template <class F>
dstd::future_errc error_of(F f) {
  try {
    f();
  } catch (const dstd::future_error& e) {
    return static_cast<dstd::future_errc>(e.code().value());
  }
  ADD_FAILURE() << "no future_error thrown";
  return {};
}

TEST(Future, ValueSetOnOneNodeIsGotOnAnother) {
  dstd::promise<std::string> p;
  dstd::future<std::string> f = p.get_future();
  EXPECT_TRUE(f.valid());
  dstd::thread producer = start_on(far_node(), [&p] { p.set_value(text_of(7)); });
  EXPECT_EQ(f.get(), text_of(7));
  EXPECT_FALSE(f.valid());
  producer.join();
}

TEST(Future, ValueWrittenBeforeSetValueIsVisibleAfterGet) {
  // The value points at memory the producer filled on its node.
  dstd::promise<std::vector<long>> p;
  dstd::future<std::vector<long>> f = p.get_future();
  dstd::thread producer = start_on(far_node(), [&p] {
    std::vector<long> v(100000);
    std::iota(v.begin(), v.end(), 1L);
    p.set_value(std::move(v));
  });
  const std::vector<long> v = f.get();
  ASSERT_EQ(v.size(), 100000u);
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0L), 100000L * 100001L / 2);
  producer.join();
}

TEST(Future, ReferenceAndVoidResults) {
  int target = 1;
  dstd::promise<int&> pr;
  dstd::future<int&> fr = pr.get_future();
  dstd::promise<void> pv;
  dstd::future<void> fv = pv.get_future();
  dstd::thread producer = start_on(far_node(), [&] {
    target = 42;  // released by set_value
    pr.set_value(target);
    pv.set_value();
  });
  int& got = fr.get();
  EXPECT_EQ(&got, &target);
  EXPECT_EQ(got, 42);
  fv.get();
  EXPECT_FALSE(fv.valid());
  producer.join();
}

TEST(Future, MoveOnlyValueArrivesOnce) {
  dstd::promise<std::unique_ptr<std::string>> p;
  auto f = p.get_future();
  dstd::thread producer =
      start_on(far_node(), [&p] { p.set_value(std::make_unique<std::string>(text_of(3))); });
  std::unique_ptr<std::string> got = f.get();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(*got, text_of(3));
  producer.join();
}

TEST(Future, ExceptionSetOnOneNodeIsCaughtOnAnotherWithItsTypeAndMessage) {
  for (unsigned getter = 0; getter < dstd::node_count(); ++getter) {
    dstd::promise<int> p;
    dstd::future<int> f = p.get_future();
    dstd::thread setter = start_on(getter + 1, [&p] {
      try {
        throw node_error("thrown on node " + std::to_string(dstd::this_node()), dstd::this_node());
      } catch (...) {
        p.set_exception(std::current_exception());
      }
    });
    const unsigned setter_node = dstd::test::wrap(getter + 1);
    std::string message;
    unsigned thrower = 99;
    dstd::node_id caught_on = 99;
    start_on(getter, [&] {
      try {
        f.get();
      } catch (const node_error& e) {
        message = e.what();
        thrower = e.node;
        caught_on = dstd::this_node();
      }
    }).join();
    setter.join();
    EXPECT_EQ(message, "thrown on node " + std::to_string(setter_node));
    EXPECT_EQ(thrower, setter_node);
    EXPECT_EQ(caught_on, dstd::test::wrap(getter));
  }
}

TEST(Future, StdExceptionTypesKeepTheirTypeAcrossNodes) {
  dstd::promise<void> p1;
  dstd::promise<long> p2;
  auto f1 = p1.get_future();
  auto f2 = p2.get_future();
  start_on(far_node(), [&] {
    p1.set_exception(std::make_exception_ptr(std::out_of_range(text_of(11))));
    try {
      throw std::system_error(std::make_error_code(std::errc::timed_out), "far away");
    } catch (...) {
      p2.set_exception(std::current_exception());
    }
  }).join();
  EXPECT_THROW(
      {
        try {
          f1.get();
        } catch (const std::logic_error& e) {
          EXPECT_EQ(e.what(), text_of(11));
          throw;
        }
      },
      std::out_of_range);
  try {
    f2.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::timed_out);
    EXPECT_NE(std::string(e.what()).find("far away"), std::string::npos);
  }
}

TEST(FutureErrors, EveryCodeWithStdsCategoryAndMessages) {
  const std::error_category& cat = dstd::future_category();
  EXPECT_STREQ(cat.name(), "future");
  EXPECT_EQ(&cat, &dstd::future_category());
  EXPECT_TRUE(std::is_error_code_enum_v<dstd::future_errc>);
  std::error_code code = dstd::future_errc::broken_promise;  // via make_error_code
  EXPECT_EQ(code.category(), cat);
  EXPECT_EQ(code, dstd::future_errc::broken_promise);
  EXPECT_EQ(dstd::make_error_condition(dstd::future_errc::no_state).category(), cat);

  const dstd::future_error e(dstd::future_errc::promise_already_satisfied);
  const std::logic_error& as_logic = e;
  EXPECT_STREQ(as_logic.what(), "std::future_error: Promise already satisfied");
  EXPECT_EQ(e.code(), dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(dstd::future_error(dstd::future_errc::future_already_retrieved).code().message(),
            "Future already retrieved");
  EXPECT_EQ(dstd::future_error(dstd::future_errc::no_state).code().message(),
            "No associated state");
  EXPECT_EQ(dstd::future_error(dstd::future_errc::broken_promise).code().message(),
            "Broken promise");
  EXPECT_EQ(cat.message(0), "Unknown error");
}

TEST(FutureErrors, RetrievedTwiceSatisfiedTwiceAndNoState) {
  dstd::promise<int> p;
  auto f = p.get_future();
  EXPECT_EQ(error_of([&] { (void)p.get_future(); }), dstd::future_errc::future_already_retrieved);
  p.set_value(1);
  EXPECT_EQ(error_of([&] { p.set_value(2); }), dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(error_of([&] { p.set_exception(std::make_exception_ptr(1)); }),
            dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(error_of([&] { p.set_value_at_thread_exit(3); }),
            dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(f.get(), 1);  // the first value stays

  dstd::promise<int> moved_from;
  dstd::promise<int> taker = std::move(moved_from);
  EXPECT_EQ(error_of([&] { (void)moved_from.get_future(); }), dstd::future_errc::no_state);
  EXPECT_EQ(error_of([&] { moved_from.set_value(1); }), dstd::future_errc::no_state);
  dstd::future<int> none;
  EXPECT_FALSE(none.valid());
  EXPECT_EQ(error_of([&] { none.get(); }), dstd::future_errc::no_state);
  EXPECT_EQ(error_of([&] { none.wait(); }), dstd::future_errc::no_state);
  dstd::shared_future<int> no_shared;
  EXPECT_EQ(error_of([&] { no_shared.get(); }), dstd::future_errc::no_state);
  dstd::packaged_task<int()> no_task;
  EXPECT_FALSE(no_task.valid());
  EXPECT_EQ(error_of([&] { no_task(); }), dstd::future_errc::no_state);
  EXPECT_EQ(error_of([&] { no_task.reset(); }), dstd::future_errc::no_state);
  EXPECT_EQ(error_of([&] { (void)no_task.get_future(); }), dstd::future_errc::no_state);

  dstd::packaged_task<int()> task([] { return 5; });
  auto ft = task.get_future();
  EXPECT_EQ(error_of([&] { (void)task.get_future(); }),
            dstd::future_errc::future_already_retrieved);
  task();
  EXPECT_EQ(error_of([&] { task(); }), dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(ft.get(), 5);
}

TEST(FutureErrors, PromiseDestroyedOnAnotherNodeWakesTheWaiterWithBrokenPromise) {
  auto p = std::make_unique<dstd::promise<std::string>>();
  dstd::future<std::string> f = p->get_future();
  dstd::thread dropper = start_on(far_node(), [p = std::move(p)]() mutable {
    dstd::this_thread::sleep_for(20ms);  // the getter is (probably) parked by now
    p.reset();
  });
  EXPECT_EQ(error_of([&] { f.get(); }), dstd::future_errc::broken_promise);
  dropper.join();

  dstd::future<int> from_task;
  {
    dstd::packaged_task<int(int)> never_run([](int x) { return x; });
    from_task = never_run.get_future();
  }
  EXPECT_EQ(error_of([&] { from_task.get(); }), dstd::future_errc::broken_promise);

  // A promise whose value is stored is not broken by its destruction.
  dstd::future<int> kept;
  {
    dstd::promise<int> p2;
    kept = p2.get_future();
    p2.set_value(9);
  }
  EXPECT_EQ(kept.get(), 9);
}

// An allocator that counts what it hands out (std::uses_allocator).
template <class T>
struct counting_allocator {
  using value_type = T;
  long* allocated;
  explicit counting_allocator(long* count) : allocated(count) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& o) : allocated(o.allocated) {}
  T* allocate(std::size_t n) {
    *allocated += static_cast<long>(n * sizeof(T));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) {
    *allocated -= static_cast<long>(n * sizeof(T));
    std::allocator<T>().deallocate(p, n);
  }
  friend bool operator==(const counting_allocator&, const counting_allocator&) = default;
};

TEST(Promise, AllocatorMoveAssignAndSwap) {
  static_assert(std::uses_allocator_v<dstd::promise<int>, counting_allocator<int>>);
  long allocated = 0;
  {
    dstd::promise<std::string> p(std::allocator_arg, counting_allocator<int>(&allocated));
    EXPECT_GT(allocated, 0);
    auto f = p.get_future();
    start_on(far_node(), [&p] { p.set_value(text_of(9)); }).join();
    EXPECT_EQ(f.get(), text_of(9));
  }
  EXPECT_EQ(allocated, 0);  // freed through the allocator

  dstd::promise<int> a;
  dstd::future<int> fa = a.get_future();
  dstd::promise<int> b;
  dstd::future<int> fb = b.get_future();
  a.swap(b);
  a.set_value(2);  // b's state
  EXPECT_EQ(fb.get(), 2);
  a = std::move(b);  // a's (b's) state is satisfied; the old a state is dropped whole
  a.set_value(1);
  EXPECT_EQ(fa.get(), 1);
  dstd::promise<void> c;
  dstd::future<void> fc = c.get_future();
  c = dstd::promise<void>();  // c's state abandoned: broken
  EXPECT_EQ(error_of([&] { fc.get(); }), dstd::future_errc::broken_promise);
}

TEST(FutureWaits, TimeoutsThenReady) {
  dstd::promise<int> p;
  dstd::future<int> f = p.get_future();
  EXPECT_EQ(f.wait_for(10ms), dstd::future_status::timeout);
  EXPECT_EQ(f.wait_until(std::chrono::system_clock::now() + 10ms), dstd::future_status::timeout);
  EXPECT_EQ(f.wait_until(std::chrono::steady_clock::now() - 1s), dstd::future_status::timeout);
  dstd::thread producer = start_on(far_node(), [&p] {
    dstd::this_thread::sleep_for(10ms);
    p.set_value(4);
  });
  while (f.wait_for(1ms) != dstd::future_status::ready) {
  }
  EXPECT_EQ(f.wait_until(std::chrono::steady_clock::now()), dstd::future_status::ready);
  f.wait();
  EXPECT_EQ(f.get(), 4);
  producer.join();
}

TEST(FutureWaits, TheLongestWaitForWaitsUntilReady) {
  dstd::promise<int> p;
  dstd::shared_future<int> f = p.get_future().share();
  dstd::thread producer = start_on(far_node(), [&p] {
    dstd::this_thread::sleep_for(10ms);
    p.set_value(2);
  });
  EXPECT_EQ(f.wait_for(std::chrono::hours::max()), dstd::future_status::ready);
  EXPECT_EQ(f.wait_for(std::chrono::nanoseconds::max()), dstd::future_status::ready);
  EXPECT_EQ(f.get(), 2);
  producer.join();
  auto deferred = dstd::async(dstd::launch::deferred, [] { return 1; });
  EXPECT_EQ(deferred.wait_for(std::chrono::seconds::max()), dstd::future_status::deferred);
}

TEST(FutureWaits, DeferredRunsOnTheThreadThatAsksAndReportsDeferredUntilThen) {
  bool ran = false;
  dstd::thread::id ran_by;
  dstd::node_id ran_on = 99;
  dstd::future<int> f = dstd::async(dstd::launch::deferred, [&](int x) {
    ran = true;
    ran_by = dstd::this_thread::get_id();
    ran_on = dstd::this_node();
    return x * 3;
  }, 5);
  EXPECT_EQ(f.wait_for(0s), dstd::future_status::deferred);
  EXPECT_EQ(f.wait_until(std::chrono::steady_clock::now() + 1h), dstd::future_status::deferred);
  EXPECT_FALSE(ran);
  dstd::shared_future<int> sf = f.share();
  dstd::thread::id getter;
  int got = 0;
  start_on(far_node(), [&] {
    getter = dstd::this_thread::get_id();
    got = sf.get();
  }).join();
  EXPECT_EQ(got, 15);
  EXPECT_TRUE(ran);
  EXPECT_EQ(ran_by, getter);
  EXPECT_EQ(ran_on, far_node());
  EXPECT_EQ(sf.wait_for(0s), dstd::future_status::ready);
  EXPECT_EQ(sf.get(), 15);  // computed once
}

// Threads on every node wait on copies of one shared_future before it is
// set; each reads the whole value (or catches the one exception).
TEST(SharedFuture, ManyThreadsOnEveryNodeGetTheSameResult) {
  constexpr unsigned per_node = 3;
  dstd::promise<std::vector<long>> p;
  dstd::shared_future<std::vector<long>> sf = p.get_future().share();
  dstd::promise<void> failing;
  dstd::shared_future<void> sf_failing = failing.get_future();
  const unsigned n = dstd::node_count() * per_node;
  std::vector<long> sums(n, 0);
  std::vector<std::string> messages(n);
  std::vector<dstd::thread> readers;
  for (unsigned i = 0; i < n; ++i) {
    readers.push_back(dstd::spawn_on(i % dstd::node_count(), [&, i, mine = sf, other = sf_failing] {
      const std::vector<long>& v = mine.get();
      sums[i] = std::accumulate(v.begin(), v.end(), 0L);
      try {
        other.get();
      } catch (const std::runtime_error& e) {
        messages[i] = e.what();
      }
    }));
  }
  dstd::thread producer = start_on(far_node(), [&] {
    std::vector<long> v(50000);
    std::iota(v.begin(), v.end(), 0L);
    p.set_value(std::move(v));
    failing.set_exception(std::make_exception_ptr(std::runtime_error(text_of(5))));
  });
  for (auto& t : readers) t.join();
  producer.join();
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(sums[i], 50000L * 49999L / 2) << "reader " << i;
    EXPECT_EQ(messages[i], text_of(5)) << "reader " << i;
  }
  EXPECT_EQ(&sf.get(), &dstd::shared_future<std::vector<long>>(sf).get());  // one stored value
}

// Exceptions that count their constructions and destructions (statics,
// homed at node 0: one count for the whole run).
dstd::atomic<long> counted_made{0};
dstd::atomic<long> counted_gone{0};
struct counted_error : std::runtime_error {
  explicit counted_error(const std::string& what) : std::runtime_error(what) {
    counted_made.fetch_add(1);
  }
  counted_error(const counted_error& o) : std::runtime_error(o) { counted_made.fetch_add(1); }
  ~counted_error() override { counted_gone.fetch_add(1); }
};

// A thread on the far node throws a counted_error with text_of(n) and
// stores it in p from its handler (the exception's home: the far node).
void fail_on_far_node(dstd::promise<int>& p, int n) {
  start_on(far_node(), [&p, n] {
    try {
      throw counted_error(text_of(n));
    } catch (...) {
      p.set_exception(std::current_exception());
    }
  }).join();
}

// Handlers on every node keep the exception (std::current_exception())
// after the shared state is gone, then rethrow and drop it on their nodes:
// the object is alive for each of them (on one node, destroyed once at the
// end; an exception that crossed nodes is never destroyed).
TEST(SharedFuture, AnExceptionKeptOnEveryNodeOutlivesTheState) {
  const long made_before = counted_made.load();
  const long gone_before = counted_gone.load();
  const unsigned n = dstd::node_count() * 2;
  std::vector<std::exception_ptr> kept(n);
  {
    dstd::promise<int> p;
    dstd::shared_future<int> sf = p.get_future().share();
    std::vector<dstd::thread> getters;
    for (unsigned i = 0; i < n; ++i) {
      getters.push_back(dstd::spawn_on(i % dstd::node_count(), [&kept, i, mine = sf] {
        try {
          mine.get();
        } catch (const counted_error&) {
          kept[i] = std::current_exception();
        }
      }));
    }
    fail_on_far_node(p, 12);
    for (auto& t : getters) t.join();
  }  // the promise, the shared_futures and the state are gone
  std::vector<std::string> messages(n);
  std::vector<dstd::thread> users;
  for (unsigned i = 0; i < n; ++i) {
    users.push_back(dstd::spawn_on(i % dstd::node_count(), [&kept, &messages, i] {
      try {
        std::rethrow_exception(kept[i]);
      } catch (const counted_error& e) {
        messages[i] = e.what();
      }
      kept[i] = nullptr;
    }));
  }
  for (auto& t : users) t.join();
  for (unsigned i = 0; i < n; ++i) EXPECT_EQ(messages[i], text_of(12)) << "thread " << i;
  const long made = counted_made.load() - made_before;
  const long gone = counted_gone.load() - gone_before;
  EXPECT_GE(made, 1);
  if (dstd::node_count() == 1) {
    EXPECT_EQ(gone, made);
  } else {
    EXPECT_EQ(gone, 0);  // it crossed nodes: never freed (docs/DESIGN.md §5.7)
  }
}

// The setter keeps another reference (a copy of its exception_ptr) while
// a handler on another node ends: libstdc++'s count of the exception has
// then been changed on two nodes from one old value. The setter's copy must
// still hold a live object.
TEST(FutureExceptions, TheSettersOwnCopyOutlivesAHandlerOnAnotherNode) {
  const long gone_before = counted_gone.load();
  dstd::promise<int> p;
  dstd::future<int> f = p.get_future();
  dstd::promise<void> caught;
  dstd::future<void> caught_f = caught.get_future();
  bool gone_while_kept = true;
  std::string kept_message;
  dstd::thread setter = start_on(far_node(), [&] {
    std::exception_ptr keep;
    try {
      throw counted_error(text_of(13));
    } catch (...) {
      std::exception_ptr e = std::current_exception();
      p.set_exception(e);
      caught_f.wait();  // the other node is inside its handler
      keep = e;         // one more reference, made here
      dstd::this_thread::sleep_for(200ms);  // the other node publishes its count meanwhile
    }  // e and this handler drop theirs: keep's is left
    gone_while_kept = counted_gone.load() != gone_before;
    try {
      std::rethrow_exception(keep);
    } catch (const counted_error& again) {
      kept_message = again.what();
    }
  });
  dstd::thread getter = start_on(0, [&] {
    try {
      f.get();
    } catch (const counted_error&) {
      caught.set_value();
    }  // the handler's end drops its reference, counted from this node's copy
    dstd::this_thread::sleep_for(100ms);  // the setter copies meanwhile
  });  // this node's count reaches the home at the thread's end
  getter.join();
  setter.join();
  EXPECT_FALSE(gone_while_kept);
  EXPECT_EQ(kept_message, text_of(13));
}

// Copies of one exception_ptr made on several nodes between their
// synchronizations each change libstdc++'s count in the exception's header
// from one old value, and the home keeps the last node's: in a round where
// every node copies in turn (each after the one before, none released yet)
// and then every node drops its copy (one after another, each released),
// the count falls by one less than the number of nodes. Rounds enough to
// take it to zero must leave the exception alive: every node still holds a
// reference.
TEST(FutureExceptions, CopiesOnEveryNodeBetweenTheirSynchronizationsNeverFreeALiveException) {
  const long gone_before = counted_gone.load();
  const unsigned n = dstd::node_count();
  std::vector<std::exception_ptr> kept(n);
  {
    dstd::promise<int> p;
    dstd::shared_future<int> sf = p.get_future().share();
    fail_on_far_node(p, 14);
    for (unsigned i = 0; i < n; ++i) {
      dstd::spawn_on(i, [&kept, i, sf] {
        try {
          sf.get();
        } catch (const counted_error&) {
          kept[i] = std::current_exception();
        }
      }).join();
    }
  }  // the state and its reference are gone
  std::vector<std::exception_ptr> copies(n);
  dstd::atomic<unsigned> turn{0};
  for (int round = 0; round < 8; ++round) {
    turn.store(0, std::memory_order_relaxed);
    std::vector<dstd::thread> copiers;
    for (unsigned i = 0; i < n; ++i) {
      copiers.push_back(dstd::spawn_on(i, [&kept, &copies, &turn, i, n] {
        // Relaxed: no synchronization, so no node's copy is released
        // before every node has made its own.
        while (turn.load(std::memory_order_relaxed) != i) dstd::this_thread::yield();
        copies[i] = kept[i];
        turn.store(i + 1, std::memory_order_relaxed);
        while (turn.load(std::memory_order_relaxed) != n) dstd::this_thread::yield();
      }));  // each thread's end releases its node's count
    }
    for (auto& t : copiers) t.join();
    for (unsigned i = 0; i < n; ++i) {
      dstd::spawn_on(i, [&copies, i] { copies[i] = nullptr; }).join();
    }
    ASSERT_EQ(counted_gone.load(), gone_before) << "destroyed in round " << round;
  }
  for (unsigned i = 0; i < n; ++i) {
    std::string message;
    dstd::spawn_on(i, [&kept, &message, i] {
      try {
        std::rethrow_exception(kept[i]);
      } catch (const counted_error& e) {
        message = e.what();
      }
    }).join();
    EXPECT_EQ(message, text_of(14)) << "node " << i;
  }
  EXPECT_EQ(counted_gone.load(), gone_before);
}

TEST(PackagedTask, RunOnAnotherNodeWithArgumentsResetAndSwap) {
  dstd::packaged_task<std::string(int, const std::string&)> task(
      [](int n, const std::string& suffix) {
        return text_of(n) + suffix + "@" + std::to_string(dstd::this_node());
      });
  EXPECT_TRUE(task.valid());
  dstd::future<std::string> f = task.get_future();
  start_on(far_node(), [&task] { task(2, "!"); }).join();
  EXPECT_EQ(f.get(), text_of(2) + "!@" + std::to_string(far_node()));

  task.reset();  // a fresh state, the same function
  dstd::future<std::string> again = task.get_future();
  dstd::thread runner = start_on(far_node(), [t = std::move(task)]() mutable { t(4, "?"); });
  EXPECT_FALSE(task.valid());
  EXPECT_EQ(again.get(), text_of(4) + "?@" + std::to_string(far_node()));
  runner.join();

  dstd::packaged_task<int()> a([] { return 1; });
  dstd::packaged_task<int()> b([] { return 2; });
  a.swap(b);
  auto fa = a.get_future();
  a();
  EXPECT_EQ(fa.get(), 2);
  dstd::swap(a, b);
  auto fb = a.get_future();
  a();
  EXPECT_EQ(fb.get(), 1);

  dstd::packaged_task deduced(+[](long x) { return x + 1; });  // deduction guides
  static_assert(std::is_same_v<decltype(deduced), dstd::packaged_task<long(long)>>);
  dstd::packaged_task from_lambda([](int x) noexcept { return x * 2.0; });
  static_assert(std::is_same_v<decltype(from_lambda), dstd::packaged_task<double(int)>>);
}

TEST(PackagedTask, VoidTaskWithAReferenceArgumentAndVoidAtThreadExit) {
  dstd::packaged_task<void(std::string&)> append([](std::string& s) { s += text_of(1); });
  auto done = append.get_future();
  std::string target = "x";
  start_on(far_node(), [&] { append(target); }).join();
  done.get();
  EXPECT_EQ(target, "x" + text_of(1));

  dstd::promise<void> p;
  auto f = p.get_future();
  dstd::node_id set_on = 99;
  dstd::thread setter = start_on(far_node(), [&] {
    set_on = dstd::this_node();  // released by the thread's exit with the state
    p.set_value_at_thread_exit();
  });
  f.get();
  EXPECT_EQ(set_on, far_node());
  setter.join();
}

TEST(PackagedTask, ExceptionFromTheTaskReachesTheFuture) {
  dstd::packaged_task<int()> task([]() -> int {
    throw node_error("task failed on node " + std::to_string(dstd::this_node()), dstd::this_node());
  });
  auto f = task.get_future();
  start_on(far_node(), [&task] { task(); }).join();
  try {
    f.get();
    ADD_FAILURE() << "no exception";
  } catch (const node_error& e) {
    EXPECT_EQ(e.node, far_node());
    EXPECT_EQ(std::string(e.what()), "task failed on node " + std::to_string(far_node()));
  }
}

TEST(Async, SpreadsOverTheNodesAndReturnsResults) {
  const unsigned n = 4 * dstd::node_count();
  std::vector<dstd::future<dstd::node_id>> futures;
  for (unsigned i = 0; i < n; ++i) {
    futures.push_back(dstd::async(dstd::launch::async, [] {
      dstd::this_thread::sleep_for(20ms);  // overlap, so no node's count drops meanwhile
      return dstd::this_node();
    }));
  }
  std::set<dstd::node_id> nodes;
  for (auto& f : futures) nodes.insert(f.get());
  EXPECT_EQ(nodes.size(), dstd::node_count());

  // The default policy is async (a new thread); arguments are decay-copied.
  std::string local = text_of(1);
  auto f = dstd::async([](std::string s, int k) { return s.size() + static_cast<std::size_t>(k); },
                       local, 5);
  EXPECT_NE(f.wait_for(0s), dstd::future_status::deferred);
  EXPECT_EQ(f.get(), local.size() + 5);
  auto failing = dstd::async(dstd::launch::async, []() -> int { throw std::runtime_error("x"); });
  EXPECT_THROW(failing.get(), std::runtime_error);
}

TEST(Async, TheFuturesDestructorWaitsForTheThread) {
  bool finished = false;
  {
    auto f = dstd::async(dstd::launch::async, [&finished] {
      dstd::this_thread::sleep_for(30ms);
      finished = true;
    });
  }  // joins here
  EXPECT_TRUE(finished);
}

TEST(AtThreadExit, ReadyOnlyWhenTheSettingThreadEnds) {
  dstd::promise<int> value;
  dstd::promise<void> failure;
  dstd::packaged_task<std::string(int)> task([](int n) { return text_of(n); });
  auto fv = value.get_future();
  auto ff = failure.get_future();
  auto ft = task.get_future();
  dstd::promise<void> stored;
  auto stored_f = stored.get_future();
  dstd::promise<void> go;
  auto go_f = go.get_future();
  dstd::future_errc second_value{};
  dstd::future_errc second_run{};
  dstd::thread setter = start_on(far_node(), [&, v = std::move(value)]() mutable {
    v.set_value_at_thread_exit(8);
    failure.set_exception_at_thread_exit(std::make_exception_ptr(std::runtime_error("late")));
    task.make_ready_at_thread_exit(6);
    second_value = error_of([&] { v.set_value(1); });
    second_run = error_of([&] { task(1); });
    stored.set_value();
    go_f.wait();
  });  // v (the promise) is destroyed before the thread's exit: not broken
  stored_f.wait();
  EXPECT_EQ(second_value, dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(second_run, dstd::future_errc::promise_already_satisfied);
  EXPECT_EQ(fv.wait_for(5ms), dstd::future_status::timeout);
  EXPECT_EQ(ff.wait_for(0s), dstd::future_status::timeout);
  EXPECT_EQ(ft.wait_for(0s), dstd::future_status::timeout);
  go.set_value();
  EXPECT_EQ(fv.get(), 8);
  EXPECT_THROW(ff.get(), std::runtime_error);
  EXPECT_EQ(ft.get(), text_of(6));
  setter.join();
}

// Many promise/future pairs: producers on every node set values that
// consumers on the other nodes sum; exact totals.
TEST(FutureStress, ManyPairsAcrossNodesExactSums) {
  constexpr unsigned pairs = 500;
  constexpr unsigned per_node = 2;
  std::vector<dstd::promise<long>> promises(pairs);
  std::vector<dstd::future<long>> futures;
  for (auto& p : promises) futures.push_back(p.get_future());
  const unsigned workers = dstd::node_count() * per_node;
  std::vector<long> sums(workers, 0);
  std::vector<dstd::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    const unsigned node = w % dstd::node_count();
    // Consumer w takes futures w, w + workers, ...; producer w sets the
    // promises a quarter of the way round, so pairs cross nodes.
    threads.push_back(dstd::spawn_on(node, [&, w] {
      for (unsigned i = w; i < pairs; i += workers) sums[w] += futures[i].get();
    }));
    threads.push_back(dstd::spawn_on((node + 1) % dstd::node_count(), [&, w] {
      for (unsigned i = (w + workers / 2) % workers; i < pairs; i += workers) {
        promises[i].set_value(static_cast<long>(i) * i);
      }
    }));
  }
  for (auto& t : threads) t.join();
  long total = std::accumulate(sums.begin(), sums.end(), 0L);
  long expected = 0;
  for (long i = 0; i < pairs; ++i) expected += i * i;
  EXPECT_EQ(total, expected);
}

}  // namespace
