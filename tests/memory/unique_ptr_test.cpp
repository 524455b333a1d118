// dstd::unique_ptr, default_delete and make_unique, at 1, 2 and 4 nodes:
// std's interface as a program relies on it (checked at compile time and
// run time), and an owner moved to a thread on another node that uses and
// destroys the object there.
#include <gtest/gtest.h>

#include <compare>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <functional>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "tests/memory/counted.hpp"

namespace {

using memory_test::base;
using memory_test::counted_element;
using memory_test::derived;
using memory_test::destroyed;

// A deleter with state: counts its calls in itself.
struct counting_deleter {
  int calls = 0;
  int tag = 0;
  void operator()(base* p) {
    ++calls;
    delete p;
  }
};

// A deleter with its own pointer type.
struct handle_deleter {
  using pointer = std::intptr_t*;
  void operator()(std::intptr_t* p) const { delete p; }
};

using up = dstd::unique_ptr<int>;

// Compile-time: move-only, the sizes and types std has.
static_assert(!std::is_copy_constructible_v<up>);
static_assert(!std::is_copy_assignable_v<up>);
static_assert(std::is_nothrow_move_constructible_v<up>);
static_assert(std::is_nothrow_move_assignable_v<up>);
static_assert(sizeof(up) == sizeof(int*));
static_assert(sizeof(dstd::unique_ptr<int[]>) == sizeof(int*));
static_assert(std::is_same_v<up::pointer, int*>);
static_assert(std::is_same_v<up::element_type, int>);
static_assert(std::is_same_v<up::deleter_type, dstd::default_delete<int>>);
static_assert(std::is_same_v<dstd::unique_ptr<int, handle_deleter>::pointer, std::intptr_t*>);
// Derived -> base converts; the reverse and array <-> object do not.
static_assert(std::is_convertible_v<dstd::unique_ptr<derived>&&, dstd::unique_ptr<base>>);
static_assert(!std::is_convertible_v<dstd::unique_ptr<base>&&, dstd::unique_ptr<derived>>);
static_assert(!std::is_constructible_v<dstd::unique_ptr<base[]>, dstd::unique_ptr<derived[]>&&>);
static_assert(!std::is_constructible_v<dstd::unique_ptr<int>, dstd::unique_ptr<int[]>&&>);
static_assert(std::is_constructible_v<dstd::unique_ptr<const int[]>, dstd::unique_ptr<int[]>&&>);
// Adopting a raw pointer is explicit; nullptr converts.
static_assert(!std::is_convertible_v<int*, up>);
static_assert(std::is_convertible_v<std::nullptr_t, up>);
static_assert(!std::is_constructible_v<dstd::unique_ptr<base[]>, derived*>);
// A pointer or reference deleter has no default; a reference deleter does
// not bind a temporary.
static_assert(!std::is_default_constructible_v<dstd::unique_ptr<int, void (*)(int*)>>);
static_assert(!std::is_default_constructible_v<dstd::unique_ptr<base, counting_deleter&>>);
static_assert(!std::is_constructible_v<dstd::unique_ptr<base, counting_deleter&>, base*,
                                       counting_deleter&&>);
static_assert(!std::is_constructible_v<dstd::unique_ptr<base, const counting_deleter&>, base*,
                                       const counting_deleter&&>);
static_assert(std::is_nothrow_constructible_v<dstd::unique_ptr<base, counting_deleter>, base*,
                                              counting_deleter>);
// Known-bound arrays cannot be made.
template <class T>
concept makeable = requires { dstd::make_unique<T>(); };
static_assert(makeable<int>);
static_assert(!makeable<int[3]>);

TEST(UniquePtr, OwnsAndDeletesExactlyOnce) {
  const int before = destroyed.load();
  {
    dstd::unique_ptr<base> p(new base);
    EXPECT_TRUE(p);
    EXPECT_EQ(p->value, 1);
    (*p).value = 2;
    EXPECT_EQ(p.get()->value, 2);
    dstd::unique_ptr<base> q(std::move(p));
    EXPECT_FALSE(p);
    EXPECT_EQ(p.get(), nullptr);
    EXPECT_EQ(q->value, 2);
    p = std::move(q);
    EXPECT_FALSE(q);
    EXPECT_EQ(destroyed.load(), before);
  }
  EXPECT_EQ(destroyed.load(), before + 1);
}

TEST(UniquePtr, ReleaseResetSwap) {
  const int before = destroyed.load();
  dstd::unique_ptr<base> p(new base);
  base* raw = p.release();
  EXPECT_FALSE(p);
  EXPECT_EQ(destroyed.load(), before);
  p.reset(raw);
  EXPECT_EQ(p.get(), raw);
  p.reset(new base);  // deletes raw
  EXPECT_EQ(destroyed.load(), before + 1);
  dstd::unique_ptr<base> q;
  swap(p, q);
  EXPECT_FALSE(p);
  EXPECT_TRUE(q);
  q.swap(p);
  EXPECT_TRUE(p);
  p = nullptr;
  EXPECT_EQ(destroyed.load(), before + 2);
  p.reset();
  EXPECT_EQ(destroyed.load(), before + 2);
}

TEST(UniquePtr, DerivedConvertsToBaseAndDeletesThroughIt) {
  const int before = destroyed.load();
  dstd::unique_ptr<derived> d = dstd::make_unique<derived>(5);
  dstd::unique_ptr<base> b(std::move(d));
  EXPECT_EQ(b->value, 5);
  b = dstd::make_unique<derived>(6);
  EXPECT_EQ(destroyed.load(), before + 1);
  EXPECT_EQ(b->value, 6);
  b.reset();
  EXPECT_EQ(destroyed.load(), before + 2);
}

TEST(UniquePtr, ArraysUseDeleteArray) {
  const int before = destroyed.load();
  {
    dstd::unique_ptr<counted_element[]> a(new counted_element[4]);
    EXPECT_EQ(a[3].value, 7);
    a[2].value = 9;
    EXPECT_EQ(a.get()[2].value, 9);
  }
  EXPECT_EQ(destroyed.load(), before + 4);
  auto zeroed = dstd::make_unique<int[]>(5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(zeroed[i], 0);
  auto raw = dstd::make_unique_for_overwrite<int[]>(3);
  raw[0] = 4;
  EXPECT_EQ(raw[0], 4);
  dstd::unique_ptr<const int[]> readonly(std::move(zeroed));
  EXPECT_EQ(readonly[4], 0);
  auto one = dstd::make_unique_for_overwrite<int>();
  *one = 3;
  EXPECT_EQ(*one, 3);
}

TEST(UniquePtr, CustomDeleterKeepsItsStateAndRunsOnce) {
  dstd::unique_ptr<base, counting_deleter> p(new base, counting_deleter{0, 42});
  EXPECT_EQ(p.get_deleter().tag, 42);
  dstd::unique_ptr<base, counting_deleter> q(std::move(p));
  EXPECT_EQ(q.get_deleter().tag, 42);
  q.reset();
  EXPECT_EQ(q.get_deleter().calls, 1);
  q.reset();
  EXPECT_EQ(q.get_deleter().calls, 1);  // nothing owned: not called
}

TEST(UniquePtr, ReferenceDeleterIsTheCallersObject) {
  counting_deleter d{0, 7};
  {
    dstd::unique_ptr<base, counting_deleter&> p(new base, d);
    EXPECT_EQ(&p.get_deleter(), &d);
    dstd::unique_ptr<base, counting_deleter&> q(std::move(p));
    EXPECT_EQ(&q.get_deleter(), &d);
  }
  EXPECT_EQ(d.calls, 1);
}

void free_int(int* p) { delete p; }

TEST(UniquePtr, FunctionPointerDeleterAndFancyPointer) {
  dstd::unique_ptr<int, void (*)(int*)> p(new int(4), &free_int);
  EXPECT_EQ(*p, 4);
  EXPECT_EQ(p.get_deleter(), &free_int);
  dstd::unique_ptr<int, handle_deleter> h(new std::intptr_t(11));
  EXPECT_EQ(*h.get(), 11);
}

TEST(UniquePtr, ComparisonsHashAndPrinting) {
  auto a = dstd::make_unique<int>(1);
  auto b = dstd::make_unique<int>(2);
  dstd::unique_ptr<int> none;
  EXPECT_TRUE(a == a);
  EXPECT_TRUE(a != b);
  EXPECT_EQ(a < b, std::less<int*>()(a.get(), b.get()));
  EXPECT_EQ(a > b, b < a);
  EXPECT_EQ(a <= b, !(b < a));
  EXPECT_EQ(a >= b, !(a < b));
  EXPECT_EQ(a <=> b, std::compare_three_way()(a.get(), b.get()));
  EXPECT_TRUE(none == nullptr);
  EXPECT_TRUE(nullptr == none);
  EXPECT_TRUE(a != nullptr);
  EXPECT_TRUE(nullptr < a);
  EXPECT_FALSE(a < nullptr);
  EXPECT_TRUE(a > nullptr);
  EXPECT_TRUE(none <= nullptr);
  EXPECT_TRUE(nullptr >= none);
  EXPECT_TRUE((none <=> nullptr) == 0);
  EXPECT_TRUE((a <=> nullptr) > 0);

  EXPECT_EQ(std::hash<dstd::unique_ptr<int>>()(a), std::hash<int*>()(a.get()));
  std::unordered_set<dstd::unique_ptr<int>> set;
  set.insert(std::move(a));
  EXPECT_EQ(set.size(), 1u);

  std::ostringstream printed, expected;
  printed << b;
  expected << b.get();
  EXPECT_EQ(printed.str(), expected.str());
}

// An owner made on node 0 moves into a thread on another node, which reads,
// changes and destroys the object there; the thread it came from sees the
// change through join and the destruction through the counter.
TEST(UniquePtr, OwnerMovesToAThreadOnAnotherNode) {
  const dstd::node_id there = dstd::node_count() - 1;
  const int before = destroyed.load();
  auto p = dstd::make_unique<derived>(40);
  int seen = 0;
  dstd::node_id ran_on = 0;
  dstd::spawn_on(
      there,
      [&seen, &ran_on](dstd::unique_ptr<derived> mine) {
        ran_on = dstd::this_node();
        seen = mine->value;
        mine->value += 2;
        mine.reset();
      },
      std::move(p))
      .join();
  EXPECT_FALSE(p);
  EXPECT_EQ(ran_on, there);
  EXPECT_EQ(seen, 40);
  EXPECT_EQ(destroyed.load(), before + 1);

  // A custom deleter's state travels with the owner; the object outlives
  // the thread when the owner comes back.
  dstd::unique_ptr<base, counting_deleter> q(new base, counting_deleter{0, 9});
  dstd::unique_ptr<base, counting_deleter> back;
  dstd::spawn_on(there, [&back, &q] {
    dstd::unique_ptr<base, counting_deleter> taken(std::move(q));
    taken->value = 77;
    back = std::move(taken);
  }).join();
  EXPECT_FALSE(q);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->value, 77);
  EXPECT_EQ(back.get_deleter().tag, 9);
  back.reset();
  EXPECT_EQ(back.get_deleter().calls, 1);
  EXPECT_EQ(destroyed.load(), before + 2);
}

}  // namespace
