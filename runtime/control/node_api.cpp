// The public node API of <dstd/dstd.hpp>.
#include <dstd/dstd.hpp>

#include "runtime/control/node_env.hpp"
#include "runtime/coherence/coherence.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/heap/remote_free.hpp"

namespace dstd {

node_id this_node() noexcept { return rt::current_node_env().self; }

node_id node_count() noexcept { return rt::current_node_env().nodes; }

node_id home_of(const void* p) noexcept { return rt::locate(p).home; }

node_stats stats() noexcept {
  const rt::coherence::counters c = rt::coherence::current_counters();
  const rt::remote_free_counts f = rt::remote_free_stats();
  const rt::transport* t = rt::current_transport();
  const rt::transport::traffic m = t != nullptr ? t->traffic_counts() : rt::transport::traffic{};
  return {c.read_faults,     c.write_faults,      c.pages_fetched, c.bytes_fetched,
          c.diff_bytes_sent, c.pages_invalidated, c.fault_ns,      c.releases,
          c.acquires,        f.sent,              f.received,      m.messages_sent,
          m.messages_received, m.one_sided};
}

}  // namespace dstd
