// See node_env.hpp.
#include "runtime/control/node_env.hpp"

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"
#include "runtime/common/launch_contract.hpp"

namespace dstd::rt {

namespace {

node_env parse() {
  const launch_info& launch = current_launch();
  node_env env;
  env.launched = launch.launched;
  env.self = launch.self;
  env.nodes = launch.nodes;
  env.partition_bytes = launch.partition_bytes;
  if (!env.launched) return env;
  if (launch.by != launcher::dstdrun) {
    // mpirun or srun: no status pipe, output is theirs to forward.
    env.join_timeout_ms = static_cast<unsigned>(
        env::number(launch::env_join_timeout_ms, 1, 3600000, env.join_timeout_ms));
    return env;
  }
  env.join_timeout_ms =
      static_cast<unsigned>(env::required_number(launch::env_join_timeout_ms, 1, 3600000));
  env.launch_addr = env::text(launch::env_launch_addr);
  if (env.launch_addr != nullptr) {
    env.launch_token = env::text(launch::env_launch_token);
    if (env.launch_token == nullptr) fatal("%s is set but %s is not", launch::env_launch_addr,
                                           launch::env_launch_token);
  } else {
    env.launch_fd = static_cast<int>(env::required_number(launch::env_launch_fd, 0, 1 << 20));
  }
  env.has_launcher = true;
  env.output_forwarded = true;
  env.output_to_tty = env::required_number(launch::env_output_to_tty, 0, 1) == 1;
  return env;
}

}  // namespace

const node_env& current_node_env() {
  static const node_env env = parse();
  return env;
}

}  // namespace dstd::rt
