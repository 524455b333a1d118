// See verbs_device.hpp.
#include "runtime/transport/verbs/verbs_device.hpp"

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "runtime/common/env.hpp"
#include "runtime/common/fatal.hpp"

namespace dstd::rt::verbs {

namespace {

constexpr const char* device_variable = "DSTD_VERBS_DEVICE";
constexpr const char* gid_variable = "DSTD_VERBS_GID_INDEX";

// An IPv4-mapped GID (::ffff:a.b.c.d), as RoCE keeps an interface's IPv4
// addresses; false for any other GID.
bool ipv4_of(const ibv_gid& gid, in_addr& ip) {
  static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(gid.raw, prefix, sizeof prefix) != 0) return false;
  std::memcpy(&ip.s_addr, gid.raw + 12, 4);
  return ip.s_addr != 0;
}

ibv_context* find_context(const char* wanted, std::string& name) {
  int count = 0;
  ibv_context** contexts = rdma_get_devices(&count);
  if (contexts == nullptr || count == 0) {
    if (wanted != nullptr) {
      fatal("verbs: no RDMA device '%s' (%s): this host has no RDMA device at all "
            "(load rdma_rxe for Soft-RoCE, or use --transport ucx)", wanted, device_variable);
    }
    fatal("verbs: this host has no RDMA device (load rdma_rxe for Soft-RoCE, or use "
          "--transport ucx)");
  }
  std::string known;
  for (int i = 0; i < count; ++i) {
    const char* n = ibv_get_device_name(contexts[i]->device);
    if (wanted == nullptr || std::strcmp(n, wanted) == 0) {
      name = n;
      ibv_context* found = contexts[i];
      rdma_free_devices(contexts);
      return found;
    }
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  rdma_free_devices(contexts);
  fatal("verbs: no RDMA device '%s' (%s); this host has: %s", wanted, device_variable,
        known.c_str());
}

// The first RoCE v2 GID holding an IPv4 address, else the first IPv4 GID.
int default_gid_index(const device& d, int table_size) {
  int any_ipv4 = -1;
  for (int i = 0; i < table_size; ++i) {
    ibv_gid_entry entry{};
    in_addr ip{};
    if (ibv_query_gid_ex(d.context, d.port, static_cast<std::uint32_t>(i), &entry, 0) != 0 ||
        !ipv4_of(entry.gid, ip)) {
      continue;
    }
    if (entry.gid_type == IBV_GID_TYPE_ROCE_V2) return i;
    if (any_ipv4 < 0) any_ipv4 = i;
  }
  if (any_ipv4 >= 0) return any_ipv4;
  fatal("verbs: device %s port %u has no GID with an IPv4 address, which rdma_cm needs "
        "(give its netdev an IPv4 address, or set %s)", d.name.c_str(), d.port, gid_variable);
}

}  // namespace

device open_device() {
  device d;
  d.context = find_context(env::text(device_variable), d.name);
  ibv_device_attr attr{};
  if (ibv_query_device(d.context, &attr) != 0) {
    fatal("verbs: cannot query device %s: %s", d.name.c_str(), std::strerror(errno));
  }
  ibv_port_attr port{};
  if (ibv_query_port(d.context, d.port, &port) != 0) {
    fatal("verbs: cannot query port %u of device %s: %s", d.port, d.name.c_str(),
          std::strerror(errno));
  }
  if (port.state != IBV_PORT_ACTIVE) {
    fatal("verbs: device %s port %u is down (state %s); bring its link up", d.name.c_str(),
          d.port, ibv_port_state_str(port.state));
  }
  const std::uint64_t wanted_gid =
      env::number(gid_variable, 0, static_cast<std::uint64_t>(std::max(port.gid_tbl_len, 1) - 1),
                  ~std::uint64_t{0});
  d.gid_index = wanted_gid == ~std::uint64_t{0} ? default_gid_index(d, port.gid_tbl_len)
                                                : static_cast<int>(wanted_gid);
  ibv_gid gid{};
  if (ibv_query_gid(d.context, d.port, d.gid_index, &gid) != 0 || !ipv4_of(gid, d.ip)) {
    fatal("verbs: GID %d of device %s port %u holds no IPv4 address (%s); rdma_cm needs one",
          d.gid_index, d.name.c_str(), d.port, gid_variable);
  }
  char text[INET_ADDRSTRLEN] = "";
  inet_ntop(AF_INET, &d.ip, text, sizeof text);
  d.ip_text = text;
  d.atomics_with_cpu = attr.atomic_cap == IBV_ATOMIC_GLOB;
  d.has_atomics = attr.atomic_cap != IBV_ATOMIC_NONE;
  d.read_depth = static_cast<std::uint8_t>(
      std::clamp(std::min(attr.max_qp_rd_atom, attr.max_qp_init_rd_atom), 1, 16));
  d.max_qp_wr = static_cast<std::uint32_t>(attr.max_qp_wr);
  d.max_srq_wr = static_cast<std::uint32_t>(attr.max_srq_wr);
  d.max_cqe = static_cast<std::uint32_t>(attr.max_cqe);
  return d;
}

}  // namespace dstd::rt::verbs
