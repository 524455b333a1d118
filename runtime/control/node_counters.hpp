// This node's counters, gathered from the layers that keep them.
//
// Why here and not in the public node API: statistics are the control
// layer's job, and the runtime never includes public headers. Boot prints
// these for `dstdrun --stats`; the public dstd::stats() (dstd/node_api.cpp)
// copies them into its own struct.
#pragma once

#include <cstddef>

#include "runtime/coherence/coherence.hpp"
#include "runtime/heap/remote_free.hpp"
#include "runtime/sched/extra_workers.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

struct node_counters {
  coherence::counters coherence;
  remote_free_counts remote_frees;
  transport::traffic traffic;
  sched::worker_counts workers;
};

node_counters collect_node_counters() noexcept;

// Writes " name=value name=value ..." (every field of the public
// dstd::node_stats, in order) into `out` (NUL-terminated, cut at `size`):
// what a node reports for dstdrun --stats. Defined by the API layer
// (dstd/node_api.cpp), which owns the public struct and its field list
// (dstd/node_stats_fields.hpp).
void format_stats_fields(char* out, std::size_t size);

}  // namespace dstd::rt
