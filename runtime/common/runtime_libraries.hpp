// Code of the shared libraries the runtime itself drives (UCX today), which
// count as the runtime's own code when libdstd asks who called it.
//
// Why: every malloc of the process is in the global heap, so a library the
// transport uses keeps its mutexes and spinlocks there too, and libdstd's
// pthread interposer would serve them cluster-wide (dstd/interpose/route.hpp)
// when the library, not the program, calls pthread_spin_lock: a UCX worker
// lock taken by the service thread would become a cluster lock that needs
// the very transport it protects. So a backend names its libraries here
// once they are loaded, and their calls go to glibc like libdstd's own.
#pragma once

#include <atomic>
#include <cstdint>

namespace dstd::rt {

struct code_range {
  std::uintptr_t begin;
  std::uintptr_t end;
};

inline constexpr unsigned max_runtime_library_ranges = 32;
extern code_range runtime_library_ranges[max_runtime_library_ranges];
extern std::atomic<unsigned> runtime_library_range_count;

// Records the executable segments of every loaded object whose file name
// starts with one of `prefixes` (e.g. "libucp", or a directory part such as
// "/ucx/"): a name matches when it contains the prefix. Call after the
// library has loaded its plug-ins; ranges already recorded are kept.
void note_runtime_libraries(const char* const* prefixes, unsigned count);

// True when `address` is inside code noted above.
inline bool in_runtime_library(std::uintptr_t address) noexcept {
  const unsigned n = runtime_library_range_count.load(std::memory_order_acquire);
  for (unsigned i = 0; i < n; ++i) {
    if (address >= runtime_library_ranges[i].begin && address < runtime_library_ranges[i].end) {
      return true;
    }
  }
  return false;
}

// The same, out of line, for code outside libdstd (a test program): an
// inline read of the table there would make the linker copy the table into
// the executable's static data (a copy relocation), which dstd shares
// between nodes, so every node would read node 0's.
bool in_runtime_library_from_outside(std::uintptr_t address) noexcept;

}  // namespace dstd::rt
