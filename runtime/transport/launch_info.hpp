// What a node knows of the launch before it has talked to anyone: who it
// is, how many nodes there are, how big a partition is and which transport
// backend the run uses (the variables dstdrun sets, runtime/common/
// launch_contract.hpp, or, with no DSTD_NODE_ID, those of mpirun or srun:
// foreign_launch.hpp). A program started by nobody, or as a job of one
// process, is node 0 of 1.
//
// This is the one place that decides who launched the node: the ASLR
// re-execution, the wire-up (runtime/transport/wireup/) and control's own
// settings (runtime/control/node_env.hpp) all follow `by`.
//
// Why in the transport layer: the address space needs it at the first
// malloc to map the home partition through the backend (backend.hpp), and
// it sits above the transport; control adds its own settings on top
// (runtime/control/node_env.hpp). Parsing must not allocate.
#pragma once

#include <cstdint>

#include "runtime/transport/foreign_launch.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

struct launch_info {
  char kind[16] = "shm";   // the backend's name (DSTD_TRANSPORT)
  bool launched = false;   // one node of several (else a one-node run)
  launcher by = launcher::none;  // dstdrun, pmix or plain when launched
  const char* rank_variable = nullptr;  // mpirun, srun: where `self` came from
  node_id self = 0;
  node_id nodes = 1;
  std::uint64_t partition_bytes = 0;
  char host[64] = "";      // DSTD_HOST (dstdrun's name for it), else gethostname
};

// Parsed once, on first use (safe from static constructors). A malformed
// environment is a fatal error naming the variable.
const launch_info& current_launch();

// The same, parsed from the environment as it is now (for tests; the
// runtime uses current_launch()).
launch_info parse_launch_environment();

}  // namespace dstd::rt
