// See sanitizer_symbolizer.hpp.
#include "runtime/control/sanitizer_symbolizer.hpp"

#include <cstddef>

// The sanitizers' common interface (sanitizer/common_interface_defs.h),
// defined by a sanitizer's runtime in the executable; null without one.
extern "C" void __sanitizer_symbolize_pc(void* pc, const char* format, char* out,
                                         std::size_t out_size) __attribute__((weak));

namespace dstd::rt {

void start_sanitizer_symbolizer() noexcept {
  if (__sanitizer_symbolize_pc == nullptr) return;
  char name[128];
  __sanitizer_symbolize_pc(reinterpret_cast<void*>(&start_sanitizer_symbolizer), "%f", name,
                           sizeof name);
}

}  // namespace dstd::rt
