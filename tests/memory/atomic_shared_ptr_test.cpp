// dstd::atomic<dstd::shared_ptr<T>> and atomic<weak_ptr<T>> at 1, 2 and 4
// nodes: std's interface and semantics on one thread, then threads on
// every node at once: a lock-free stack whose head is an
// atomic<shared_ptr> (every value popped once, every node destroyed once),
// loads and stores racing with exchanges (a loaded object is alive and
// shows the writes made before it was stored; each object destroyed once),
// and wait/notify across nodes.
#include <gtest/gtest.h>

#include <cstdint>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tests/memory/counted.hpp"

namespace {

using memory_test::counted_element;
using memory_test::destroyed;

using atomic_sp = dstd::atomic<dstd::shared_ptr<counted_element>>;
using atomic_wp = dstd::atomic<dstd::weak_ptr<counted_element>>;

static_assert(std::is_same_v<atomic_sp::value_type, dstd::shared_ptr<counted_element>>);
static_assert(std::is_same_v<atomic_wp::value_type, dstd::weak_ptr<counted_element>>);
static_assert(!atomic_sp::is_always_lock_free);  // a lock bit (bits/atomic_shared_ptr.hpp)
static_assert(!atomic_wp::is_always_lock_free);
static_assert(!std::is_copy_constructible_v<atomic_sp>);
static_assert(!std::is_copy_assignable_v<atomic_sp>);
static_assert(std::is_nothrow_default_constructible_v<atomic_sp>);
static_assert(std::is_convertible_v<atomic_sp&, dstd::shared_ptr<counted_element>>);
static_assert(std::is_void_v<decltype(std::declval<atomic_sp&>() = nullptr)>);

constinit atomic_sp empty_at_start{nullptr};  // constexpr, as std's
constinit atomic_wp empty_weak_at_start;

TEST(AtomicSharedPtr, LoadStoreExchangeAndTheStoredReference) {
  EXPECT_EQ(empty_at_start.load(), nullptr);
  EXPECT_TRUE(empty_weak_at_start.load().expired());
  const int before = destroyed.load();
  auto a = dstd::make_shared<counted_element>();
  {
    atomic_sp cell(a);
    EXPECT_FALSE(cell.is_lock_free());
    EXPECT_EQ(a.use_count(), 2);  // the atomic holds a reference
    dstd::shared_ptr<counted_element> seen = cell.load(dstd::memory_order_acquire);
    EXPECT_EQ(seen, a);
    EXPECT_EQ(a.use_count(), 3);
    seen.reset();

    auto b = dstd::make_shared<counted_element>();
    cell.store(b, dstd::memory_order_release);
    EXPECT_EQ(a.use_count(), 1);
    EXPECT_EQ(b.use_count(), 2);
    dstd::shared_ptr<counted_element> old = cell.exchange(a);
    EXPECT_EQ(old, b);
    EXPECT_EQ(b.use_count(), 2);  // b and old; the atomic's went to old
    EXPECT_EQ(static_cast<dstd::shared_ptr<counted_element>>(cell), a);

    cell = b;
    EXPECT_EQ(cell.load(), b);
    cell = nullptr;
    EXPECT_EQ(cell.load(), nullptr);
    EXPECT_EQ(b.use_count(), 2);
    cell = dstd::make_shared<counted_element>();  // owned only by the atomic
    EXPECT_EQ(cell.load().use_count(), 2);
  }
  EXPECT_EQ(destroyed.load(), before + 2);  // b, and what only the atomic owned
  EXPECT_EQ(a.use_count(), 1);
}

TEST(AtomicSharedPtr, CompareExchangeComparesPointerAndOwner) {
  auto a = dstd::make_shared<counted_element>();
  auto b = dstd::make_shared<counted_element>();
  atomic_sp cell(a);

  dstd::shared_ptr<counted_element> expected = b;
  EXPECT_FALSE(cell.compare_exchange_strong(expected, b));
  EXPECT_EQ(expected, a);  // failure: expected is now the stored value
  EXPECT_EQ(a.use_count(), 3);

  EXPECT_TRUE(cell.compare_exchange_strong(expected, b));
  EXPECT_EQ(cell.load(), b);
  EXPECT_EQ(expected, a);  // success leaves expected alone
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(b.use_count(), 2);

  // Same pointer, another owner: not equivalent, as std says.
  dstd::shared_ptr<counted_element> alias(a, b.get());
  expected = alias;
  EXPECT_FALSE(cell.compare_exchange_weak(expected, a, dstd::memory_order_acq_rel,
                                          dstd::memory_order_acquire));
  EXPECT_EQ(expected.get(), b.get());
  EXPECT_FALSE(expected.owner_before(b) || b.owner_before(expected));

  while (!cell.compare_exchange_weak(expected, nullptr)) {
  }
  EXPECT_EQ(cell.load(), nullptr);
  EXPECT_EQ(b.use_count(), 2);  // b and expected

  dstd::shared_ptr<counted_element> none;
  EXPECT_TRUE(cell.compare_exchange_strong(none, a, dstd::memory_order_seq_cst,
                                           dstd::memory_order_relaxed));
  EXPECT_EQ(cell.load(), a);
}

TEST(AtomicWeakPtr, HoldsNoOwnerAndComparesByOwner) {
  const int before = destroyed.load();
  auto a = dstd::make_shared<counted_element>();
  atomic_wp cell(a);
  EXPECT_FALSE(cell.is_lock_free());
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(cell.load().lock(), a);

  auto b = dstd::make_shared<counted_element>();
  dstd::weak_ptr<counted_element> expected = b;
  EXPECT_FALSE(cell.compare_exchange_strong(expected, b));
  EXPECT_EQ(expected.lock(), a);
  EXPECT_TRUE(cell.compare_exchange_strong(expected, b));
  EXPECT_EQ(cell.exchange(a).lock(), b);
  cell.store(b);
  cell = a;
  EXPECT_EQ(static_cast<dstd::weak_ptr<counted_element>>(cell).lock(), a);

  a.reset();  // the atomic does not keep the object
  EXPECT_EQ(destroyed.load(), before + 1);
  EXPECT_TRUE(cell.load().expired());
  EXPECT_EQ(cell.load().lock(), nullptr);
}

TEST(AtomicSharedPtr, TheFreeFunctionsWork) {
  auto a = dstd::make_shared<counted_element>();
  auto b = dstd::make_shared<counted_element>();
  atomic_sp cell;
  dstd::atomic_store(&cell, a);
  EXPECT_EQ(dstd::atomic_load(&cell), a);
  EXPECT_EQ(dstd::atomic_exchange_explicit(&cell, b, dstd::memory_order_acq_rel), a);
  dstd::shared_ptr<counted_element> expected = a;
  EXPECT_FALSE(dstd::atomic_compare_exchange_strong(&cell, &expected, a));
  EXPECT_EQ(expected, b);
  EXPECT_TRUE(dstd::atomic_compare_exchange_weak(&cell, &expected, a));
  EXPECT_EQ(dstd::atomic_load_explicit(&cell, dstd::memory_order_relaxed), a);
  EXPECT_FALSE(dstd::atomic_is_lock_free(&cell));
  dstd::atomic_wait(&cell, b);
  dstd::atomic_notify_all(&cell);
}

TEST(AtomicSharedPtr, WaitReturnsAtOnceWhenTheValueDiffers) {
  auto a = dstd::make_shared<counted_element>();
  atomic_sp cell(a);
  cell.wait(nullptr);
  cell.wait(dstd::shared_ptr<counted_element>(a, nullptr));  // same owner, other pointer
  cell.notify_one();
  cell.notify_all();  // nobody waits: nothing happens
  atomic_wp weak(a);
  weak.wait(dstd::weak_ptr<counted_element>());
}

// --- Every node at once ----------------------------------------------------

constexpr unsigned threads_per_node = 2;
constexpr unsigned nodes_used = 4;  // wraps onto fewer nodes
constexpr unsigned threads = threads_per_node * nodes_used;

template <class F>
void on_every_node(F f) {
  std::vector<dstd::thread> running;
  for (unsigned t = 0; t < threads; ++t) {
    running.push_back(dstd::spawn_on(t % dstd::node_count(), f, t));
  }
  for (auto& r : running) r.join();
}

// A Treiber stack whose head is an atomic<shared_ptr>.
struct stack_node {
  stack_node(unsigned v, dstd::atomic<int>* d) : value(v), destroyed_count(d) {}
  ~stack_node() { destroyed_count->fetch_add(1); }
  unsigned value;
  dstd::shared_ptr<stack_node> next;
  dstd::atomic<int>* destroyed_count;
};

struct treiber_stack {
  void push(unsigned v, dstd::atomic<int>* d) {
    auto n = dstd::make_shared<stack_node>(v, d);
    n->next = head.load(dstd::memory_order_relaxed);
    while (!head.compare_exchange_weak(n->next, n, dstd::memory_order_release,
                                       dstd::memory_order_relaxed)) {
    }
  }
  // The value popped, or -1 when empty.
  long pop() {
    auto h = head.load(dstd::memory_order_acquire);
    while (h && !head.compare_exchange_weak(h, h->next, dstd::memory_order_acquire)) {
    }
    return h ? static_cast<long>(h->value) : -1;
  }
  dstd::atomic<dstd::shared_ptr<stack_node>> head;
};

TEST(AtomicSharedPtrAcrossNodes, StackPushesAndPopsEveryValueOnceAndDestroysEveryNodeOnce) {
  constexpr unsigned per_thread = 150;
  constexpr unsigned total = threads * per_thread;
  auto s = std::make_unique<treiber_stack>();
  std::vector<dstd::atomic<int>> popped(total);
  dstd::atomic<int> nodes_destroyed{0};
  dstd::atomic<int> found_empty{0};
  dstd::atomic<int> out_of_range{0};
  // Each thread pushes one and pops one, so at every pop there is more
  // pushed than popped: a pop that finds the stack empty lost a node.
  on_every_node([&](unsigned t) {
    for (unsigned i = 0; i < per_thread; ++i) {
      s->push(t * per_thread + i, &nodes_destroyed);
      const long v = s->pop();
      if (v < 0) {
        found_empty.fetch_add(1);
      } else if (v >= static_cast<long>(total)) {
        out_of_range.fetch_add(1);
      } else {
        popped[static_cast<std::size_t>(v)].fetch_add(1);
      }
    }
  });
  EXPECT_EQ(found_empty.load(), 0);
  EXPECT_EQ(out_of_range.load(), 0);
  EXPECT_EQ(s->pop(), -1);
  unsigned wrong = 0;
  for (unsigned v = 0; v < total; ++v) wrong += popped[v].load() != 1;
  EXPECT_EQ(wrong, 0u) << "values not popped exactly once";
  EXPECT_EQ(nodes_destroyed.load(), static_cast<int>(total));

  // Then all push, and all pop until it is empty.
  std::vector<dstd::atomic<int>> popped_again(total);
  on_every_node([&](unsigned t) {
    for (unsigned i = 0; i < per_thread; ++i) s->push(t * per_thread + i, &nodes_destroyed);
  });
  on_every_node([&](unsigned) {
    for (long v; (v = s->pop()) >= 0;) {
      if (v < static_cast<long>(total)) popped_again[static_cast<std::size_t>(v)].fetch_add(1);
    }
  });
  wrong = 0;
  for (unsigned v = 0; v < total; ++v) wrong += popped_again[v].load() != 1;
  EXPECT_EQ(wrong, 0u) << "values not popped exactly once";
  EXPECT_EQ(nodes_destroyed.load(), static_cast<int>(2 * total));
}

// A value whose writes the writer makes before storing it; a reader that
// loads it must see them all, and the object alive.
struct stamped {
  stamped(unsigned which, dstd::atomic<int>* d) : id(which), destroyed_count(d) {
    for (unsigned i = 0; i < 64; ++i) words[i] = which * 1000 + i;
  }
  ~stamped() {
    alive = 0;
    destroyed_count->fetch_add(1);
  }
  bool intact() const {
    if (alive != 12345) return false;
    for (unsigned i = 0; i < 64; ++i) {
      if (words[i] != id * 1000 + i) return false;
    }
    return true;
  }
  unsigned id;
  unsigned alive = 12345;
  unsigned words[64];
  dstd::atomic<int>* destroyed_count;
};

// What the racing tests share: a cell of stamped objects, and what the
// threads saw.
struct race {
  static constexpr unsigned per_thread = 400;
  static constexpr unsigned ids = threads * per_thread + 1;  // the last: the first object

  dstd::atomic<int> destroyed_count{0};
  dstd::atomic<int> made{1};
  std::unique_ptr<dstd::atomic<dstd::shared_ptr<stamped>>> cell =
      std::make_unique<dstd::atomic<dstd::shared_ptr<stamped>>>(
          dstd::make_shared<stamped>(ids - 1, &destroyed_count));
  std::vector<dstd::atomic<int>> handed_out = std::vector<dstd::atomic<int>>(ids);
  dstd::atomic<int> broken{0};

  // A new object in; the old one out, checked and counted.
  void exchange_in(unsigned id, dstd::memory_order o) {
    made.fetch_add(1);
    auto old = cell->exchange(dstd::make_shared<stamped>(id, &destroyed_count), o);
    if (!old || !old->intact()) broken.fetch_add(1);
    if (old) handed_out[old->id].fetch_add(1);
  }
  dstd::shared_ptr<stamped> load_and_check() {
    auto seen = cell->load(dstd::memory_order_acquire);
    if (!seen || !seen->intact()) broken.fetch_add(1);
    return seen;
  }
};

TEST(AtomicSharedPtrAcrossNodes, LoadsAndStoresRacingWithExchangesSeeWholeLiveObjects) {
  race r;
  on_every_node([&](unsigned t) {
    for (unsigned i = 0; i < race::per_thread; ++i) {
      if (t % 2 == 0) {  // writers: a new object in, the old one out (once each)
        r.exchange_in(t * race::per_thread + i, dstd::memory_order_acq_rel);
      } else {  // readers: load, check, and sometimes store back what they saw
        auto seen = r.load_and_check();
        if (i % 8 == 0) {
          auto again = seen;
          if (!r.cell->compare_exchange_strong(again, seen)) again.reset();
        }
      }
    }
  });
  EXPECT_EQ(r.broken.load(), 0) << "a loaded or exchanged object was dead or missed writes";
  auto last = r.cell->load();
  r.handed_out[last->id].fetch_add(1);
  // Made: the first (id ids - 1) and one per writer's step.
  unsigned wrong = 0;
  for (unsigned i = 0; i < race::ids; ++i) {
    const bool was_made = i == race::ids - 1 || (i / race::per_thread) % 2 == 0;
    wrong += r.handed_out[i].load() != (was_made ? 1 : 0);
  }
  EXPECT_EQ(wrong, 0u) << "an object was exchanged out twice or never";
  r.cell.reset();
  last.reset();
  EXPECT_EQ(r.destroyed_count.load(), r.made.load());
}

// Stores too: what a store replaces is dropped, not handed out, so each
// object is handed out at most once, and every object made is destroyed
// exactly once.
TEST(AtomicSharedPtrAcrossNodes, StoresExchangesAndLoadsTogetherDestroyEachObjectOnce) {
  race r;
  on_every_node([&](unsigned t) {
    for (unsigned i = 0; i < race::per_thread; ++i) {
      const unsigned id = t * race::per_thread + i;
      switch ((t + i) % 3) {
        case 0:
          r.made.fetch_add(1);
          r.cell->store(dstd::make_shared<stamped>(id, &r.destroyed_count),
                        dstd::memory_order_release);
          break;
        case 1:
          r.exchange_in(id, dstd::memory_order_seq_cst);
          break;
        default:
          r.load_and_check();
      }
    }
  });
  EXPECT_EQ(r.broken.load(), 0) << "a loaded or exchanged object was dead or missed writes";
  unsigned twice = 0;
  for (unsigned i = 0; i < race::ids; ++i) twice += r.handed_out[i].load() > 1;
  EXPECT_EQ(twice, 0u) << "an object was exchanged out twice";
  r.cell.reset();
  EXPECT_EQ(r.destroyed_count.load(), r.made.load());
}

TEST(AtomicSharedPtrAcrossNodes, WaitParksUntilNotifiedFromAnotherNode) {
  auto first = dstd::make_shared<stamped>(1, &destroyed);
  dstd::atomic<dstd::shared_ptr<stamped>> cell(first);
  dstd::atomic<dstd::weak_ptr<stamped>> weak_cell(first);
  dstd::atomic<int> waiting{0};
  dstd::atomic<int> saw_new{0};
  std::vector<dstd::thread> waiters;
  for (unsigned t = 0; t < threads; ++t) {
    waiters.push_back(dstd::spawn_on(t % dstd::node_count(), [&, first, t] {
      waiting.fetch_add(1);
      if (t % 2 == 0) {
        cell.wait(first, dstd::memory_order_acquire);
        auto now = cell.load(dstd::memory_order_relaxed);
        if (now != first && now->intact() && now->id == 2) saw_new.fetch_add(1);
      } else {
        weak_cell.wait(first, dstd::memory_order_acquire);
        auto now = weak_cell.load(dstd::memory_order_relaxed).lock();
        if (now && now->intact() && now->id == 2) saw_new.fetch_add(1);
      }
    }));
  }
  while (waiting.load() < static_cast<int>(threads)) dstd::this_thread::yield();
  for (int i = 0; i < 100; ++i) dstd::this_thread::yield();  // let them park
  auto second = dstd::make_shared<stamped>(2, &destroyed);
  weak_cell.store(second, dstd::memory_order_release);
  cell.store(second, dstd::memory_order_release);
  weak_cell.notify_all();
  cell.notify_all();
  for (auto& w : waiters) w.join();
  EXPECT_EQ(saw_new.load(), static_cast<int>(threads));
}

}  // namespace
