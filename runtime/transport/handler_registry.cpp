// The table of message handlers and their declared sizes, filled at boot
// (and by tests' static registration) before any message can arrive.
//
// Why a fixed array: lookups happen for every incoming message on the service
// thread, and registration happens before the service thread starts, so no
// lock is needed.
#include <array>

#include "runtime/common/fatal.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

namespace {
std::array<registered_handler, max_handlers>& table() {
  // Function-local so registrations from any translation unit's static
  // initializers find it constructed; trivially destructible, so it outlives
  // every static destructor.
  static std::array<registered_handler, max_handlers> handlers{};
  return handlers;
}
}  // namespace

void register_handler(handler_id id, handler_fn fn, handler_shape shape) {
  if (id >= max_handlers) fatal("handler id %u is out of range (max %u)", id, max_handlers - 1);
  if (fn == nullptr) fatal("handler id %u registered without a function", id);
  if (table()[id].fn != nullptr) fatal("handler id %u registered twice", id);
  table()[id] = {fn, shape};
}

const registered_handler* find_handler(handler_id id) {
  if (id >= max_handlers || table()[id].fn == nullptr) return nullptr;
  return &table()[id];
}

}  // namespace dstd::rt
