// The public node API of <dstd/dstd.hpp>.
#include <dstd/dstd.hpp>

#include "runtime/control/node_counters.hpp"
#include "runtime/control/node_env.hpp"
#include "runtime/heap/address_space.hpp"

namespace dstd {

node_id this_node() noexcept { return rt::current_node_env().self; }

node_id node_count() noexcept { return rt::current_node_env().nodes; }

node_id home_of(const void* p) noexcept {
  const rt::address_space& space = rt::ensure_address_space();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return space.is_global(a) ? space.home(a) : this_node();
}

node_stats stats() noexcept {
  const rt::node_counters n = rt::collect_node_counters();
  const rt::coherence::counters& c = n.coherence;
  return {c.read_faults,       c.write_faults,     c.pages_fetched,
          c.bytes_fetched,     c.diff_bytes_sent,  c.pages_invalidated,
          c.fault_ns,          c.releases,         c.acquires,
          n.remote_frees.sent, n.remote_frees.received,
          n.traffic.messages_sent, n.traffic.messages_received, n.traffic.one_sided};
}

}  // namespace dstd
