// The table of message handlers, filled before any message can arrive:
// by static registration (a program's own handlers) and at boot, before the
// transport starts (the runtime's, handler_ids.hpp).
//
// Why a fixed array: lookups happen for every incoming message on the service
// thread, and registration happens only before any message can arrive, so no
// lock is needed.
#include <array>

#include "runtime/common/fatal.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

namespace {
std::array<handler_fn, max_handlers>& table() {
  // Function-local so registrations from any translation unit's static
  // initializers find it constructed; trivially destructible, so it outlives
  // every static destructor.
  static std::array<handler_fn, max_handlers> handlers{};
  return handlers;
}
}  // namespace

void register_handler(handler_id id, handler_fn fn) {
  if (id >= max_handlers) fatal("handler id %u is out of range (max %u)", id, max_handlers - 1);
  if (table()[id] != nullptr) fatal("handler id %u registered twice", id);
  table()[id] = fn;
}

handler_fn find_handler(handler_id id) { return id < max_handlers ? table()[id] : nullptr; }

}  // namespace dstd::rt
