// The runtime half of dstd::tbox (include/dstd/bits/tbox.hpp): rooms for
// pointees in tbox groups, here or at the node that homes a tbox.
#pragma once

namespace dstd::detail {

// Registers the handler that makes room for a pointee at a tbox's home
// (called by register_runtime_handlers()).
void register_tbox_handlers();

}  // namespace dstd::detail
