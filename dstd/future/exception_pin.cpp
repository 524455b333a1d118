// Keeps an exception that threads on several nodes hold alive for the rest
// of the run: <dstd/future>'s answer to libstdc++ counting an exception's
// references with CPU atomics (docs/DESIGN.md §5.7).
//
// The count is an int in the header just below the thrown object (the
// first member of libstdc++'s __cxa_refcounted_exception). The object lives
// in its thrower's heap; on any other node the count is a word of a cached
// page, and an update there reaches the home as a byte diff at that node's
// next release. Updates made on two nodes from one old value keep only one
// of them, increments as well as decrements, so over a run the count can
// fall by any number of lost increments: a fixed number of extra references
// (one, as this code first added) is worn down, and the exception is then
// destroyed under live exception_ptrs, once per node whose copy reaches
// zero (FutureExceptions.CopiesOnEveryNodeBetweenTheirSynchronizations...).
//
// So the first node other than the home that gets the exception from a
// future adds 2^30 to its copy of the count, under the state's lock: its
// unlock takes the pinned count home before any other node can get the
// exception there, so every later value, on every node, descends from one
// that has the pin. To reach zero from it would take 2^30 lost updates.
// Even byte by byte (diffs are byte-exact, and two nodes may have changed
// different bytes of the count), the top byte stays 0x3f or 0x40. The
// price: such an exception is never destroyed nor freed.
#include <atomic>
#include <cstddef>
#include <dstd/dstd.hpp>
#include <dstd/future>
#include <exception>

#include "runtime/common/fatal.hpp"

namespace dstd::detail {
namespace {

constexpr int pin = 1 << 30;

// Where libstdc++ (the Itanium C++ ABI's x86-64 layout) keeps the count:
// sizeof(__cxa_refcounted_exception) bytes below the object.
constexpr std::ptrdiff_t count_below_object = 128;

void* object_of(const std::exception_ptr& e) noexcept {
  static_assert(sizeof(std::exception_ptr) == sizeof(void*));
  void* object;
  __builtin_memcpy(&object, &e, sizeof object);  // exception_ptr's one member
  return object;
}

std::atomic_ref<int> count_of(void* object) noexcept {
  return std::atomic_ref<int>(*reinterpret_cast<int*>(static_cast<char*>(object) - count_below_object));
}

// The layout above, checked once against the running libstdc++: a new
// exception_ptr's count is 1, and a copy makes it 2.
bool layout_is_known() {
  const std::exception_ptr one = std::make_exception_ptr(0);
  std::atomic_ref<int> count = count_of(object_of(one));
  if (count.load() != 1) return false;
  const std::exception_ptr two = one;
  return count.load() == 2;
}

}  // namespace

void pin_if_foreign(const std::exception_ptr& e) noexcept {
  if (!e) return;
  void* const object = object_of(e);
  if (home_of(object) == this_node()) return;
  static const bool known = layout_is_known();
  if (!known) {
    rt::fatal("an exception crossed nodes, and this C++ runtime does not keep its reference count "
              "where libstdc++ on x86-64 does: dstd cannot keep it alive");
  }
  std::atomic_ref<int> count = count_of(object);
  int seen = count.load();
  while (seen < pin / 2 && !count.compare_exchange_weak(seen, seen + pin)) {
  }
}

}  // namespace dstd::detail
