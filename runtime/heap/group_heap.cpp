// See group_heap.hpp.
#include "runtime/heap/group_heap.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "runtime/common/assert.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd::rt {

group_area_bounds group_bounds{0, 0};

namespace {

constexpr std::uint64_t group = layout::group_bytes;

// The area's bookkeeping, in node-private memory (touched only where used):
// a live count per group, and a stack of free group numbers.
struct area {
  std::uintptr_t base = 0;
  std::uint32_t groups = 0;
  std::atomic<std::uint32_t>* live = nullptr;
  std::uint32_t* free_stack = nullptr;
  std::uint32_t free_count = 0;     // under lock
  // Groups below this have been opened; changed under lock, read without
  // it (by a forked child, where the lock may be held by a thread that is
  // gone).
  std::atomic<std::uint32_t> never_used{0};
  std::mutex lock;
};

void* map_private(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) fatal("cannot map the tbox group table: %s", std::strerror(errno));
  return p;
}

area the_area_storage;
std::once_flag area_made;

area& the_area() {
  std::call_once(area_made, [] {
    area& a = the_area_storage;
    const address_space& s = ensure_address_space();
    a.base = s.partition_base(s.self) + layout::group_area_begin(s.partition_bytes);
    a.groups = static_cast<std::uint32_t>(s.partition_bytes / layout::group_area_divisor / group);
    a.live = static_cast<std::atomic<std::uint32_t>*>(
        map_private(a.groups * sizeof(std::atomic<std::uint32_t>)));
    a.free_stack = static_cast<std::uint32_t*>(map_private(a.groups * sizeof(std::uint32_t)));
    group_bounds = {a.base, std::uint64_t(a.groups) * group};
  });
  return the_area_storage;
}

std::uint32_t group_number(const area& a, std::uintptr_t p) {
  return static_cast<std::uint32_t>((p - a.base) / group);
}

// A group with a count of one (its opener's), or ~0u when none is left.
std::uint32_t open_group(area& a) {
  std::lock_guard<std::mutex> hold(a.lock);
  std::uint32_t g;
  if (a.free_count > 0) {
    g = a.free_stack[--a.free_count];
  } else if (a.never_used.load(std::memory_order_relaxed) < a.groups) {
    g = a.never_used.fetch_add(1, std::memory_order_relaxed);
  } else {
    return ~0u;
  }
  a.live[g].store(1, std::memory_order_relaxed);
  return g;
}

void drop(area& a, std::uint32_t g) {
  if (a.live[g].fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::lock_guard<std::mutex> hold(a.lock);
  a.free_stack[a.free_count++] = g;
}

// This thread's open group: [base, base + used) is handed out. Closed (its
// count dropped) when full and when the thread exits.
struct open_slot {
  std::uint32_t number = ~0u;
  std::uint64_t used = 0;
  ~open_slot() {
    if (number != ~0u) drop(the_area(), number);
  }
};
thread_local open_slot open;

}  // namespace

void* group_allocate(std::size_t bytes, std::size_t align) noexcept {
  if (bytes > max_group_block || align > group || (align & (align - 1)) != 0) return nullptr;
  if (bytes == 0) bytes = 1;
  area& a = the_area();
  for (;;) {
    if (open.number != ~0u) {
      const std::uint64_t start = (open.used + align - 1) & ~std::uint64_t(align - 1);
      if (start + bytes <= group) {
        open.used = start + bytes;
        a.live[open.number].fetch_add(1, std::memory_order_relaxed);
        return reinterpret_cast<void*>(a.base + std::uint64_t(open.number) * group + start);
      }
      drop(a, open.number);
    }
    open.number = open_group(a);
    open.used = 0;
    if (open.number == ~0u) return nullptr;
  }
}

void group_free(void* p) noexcept {
  area& a = the_area();
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  DSTD_ASSERT(at - a.base < std::uint64_t(a.groups) * group, "%p is not in this node's group area", p);
  const std::uint32_t g = group_number(a, at);
  DSTD_ASSERT(a.live[g].load(std::memory_order_relaxed) > 0, "free of %p, in a free tbox group", p);
  drop(a, g);
}

void refuse_group_block(const void* p, const char* what) {
  if (ensure_address_space().group_begin(reinterpret_cast<std::uintptr_t>(p)) != 0) {
    fatal("%s of %p, a dstd::tbox pointee: it was made by make_tbox (or moved into a tbox's "
          "group), not by malloc, and has no size to give",
          what, p);
  }
}

std::uint64_t group_area_used_bytes() noexcept {
  if (group_bounds.own_bytes == 0) return 0;
  return std::uint64_t(the_area_storage.never_used.load(std::memory_order_relaxed)) * group;
}

}  // namespace dstd::rt
