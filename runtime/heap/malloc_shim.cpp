// The C allocation functions of the process: all go to tcmalloc, whose
// memory is the home partition (sys_allocator.cpp).
//
// Why libdstd defines them instead of letting libtcmalloc do it: libtcmalloc
// is a dependency of libdstd, so the loader searches it after libc and
// glibc's malloc would win. Definitions in libdstd come before libc's. The
// one thing added to tcmalloc is routing: a block homed on another node goes
// back to its home, a tbox pointee to its group (free_routing.hpp).
#include <gperftools/tcmalloc.h>

#include <cerrno>
#include <cstring>

#include "runtime/heap/free_routing.hpp"
#include "runtime/transport/transport.hpp"

using dstd::rt::is_remote_block;

namespace {

// realloc of a block homed elsewhere: a new local block, the old bytes read
// from the home, the old block sent home to be freed.
void* realloc_remote(void* old, size_t size) {
  const size_t old_size = dstd::rt::remote_usable_size(old);
  void* fresh = tc_malloc(size);
  if (fresh == nullptr) return nullptr;
  dstd::rt::current_transport()->read(fresh, reinterpret_cast<dstd::rt::gaddr>(old),
                                      old_size < size ? old_size : size);
  dstd::rt::queue_remote_free(old);
  return fresh;
}

}  // namespace

extern "C" {

[[gnu::visibility("default")]] void* malloc(size_t size) { return tc_malloc(size); }

[[gnu::visibility("default")]] void free(void* p) {
  dstd::rt::route_free(p, [p] { tc_free(p); });
}

[[gnu::visibility("default")]] void* calloc(size_t n, size_t size) { return tc_calloc(n, size); }

[[gnu::visibility("default")]] void* realloc(void* p, size_t size) {
  if (p != nullptr) dstd::rt::refuse_group_block(p, "realloc");
  if (is_remote_block(p)) {
    if (size == 0) {
      dstd::rt::queue_remote_free(p);
      return nullptr;
    }
    return realloc_remote(p, size);
  }
  return tc_realloc(p, size);
}

[[gnu::visibility("default")]] void* reallocarray(void* p, size_t n, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

[[gnu::visibility("default")]] void* memalign(size_t align, size_t size) {
  return tc_memalign(align, size);
}

[[gnu::visibility("default")]] void* aligned_alloc(size_t align, size_t size) {
  return tc_memalign(align, size);
}

[[gnu::visibility("default")]] int posix_memalign(void** out, size_t align, size_t size) {
  return tc_posix_memalign(out, align, size);
}

[[gnu::visibility("default")]] void* valloc(size_t size) { return tc_valloc(size); }

[[gnu::visibility("default")]] void* pvalloc(size_t size) { return tc_pvalloc(size); }

[[gnu::visibility("default")]] size_t malloc_usable_size(void* p) {
  if (p != nullptr) dstd::rt::refuse_group_block(p, "malloc_usable_size");
  if (is_remote_block(p)) return dstd::rt::remote_usable_size(p);
  return p == nullptr ? 0 : tc_malloc_size(p);
}

}  // extern "C"
