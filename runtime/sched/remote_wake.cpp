// See remote_wake.hpp.
#include "runtime/sched/remote_wake.hpp"

#include <cstring>

#include "runtime/heap/address_space.hpp"
#include "runtime/transport/handler_ids.hpp"

namespace dstd::rt::sched {

namespace {

void on_wake(message& m) {
  fiber* w = m.payload_as<fiber*>();
  unpark(w);
}
const handler_registration wake_registration{handler_ids::wake_waiter, &on_wake};

}  // namespace

void wake(fiber* w) {
  const location where = locate(w);
  if (where.here) {
    unpark(w);
    return;
  }
  current_transport()->post_send(where.home, handler_ids::wake_waiter, &w, sizeof w);
}

}  // namespace dstd::rt::sched
