// See node_counters.hpp.
#include "runtime/control/node_counters.hpp"

namespace dstd::rt {

node_counters collect_node_counters() noexcept {
  const transport* t = current_transport();
  return {coherence::current_counters(), remote_free_stats(),
          t != nullptr ? t->traffic_counts() : transport::traffic{},
          sched::current_worker_counts()};
}

}  // namespace dstd::rt
