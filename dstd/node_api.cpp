// The public node API of <dstd/dstd.hpp>, and the stats line of
// dstdrun --stats (node_stats_fields.hpp).
#include <cstdio>
#include <dstd/bits/node.hpp>

#include "dstd/node_stats_fields.hpp"
#include "runtime/control/node_counters.hpp"
#include "runtime/control/node_env.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd {

node_id this_node() noexcept { return rt::current_node_env().self; }

node_id node_count() noexcept { return rt::current_node_env().nodes; }

node_id home_of(const void* p) noexcept { return rt::locate(p).home; }

node_stats stats() noexcept {
  const rt::node_counters n = rt::collect_node_counters();
  const rt::coherence::counters& c = n.coherence;
  return {c.read_faults,       c.write_faults,     c.fetches,          c.pages_fetched,
          c.bytes_fetched,     c.diff_bytes_sent,  c.pages_invalidated, c.pages_kept,
          c.pages_refetched,   c.pages_kept_writable, c.fault_ns,          c.releases,         c.acquires,
          n.remote_frees.sent, n.remote_frees.received,
          n.traffic.messages_sent, n.traffic.messages_received, n.traffic.one_sided,
          n.workers.added, n.workers.handed_off};
}

void rt::format_stats_fields(char* out, std::size_t size) {
  const node_stats s = stats();
  std::size_t used = 0;
  out[0] = '\0';
  for (const rt::node_stats_field& f : rt::node_stats_fields) {
    if (used >= size) break;
    const int n = std::snprintf(out + used, size - used, " %s=%llu", f.name,
                                static_cast<unsigned long long>(s.*f.member));
    if (n < 0) break;
    used += static_cast<std::size_t>(n);
  }
}

}  // namespace dstd
