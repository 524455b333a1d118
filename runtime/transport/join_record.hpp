// What a node tells its peers about itself at rendezvous.
//
// Every node must run the same binary loaded at the same addresses: code and
// data pointers travel between nodes as plain integers. Each backend carries
// these records in its own way (shm: join slots in the control segment); the
// check itself lives in runtime/control/identity.cpp.
#pragma once

#include <cstdint>

namespace dstd::rt {

struct join_record {
  std::uint32_t node;
  std::uint32_t pid;
  std::uint32_t build_id_len;      // 0: the executable has no GNU build-id note
  std::uint8_t build_id[32];
  std::uint64_t exe_size;          // st_size of /proc/self/exe
  std::uint64_t exe_mtime_ns;      // st_mtim of /proc/self/exe
  std::uint64_t exe_load_address;  // where the main executable is mapped
  std::uint64_t runtime_address;   // where libdstd's code is mapped
  char exe_path[256];              // for error messages
  char host[64];                   // launch_info::host, for error messages
  std::uint32_t workers;           // scheduler workers (placement, hardware_concurrency)
  std::uint64_t placement_table;   // node 0 only: where the load table lives
  std::uint64_t lock_table;        // node 0 only: locks of large atomics (sync/lock_table)
};

}  // namespace dstd::rt
