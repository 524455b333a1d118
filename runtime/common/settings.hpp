// The user's settings: every DSTD_* variable a node reads that dstdrun does
// not set itself, parsed in one place, once.
//
// Why: a setting read where it is first used (DSTD_STACK_KB at the first
// thread start, DSTD_STATS at the end of the run) turns a typo into a
// failure in the middle of a run, or into none at all. Boot parses them all
// before the node joins (control/boot.cpp), so a bad value ends every node
// at once with one line naming the variable, the value and what would be
// accepted (env.hpp's format); the code that uses a setting reads the
// parsed value here. The launch itself (node id, count, partition,
// DSTD_PARTITION_GB alone) is the transport's: runtime/transport/launch_info.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dstd::rt {

struct settings {
  unsigned workers = 1;              // DSTD_WORKERS: worker threads of this node
  std::size_t stack_bytes = 0;       // DSTD_STACK_KB: a dstd thread's stack
  bool chaos = false;                // DSTD_CHAOS set: schedule perturbation ...
  std::uint64_t chaos_seed = 0;      // ... with this seed
  unsigned chaos_stall_at = 0;       // DSTD_CHAOS_STALL_AT: a chaos::stall_point, 0 none ...
  std::uint64_t chaos_stall_ms = 100;  // ... held for DSTD_CHAOS_STALL_MS
  bool place_local = false;          // DSTD_PLACEMENT=local (default spread)
  std::uint64_t shm_delay_us = 0;    // DSTD_SHM_DELAY_US: shm's delayed mode
  bool stats = false;                // DSTD_STATS=1 (dstdrun --stats)
  std::uint64_t trace_events = 65536;  // DSTD_TRACE_EVENTS: the trace ring's slots (trace.hpp)
  bool track_home_writes = true;     // DSTD_TRACK_HOME_WRITES=1 (default) or 0 (own_writes.hpp)
};

// Parsed on first use (boot makes that first use); a bad value is a fatal
// error.
const settings& current_settings();

}  // namespace dstd::rt
