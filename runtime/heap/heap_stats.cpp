// See heap_stats.hpp.
#include "runtime/heap/heap_stats.hpp"

#include <gperftools/malloc_extension.h>

#include "runtime/heap/partition.hpp"
#include "runtime/heap/remote_free.hpp"

namespace dstd::rt {

namespace {
std::uint64_t tcmalloc_property(const char* name) {
  size_t value = 0;
  MallocExtension::instance()->GetNumericProperty(name, &value);
  return value;
}
}  // namespace

heap_stats current_heap_stats() {
  const remote_free_counts remote = remote_free_stats();
  return {tcmalloc_property("generic.current_allocated_bytes"),
          tcmalloc_property("generic.heap_size"), partition_allocated_bytes(), remote.sent,
          remote.received};
}

}  // namespace dstd::rt
