// See partition.hpp.
#include "runtime/heap/partition.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "runtime/common/fatal.hpp"

namespace dstd::rt {

namespace {
global_range mapped_range;
std::uintptr_t home_base = 0;
std::atomic<std::uint64_t> home_used{0};
}  // namespace

void map_address_space(transport& t, node_id self, const global_range& range) {
  const std::size_t span = range.end() - layout::global_base;
  void* at = reinterpret_cast<void*>(layout::global_base);
  void* p = mmap(at, span, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != at) {
    fatal("cannot reserve the global address range %p-%#lx: %s", at,
          static_cast<unsigned long>(range.end()),
          p == MAP_FAILED ? std::strerror(errno) : "the range is already in use");
  }
  home_base = range.base(self);
  t.map_home_partition(reinterpret_cast<void*>(home_base), range.partition_bytes);
  mapped_range = range;
}

const global_range& current_global_range() { return mapped_range; }

void* partition_allocate(std::size_t bytes, std::size_t align) {
  if (home_base == 0 || align == 0 || (align & (align - 1)) != 0) return nullptr;
  std::uint64_t used = home_used.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t start = (used + align - 1) & ~std::uint64_t(align - 1);
    if (start > mapped_range.partition_bytes || bytes > mapped_range.partition_bytes - start) {
      return nullptr;
    }
    if (home_used.compare_exchange_weak(used, start + bytes, std::memory_order_relaxed)) {
      return reinterpret_cast<void*>(home_base + start);
    }
  }
}

}  // namespace dstd::rt
