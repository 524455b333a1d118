// Reliable-connection queue pairs to every peer, connected with librdmacm.
//
// Why rdma_cm: it resolves a peer's IP address to a route and a GID and
// moves the queue pairs through their states, on InfiniBand and RoCE
// alike; a node only needs every peer's IP address and port, which the
// wire-up carries (wireup/wireup.hpp). Every node listens before the
// wire-up; then each node connects to the peers with smaller ids and
// accepts the others, so each pair has exactly one connection. The
// connect request carries the node id.
//
// Queue pair settings for lossy software devices (rxe): an ACK timeout of
// 2^14 x 4.096 us (67 ms), 7 retries, and unlimited receiver-not-ready
// retries, 0.01 ms apart (a peer whose receive buffers are all in use is
// waited for, not failed).
//
// After the connections are made the listener stays, to report a peer that
// disconnects (lost_peer), which the service thread checks.
#pragma once

#include <netinet/in.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/transport/transport.hpp"
#include "runtime/transport/verbs/verbs_device.hpp"

namespace dstd::rt::verbs {

// What every queue pair shares and its limits.
struct queue_pair_shape {
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;    // sends and receives
  ibv_srq* srq = nullptr;  // every peer's messages arrive here
  std::uint32_t send_depth = 0;
  std::uint32_t inline_bytes = 0;
  std::uint8_t read_depth = 1;
};

// Where a node listens (both in network byte order), from its wire-up record.
struct listen_address {
  std::uint32_t ip = 0;
  std::uint16_t port = 0;
};

class connector {
 public:
  explicit connector(const device& d);
  ~connector();
  connector(const connector&) = delete;
  connector& operator=(const connector&) = delete;

  listen_address address() const { return address_; }

  // Connects to every peer; the queue pair of node n at [n] (nullptr for
  // this node). A peer that does not connect within `timeout_ms`, or
  // refuses, is a fatal error naming it and its host.
  std::vector<ibv_qp*> connect_all(node_id self, std::span<const listen_address> peers,
                                   std::span<const std::string> hosts,
                                   const queue_pair_shape& shape, unsigned timeout_ms);

  // A peer whose connection ended since the last call, if any (never blocks).
  std::optional<node_id> lost_peer();
  // Readable when lost_peer() may have something (for poll).
  int event_fd() const { return channel_->fd; }

 private:
  const device& device_;
  rdma_event_channel* channel_ = nullptr;
  rdma_cm_id* listener_ = nullptr;
  listen_address address_;
  std::vector<rdma_cm_id*> ids_;  // by node, once connected
};

}  // namespace dstd::rt::verbs
