// The ucx backend: nodes on one host or many, over UCX's UCP API.
//
// Why UCX: one API carries TCP, RDMA (InfiniBand, RoCE) and shared memory,
// chosen at run time (UCX_TLS, UCX_NET_DEVICES pass through), and it is what
// HPC clusters already run. Mapping of the transport contract
// (transport.hpp):
//  * one-sided reads and writes are ucp_get/ucp_put on the home's memory,
//    registered in chunks on demand (ucx_keys.hpp); a write finishes when an
//    endpoint flush says it reached the home;
//  * atomics are ucp atomics in UCX's "cpu" atomic mode, which only uses
//    devices whose atomics are coherent with the home CPU's, else emulates
//    them at the home (its service thread progresses the worker);
//  * messages are UCP active messages, copied into an inbox by the receive
//    callback and run by the service thread outside UCX's progress;
//  * per-peer order: a worker fence after every one-sided write or atomic;
//  * the service thread is the only one that progresses the worker; its
//    own waits drive progress (waiting.hpp); everyone else parks or blocks.
// Peers' addresses come through wire-up (wireup/wireup.hpp). A peer whose
// connection fails, or that is not heard from for a few seconds
// (heartbeats, peer_health.hpp), ends the node with a message naming it.
#pragma once

#include <memory>
#include <span>

#include "runtime/transport/backend.hpp"

namespace dstd::rt::ucx {

// A node-private memfd holding the home partition (and, at node 0, the
// executable's static data after it). No allocation: runs in the first malloc.
home_memory home_memory_for(const launch_info& launch);

std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions);

}  // namespace dstd::rt::ucx
