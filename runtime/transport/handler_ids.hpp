// Message handler ids owned by the runtime. One list, so two subsystems can
// never pick the same id. Tests and tools use ids from first_user_handler.
#pragma once

#include "runtime/transport/transport.hpp"

namespace dstd::rt::handler_ids {

inline constexpr handler_id shutdown = 1;  // node 0 -> others: the program is over

}  // namespace dstd::rt::handler_ids
