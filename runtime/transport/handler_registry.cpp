// The table of message handlers and their declared sizes, filled at boot
// (and by tests' static registration) before any message can arrive.
//
// Why a fixed array: lookups happen for every incoming message on the service
// thread, and no lock is needed: the runtime's handlers are registered before
// the service thread starts; a user handler registered after boot (node 0's
// static constructors run then, and the observer shares it with the other
// nodes, whose service threads register it themselves) is published by a
// release store of its function, which the lookup reads with acquire, and
// no message can name it before its registration returns.
#include <array>

#include "runtime/common/fatal.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt {

namespace {
registration_observer observer = nullptr;

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
  registered_handler& entry = table()[id];
  if (__atomic_load_n(&entry.fn, __ATOMIC_ACQUIRE) != nullptr) {
    fatal("handler id %u registered twice", id);
  }
  entry.shape = shape;
  __atomic_store_n(&entry.fn, fn, __ATOMIC_RELEASE);
  if (observer != nullptr && id >= first_user_handler) observer(id, fn, shape);
}

void observe_user_registrations(registration_observer o) { observer = o; }

const registered_handler* find_handler(handler_id id) {
  if (id >= max_handlers || __atomic_load_n(&table()[id].fn, __ATOMIC_ACQUIRE) == nullptr) {
    return nullptr;
  }
  return &table()[id];
}

}  // namespace dstd::rt
