// See node_env.hpp.
#include "runtime/control/node_env.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/launch_contract.hpp"
#include "runtime/common/layout.hpp"

namespace dstd::rt {

namespace {

std::uint64_t single_node_partition_bytes() {
  return env::number("DSTD_PARTITION_GB", 1, layout::global_span / layout::gib,
                     layout::default_partition_bytes / layout::gib) *
         layout::gib;
}

node_env parse() {
  node_env env;
  if (env::text(launch::env_node_id) == nullptr) {
    env.partition_bytes = single_node_partition_bytes();
    return env;
  }
  env.launched = true;
  env.nodes =
      static_cast<node_id>(env::required_number(launch::env_node_count, 1, layout::max_nodes));
  env.self = static_cast<node_id>(env::required_number(launch::env_node_id, 0, env.nodes - 1));
  const char* kind = env::text(launch::env_transport);
  if (kind != nullptr) {
    if (std::strlen(kind) >= sizeof env.transport) fatal("unknown transport '%s'", kind);
    std::strcpy(env.transport, kind);
  }
  env.partition_bytes = env::required_number(launch::env_partition_bytes,
                                             layout::min_partition_bytes,
                               layout::global_span);
  if (!layout::fits(env.nodes, env.partition_bytes)) {
    fatal("%u partitions of %llu bytes do not fit the global range", env.nodes,
          static_cast<unsigned long long>(env.partition_bytes));
  }
  env.join_timeout_ms =
      static_cast<unsigned>(env::required_number(launch::env_join_timeout_ms, 1, 3600000));
  env.launch_fd = static_cast<int>(env::required_number(launch::env_launch_fd, 0, 1 << 20));
  if (env.uses_shm()) {
    env.shm_fds.control_fd =
        static_cast<int>(env::required_number(launch::env_shm_control_fd, 0, 1 << 20));
    env.shm_fds.heap_fd =
        static_cast<int>(env::required_number(launch::env_shm_heap_fd, 0, 1 << 20));
  }
  return env;
}

}  // namespace

bool node_env::uses_shm() const { return std::strcmp(transport, "shm") == 0; }

const node_env& current_node_env() {
  static const node_env env = parse();
  return env;
}

}  // namespace dstd::rt
