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

std::uint64_t partition_bytes_from_user() {
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

// DSTD_TRANSPORT into l.kind, if set.
void read_kind(launch_info& l) {
  const char* kind = env::text(launch::env_transport);
  if (kind == nullptr) return;
  if (std::strlen(kind) >= sizeof l.kind) {
    fatal("unknown transport '%s' (known: %s)", kind, known_transports);
  }
  std::strcpy(l.kind, kind);
}

void check_fits(const launch_info& l) {
  if (!layout::fits(l.nodes, l.partition_bytes)) {
    fatal("%u partitions of %llu bytes do not fit the global range", l.nodes,
          static_cast<unsigned long long>(l.partition_bytes));
  }
}

launch_info from_dstdrun() {
  launch_info l;
  l.launched = true;
  l.by = launcher::dstdrun;
  l.nodes = static_cast<node_id>(env::required_number(launch::env_node_count, 1, layout::max_nodes));
  l.self = static_cast<node_id>(env::required_number(launch::env_node_id, 0, l.nodes - 1));
  read_kind(l);
  l.partition_bytes = env::required_number(launch::env_partition_bytes,
                                           layout::min_partition_bytes, layout::global_span);
  check_fits(l);
  return l;
}

// mpirun or srun: no dstdrun to create shm's shared segments or to say the
// partition size, so the transport is a network one (ucx unless
// DSTD_TRANSPORT says otherwise) and the partition is the user's setting.
launch_info from_foreign(const foreign_launch& f) {
  launch_info l;
  l.launched = true;
  l.by = f.by;
  l.rank_variable = f.rank_variable;
  l.nodes = f.size;
  l.self = f.rank;
  std::strcpy(l.kind, "ucx");
  read_kind(l);
  if (std::strcmp(l.kind, "shm") == 0) {
    fatal("%s=shm needs dstdrun, which creates the segments the nodes share; this node was "
          "started by another launcher (%s=%u): leave %s unset (ucx) or start the program "
          "with dstdrun",
          launch::env_transport, f.rank_variable, f.rank, launch::env_transport);
  }
  l.partition_bytes = partition_bytes_from_user();
  check_fits(l);
  return l;
}

launch_info launch_without_host() {
  if (env::text(launch::env_node_id) != nullptr) return from_dstdrun();
  if (const foreign_launch f = detect_foreign_launch(); f.by != launcher::none && f.size > 1) {
    return from_foreign(f);
  }
  launch_info l;
  l.partition_bytes = partition_bytes_from_user();
  return l;
}

}  // namespace

launch_info parse_launch_environment() {
  launch_info l = launch_without_host();
  find_host(l);
  return l;
}

const launch_info& current_launch() {
  static const launch_info launch = parse_launch_environment();
  return launch;
}

}  // namespace dstd::rt
