// <dstd/dstd.hpp>: everything dstd offers, and the node API.
//
// The node API tells a program where it runs. A program started without
// dstdrun is one node: this_node() == 0, node_count() == 1.
#pragma once

#include <cstdint>

namespace dstd {

using node_id = std::uint32_t;

// The node the calling thread runs on.
node_id this_node() noexcept;

// How many nodes the run has.
node_id node_count() noexcept;

// The node whose memory holds *p. Addresses outside the global heap (a
// library's globals, a thread's own stack before dstd threads exist) are
// private to each node, so their home is the calling node.
node_id home_of(const void* p) noexcept;

}  // namespace dstd
