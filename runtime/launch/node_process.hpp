// Starting one node process: fork, prepare the child, exec PROGRAM (or,
// for a node on another host, exec --rsh, which starts PROGRAM there).
//
// Why a file of its own: everything a node inherits from dstdrun is decided
// here, between fork and exec: its signal state, that it dies with dstdrun
// (PR_SET_PDEATHSIG), address-space randomization off (so every node maps
// code and libraries at the same addresses; only the nodes are affected, no
// system setting changes), its environment (launch_contract.hpp), which
// descriptors stay open, and where stdin/stdout/stderr go.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dstd::launch {

// What every node of a run shares.
struct node_launch {
  std::string program;       // as the user wrote it (argv[0], messages)
  std::string program_path;  // what is exec'd
  std::vector<std::string> args;
  unsigned nodes = 0;
  std::uint64_t partition_bytes = 0;
  std::uint64_t join_timeout_ms = 0;
  std::string transport;
  int status_write_fd = -1;  // write end of the status pipe
  int control_fd = -1;       // shm control segment
  int heap_fd = -1;          // shm heap segment
  std::string wireup_address;  // network transports: dstdrun's wire-up server
  int devnull_fd = -1;       // stdin of nodes other than 0
  bool output_to_tty = false;  // dstdrun's stdout is a terminal
  pid_t launcher_pid = 0;
  // Remote nodes (--hosts): how to reach them and how they reach dstdrun.
  std::string rsh;           // --rsh CMD
  std::string cwd;           // dstdrun's working directory: the nodes' too
  std::string launch_addr;   // HOST:PORT of the lifeline listener
  std::string launch_token;  // DSTD_LAUNCH_TOKEN
};

// Where node output goes: -1 means "inherit dstdrun's".
struct node_output {
  int out_fd = -1;
  int err_fd = -1;
};

// Starts node `id`: here, or on `host` through --rsh when it is not "". Returns the pid of
// the node (or of the rsh process that runs it remotely), or -1 with errno
// set when fork fails. If exec fails the child prints "dstdrun: cannot run
// PROGRAM: <reason>" and exits with status 127.
pid_t start_node(const node_launch& launch, unsigned id, const std::string& host,
                 node_output output);

}  // namespace dstd::launch
