// See remote_wake.hpp.
#include "runtime/sched/remote_wake.hpp"

#include <cstring>
#include <dstd/dstd.hpp>

#include "runtime/transport/handler_ids.hpp"

namespace dstd::rt::sched {

namespace {

void on_wake(message& m) {
  fiber* w = m.payload_as<fiber*>();
  unpark(w);
}

}  // namespace

void register_remote_wake_handlers() { register_handler(handler_ids::wake_waiter, &on_wake); }

void wake(fiber* w) {
  const node_id home = dstd::home_of(w);
  if (home == dstd::this_node()) {
    unpark(w);
    return;
  }
  current_transport()->post_send(home, handler_ids::wake_waiter, &w, sizeof w);
}

}  // namespace dstd::rt::sched
