// Who this node is, as a join_record, and the check that every node of a run
// executes the same binary at the same addresses.
//
// Why it matters: code addresses (thread entry points, handler tables) and
// data addresses travel between nodes as plain integers; a different binary
// or a randomized layout would make them point at the wrong thing.
#pragma once

#include <vector>

#include "runtime/transport/join_record.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

join_record describe_this_node(node_id self);

// Fails the node unless every record matches node 0's. A node that differs
// names itself and its host; the others wait a second first, so that it can.
void check_same_program(const std::vector<join_record>& all, node_id self);

}  // namespace dstd::rt
