// See verbs_connect.hpp.
#include "runtime/transport/verbs/verbs_connect.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "runtime/common/fatal.hpp"

namespace dstd::rt::verbs {

namespace {

constexpr std::uint8_t ack_timeout = 14;  // 4.096 us x 2^14 = 67 ms
constexpr std::uint8_t retries = 7;
constexpr std::uint8_t rnr_retries_forever = 7;
constexpr int resolve_ms = 5000;

// A cm id's peer rides in its context as node + 1 (0: not known yet).
void set_peer(rdma_cm_id* id, node_id n) {
  id->context = reinterpret_cast<void*>(static_cast<std::uintptr_t>(n) + 1);
}
std::optional<node_id> peer_of(const rdma_cm_id* id) {
  const auto v = reinterpret_cast<std::uintptr_t>(id->context);
  if (v == 0) return std::nullopt;
  return static_cast<node_id>(v - 1);
}

sockaddr_in socket_address(std::uint32_t ip, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = ip;
  a.sin_port = port;
  return a;
}

std::string text_of(const listen_address& a) {
  char ip[INET_ADDRSTRLEN] = "";
  in_addr in{};
  in.s_addr = a.ip;
  inet_ntop(AF_INET, &in, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(a.port));
}

// Makes the queue pair of `id` (an id of the device's, with its peer set).
void make_queue_pair(rdma_cm_id* id, const queue_pair_shape& shape, const std::string& peer) {
  if (id->verbs != shape.pd->context) {
    fatal("verbs: rdma_cm routed the connection with %s through another RDMA device than "
          "the one chosen (DSTD_VERBS_DEVICE)", peer.c_str());
  }
  if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
                      const_cast<std::uint8_t*>(&ack_timeout), sizeof ack_timeout) != 0) {
    fatal("verbs: cannot set the ACK timeout of the connection with %s: %s", peer.c_str(),
          std::strerror(errno));
  }
  ibv_qp_init_attr attr{};
  attr.send_cq = shape.cq;
  attr.recv_cq = shape.cq;
  attr.srq = shape.srq;
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 1;
  attr.cap.max_send_wr = shape.send_depth;
  attr.cap.max_send_sge = 1;
  attr.cap.max_inline_data = shape.inline_bytes;
  if (rdma_create_qp(id, shape.pd, &attr) != 0) {
    fatal("verbs: cannot create the queue pair for %s (%u send entries, %u inline bytes): %s",
          peer.c_str(), shape.send_depth, shape.inline_bytes, std::strerror(errno));
  }
}

// rdma_cm leaves the receiver-not-ready timer at 0, which tells a sender
// to wait 655 ms before it retries a message that found no receive buffer;
// 0.01 ms instead (a kernel timer rounds it up to a tick).
void shorten_rnr_wait(rdma_cm_id* id, const std::string& peer) {
  ibv_qp_attr attr{};
  attr.min_rnr_timer = 1;
  if (const int e = ibv_modify_qp(id->qp, &attr, IBV_QP_MIN_RNR_TIMER); e != 0) {
    fatal("verbs: cannot set the receiver-not-ready timer of the connection with %s: %s",
          peer.c_str(), std::strerror(e));
  }
}

rdma_conn_param connection_parameters(const queue_pair_shape& shape, const node_id* self) {
  rdma_conn_param p{};
  p.responder_resources = shape.read_depth;
  p.initiator_depth = shape.read_depth;
  p.retry_count = retries;
  p.rnr_retry_count = rnr_retries_forever;
  p.private_data = self;
  p.private_data_len = self == nullptr ? 0 : sizeof *self;
  return p;
}

}  // namespace

connector::connector(const device& d) : device_(d) {
  channel_ = rdma_create_event_channel();
  if (channel_ == nullptr) {
    fatal("verbs: cannot create an rdma_cm event channel: %s (is rdma_ucm loaded?)",
          std::strerror(errno));
  }
  if (rdma_create_id(channel_, &listener_, nullptr, RDMA_PS_TCP) != 0) {
    fatal("verbs: cannot create an rdma_cm id: %s", std::strerror(errno));
  }
  sockaddr_in at = socket_address(d.ip.s_addr, 0);
  if (rdma_bind_addr(listener_, reinterpret_cast<sockaddr*>(&at)) != 0) {
    fatal("verbs: cannot bind rdma_cm to %s (device %s, GID %d): %s", d.ip_text.c_str(),
          d.name.c_str(), d.gid_index, std::strerror(errno));
  }
  if (listener_->verbs != d.context) {
    fatal("verbs: address %s (GID %d of device %s) belongs to another RDMA device",
          d.ip_text.c_str(), d.gid_index, d.name.c_str());
  }
  if (rdma_listen(listener_, 64) != 0) {
    fatal("verbs: cannot listen with rdma_cm on %s: %s", d.ip_text.c_str(), std::strerror(errno));
  }
  address_ = {d.ip.s_addr, rdma_get_src_port(listener_)};
}

connector::~connector() {
  // The queue pairs and ids live until the process ends: a peer may still
  // be reading this node's memory while it leaves.
}

std::vector<ibv_qp*> connector::connect_all(node_id self, std::span<const listen_address> peers,
                                            std::span<const std::string> hosts,
                                            const queue_pair_shape& shape, unsigned timeout_ms) {
  const node_id nodes = static_cast<node_id>(peers.size());
  ids_.assign(nodes, nullptr);
  auto name = [&](node_id n) {
    return "node " + std::to_string(n) + " (host " + hosts[n] + ", " + text_of(peers[n]) + ")";
  };
  // Connect to the smaller ids; the larger ones connect to us.
  for (node_id n = 0; n < self; ++n) {
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel_, &id, nullptr, RDMA_PS_TCP) != 0) {
      fatal("verbs: cannot create an rdma_cm id for %s: %s", name(n).c_str(), std::strerror(errno));
    }
    set_peer(id, n);
    sockaddr_in from = socket_address(device_.ip.s_addr, 0);
    sockaddr_in to = socket_address(peers[n].ip, peers[n].port);
    if (rdma_resolve_addr(id, reinterpret_cast<sockaddr*>(&from), reinterpret_cast<sockaddr*>(&to),
                          resolve_ms) != 0) {
      fatal("verbs: cannot resolve the address of %s: %s", name(n).c_str(), std::strerror(errno));
    }
  }
  const node_id expected = nodes - 1;
  node_id established = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (established < expected) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{channel_->fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) == 0) {
      std::string missing;
      for (node_id n = 0; n < nodes; ++n) {
        if (n != self && ids_[n] == nullptr) missing += (missing.empty() ? "" : "; ") + name(n);
      }
      fatal("verbs: no RDMA connection within %u ms with %s", timeout_ms, missing.c_str());
    }
    rdma_cm_event* event = nullptr;
    if (rdma_get_cm_event(channel_, &event) != 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      fatal("verbs: reading rdma_cm events failed: %s", std::strerror(errno));
    }
    rdma_cm_id* id = event->id;
    const rdma_cm_event_type type = event->event;
    const int status = event->status;
    std::optional<node_id> peer = peer_of(id);
    if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
      node_id from = nodes;
      if (event->param.conn.private_data_len >= sizeof from) {
        std::memcpy(&from, event->param.conn.private_data, sizeof from);
      }
      if (from <= self || from >= nodes || ids_[from] != nullptr) {
        fatal("verbs: an RDMA connection request from an unexpected node %u (this run has %u "
              "nodes; node %u accepts only larger ids, once each)", from, nodes, self);
      }
      set_peer(id, from);
      make_queue_pair(id, shape, name(from));
      rdma_conn_param param = connection_parameters(shape, nullptr);
      rdma_ack_cm_event(event);
      if (rdma_accept(id, &param) != 0) {
        fatal("verbs: cannot accept the connection of %s: %s", name(from).c_str(),
              std::strerror(errno));
      }
      continue;
    }
    rdma_ack_cm_event(event);
    if (!peer) fatal("verbs: unexpected rdma_cm event %s while connecting", rdma_event_str(type));
    const std::string who = name(*peer);
    switch (type) {
      case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(id, resolve_ms) != 0) {
          fatal("verbs: cannot resolve a route to %s: %s", who.c_str(), std::strerror(errno));
        }
        break;
      case RDMA_CM_EVENT_ROUTE_RESOLVED: {
        make_queue_pair(id, shape, who);
        rdma_conn_param param = connection_parameters(shape, &self);
        if (rdma_connect(id, &param) != 0) {
          fatal("verbs: cannot connect to %s: %s", who.c_str(), std::strerror(errno));
        }
        break;
      }
      case RDMA_CM_EVENT_ESTABLISHED:
        shorten_rnr_wait(id, who);
        ids_[*peer] = id;
        ++established;
        break;
      default:
        fatal("verbs: connecting with %s failed: %s (status %d)", who.c_str(),
              rdma_event_str(type), status);
    }
  }
  // From now on the channel is only read by lost_peer(), which must not block.
  const int flags = fcntl(channel_->fd, F_GETFL);
  if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    fatal("verbs: cannot make the rdma_cm channel non-blocking: %s", std::strerror(errno));
  }
  std::vector<ibv_qp*> qps(nodes, nullptr);
  for (node_id n = 0; n < nodes; ++n) {
    if (n != self) qps[n] = ids_[n]->qp;
  }
  return qps;
}

std::optional<node_id> connector::lost_peer() {
  rdma_cm_event* event = nullptr;
  while (rdma_get_cm_event(channel_, &event) == 0) {
    const rdma_cm_event_type type = event->event;
    const std::optional<node_id> peer = peer_of(event->id);
    rdma_ack_cm_event(event);
    if (peer && (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_DEVICE_REMOVAL ||
                 type == RDMA_CM_EVENT_TIMEWAIT_EXIT)) {
      return peer;
    }
  }
  return std::nullopt;
}

}  // namespace dstd::rt::verbs
