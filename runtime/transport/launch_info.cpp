// See launch_info.hpp.
#include "runtime/transport/launch_info.hpp"

#include <unistd.h>

#include <cstring>

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/layout.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/transport/backend.hpp"

namespace dstd::rt {

namespace {

std::uint64_t single_node_partition_bytes() {
  return env::number("DSTD_PARTITION_GB", 1, layout::global_span / layout::gib,
                     layout::default_partition_bytes / layout::gib) *
         layout::gib;
}

// Messages name a node's host as dstdrun named it (DSTD_HOST): nodes on
// several hosts of one machine's network namespaces share its hostname.
void find_host(launch_info& l) {
  if (const char* host = env::text(launch::env_host)) {
    std::strncpy(l.host, host, sizeof l.host - 1);
  } else {
    gethostname(l.host, sizeof l.host - 1);
  }
}

launch_info parse() {
  launch_info l;
  find_host(l);
  if (env::text(launch::env_node_id) == nullptr) {
    l.partition_bytes = single_node_partition_bytes();
    return l;
  }
  l.launched = true;
  l.nodes = static_cast<node_id>(env::required_number(launch::env_node_count, 1, layout::max_nodes));
  l.self = static_cast<node_id>(env::required_number(launch::env_node_id, 0, l.nodes - 1));
  if (const char* kind = env::text(launch::env_transport)) {
    if (std::strlen(kind) >= sizeof l.kind) {
      fatal("unknown transport '%s' (known: %s)", kind, known_transports);
    }
    std::strcpy(l.kind, kind);
  }
  l.partition_bytes = env::required_number(launch::env_partition_bytes,
                                           layout::min_partition_bytes, layout::global_span);
  if (!layout::fits(l.nodes, l.partition_bytes)) {
    fatal("%u partitions of %llu bytes do not fit the global range", l.nodes,
          static_cast<unsigned long long>(l.partition_bytes));
  }
  return l;
}

}  // namespace

const launch_info& current_launch() {
  static const launch_info launch = parse();
  return launch;
}

}  // namespace dstd::rt
