// See remote_wake.hpp.
#include "runtime/sched/remote_wake.hpp"

#include "runtime/common/fatal.hpp"
#include "runtime/heap/address_space.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::rt::sched {

namespace {

static_assert(layout::max_nodes <= 0x10000, "pack() keeps a node in 16 bits");

node_id this_node() { return ensure_address_space().self; }

// On the waiter's node.
void wake_here(waiter_id id, std::uint64_t mark, node_id from) {
  fiber* f = find_waiter(id);
  if (f == nullptr) {
    fatal("node %u asked to wake waiter %u of node %u, which never had it", from, id, this_node());
  }
  if (mark != 0) {
    unpark_with_mark(f, mark);
  } else {
    unpark(f);
  }
}

struct wake_message {
  waiter_id id;
  std::uint64_t mark;
};

// Unpark a waiter on its node, leaving `mark` (0: none).
constexpr handler_decl<wake_message> wake_waiter{handler_ids::wake_waiter};

void on_wake(message& m) {
  const auto w = m.payload_as<wake_message>();
  wake_here(w.id, w.mark, m.from());
}

}  // namespace

void register_remote_wake_handlers() { register_handler(wake_waiter, &on_wake); }

waiter_name my_name() { return {this_node(), id_of(self())}; }

std::uint64_t pack(waiter_name w) noexcept { return std::uint64_t{w.id} << 16 | w.node; }

waiter_name unpack(std::uint64_t packed) noexcept {
  return {static_cast<node_id>(packed & 0xffff), static_cast<waiter_id>(packed >> 16)};
}

void wake(waiter_name w, std::uint64_t mark) {
  const node_id self = this_node();
  if (w.node == self) {
    wake_here(w.id, mark, self);
    return;
  }
  const wake_message m{w.id, mark};
  send(*current_transport(), w.node, wake_waiter, m);
}

}  // namespace dstd::rt::sched
