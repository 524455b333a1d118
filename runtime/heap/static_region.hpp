// The main executable's writable static data (.data and .bss), which dstd
// shares as one more global region homed at node 0.
//
// Only whole pages strictly after the RELRO part are shared: RELRO pages
// become read-only after relocation and hold per-node loader data.
#pragma once

#include <cstdint>

namespace dstd::rt {

// Page-aligned bounds of the region (begin == end if there is none).
void find_static_region(std::uintptr_t& begin, std::uintptr_t& end);

// Copies the region's current bytes to `fd` at `offset` and maps that file
// range over the region, so the same bytes become reachable through the fd.
// Call while no other thread of this process touches static data.
void move_static_region_to(int fd, std::uint64_t offset, std::uintptr_t begin,
                           std::uintptr_t end);

}  // namespace dstd::rt
