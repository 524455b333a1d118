// dstd::allocate_shared, make_shared and their _for_overwrite forms, for
// objects and arrays, at 1, 2 and 4 nodes: one allocation from the
// allocator (rebound), the elements built through it and destroyed in
// reverse, the block freed with the copy it keeps, on whichever node drops
// last; what a construction that throws leaves behind; and the shared_ptr
// constructors that take an allocator for the control block.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <dstd/atomic>
#include <dstd/dstd.hpp>
#include <dstd/memory>
#include <dstd/thread>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/memory/counted.hpp"

namespace {

using memory_test::counted_element;
using memory_test::destroyed;

// What a counting allocator saw; in static data (homed at node 0), so a
// node that frees a block counts where every node reads.
struct allocator_log {
  dstd::atomic<long> allocations{0};
  dstd::atomic<long> deallocations{0};
  dstd::atomic<long> bytes_allocated{0};
  dstd::atomic<long> bytes_deallocated{0};
  dstd::atomic<long> constructs{0};
  dstd::atomic<long> destroys{0};
  dstd::atomic<int> wrong_copy{0};  // freed with an allocator that did not allocate

  void reset() {
    for (auto* c : {&allocations, &deallocations, &bytes_allocated, &bytes_deallocated,
                    &constructs, &destroys}) {
      c->store(0);
    }
    wrong_copy.store(0);
  }
};
allocator_log alloc_log;

// A stateful allocator (its id travels with its copies and rebinds) that
// counts what it is asked to do.
template <class T>
struct counting_allocator {
  using value_type = T;
  int id;

  explicit counting_allocator(int i) noexcept : id(i) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& o) noexcept : id(o.id) {}

  T* allocate(std::size_t n) {
    alloc_log.allocations.fetch_add(1);
    alloc_log.bytes_allocated.fetch_add(static_cast<long>(n * sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    alloc_log.deallocations.fetch_add(1);
    alloc_log.bytes_deallocated.fetch_add(static_cast<long>(n * sizeof(T)));
    if (id != expected_id) alloc_log.wrong_copy.fetch_add(1);
    ::operator delete(p, std::align_val_t(alignof(T)));
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    alloc_log.constructs.fetch_add(1);
  }
  template <class U>
  void destroy(U* p) noexcept {
    alloc_log.destroys.fetch_add(1);
    p->~U();
  }
  template <class U>
  bool operator==(const counting_allocator<U>& o) const noexcept {
    return id == o.id;
  }

  static constexpr int expected_id = 42;
};

// Elements that record the order they are destroyed in.
struct ordered {
  static inline dstd::atomic<int> next_slot{0};
  static inline int destroyed_in_order[16];
  int value = 0;
  ordered() = default;
  explicit ordered(int v) : value(v) {}
  ordered(const ordered&) = default;
  ~ordered() { destroyed_in_order[next_slot.fetch_add(1)] = value; }
};

// Throws on the third construction.
struct fragile {
  static inline int built = 0;
  fragile() {
    if (built == 2) throw std::runtime_error("third");
    ++built;
  }
  ~fragile() { destroyed.fetch_add(1); }
};

struct alignas(64) wide {
  char bytes[64];
};

const counting_allocator<char> the_allocator(counting_allocator<char>::expected_id);

void expect_balanced() {
  EXPECT_EQ(alloc_log.allocations.load(), alloc_log.deallocations.load());
  EXPECT_EQ(alloc_log.bytes_allocated.load(), alloc_log.bytes_deallocated.load());
  EXPECT_EQ(alloc_log.constructs.load(), alloc_log.destroys.load());
  EXPECT_EQ(alloc_log.wrong_copy.load(), 0);
}

TEST(AllocateShared, OneAllocationFreedWhenTheLastWatcherGoes) {
  alloc_log.reset();
  const int before = destroyed.load();
  dstd::weak_ptr<counted_element> w;
  {
    auto p = dstd::allocate_shared<counted_element>(the_allocator);
    EXPECT_EQ(p->value, 7);
    EXPECT_EQ(p.use_count(), 1);
    EXPECT_EQ(alloc_log.allocations.load(), 1);
    EXPECT_GE(alloc_log.bytes_allocated.load(), static_cast<long>(sizeof(counted_element)));
    EXPECT_EQ(alloc_log.constructs.load(), 1);  // through the allocator
    w = p;
    auto q = p;
  }
  EXPECT_EQ(destroyed.load(), before + 1);
  EXPECT_EQ(alloc_log.destroys.load(), 1);
  EXPECT_EQ(alloc_log.deallocations.load(), 0);  // the weak_ptr keeps the block
  EXPECT_TRUE(w.expired());
  w.reset();
  expect_balanced();
}

TEST(AllocateShared, PassesTheArgumentsAndSharesFromThis) {
  struct pair_like : dstd::enable_shared_from_this<pair_like> {
    pair_like(int a, std::vector<int> b) : first(a), second(std::move(b)) {}
    int first;
    std::vector<int> second;
  };
  alloc_log.reset();
  {
    auto p = dstd::allocate_shared<pair_like>(the_allocator, 3, std::vector<int>{1, 2});
    EXPECT_EQ(p->first, 3);
    EXPECT_EQ(p->second.size(), 2u);
    EXPECT_EQ(p->shared_from_this(), p);
    auto c = dstd::allocate_shared<const int>(the_allocator, 5);
    EXPECT_EQ(*c, 5);
  }
  expect_balanced();
}

TEST(AllocateShared, ForOverwriteSkipsTheAllocatorsConstruct) {
  alloc_log.reset();
  const int before = destroyed.load();
  {
    auto p = dstd::allocate_shared_for_overwrite<counted_element>(the_allocator);
    EXPECT_EQ(p->value, 7);  // a default-initialized class still runs its constructor
    auto a = dstd::allocate_shared_for_overwrite<counted_element[]>(the_allocator, 3);
    auto b = dstd::allocate_shared_for_overwrite<counted_element[2]>(the_allocator);
    EXPECT_EQ(alloc_log.allocations.load(), 3);
  }
  EXPECT_EQ(destroyed.load(), before + 6);
  EXPECT_EQ(alloc_log.constructs.load(), 0);
  EXPECT_EQ(alloc_log.destroys.load(), 0);
  expect_balanced();
}

TEST(AllocateShared, ArraysAreOneAllocationBuiltUpAndDestroyedDown) {
  alloc_log.reset();
  ordered::next_slot.store(0);
  {
    const ordered five(5);
    auto a = dstd::allocate_shared<ordered[]>(the_allocator, 4, five);
    EXPECT_EQ(alloc_log.allocations.load(), 1);
    EXPECT_EQ(alloc_log.constructs.load(), 4);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(a[i].value, 5);
      a[i].value = i;  // so the order of destruction shows
    }
  }
  EXPECT_EQ(ordered::next_slot.load(), 5);  // and `five`, last
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ordered::destroyed_in_order[i], 3 - i);
  expect_balanced();

  alloc_log.reset();
  {
    auto zeros = dstd::allocate_shared<int[]>(the_allocator, 1000);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(zeros[i], 0);
    auto fixed = dstd::allocate_shared<long[3]>(the_allocator, 9L);
    EXPECT_EQ(fixed[0] + fixed[1] + fixed[2], 27);
    auto none = dstd::allocate_shared<int[]>(the_allocator, 0);
    EXPECT_EQ(alloc_log.allocations.load(), 3);
  }
  expect_balanced();
}

TEST(AllocateShared, MultidimensionalArraysCopyTheValueIntoEachElement) {
  alloc_log.reset();
  {
    auto grid = dstd::allocate_shared<int[][2]>(the_allocator, 3, {1, 2});
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(grid[i][0], 1);
      EXPECT_EQ(grid[i][1], 2);
    }
    EXPECT_EQ(alloc_log.constructs.load(), 6);  // each innermost element
    auto cube = dstd::make_shared<int[2][2][2]>({{1, 2}, {3, 4}});
    EXPECT_EQ(cube[1][1][0], 3);
    EXPECT_EQ(cube[0][0][1], 2);
    EXPECT_EQ(cube[1][1][1], 4);
    auto zeros = dstd::make_shared<int[][3]>(2);
    EXPECT_EQ(zeros[1][2], 0);
  }
  expect_balanced();
}

TEST(MakeShared, ArraysWithAValue) {
  const int before = destroyed.load();
  {
    counted_element e;
    e.value = 11;
    auto a = dstd::make_shared<counted_element[]>(3, e);
    auto b = dstd::make_shared<counted_element[4]>(e);
    EXPECT_EQ(a[2].value, 11);
    EXPECT_EQ(b[3].value, 11);
    auto s = dstd::make_shared<std::vector<int>[]>(2, std::vector<int>{4, 5, 6});
    EXPECT_EQ(s[1][2], 6);
  }
  EXPECT_EQ(destroyed.load(), before + 1 + 3 + 4);
}

TEST(MakeShared, OverAlignedObjectsAndElements) {
  auto one = dstd::make_shared<wide>();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(one.get()) % 64, 0u);
  auto many = dstd::make_shared<wide[]>(3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(many.get()) % 64, 0u);
  auto counted = dstd::allocate_shared<wide[2]>(the_allocator);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(counted.get()) % 64, 0u);
}

TEST(AllocateShared, AThrowingElementUndoesTheOthersAndTheAllocation) {
  alloc_log.reset();
  const int before = destroyed.load();
  fragile::built = 0;
  EXPECT_THROW(dstd::allocate_shared<fragile[]>(the_allocator, 5), std::runtime_error);
  EXPECT_EQ(destroyed.load(), before + 2);
  EXPECT_EQ(alloc_log.constructs.load(), 2);  // the third threw inside construct
  EXPECT_EQ(alloc_log.destroys.load(), 2);
  EXPECT_EQ(alloc_log.allocations.load(), 1);
  EXPECT_EQ(alloc_log.deallocations.load(), 1);
  fragile::built = 2;
  EXPECT_THROW(dstd::allocate_shared<fragile>(the_allocator), std::runtime_error);
  EXPECT_EQ(alloc_log.deallocations.load(), 2);
  fragile::built = 0;
  EXPECT_THROW(dstd::make_shared<fragile[4]>(), std::runtime_error);
  EXPECT_EQ(destroyed.load(), before + 4);
  EXPECT_THROW(dstd::make_shared<int[]>(SIZE_MAX / 2), std::bad_array_new_length);
}

// An allocator with no memory: allocate throws.
template <class T>
struct empty_allocator {
  using value_type = T;
  empty_allocator() = default;
  template <class U>
  empty_allocator(const empty_allocator<U>&) noexcept {}
  T* allocate(std::size_t) { throw std::bad_alloc(); }
  void deallocate(T*, std::size_t) noexcept {}
  template <class U>
  bool operator==(const empty_allocator<U>&) const noexcept {
    return true;
  }
};

struct counting_deleter {
  int* calls;
  void operator()(counted_element* p) const {
    ++*calls;
    delete p;
  }
  void operator()(std::nullptr_t) const { ++*calls; }
};

TEST(SharedPtrWithAllocator, TheBlockComesFromTheAllocatorAndGoesBackToIt) {
  alloc_log.reset();
  const int before = destroyed.load();
  int calls = 0;
  {
    dstd::shared_ptr<counted_element> p(new counted_element, counting_deleter{&calls},
                                        the_allocator);
    EXPECT_EQ(alloc_log.allocations.load(), 1);
    ASSERT_NE(dstd::get_deleter<counting_deleter>(p), nullptr);
    auto q = p;
    dstd::weak_ptr<counted_element> w = q;
    p.reset();
    q.reset(new counted_element, counting_deleter{&calls}, the_allocator);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(alloc_log.deallocations.load(), 0);  // w keeps the first block
    w.reset();
    EXPECT_EQ(alloc_log.deallocations.load(), 1);
    dstd::shared_ptr<counted_element> none(nullptr, counting_deleter{&calls}, the_allocator);
    EXPECT_EQ(none.use_count(), 1);
  }
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(destroyed.load(), before + 2);
  EXPECT_EQ(alloc_log.allocations.load(), 3);
  EXPECT_EQ(alloc_log.constructs.load(), 0);  // a block is not an element
  expect_balanced();
}

TEST(SharedPtrWithAllocator, NoMemoryForTheBlockDeletesTheObject) {
  const int before = destroyed.load();
  int calls = 0;
  EXPECT_THROW(dstd::shared_ptr<counted_element>(new counted_element, counting_deleter{&calls},
                                                 empty_allocator<int>()),
               std::bad_alloc);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(destroyed.load(), before + 1);
  EXPECT_THROW(dstd::allocate_shared<counted_element>(empty_allocator<int>()), std::bad_alloc);
  EXPECT_EQ(destroyed.load(), before + 1);  // never built
}

// The last owner may be on another node: the block is freed there, with
// the allocator copy it kept.
TEST(AllocateSharedAcrossNodes, TheLastDropOnAnotherNodeFreesWithTheKeptAllocator) {
  alloc_log.reset();
  const int before = destroyed.load();
  {
    auto object = dstd::allocate_shared<counted_element>(the_allocator);
    auto array = dstd::allocate_shared<counted_element[]>(the_allocator, 5);
    dstd::weak_ptr<counted_element> w = object;
    dstd::atomic<int> wrong{0};
    std::vector<dstd::thread> droppers;
    for (dstd::node_id n = 0; n < dstd::node_count(); ++n) {
      droppers.push_back(dstd::spawn_on(n, [object, array, w, &wrong]() mutable {
        if (object->value != 7 || array[4].value != 7) wrong.fetch_add(1);
        object.reset();
        array.reset();
        w.reset();
      }));
    }
    object.reset();
    array.reset();
    w.reset();
    for (auto& t : droppers) t.join();
    EXPECT_EQ(wrong.load(), 0);
  }
  EXPECT_EQ(destroyed.load(), before + 6);
  expect_balanced();
  EXPECT_EQ(alloc_log.allocations.load(), 2);
}

}  // namespace
