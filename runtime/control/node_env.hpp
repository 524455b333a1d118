// What a node knows about the run before it has talked to anyone: its id,
// the node count and the transport settings that dstdrun put in the
// environment (runtime/common/launch_contract.hpp). A program started
// without dstdrun is node 0 of 1.
//
// Parsing must not allocate: the first malloc of the process maps the
// address space, and that needs these settings.
#pragma once

#include <cstdint>

#include "runtime/transport/shm/shm_segments.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

struct node_env {
  bool launched = false;  // started by dstdrun
  node_id self = 0;
  node_id nodes = 1;
  char transport[16] = "shm";

  bool uses_shm() const;
  std::uint64_t partition_bytes = 0;
  unsigned join_timeout_ms = 30000;
  int launch_fd = -1;  // status pipe to dstdrun
  shm::segment_fds shm_fds;
};

// Parsed once, on first use (safe from static constructors). A malformed
// environment is a fatal error naming the variable.
const node_env& current_node_env();

}  // namespace dstd::rt
