// dstd::tbox and make_tbox at 1, 2 and 4 nodes: unique_ptr's interface; a
// list built on node 0 and walked from the last node fetches whole groups
// (far fewer fetches than the same list of unique_ptrs); a tbox moved into
// an object homed on another node takes its pointee (and the tboxes inside
// it) there; types that cannot move safely stay.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <dstd/atomic>
#include <dstd/channel>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <functional>
#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include "examples/linked_list.hpp"
#include "tests/memory/counted.hpp"

namespace {

using memory_test::base;
using memory_test::derived;
using memory_test::destroyed;

using tb = dstd::tbox<int>;

// A tbox is a unique_ptr: move-only, one pointer, std's member types.
static_assert(std::is_base_of_v<dstd::unique_ptr<int>, tb>);
static_assert(!std::is_copy_constructible_v<tb> && !std::is_copy_assignable_v<tb>);
static_assert(std::is_nothrow_move_constructible_v<tb> && std::is_nothrow_move_assignable_v<tb>);
static_assert(sizeof(tb) == sizeof(int*));
static_assert(std::is_same_v<tb::pointer, int*> && std::is_same_v<tb::element_type, int>);
static_assert(std::is_convertible_v<dstd::tbox<derived>&&, dstd::tbox<base>>);
static_assert(!std::is_convertible_v<dstd::tbox<base>&&, dstd::tbox<derived>>);
static_assert(!std::is_convertible_v<int*, tb>);
static_assert(std::is_convertible_v<std::nullptr_t, tb>);

TEST(Tbox, OwnsLikeUniquePtr) {
  const int before = destroyed.load();
  {
    dstd::tbox<base> b = dstd::make_tbox<derived>(5);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->value, 5);
    EXPECT_EQ(static_cast<derived&>(*b).extra, 3);
    dstd::tbox<base> c = std::move(b);
    EXPECT_FALSE(b);
    EXPECT_EQ(c->value, 5);
    c = nullptr;
    EXPECT_EQ(destroyed.load(), before + 1);
    c = dstd::make_tbox<base>();
    c.reset(new derived(8));  // adopts a plain new
    EXPECT_EQ(c->value, 8);
    EXPECT_EQ(destroyed.load(), before + 2);
  }
  EXPECT_EQ(destroyed.load(), before + 3);

  // release() hands over a pointer that delete frees, made by make_tbox or not.
  base* raw = dstd::make_tbox<base>().release();
  delete raw;
  EXPECT_EQ(destroyed.load(), before + 4);

  auto x = dstd::make_tbox<int>(1), y = dstd::make_tbox<int>(2);
  int* px = x.get();
  swap(x, y);
  EXPECT_EQ(*x, 2);
  EXPECT_EQ(y.get(), px);
  EXPECT_NE(x, y);
  EXPECT_EQ(x < y, std::less<int*>()(x.get(), y.get()));
  EXPECT_EQ(x <=> x, std::strong_ordering::equal);
  EXPECT_TRUE(tb() == nullptr);
  EXPECT_EQ(std::hash<tb>()(x), std::hash<int*>()(x.get()));
  std::ostringstream printed, expected;
  printed << x;
  expected << x.get();
  EXPECT_EQ(printed.str(), expected.str());
  EXPECT_EQ(*dstd::make_tbox_for_overwrite<int>() = 4, 4);

  struct alignas(256) aligned {
    int v = 9;
  };
  auto a = dstd::make_tbox<aligned>();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.get()) % 256, 0u);
  EXPECT_EQ(a->v, 9);
}

TEST(Tbox, ConstructorThatThrowsLeaksNothingAndPropagates) {
  struct throws {
    throws() { throw 7; }
  };
  EXPECT_THROW(dstd::make_tbox<throws>(), int);
  // The room was returned: the next object takes memory as usual.
  EXPECT_EQ(*dstd::make_tbox<int>(3), 3);
}

// A pointee has no malloc size: realloc and malloc_usable_size of one end
// the program with a message that says why, not a wrong size.
TEST(TboxDeathTest, ReallocOrUsableSizeOfAPointeeIsAClearError) {
  auto b = dstd::make_tbox<long>(1);
  void* volatile pointee = b.get();  // as a C library would get it, unseen by the compiler
  EXPECT_DEATH(std::free(std::realloc(pointee, 64)), "realloc of 0x[0-9a-f]+, a dstd::tbox pointee");
  EXPECT_DEATH((void)malloc_usable_size(pointee), "malloc_usable_size of .*, a dstd::tbox pointee");
}

// --- Groups: DRust's Listing 3, a list built on node 0 and summed elsewhere

template <template <class> class Box>
using list_node = linked_list::element<Box>;

struct walk_result {
  long sum = 0;
  std::uint64_t fetches = 0;
  std::uint64_t pages = 0;
};

// Sums the list from a thread on the last node, counting that node's fetches.
template <template <class> class Box>
walk_result sum_on_last_node(const Box<list_node<Box>>& head) {
  walk_result r;
  dstd::spawn_on(dstd::node_count() - 1, [&r, &head] {
    const dstd::node_stats before = dstd::stats();
    long sum = 0;
    for (const list_node<Box>* n = head.get(); n != nullptr; n = n->next.get()) sum += n->value;
    const dstd::node_stats after = dstd::stats();
    r = {sum, after.fetches - before.fetches, after.pages_fetched - before.pages_fetched};
  }).join();
  return r;
}

template <class T>
using unique_box = dstd::unique_ptr<T>;

TEST(TboxAcrossNodes, AListWalkedFromAnotherNodeIsFetchedInGroups) {
  constexpr long n = 20000;  // 16 bytes a node: about 80 pages
  auto boxes = linked_list::build<dstd::tbox>(n, [](long v) {
    return dstd::make_tbox<list_node<dstd::tbox>>(list_node<dstd::tbox>{v, nullptr});
  });
  auto uniques = linked_list::build<unique_box>(n, [](long v) {
    return dstd::make_unique<list_node<unique_box>>(list_node<unique_box>{v, nullptr});
  });
  const walk_result b = sum_on_last_node<dstd::tbox>(boxes);
  const walk_result u = sum_on_last_node<unique_box>(uniques);
  EXPECT_EQ(b.sum, n * (n + 1) / 2);
  EXPECT_EQ(u.sum, n * (n + 1) / 2);
  std::printf("tbox list: %llu fetches for %llu pages; unique_ptr list: %llu fetches\n",
              static_cast<unsigned long long>(b.fetches), static_cast<unsigned long long>(b.pages),
              static_cast<unsigned long long>(u.fetches));
  if (dstd::node_count() > 1) {
    const std::uint64_t list_pages = n * sizeof(list_node<dstd::tbox>) / 4096;
    // The tbox list comes a 64 KiB group (16 pages) per fetch. The
    // unique_ptr list, allocated in the order it is walked, comes through
    // readahead (up to 32 pages a fetch once the walk is under way; a page
    // a fetch before readahead).
    EXPECT_GE(b.pages, list_pages) << "every page of the tbox list was fetched";
    EXPECT_LE(b.fetches * 8, list_pages) << "tbox: " << b.fetches << " fetches for " << b.pages
                                         << " pages";
    EXPECT_LE(u.fetches * 4, list_pages) << "unique_ptr: " << u.fetches << " fetches for about "
                                         << list_pages << " pages";
  } else {
    EXPECT_EQ(b.fetches + u.fetches, 0u);
  }
  linked_list::destroy<dstd::tbox>(boxes);
  linked_list::destroy<unique_box>(uniques);
}

// --- The pointee lives where its tbox does -------------------------------

dstd::atomic<int> live_payloads{0};

struct payload {
  explicit payload(int v) : value(v) { live_payloads.fetch_add(1); }
  payload(payload&& o) noexcept : value(o.value), next(std::move(o.next)) {
    live_payloads.fetch_add(1);
  }
  ~payload() { live_payloads.fetch_sub(1); }
  int value;
  dstd::tbox<payload> next;
};

struct holder {
  dstd::tbox<payload> box;
  dstd::tbox<base> fixed;  // polymorphic, not final: never moved
};

TEST(TboxAcrossNodes, MovedIntoAnObjectHomedElsewhereThePointeeFollows) {
  const dstd::node_id there = dstd::node_count() > 1 ? 1 : 0;
  holder* far = nullptr;
  dstd::spawn_on(there, [&far] { far = new holder; }).join();
  ASSERT_EQ(dstd::home_of(far), there);

  const int before = live_payloads.load();
  auto chain = dstd::make_tbox<payload>(1);
  chain->next = dstd::make_tbox<payload>(2);
  chain->next->next = dstd::make_tbox<payload>(3);
  ASSERT_EQ(dstd::home_of(chain.get()), 0u);
  far->box = std::move(chain);
  far->fixed = dstd::make_tbox<derived>(6);

  // Every pointee of the chain now lives on `there`, with its value; the
  // moved-from copies are gone.
  int values[3] = {};
  dstd::node_id homes[3] = {};
  int i = 0;
  for (const payload* p = far->box.get(); p != nullptr && i < 3; p = p->next.get(), ++i) {
    values[i] = p->value;
    homes[i] = dstd::home_of(p);
  }
  EXPECT_EQ(i, 3);
  EXPECT_EQ(values[0] * 100 + values[1] * 10 + values[2], 123);
  for (dstd::node_id h : homes) EXPECT_EQ(h, there);
  EXPECT_EQ(live_payloads.load(), before + 3);
  EXPECT_EQ(dstd::home_of(far->fixed.get()), 0u) << "a polymorphic pointee stays put";

  // The node it moved to reads it there, and moving it back into a local
  // owner brings it back.
  int read_there = 0;
  dstd::spawn_on(there, [&read_there, far] { read_there = far->box->next->next->value; }).join();
  EXPECT_EQ(read_there, 3);
  dstd::tbox<payload> back = std::move(far->box);
  EXPECT_EQ(dstd::home_of(back.get()), 0u);
  EXPECT_EQ(back->next->next->value, 3);
  EXPECT_EQ(live_payloads.load(), before + 3);
  back.reset();
  EXPECT_EQ(live_payloads.load(), before);
  delete far;
}

// Stress: threads on every node build chains of tboxes and send them
// through channels to threads on other nodes. Each chain arrives whole, its
// elements moved into the receiver's node, and every element is destroyed
// exactly once (the live count returns to where it was).
TEST(TboxAcrossNodes, ChainsSentAroundTheNodesArriveWholeAndAreDestroyedOnce) {
  constexpr unsigned nodes_used = 4, chains = 40, length = 6;
  const int before = live_payloads.load();
  dstd::channel<dstd::tbox<payload>> inbox[nodes_used];
  dstd::atomic<int> bad{0};
  std::vector<dstd::thread> threads;
  for (unsigned n = 0; n < nodes_used; ++n) {
    const dstd::node_id here = n % dstd::node_count();
    threads.push_back(dstd::spawn_on(here, [&inbox, n] {
      dstd::channel<dstd::tbox<payload>>& to = inbox[(n + 1) % nodes_used];
      for (unsigned c = 0; c < chains; ++c) {
        const int first = static_cast<int>((n * chains + c) * 100);
        dstd::tbox<payload> chain;
        for (unsigned i = length; i-- > 0;) {
          auto e = dstd::make_tbox<payload>(first + static_cast<int>(i));
          e->next = std::move(chain);
          chain = std::move(e);
        }
        to.send(std::move(chain));
      }
    }));
    threads.push_back(dstd::spawn_on(here, [&inbox, &bad, n] {
      const unsigned from = (n + nodes_used - 1) % nodes_used;
      for (unsigned c = 0; c < chains; ++c) {
        dstd::tbox<payload> chain = *inbox[n].recv();
        const int first = static_cast<int>((from * chains + c) * 100);
        unsigned i = 0;
        for (const payload* p = chain.get(); p != nullptr; p = p->next.get(), ++i) {
          if (p->value != first + static_cast<int>(i) || dstd::home_of(p) != dstd::this_node()) {
            bad.fetch_add(1);
          }
        }
        if (i != length) bad.fetch_add(1);
      }
    }));
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(live_payloads.load(), before);
}

}  // namespace
