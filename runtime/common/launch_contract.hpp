// The contract between dstdrun and the node processes it starts.
//
// Why a header of its own: dstdrun (runtime/launch) and the node runtime
// (runtime/control) are separate programs that must agree on environment
// variable names and on the few lines a node writes back to dstdrun. Keeping
// them here, in one place, means neither side can drift. It lives in
// runtime/common so that the launcher and every layer of the node runtime
// may read it.
//
// A node learns who it is from the environment (without DSTD_NODE_ID, from
// mpirun's or srun's variables instead: runtime/transport/foreign_launch.hpp):
//   DSTD_NODE_ID          this node's id, 0 .. DSTD_NODE_COUNT-1
//   DSTD_NODE_COUNT       number of nodes in the run
//   DSTD_TRANSPORT        the backend: "shm" or "ucx" (runtime/transport/backend.hpp)
//   DSTD_PARTITION_BYTES  bytes of global address space homed at each node
//   DSTD_JOIN_TIMEOUT_MS  how long a node waits for its peers at rendezvous
//   DSTD_LAUNCH_FD        write end of the status pipe (see below); a node
//                         on another host (dstdrun --hosts) has none, but
//   DSTD_LAUNCH_ADDR      HOST:PORT where it connects to dstdrun instead (its
//                         lifeline, below), sending first
//   DSTD_LAUNCH_TOKEN     the run's secret (32 hex digits): "<token> <id>\n"
//   DSTD_HOST             the host name dstdrun used for the node (remote
//                         nodes; messages name it), else the node's hostname
//   DSTD_SHM_CONTROL_FD   shm transport: control segment (rings, join slots)
//   DSTD_SHM_HEAP_FD      shm transport: memfd backing every partition
//   DSTD_WIREUP           network transports (ucx): HOST:PORT of dstdrun's
//                         wire-up server, where the nodes exchange their
//                         addresses (runtime/transport/wireup/wireup_wire.hpp)
//   DSTD_OUTPUT_TO_TTY    the node's stdout and stderr are pipes dstdrun
//                         forwards in whole lines; "1" when dstdrun's own
//                         stdout is a terminal (the node then line-buffers
//                         stdout, as it would writing to it), else "0"
//   DSTD_STATS            "1": each node reports its counters at exit (on
//                         the status pipe when there is one, else stderr)
//   DSTD_TRACE            FILE (dstdrun --trace FILE): each node writes its
//                         trace events to FILE.node<id> at exit
//                         (trace_part_path), which dstdrun merges into FILE
//                         between trace_document_head and _tail; without
//                         dstdrun a node writes the whole document to FILE
// (DSTD_SHM_DELAY_US, shm's delayed mode, is the user's: dstdrun passes it
// through like any other variable. DSTD_TEST_KEEP_ASLR, for tests only, is
// dstdrun's: set, it starts the nodes with address-space randomization left
// as it is, as another launcher would, so that they turn it off themselves:
// runtime/control/aslr_reexec.hpp.)
//
// Status pipe: a node writes one short line (always < PIPE_BUF, so lines
// from different nodes never interleave):
//   "J <id>\n"  joined: rendezvous done, identities checked, about to run
//   "S <id> <name>=<value> ...\n"  its counters (DSTD_STATS=1), before "L"
//   "L <id>\n"  leaving cleanly at the end of the program
// A node that exits without "L" while node 0 still runs has failed, even
// with exit status 0; a node that never writes "J" never joined.
//
// Lifeline (remote nodes): the same lines go over the TCP connection to
// DSTD_LAUNCH_ADDR, after the hello line. The connection closing without
// "L" means the node is dead, as a pipe's end does; when dstdrun's side
// closes, the node ends itself (as PR_SET_PDEATHSIG makes a local node
// die with dstdrun). Both sides set TCP keepalive (tcp_keepalive.hpp).
#pragma once

#include <string>

namespace dstd::launch {

inline constexpr const char* env_node_id = "DSTD_NODE_ID";
inline constexpr const char* env_node_count = "DSTD_NODE_COUNT";
inline constexpr const char* env_transport = "DSTD_TRANSPORT";
inline constexpr const char* env_partition_bytes = "DSTD_PARTITION_BYTES";
inline constexpr const char* env_join_timeout_ms = "DSTD_JOIN_TIMEOUT_MS";
inline constexpr const char* env_launch_fd = "DSTD_LAUNCH_FD";
inline constexpr const char* env_shm_control_fd = "DSTD_SHM_CONTROL_FD";
inline constexpr const char* env_shm_heap_fd = "DSTD_SHM_HEAP_FD";
inline constexpr const char* env_output_to_tty = "DSTD_OUTPUT_TO_TTY";
inline constexpr const char* env_stats = "DSTD_STATS";
inline constexpr const char* env_trace = "DSTD_TRACE";
inline constexpr const char* env_wireup = "DSTD_WIREUP";
inline constexpr const char* env_launch_addr = "DSTD_LAUNCH_ADDR";
inline constexpr const char* env_launch_token = "DSTD_LAUNCH_TOKEN";
inline constexpr const char* env_host = "DSTD_HOST";
inline constexpr const char* env_test_keep_aslr = "DSTD_TEST_KEEP_ASLR";

// A trace part holds a node's events as JSON objects separated by ",\n";
// the document is the parts, joined by ",\n", between these.
inline constexpr const char* trace_document_head = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
inline constexpr const char* trace_document_tail = "\n]}\n";
inline std::string trace_part_path(const std::string& file, unsigned node) {
  return file + ".node" + std::to_string(node);
}

inline constexpr char status_joined = 'J';
inline constexpr char status_leaving = 'L';
inline constexpr char status_stats = 'S';

}  // namespace dstd::launch
