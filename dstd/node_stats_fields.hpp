// The fields of dstd::node_stats by name: the one list that names them
// outside the struct itself, so `dstdrun --stats` and anything else that
// prints or reads the counters cannot drift from <dstd/dstd.hpp>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <dstd/bits/node.hpp>

namespace dstd::rt {

struct node_stats_field {
  const char* name;
  std::uint64_t node_stats::*member;
};

inline constexpr node_stats_field node_stats_fields[] = {
    {"read_faults", &node_stats::read_faults},
    {"write_faults", &node_stats::write_faults},
    {"fetches", &node_stats::fetches},
    {"pages_fetched", &node_stats::pages_fetched},
    {"bytes_fetched", &node_stats::bytes_fetched},
    {"diff_bytes_sent", &node_stats::diff_bytes_sent},
    {"pages_invalidated", &node_stats::pages_invalidated},
    {"pages_kept", &node_stats::pages_kept},
    {"pages_refetched", &node_stats::pages_refetched},
    {"pages_kept_writable", &node_stats::pages_kept_writable},
    {"fault_nanoseconds", &node_stats::fault_nanoseconds},
    {"releases", &node_stats::releases},
    {"acquires", &node_stats::acquires},
    {"remote_frees_sent", &node_stats::remote_frees_sent},
    {"remote_frees_received", &node_stats::remote_frees_received},
    {"messages_sent", &node_stats::messages_sent},
    {"messages_received", &node_stats::messages_received},
    {"one_sided_operations", &node_stats::one_sided_operations},
    {"workers_added", &node_stats::workers_added},
    {"threads_handed_off", &node_stats::threads_handed_off},
};

// A field added to node_stats and not here fails the build.
static_assert(sizeof(node_stats) ==
                  sizeof node_stats_fields / sizeof node_stats_fields[0] * sizeof(std::uint64_t),
              "node_stats and node_stats_fields list different fields");

}  // namespace dstd::rt
