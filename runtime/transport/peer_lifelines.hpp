// Lifelines between node 0 and every other node of a run that no dstdrun
// supervises (mpirun, srun): how a host that drops off is noticed within
// seconds, without false alarms on a loaded machine.
//
// Why not the network backend's own connections: they carry traffic all
// the time, so TCP keepalive never probes them, and data sent to a host
// that became unreachable is retransmitted for many minutes before the
// kernel gives up. Why not heartbeats alone: they are judged by the
// receiving process, and on a loaded machine a receiver went 3 s without
// one while every sender was on time (ucx/peer_health.hpp), so their limit
// must stay long. An idle TCP connection with keepalive is probed by the
// kernels, which answer however busy or slow the processes are; its
// failure is a fact about the network, not about scheduling. dstdrun keeps
// the same kind of connection with each remote node
// (runtime/common/launch_contract.hpp); without dstdrun, node 0 keeps them.
//
// Why a star around node 0: node 0 sees any other node's host drop off
// (and ends the run, naming it); every other node sees node 0's. When
// node 0 ends, every node sees its lifeline close. So each failure ends
// the whole run, with n-1 connections rather than n^2.
//
// Which address: node 0 listens on every interface and offers its IPv4
// addresses in its wire-up record, those of UCX_NET_DEVICES first (the
// network the run was told to use), loopback last. A node tries them in
// order; a random token per run makes sure it reached node 0 of this run
// and not some other listener at the same address on its own host.
//
// Threads: connect() runs once, on the thread doing the wire-up; then a
// thread of its own waits on the connections and calls `on_lost` once per
// connection that fails or closes. A forked child closes its copies
// (drop_in_child), so that the node's death still closes the connection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/transport/transport.hpp"

namespace dstd::rt {

// What node 0 offers in its wire-up record (trivially copyable; zero on
// other nodes).
struct lifeline_offer {
  static constexpr std::size_t max_addresses = 8;
  std::uint64_t token = 0;
  std::uint16_t port = 0;  // host order
  std::uint16_t address_count = 0;
  std::uint32_t addresses[max_addresses] = {};  // IPv4, network order, preferred first
};

class peer_lifelines {
 public:
  // How a connection ended: `unreachable` when the kernel gave up on the
  // peer's host (keepalive unanswered), else it closed or was reset.
  using lost_fn = std::function<void(node_id peer, bool unreachable, std::string why)>;

  // On node 0, listens (a fatal error when it cannot); elsewhere nothing.
  peer_lifelines(node_id self, node_id nodes);
  ~peer_lifelines();
  peer_lifelines(const peer_lifelines&) = delete;
  peer_lifelines& operator=(const peer_lifelines&) = delete;

  // Node 0's offer (empty elsewhere), for its wire-up record.
  const lifeline_offer& offer() const { return offer_; }

  // Node 0 accepts every other node's connection, others connect to node 0
  // from `node0` (its offer, from the wire-up), both within timeout_ms; a
  // fatal error names the node that could not be reached or did not come.
  // `hosts` name the nodes' hosts in messages.
  void connect(const lifeline_offer& node0, const std::vector<std::string>& hosts,
               unsigned timeout_ms);

  // Starts watching: `on_lost` is called from the watching thread.
  void watch(lost_fn on_lost);

  // In a forked child: closes this node's lifelines (without shutting
  // them down), so that they still end with the node.
  static void drop_in_child();

 private:
  void accept_all(const std::vector<std::string>& hosts, unsigned timeout_ms);
  void connect_to_node0(const lifeline_offer& node0, const std::vector<std::string>& hosts,
                        unsigned timeout_ms);
  void watch_loop();

  node_id self_;
  node_id nodes_;
  lifeline_offer offer_;
  int listener_ = -1;
  std::vector<int> links_;  // by node: the connection, or -1
  int stop_ = -1;           // eventfd: the destructor wakes the watcher
  lost_fn on_lost_;
  std::thread watcher_;
};

}  // namespace dstd::rt
