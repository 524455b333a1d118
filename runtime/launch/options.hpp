// dstdrun's command line: what the user asked for, and the usage text.
//
// Why a file of its own: parsing is the one part of dstdrun that is pure
// (no processes, no descriptors), so it is kept apart from everything that
// starts or watches nodes. Every wrong argument is caught here, before any
// node exists, and reported as "dstdrun: <what is wrong>" plus a usage hint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dstd::launch {

struct launch_options {
  unsigned nodes = 0;
  std::string transport = "shm";
  bool tag_output = false;
  bool stats = false;      // --stats: the nodes' counters at the end, as a table
  std::string stats_json;  // --stats=json FILE: as JSON, to FILE
  std::string trace;       // --trace FILE: a Chrome/Perfetto trace of the run
  double timeout_s = 0;        // whole run; 0 means no limit
  double join_timeout_s = 30;  // every node must write "J" within this
  std::uint64_t partition_bytes = 0;
  std::string program;       // PROGRAM as the user wrote it
  std::string program_path;  // where it was found (PATH search done)
  std::vector<std::string> args;  // argv of the nodes; args[0] == program
  // --hosts / --hostfile: the host of each node ("" for every node without
  // them); a node on a host that is_local_host() is forked here.
  std::vector<std::string> node_hosts;
  std::string rsh = "ssh";        // --rsh CMD: run as CMD... HOST COMMAND
  std::string launcher_address;   // --launcher-address (else DSTD_LAUNCHER_ADDRESS)
};

enum class parse_outcome {
  run,        // options filled in; start the nodes
  exit_ok,    // --help or --version was printed
  exit_usage  // an error was printed; exit with status 2
};

inline constexpr int exit_usage_status = 2;

// Parses argv. `partition_gb_env` is the value of DSTD_PARTITION_GB (or
// null). Prints --help/--version output to stdout and errors to stderr.
parse_outcome parse_options(int argc, const char* const* argv, const char* partition_gb_env,
                            launch_options& out);

// The full --help text.
const char* usage_text();

}  // namespace dstd::launch
