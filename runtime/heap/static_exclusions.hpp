// The bytes of the executable's static data that stay private to each node
// although the region around them is shared.
//
// Why there are such bytes: the dynamic linker makes some of the
// executable's writable data per-process state. Copy relocations place
// library objects (std::cout, std::cerr, stdout, environ,
// __libc_single_threaded) in the executable's .bss, and the GOT holds lazily
// bound function addresses and the linker's own pointers. Each node keeps
// its own copy of these bytes: coherence neither fetches nor diffs them.
#pragma once

#include <cstdint>
#include <vector>

namespace dstd::rt {

struct byte_range {
  std::uintptr_t begin;
  std::uintptr_t end;
};

// Sorted, non-overlapping ranges within [begin, end), read from the
// executable's dynamic relocations (R_X86_64_COPY objects, JUMP_SLOT
// entries, the three reserved GOT entries).
std::vector<byte_range> per_node_static_ranges(std::uintptr_t begin, std::uintptr_t end);

}  // namespace dstd::rt
