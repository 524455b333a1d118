// The shm backend: nodes that are processes on one host.
//
// One-sided operations are memcpy and CPU atomics on a window that maps every
// partition's memfd, which is what RDMA gives between hosts. Messages go
// through the control segment's rings; each node's service thread polls its
// inbound rings, then sleeps on a futex doorbell that senders ring.
#pragma once

#include <memory>

#include "runtime/transport/shm/shm_segments.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt::shm {

// Takes ownership of the segment fds (inherited from dstdrun, or created by a
// one-node run). Fails the node with a clear message if they do not match.
std::unique_ptr<transport> make_transport(node_id self, node_id nodes,
                                          std::uint64_t partition_bytes, segment_fds fds);

}  // namespace dstd::rt::shm
