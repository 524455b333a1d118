// The public node API of <dstd/dstd.hpp>.
#include <dstd/dstd.hpp>

#include "runtime/control/node_env.hpp"
#include "runtime/heap/partition.hpp"

namespace dstd {

node_id this_node() noexcept { return rt::current_node_env().self; }

node_id node_count() noexcept { return rt::current_node_env().nodes; }

node_id home_of(const void* p) noexcept {
  const rt::global_range& range = rt::current_global_range();
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return range.contains(a) ? range.home(a) : this_node();
}

}  // namespace dstd
