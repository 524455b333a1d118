// See program_constructors.hpp.
#include "runtime/control/program_constructors.hpp"

#include <elf.h>
#include <link.h>

#include <cstdint>

#include "runtime/common/fatal.hpp"
#include "runtime/heap/program_headers.hpp"

namespace dstd::rt {

namespace {

using constructor_fn = void (*)(int, char**, char**);

struct constructor_list {
  std::uintptr_t init = 0;        // DT_INIT, or 0
  std::uintptr_t array = 0;       // DT_INIT_ARRAY, or 0
  std::uint64_t array_bytes = 0;  // DT_INIT_ARRAYSZ
};

// The dynamic section's DT_INIT and DT_INIT_ARRAY hold link-time addresses
// (the dynamic linker adjusts only the entries it uses itself), so the load
// bias is added here, as glibc's own call of them does.
constructor_list read_constructor_list(const program_headers& h) {
  constructor_list list;
  for (const ElfW(Phdr)& ph : h) {
    if (ph.p_type != PT_DYNAMIC) continue;
    for (const auto* d = reinterpret_cast<const ElfW(Dyn)*>(h.address_of(ph)); d->d_tag != DT_NULL;
         ++d) {
      if (d->d_tag == DT_INIT) list.init = h.load_bias + d->d_un.d_ptr;
      if (d->d_tag == DT_INIT_ARRAY) list.array = h.load_bias + d->d_un.d_ptr;
      if (d->d_tag == DT_INIT_ARRAYSZ) list.array_bytes = d->d_un.d_val;
    }
  }
  return list;
}

// A constructor address must lie in one of the executable's loaded
// segments; anything else means the dynamic section was misread.
bool in_program(const program_headers& h, std::uintptr_t a) {
  for (const ElfW(Phdr)& ph : h) {
    if (ph.p_type == PT_LOAD && a >= h.address_of(ph) && a < h.address_of(ph) + ph.p_memsz) {
      return true;
    }
  }
  return false;
}

}  // namespace

void run_program_constructors(int argc, char** argv, char** envp) {
  const program_headers h = main_program_headers();
  const constructor_list list = read_constructor_list(h);
  if (list.init != 0) {
    if (!in_program(h, list.init)) fatal("the executable's DT_INIT is outside it");
    reinterpret_cast<constructor_fn>(list.init)(argc, argv, envp);
  }
  if (list.array == 0) return;
  if (!in_program(h, list.array)) fatal("the executable's DT_INIT_ARRAY is outside it");
  const auto* entries = reinterpret_cast<const constructor_fn*>(list.array);
  const std::uint64_t count = list.array_bytes / sizeof(constructor_fn);
  for (std::uint64_t i = 0; i < count; ++i) entries[i](argc, argv, envp);
}

}  // namespace dstd::rt
