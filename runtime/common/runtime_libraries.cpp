// See runtime_libraries.hpp.
#include "runtime/common/runtime_libraries.hpp"

#include <link.h>

#include <cstring>
#include <mutex>

#include "runtime/common/fatal.hpp"

namespace dstd::rt {

code_range runtime_library_ranges[max_runtime_library_ranges];
std::atomic<unsigned> runtime_library_range_count{0};

namespace {

struct search {
  const char* const* prefixes;
  unsigned count;
};

bool known(std::uintptr_t begin) {
  const unsigned n = runtime_library_range_count.load(std::memory_order_relaxed);
  for (unsigned i = 0; i < n; ++i) {
    if (runtime_library_ranges[i].begin == begin) return true;
  }
  return false;
}

int note_object(dl_phdr_info* info, std::size_t, void* arg) {
  const auto* s = static_cast<const search*>(arg);
  const char* name = info->dlpi_name;
  if (name == nullptr) return 0;
  bool match = false;
  for (unsigned i = 0; i < s->count && !match; ++i) match = std::strstr(name, s->prefixes[i]);
  if (!match) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (known(begin)) continue;
    const unsigned n = runtime_library_range_count.load(std::memory_order_relaxed);
    if (n == max_runtime_library_ranges) fatal("too many runtime libraries to track (%s)", name);
    runtime_library_ranges[n] = {begin, begin + ph.p_memsz};
    runtime_library_range_count.store(n + 1, std::memory_order_release);
  }
  return 0;
}

}  // namespace

void note_runtime_libraries(const char* const* prefixes, unsigned count) {
  static std::mutex writers;  // readers need none: entries are published by the count
  std::lock_guard<std::mutex> lock(writers);
  search s{prefixes, count};
  dl_iterate_phdr(note_object, &s);
}

bool in_runtime_library_from_outside(std::uintptr_t address) noexcept {
  return in_runtime_library(address);
}

}  // namespace dstd::rt
