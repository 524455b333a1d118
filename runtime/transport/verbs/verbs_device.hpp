// The RDMA device a verbs node uses, and what it can do.
//
// Why one place: the device is chosen by name (DSTD_VERBS_DEVICE, default
// the first one librdmacm sees) and its address by a GID index
// (DSTD_VERBS_GID_INDEX, default the first RoCE v2 GID holding an IPv4
// address: rxe's index 1). The IPv4 address in that GID is what the node
// listens on with rdma_cm and what its peers connect to. Everything the
// backend needs to know about the device (its atomicity, its inline limit,
// its read/atomic depth) is read here once, and a missing device, a port
// that is down or a GID without an IPv4 address is a fatal error naming
// the device.
#pragma once

#include <infiniband/verbs.h>
#include <netinet/in.h>

#include <cstdint>
#include <string>

namespace dstd::rt::verbs {

struct device {
  ibv_context* context = nullptr;  // librdmacm's own context for the device
  std::string name;
  std::uint8_t port = 1;
  int gid_index = 0;
  in_addr ip{};          // from the GID: what rdma_cm binds to
  std::string ip_text;   // the same, for messages
  // NIC atomics are atomic with the home CPU's atomics (IBV_ATOMIC_GLOB);
  // else remote atomics are served by the home's CPU (verbs_transport.hpp).
  bool atomics_with_cpu = false;
  bool has_atomics = false;         // any NIC atomics (IBV_ATOMIC_HCA or GLOB)
  std::uint8_t read_depth = 1;      // outstanding reads and atomics per QP
  std::uint32_t max_qp_wr = 0;
  std::uint32_t max_srq_wr = 0;
  std::uint32_t max_cqe = 0;
};

// Opens the device DSTD_VERBS_DEVICE names (or the first) and reads its
// address and capabilities. Never returns on failure.
device open_device();

}  // namespace dstd::rt::verbs
