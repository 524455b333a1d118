// Internal: the handler that runs a dstd thread started on this node by
// another (thread_start.cpp).
#pragma once

namespace dstd::detail {

// Registers it (called by rt::register_runtime_handlers()).
void register_thread_start_handlers();

}  // namespace dstd::detail
