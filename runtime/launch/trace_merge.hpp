// dstdrun --trace FILE: the nodes' trace parts become one Chrome/Perfetto
// JSON document.
//
// Why in dstdrun: each node writes its own events at exit
// (runtime/common/trace.hpp) to FILE.node<N>, with no coordination; only
// dstdrun knows when every node is done, and which of them never wrote
// (a node that failed: nodes write their events when the program ends, or
// when dstdrun stops them). It joins what is there, says what is missing,
// and removes the parts.
#pragma once

#include <string>

namespace dstd::launch {

// Writes FILE from the parts of nodes 0..nodes-1 and removes them. Prints
// (as "dstdrun: ...") which nodes left no events, or why FILE could not be
// written; returns false in the latter case.
bool merge_trace(const std::string& file, unsigned nodes);

}  // namespace dstd::launch
