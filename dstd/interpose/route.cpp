// See route.hpp.
#include "dstd/interpose/route.hpp"

#include <cstdint>

// The linker's marks for this library's own ELF header (its first byte) and
// the end of its code; hidden, so they name libdstd's and not another
// object's.
extern "C" {
[[gnu::visibility("hidden")]] extern const char __ehdr_start[];
[[gnu::visibility("hidden")]] extern const char etext[];
}

namespace dstd::interpose {

bool runtime_caller(const void* return_address) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(return_address);
  return a >= reinterpret_cast<std::uintptr_t>(__ehdr_start) &&
         a < reinterpret_cast<std::uintptr_t>(etext);
}

bool cluster_serves(const void* p, const void* return_address) noexcept {
  return !runtime_caller(return_address) && rt::locate(p).global;
}

}  // namespace dstd::interpose
