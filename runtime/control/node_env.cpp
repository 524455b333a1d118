// See node_env.hpp.
#include "runtime/control/node_env.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/common/fatal.hpp"
#include "runtime/heap/layout.hpp"
#include "runtime/launch/launch_contract.hpp"

namespace dstd::rt {

namespace {

std::uint64_t number(const char* name, std::uint64_t min, std::uint64_t max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') fatal("%s is not set; start the program with dstdrun", name);
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max) {
    fatal("%s=%s is not a number in %llu..%llu", name, text, static_cast<unsigned long long>(min),
          static_cast<unsigned long long>(max));
  }
  return v;
}

std::uint64_t single_node_partition_bytes() {
  const char* gb = std::getenv("DSTD_PARTITION_GB");
  if (gb == nullptr) return layout::default_partition_bytes;
  std::uint64_t v = number("DSTD_PARTITION_GB", 1, layout::global_span / layout::gib);
  return v * layout::gib;
}

node_env parse() {
  node_env env;
  if (std::getenv(launch::env_node_id) == nullptr) {
    env.partition_bytes = single_node_partition_bytes();
    return env;
  }
  env.launched = true;
  env.nodes = static_cast<node_id>(number(launch::env_node_count, 1, layout::max_nodes));
  env.self = static_cast<node_id>(number(launch::env_node_id, 0, env.nodes - 1));
  const char* kind = std::getenv(launch::env_transport);
  if (kind != nullptr) {
    if (std::strlen(kind) >= sizeof env.transport) fatal("unknown transport '%s'", kind);
    std::strcpy(env.transport, kind);
  }
  env.partition_bytes = number(launch::env_partition_bytes, layout::min_partition_bytes,
                               layout::global_span);
  if (!layout::fits(env.nodes, env.partition_bytes)) {
    fatal("%u partitions of %llu bytes do not fit the global range", env.nodes,
          static_cast<unsigned long long>(env.partition_bytes));
  }
  env.join_timeout_ms = static_cast<unsigned>(number(launch::env_join_timeout_ms, 1, 3600000));
  env.launch_fd = static_cast<int>(number(launch::env_launch_fd, 0, 1 << 20));
  if (env.uses_shm()) {
    env.shm_fds.control_fd = static_cast<int>(number(launch::env_shm_control_fd, 0, 1 << 20));
    env.shm_fds.heap_fd = static_cast<int>(number(launch::env_shm_heap_fd, 0, 1 << 20));
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
