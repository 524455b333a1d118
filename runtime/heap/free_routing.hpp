// Where a freed block goes: the one routing of free(), operator delete and
// the frees other nodes send home.
//
// A block homed on another node is queued for its home (remote_free.hpp); a
// block of this node's group area goes back to its group (group_heap.hpp);
// anything else is tcmalloc's, freed by the caller's `local` call (free,
// sized or aligned delete, ...). Inline: a block of the own heap costs two
// subtractions and compares before tcmalloc.
#pragma once

#include "runtime/heap/group_heap.hpp"
#include "runtime/heap/remote_free.hpp"

namespace dstd::rt {

template <class LocalFree>
inline void route_free(void* p, LocalFree local) noexcept {
  if (is_remote_block(p)) {
    queue_remote_free(p);
  } else if (in_own_group_area(p)) {
    group_free(p);
  } else {
    local();
  }
}

}  // namespace dstd::rt
