// What a node knows of the launch before it has talked to anyone: who it
// is, how many nodes there are, how big a partition is and which transport
// backend the run uses (the variables dstdrun sets, runtime/launch/
// launch_contract.hpp). A program started without dstdrun is node 0 of 1.
//
// Why in the transport layer: the address space needs it at the first
// malloc to map the home partition through the backend (backend.hpp), and
// it sits above the transport; control adds its own settings on top
// (runtime/control/node_env.hpp). Parsing must not allocate.
#pragma once

#include <cstdint>

#include "runtime/transport/transport.hpp"

namespace dstd::rt {

struct launch_info {
  char kind[16] = "shm";   // the backend's name (DSTD_TRANSPORT)
  bool launched = false;   // started by dstdrun (else a one-node run)
  node_id self = 0;
  node_id nodes = 1;
  std::uint64_t partition_bytes = 0;
  char host[64] = "";      // DSTD_HOST (dstdrun's name for it), else gethostname
};

// Parsed once, on first use (safe from static constructors). A malformed
// environment is a fatal error naming the variable.
const launch_info& current_launch();

}  // namespace dstd::rt
