// Choosing a transport backend, and what a backend is given.
//
// Why a factory keyed by the launch: dstdrun names the backend
// (DSTD_TRANSPORT: shm, ucx or verbs) and every
// node makes the same one. A backend is handed everything it needs: the
// launch (who we are, how many nodes) and a table of the memory regions it
// serves, so it never calls into the heap or control layers above it.
//
// Why home memory is asked for separately: the home partition must be
// mapped at the process's first malloc, long before the transport exists
// (runtime/heap/address_space.hpp). The backend decides what memory backs it
// (shm: this node's slice of the heap memfd dstdrun shares between the
// nodes), without naming itself to the address space.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "runtime/transport/launch_info.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

// Global addresses [begin, end), homed at `home`, whose bytes are at
// `backing_offset` in the backing of global memory (for shm: the heap memfd;
// the same offsets index this node's cache frames).
struct memory_region {
  gaddr begin = 0;
  gaddr end = 0;
  node_id home = 0;
  std::uint64_t backing_offset = 0;
};

// The memory behind global addresses homed at this node: `fd` mapped shared
// at `partition_offset` for the home partition and (node 0) at
// `static_offset` for the executable's static data.
struct home_memory {
  int fd = -1;
  std::uint64_t partition_offset = 0;
  std::uint64_t static_offset = 0;
};

// The backend names the factory knows, for error messages and for dstdrun
// (verbs only when built with libibverbs and librdmacm: DSTD_HAVE_VERBS).
#ifdef DSTD_HAVE_VERBS
inline constexpr const char* known_transports = "shm, ucx, verbs";
#else
inline constexpr const char* known_transports = "shm, ucx";
#endif

// The home memory of `launch.kind`. Called once, from the first malloc: it
// must not allocate. An unknown kind is a fatal error naming the known ones.
home_memory home_memory_for(const launch_info& launch);

// Makes the node's transport. `regions` (every partition and the shared
// static data) is copied; one-sided operations outside it are fatal errors.
std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions);

}  // namespace dstd::rt
