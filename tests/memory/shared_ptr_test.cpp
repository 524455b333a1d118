// dstd::shared_ptr, weak_ptr, make_shared, enable_shared_from_this,
// owner_less and the casts, at 1, 2 and 4 nodes: std's interface as a
// program relies on it, then owners copied, moved and dropped on every node
// (each object destroyed exactly once, after every owner's writes) and
// weak_ptr::lock racing with the last drop.
#include <gtest/gtest.h>

#include <compare>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tests/memory/counted.hpp"

namespace {

using memory_test::base;
using memory_test::counted_element;
using memory_test::derived;
using memory_test::destroyed;
struct self_aware : dstd::enable_shared_from_this<self_aware> {
  int value = 5;
};

struct recording_deleter {
  int* calls;
  int tag;
  void operator()(base* p) const {
    ++*calls;
    delete p;
  }
  void operator()(std::nullptr_t) const { ++*calls; }
};

using sp = dstd::shared_ptr<base>;

static_assert(std::is_nothrow_copy_constructible_v<sp>);
static_assert(std::is_nothrow_move_constructible_v<sp>);
static_assert(sizeof(sp) == 2 * sizeof(void*));
static_assert(sizeof(dstd::weak_ptr<base>) == 2 * sizeof(void*));
static_assert(std::is_same_v<sp::element_type, base>);
static_assert(std::is_same_v<dstd::shared_ptr<int[]>::element_type, int>);
static_assert(std::is_same_v<sp::weak_type, dstd::weak_ptr<base>>);
static_assert(std::is_convertible_v<dstd::shared_ptr<derived>, sp>);
static_assert(!std::is_convertible_v<sp, dstd::shared_ptr<derived>>);
static_assert(!std::is_convertible_v<base*, sp>);
static_assert(std::is_constructible_v<sp, derived*>);
static_assert(std::is_convertible_v<dstd::unique_ptr<derived>&&, sp>);
static_assert(!std::is_convertible_v<dstd::weak_ptr<base>, sp>);  // explicit: it may throw
static_assert(std::is_convertible_v<sp, dstd::weak_ptr<base>>);
static_assert(std::is_convertible_v<dstd::shared_ptr<int[3]>, dstd::shared_ptr<int[]>>);
static_assert(std::is_same_v<dstd::bad_weak_ptr, std::bad_weak_ptr>);

TEST(SharedPtr, CountsOwnersAndDestroysOnce) {
  const int before = destroyed.load();
  sp a = dstd::make_shared<derived>(7);
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(a->value, 7);
  {
    sp b = a;
    EXPECT_EQ(a.use_count(), 2);
    sp c = std::move(b);
    EXPECT_FALSE(b);
    EXPECT_EQ(b.use_count(), 0);
    EXPECT_EQ(c.use_count(), 2);
    c = a;
    EXPECT_EQ(a.use_count(), 2);
  }
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(destroyed.load(), before);
  a.reset();
  EXPECT_EQ(destroyed.load(), before + 1);
  EXPECT_EQ(a.get(), nullptr);

  sp raw(new derived(2));
  EXPECT_EQ((*raw).value, 2);
  raw.reset(new base);
  EXPECT_EQ(destroyed.load(), before + 2);
  raw = nullptr;
  EXPECT_EQ(destroyed.load(), before + 3);
}

TEST(SharedPtr, CustomDeleterRunsOnceAndIsFound) {
  int calls = 0;
  {
    sp p(new base, recording_deleter{&calls, 11});
    sp q = p;
    ASSERT_NE(dstd::get_deleter<recording_deleter>(p), nullptr);
    EXPECT_EQ(dstd::get_deleter<recording_deleter>(q)->tag, 11);
    EXPECT_EQ(dstd::get_deleter<int>(p), nullptr);
    p.reset();
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
  {
    dstd::shared_ptr<base> none(nullptr, recording_deleter{&calls, 0});
    EXPECT_EQ(none.use_count(), 1);  // owns nullptr, as std's does
  }
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(dstd::get_deleter<recording_deleter>(sp()), nullptr);
}

TEST(SharedPtr, TakesOverAUniquePtrWithItsDeleter) {
  const int before = destroyed.load();
  dstd::unique_ptr<derived> u = dstd::make_unique<derived>(4);
  sp s(std::move(u));
  EXPECT_FALSE(u);
  EXPECT_EQ(s->value, 4);
  EXPECT_EQ(s.use_count(), 1);
  s = dstd::unique_ptr<base>();
  EXPECT_FALSE(s);
  EXPECT_EQ(destroyed.load(), before + 1);

  int calls = 0;
  recording_deleter d{&calls, 1};
  {
    dstd::unique_ptr<base, recording_deleter&> ur(new base, d);
    sp from_ref(std::move(ur));
  }
  EXPECT_EQ(calls, 1);
}

TEST(SharedPtr, AliasingSharesOwnershipOfTheWhole) {
  const int before = destroyed.load();
  auto whole = dstd::make_shared<derived>(1);
  dstd::shared_ptr<int> part(whole, &whole->extra);
  EXPECT_EQ(*part, 3);
  EXPECT_EQ(whole.use_count(), 2);
  whole.reset();
  EXPECT_EQ(destroyed.load(), before);
  EXPECT_EQ(*part, 3);
  dstd::shared_ptr<int> moved(std::move(part), part.get());
  EXPECT_FALSE(part);
  moved.reset();
  EXPECT_EQ(destroyed.load(), before + 1);
}

TEST(WeakPtr, LockExpiredAndBadWeakPtr) {
  sp s = dstd::make_shared<base>();
  dstd::weak_ptr<base> w = s;
  dstd::weak_ptr<base> w2(w);
  EXPECT_FALSE(w.expired());
  EXPECT_EQ(w.use_count(), 1);
  {
    sp locked = w.lock();
    EXPECT_EQ(locked, s);
    EXPECT_EQ(w.use_count(), 2);
    sp from_weak(w2);
    EXPECT_EQ(from_weak.use_count(), 3);
  }
  s.reset();
  EXPECT_TRUE(w.expired());
  EXPECT_FALSE(w.lock());
  EXPECT_THROW(sp{w}, std::bad_weak_ptr);
  EXPECT_THROW(sp{dstd::weak_ptr<base>()}, std::bad_weak_ptr);
  dstd::weak_ptr<derived> dw;
  dstd::weak_ptr<base> bw(dw);
  EXPECT_TRUE(bw.expired());
  w.reset();
  EXPECT_EQ(w.use_count(), 0);
}

TEST(WeakPtr, AssignsFromWeakAndSharedPtrs) {
  auto a = dstd::make_shared<derived>(1);
  auto b = dstd::make_shared<derived>(2);
  dstd::weak_ptr<base> w;
  w = a;  // from a shared_ptr of a derived type
  EXPECT_EQ(w.lock(), a);
  dstd::weak_ptr<derived> other = b;
  w = other;  // from a weak_ptr of a derived type
  EXPECT_EQ(w.lock(), b);
  dstd::weak_ptr<base> copy;
  copy = w;
  EXPECT_EQ(copy.lock(), b);
  copy = std::move(w);
  EXPECT_TRUE(w.expired());
  EXPECT_EQ(copy.lock(), b);
  b.reset();
  EXPECT_TRUE(copy.expired());
  EXPECT_EQ(other.use_count(), 0);
}

TEST(WeakPtr, ConvertsDerivedToBaseWhileAlive) {
  auto d = dstd::make_shared<derived>(6);
  dstd::weak_ptr<derived> wd = d;
  dstd::weak_ptr<base> wb = wd;
  EXPECT_EQ(wb.lock()->value, 6);
  dstd::weak_ptr<base> moved(std::move(wd));
  EXPECT_TRUE(wd.expired());
  EXPECT_EQ(moved.lock().get(), d.get());
}

TEST(SharedPtr, OwnerOrderIgnoresThePointer) {
  auto whole = dstd::make_shared<derived>(1);
  dstd::shared_ptr<int> part(whole, &whole->extra);
  auto other = dstd::make_shared<derived>(2);
  EXPECT_FALSE(whole.owner_before(part));
  EXPECT_FALSE(part.owner_before(whole));
  EXPECT_NE(whole.owner_before(other), other.owner_before(whole));
  std::set<dstd::weak_ptr<base>, dstd::owner_less<dstd::weak_ptr<base>>> owners;
  owners.insert(whole);
  owners.insert(dstd::static_pointer_cast<base>(whole));
  owners.insert(other);
  EXPECT_EQ(owners.size(), 2u);
  dstd::owner_less<> any;
  EXPECT_FALSE(any(part, dstd::weak_ptr<derived>(whole)));
}

TEST(SharedPtr, PointerCasts) {
  sp b = dstd::make_shared<derived>(8);
  auto d = dstd::static_pointer_cast<derived>(b);
  EXPECT_EQ(d->extra, 3);
  EXPECT_EQ(b.use_count(), 2);
  auto dd = dstd::dynamic_pointer_cast<derived>(b);
  EXPECT_EQ(dd, d);
  EXPECT_FALSE(dstd::dynamic_pointer_cast<derived>(dstd::make_shared<base>()));
  dstd::shared_ptr<const base> cb = b;
  auto mutable_again = dstd::const_pointer_cast<base>(cb);
  mutable_again->value = 9;
  EXPECT_EQ(b->value, 9);
  auto bytes = dstd::reinterpret_pointer_cast<unsigned char>(b);
  EXPECT_EQ(static_cast<void*>(bytes.get()), static_cast<void*>(b.get()));
  auto moved = dstd::static_pointer_cast<derived>(std::move(b));
  EXPECT_FALSE(b);
  EXPECT_EQ(moved.use_count(), 6);
}

TEST(SharedPtr, EnableSharedFromThis) {
  auto p = dstd::make_shared<self_aware>();
  auto again = p->shared_from_this();
  EXPECT_EQ(again, p);
  EXPECT_EQ(p.use_count(), 2);
  EXPECT_EQ(p->weak_from_this().lock(), p);
  const self_aware& c = *p;
  dstd::shared_ptr<const self_aware> cp = c.shared_from_this();
  EXPECT_EQ(cp.get(), p.get());

  dstd::shared_ptr<self_aware> adopted(new self_aware);
  EXPECT_EQ(adopted->shared_from_this().use_count(), 2);

  self_aware unowned;
  EXPECT_THROW(unowned.shared_from_this(), std::bad_weak_ptr);
  EXPECT_TRUE(unowned.weak_from_this().expired());
}

TEST(SharedPtr, ArraysDeleteEveryElement) {
  const int before = destroyed.load();
  {
    dstd::shared_ptr<counted_element[]> a(new counted_element[5]);
    dstd::shared_ptr<counted_element[]> b = a;
  }
  EXPECT_EQ(destroyed.load(), before + 5);
  auto zeros = dstd::make_shared<int[]>(4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(zeros[i], 0);
  auto fixed = dstd::make_shared<int[3]>();
  fixed[2] = 8;
  dstd::shared_ptr<int[]> unbounded = fixed;
  EXPECT_EQ(unbounded[2], 8);
  auto raw = dstd::make_shared_for_overwrite<int[]>(2);
  raw[1] = 1;
  EXPECT_EQ(raw[1], 1);
  auto one = dstd::make_shared_for_overwrite<int>();
  *one = 2;
  EXPECT_EQ(*one, 2);
}

TEST(SharedPtr, ComparisonsHashAndPrinting) {
  auto a = dstd::make_shared<int>(1);
  auto b = dstd::make_shared<int>(2);
  dstd::shared_ptr<int> none;
  EXPECT_TRUE(a == a);
  EXPECT_TRUE(a != b);
  EXPECT_EQ(a <=> b, std::compare_three_way()(a.get(), b.get()));
  EXPECT_EQ(a < b, std::less<int*>()(a.get(), b.get()));
  EXPECT_TRUE(none == nullptr);
  EXPECT_TRUE(nullptr == none);
  EXPECT_TRUE(a != nullptr);
  EXPECT_TRUE(a > nullptr);
  EXPECT_TRUE(nullptr < a);
  EXPECT_EQ(std::hash<dstd::shared_ptr<int>>()(a), std::hash<int*>()(a.get()));
  std::unordered_set<dstd::shared_ptr<int>> set{a, a, b};
  EXPECT_EQ(set.size(), 2u);
  std::ostringstream printed, expected;
  printed << a;
  expected << a.get();
  EXPECT_EQ(printed.str(), expected.str());
}

// --- Across nodes ---------------------------------------------------------

constexpr unsigned threads_per_node = 2;
constexpr unsigned nodes_used = 4;  // wraps onto fewer nodes

// An object every thread writes its own slot of before dropping its last
// owner; the destructor (on whichever node drops last) checks it sees all
// of them: each drop released, the last one acquired.
struct shared_object {
  explicit shared_object(dstd::atomic<int>* d, dstd::atomic<int>* b) : destroyed(d), bad(b) {}
  ~shared_object() {
    for (unsigned t = 0; t < nodes_used * threads_per_node; ++t) {
      if (slot[t] != t + 1) bad->fetch_add(1);
    }
    destroyed->fetch_add(1);
  }
  unsigned slot[nodes_used * threads_per_node] = {};
  dstd::atomic<int>* destroyed;
  dstd::atomic<int>* bad;
};

TEST(SharedPtrAcrossNodes, CopiesMovesAndDropsDestroyEachObjectOnceAfterAllWrites) {
  constexpr int objects = 24;
  constexpr int rounds = 3;
  for (int round = 0; round < rounds; ++round) {
    std::vector<dstd::atomic<int>> destroyed_count(objects);
    dstd::atomic<int> bad{0};
    std::vector<dstd::shared_ptr<shared_object>> all;
    for (int i = 0; i < objects; ++i) {
      all.push_back(dstd::make_shared<shared_object>(&destroyed_count[i], &bad));
    }
    std::vector<dstd::thread> threads;
    for (unsigned n = 0; n < nodes_used; ++n) {
      for (unsigned k = 0; k < threads_per_node; ++k) {
        const unsigned me = n * threads_per_node + k;
        // Each thread gets its own copies (made here, on node 0).
        std::vector<dstd::shared_ptr<shared_object>> mine(all.begin(), all.end());
        threads.push_back(dstd::spawn_on(n % dstd::node_count(), [me, round,
                                                                   mine = std::move(mine)]() mutable {
          std::mt19937 rng(me * 7919u + static_cast<unsigned>(round));
          std::vector<dstd::shared_ptr<shared_object>> extra;
          for (int step = 0; step < 200; ++step) {
            auto& from = mine[rng() % mine.size()];
            switch (rng() % 3) {
              case 0:
                extra.push_back(from);  // a copy
                break;
              case 1:
                if (!extra.empty()) {  // a move
                  dstd::shared_ptr<shared_object> moved = std::move(extra.back());
                  extra.pop_back();
                  extra.insert(extra.begin() + static_cast<long>(rng() % (extra.size() + 1)),
                               std::move(moved));
                }
                break;
              default:
                if (!extra.empty()) extra.erase(extra.begin() + static_cast<long>(rng() % extra.size()));
                break;
            }
          }
          for (auto& p : mine) p->slot[me] = me + 1;
          // Drop everything in a random order.
          for (auto& p : extra) mine.push_back(std::move(p));
          extra.clear();
          std::shuffle(mine.begin(), mine.end(), rng);
          while (!mine.empty()) mine.pop_back();
        }));
      }
    }
    all.clear();  // node 0's owners go while the threads run
    for (auto& t : threads) t.join();
    for (int i = 0; i < objects; ++i) EXPECT_EQ(destroyed_count[i].load(), 1) << "object " << i;
    EXPECT_EQ(bad.load(), 0) << "a destructor missed writes made before a drop";
  }
}

// weak_ptr::lock races with the last drop: it gets the live object or
// nothing, never one whose destruction has begun, and no object is
// destroyed twice (a lock that revived a dead count would destroy again).
struct watched {
  explicit watched(dstd::atomic<int>* d) : destroyed(d) {}
  ~watched() { destroyed->fetch_add(1); }
  int alive = 12345;
  dstd::atomic<int>* destroyed;
};

TEST(SharedPtrAcrossNodes, WeakLockRacingWithTheLastDropNeverDangles) {
  constexpr int rounds = 40;
  dstd::atomic<int> saw_dead{0};
  dstd::atomic<long> locked_total{0};
  for (int round = 0; round < rounds; ++round) {
    dstd::atomic<int> destroyed_here{0};
    auto owner = dstd::make_shared<watched>(&destroyed_here);
    dstd::weak_ptr<watched> w = owner;
    dstd::atomic<int> started{0};
    std::vector<dstd::thread> lockers;
    for (unsigned n = 0; n < nodes_used; ++n) {
      for (unsigned k = 0; k < threads_per_node; ++k) {
        lockers.push_back(dstd::spawn_on(n % dstd::node_count(), [&, w] {
          started.fetch_add(1);
          long locked = 0;
          // Bounded: lockers that kept an owner between them would keep the
          // object alive for ever.
          for (int attempt = 0; attempt < 300; ++attempt) {
            auto s = w.lock();
            if (!s) break;
            ++locked;
            if (destroyed_here.load() != 0 || s->alive != 12345) saw_dead.fetch_add(1);
          }
          locked_total.fetch_add(locked);
        }));
      }
    }
    while (started.load() < static_cast<int>(lockers.size())) dstd::this_thread::yield();
    owner.reset();  // the last drop may now happen here or in any locker
    for (auto& t : lockers) t.join();
    EXPECT_EQ(destroyed_here.load(), 1);
    EXPECT_TRUE(w.expired());
  }
  EXPECT_EQ(saw_dead.load(), 0);
}

}  // namespace
