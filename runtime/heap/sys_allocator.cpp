// tcmalloc gets all its memory from the home partition.
//
// gperftools asks the weak function tc_get_sysalloc_override() for its
// system allocator when it makes its first system allocation. Defining it
// here (libdstd comes before libtcmalloc in symbol lookup) installs ours
// before any memory is taken, so every byte tcmalloc hands out — including
// its own metadata — lies in this node's partition. A full partition makes
// Alloc return nullptr, which tcmalloc turns into nullptr from malloc and
// std::bad_alloc from new.
#include <gperftools/malloc_extension.h>

#include <new>

#include "runtime/common/layout.hpp"
#include "runtime/heap/partition.hpp"

namespace {

class partition_sys_allocator final : public SysAllocator {
 public:
  void* Alloc(size_t size, size_t* actual_size, size_t alignment) override {
    if (alignment < dstd::rt::layout::page_bytes) alignment = dstd::rt::layout::page_bytes;
    size = (size + alignment - 1) & ~(alignment - 1);
    void* p = dstd::rt::partition_allocate(size, alignment);
    if (p != nullptr && actual_size != nullptr) *actual_size = size;
    return p;
  }
};

// Built in place on first use and never destroyed: tcmalloc may allocate
// while static destructors run.
alignas(partition_sys_allocator) unsigned char storage[sizeof(partition_sys_allocator)];

}  // namespace

[[gnu::visibility("default")]] SysAllocator* tc_get_sysalloc_override(SysAllocator*) {
  static SysAllocator* const instance = new (storage) partition_sys_allocator();
  return instance;
}
