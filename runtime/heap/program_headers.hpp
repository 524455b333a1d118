// The main executable's program headers, as the loader mapped them: the one
// place that asks the dynamic linker for them. The shared static data
// (static_region.cpp), its per-node bytes (static_exclusions.cpp) and the
// program's identity at boot (control/identity.cpp) all start here.
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>

namespace dstd::rt {

struct program_headers {
  std::uintptr_t load_bias = 0;  // runtime address = load_bias + p_vaddr
  const ElfW(Phdr)* first = nullptr;
  std::size_t count = 0;

  const ElfW(Phdr)* begin() const { return first; }
  const ElfW(Phdr)* end() const { return first + count; }
  // The runtime address of a header's segment.
  std::uintptr_t address_of(const ElfW(Phdr)& ph) const { return load_bias + ph.p_vaddr; }
};

// The first object dl_iterate_phdr reports is the main executable; its
// headers stay mapped for the life of the process.
inline program_headers main_program_headers() {
  program_headers h;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        auto* headers = static_cast<program_headers*>(out);
        headers->load_bias = info->dlpi_addr;
        headers->first = info->dlpi_phdr;
        headers->count = info->dlpi_phnum;
        return 1;
      },
      &h);
  return h;
}

}  // namespace dstd::rt
