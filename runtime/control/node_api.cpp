// The public node API of <dstd/dstd.hpp>.
#include <dstd/dstd.hpp>

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

}  // namespace dstd
