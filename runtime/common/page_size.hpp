// The page size is a constant of dstd's layout (layout::page_bytes): cache
// frames, twins, diffs, guard pages and the shared static data are all cut
// in pages of that size. A system with other pages would break all of them
// quietly, so the address space refuses to start on one.
#pragma once

#include <unistd.h>

#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"

namespace dstd::rt {

inline void check_system_page_size() {
  const long system = sysconf(_SC_PAGESIZE);
  if (system != static_cast<long>(layout::page_bytes)) {
    fatal("this system's pages are %ld bytes; dstd is built for %lu-byte pages "
          "(runtime/common/layout.hpp)",
          system, static_cast<unsigned long>(layout::page_bytes));
  }
}

}  // namespace dstd::rt
