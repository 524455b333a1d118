// The shm backend: nodes that are processes on one host.
//
// One-sided operations are memcpy and CPU atomics on a window that maps the
// heap memfd (every partition and the shared static data), which is what
// RDMA gives between hosts; the window is addressed through the region
// table the backend is made with. Messages go through the control segment's
// rings; each node's service thread polls its inbound rings, then sleeps on
// a futex doorbell that senders ring.
//
// Its part of the launch (runtime/common/launch_contract.hpp) is read here:
// DSTD_SHM_CONTROL_FD and DSTD_SHM_HEAP_FD, the memfds dstdrun made. And
// DSTD_SHM_DELAY_US=N, the delayed mode (delay_line.hpp): an emulation for
// tests and for modelling a network's latency, in which everything
// completes N µs later on a helper thread. Never a real network.
#pragma once

#include <memory>
#include <span>

#include "runtime/transport/backend.hpp"

namespace dstd::rt::shm {

// This node's slice of the heap memfd (inherited from dstdrun, or created
// here for a one-node run). No allocation: runs inside the first malloc.
home_memory home_memory_for(const launch_info& launch);

// Takes over the segments home_memory_for found. Fails the node with a clear
// message if they do not match the launch.
std::unique_ptr<transport> make_transport(const launch_info& launch,
                                          std::span<const memory_region> regions);

}  // namespace dstd::rt::shm
