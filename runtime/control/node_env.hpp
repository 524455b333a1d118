// What a node knows about the run before it has talked to anyone: the
// launch (its id, the node count, the partition size, parsed by the
// transport layer: runtime/transport/launch_info.hpp) and control's own
// settings from dstdrun (runtime/common/launch_contract.hpp): the join
// timeout, the status pipe and how output is forwarded. A program started
// without any launcher is node 0 of 1. Under mpirun or srun there is no
// status pipe and no forwarded output of dstd's; the join timeout is
// DSTD_JOIN_TIMEOUT_MS if the user sets it, else the default.
#pragma once

#include <cstdint>

#include "runtime/transport/launch_info.hpp"

namespace dstd::rt {

struct node_env {
  // Copied from current_launch().
  bool launched = false;  // one node of several (dstdrun, mpirun, srun)
  node_id self = 0;
  node_id nodes = 1;
  std::uint64_t partition_bytes = 0;
  // Control's own.
  unsigned join_timeout_ms = 30000;
  int launch_fd = -1;  // status pipe to dstdrun (a local node)
  const char* launch_addr = nullptr;   // a remote node: its lifeline (launcher_link.hpp)
  const char* launch_token = nullptr;  // ... and the run's token
  bool has_launcher = false;           // status lines go to dstdrun one way or the other
  bool output_forwarded = false;  // stdout/stderr are dstdrun's line pipes
  bool output_to_tty = false;     // ... which it writes to a terminal
};

// Parsed once, on first use (safe from static constructors). A malformed
// environment is a fatal error naming the variable.
const node_env& current_node_env();

}  // namespace dstd::rt
