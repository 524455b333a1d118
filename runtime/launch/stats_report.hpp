// `dstdrun --stats`: the nodes' counters as one table, or as JSON.
//
// Why here: each node knows only its own counters. With DSTD_STATS=1 a node
// started by dstdrun sends them down the status pipe as one "S" line of
// name=value pairs (launch_contract.hpp) before it leaves; dstdrun keeps
// the pairs per node and, when the run is over, prints one aligned table
// (a row per node, a column per counter, a total row) on stderr, or writes
// the same as JSON to a file. dstdrun learns the counters' names from the
// lines themselves, so it never drifts from the node runtime's list
// (dstd/node_stats_fields.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dstd::launch {

using stats_fields = std::vector<std::pair<std::string, std::uint64_t>>;

// "name=value name=value ..." as sent in an "S" line; nullopt if malformed.
std::optional<stats_fields> parse_stats_fields(std::string_view text);

// One node's counters (empty `fields`: the node sent none).
struct node_stats_row {
  unsigned node = 0;
  stats_fields fields;
};

// The table: a header row of counter names, a row per node that sent its
// counters, and a "total" row; columns right-aligned. Counters are taken
// in the order of the first node that sent them. Empty if none did.
std::string stats_table(const std::vector<node_stats_row>& rows);

// {"nodes": [{"node": 0, "name": value, ...}, ...], "total": {...}}.
std::string stats_json(const std::vector<node_stats_row>& rows);

}  // namespace dstd::launch
