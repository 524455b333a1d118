// See shared_handlers.hpp.
#include "runtime/control/shared_handlers.hpp"

#include <cstdint>
#include <vector>

#include "runtime/common/fatal.hpp"
#include "runtime/control/boot.hpp"
#include "runtime/transport/completion.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::rt {

namespace {

struct registration {
  handler_id id;
  handler_fn fn;
  handler_shape shape;
};

constexpr handler_decl<registration, no_bytes> share{handler_ids::share_handler};

void on_share(message& m) {
  const registration r = m.payload_as<registration>();
  if (r.id < first_user_handler) fatal("node 0 shared runtime handler id %u", r.id);
  register_handler(r.id, r.fn, r.shape);
  m.reply(nullptr, 0);
}

void share_with_every_node(handler_id id, handler_fn fn, handler_shape shape) {
  transport* t = current_transport();
  if (t->on_service_thread()) fatal("handler id %u registered from a message handler", id);
  const registration r{id, fn, shape};
  std::vector<std::vector<std::byte>> replies(t->nodes());
  completion answers;
  for (node_id n = 1; n < t->nodes(); ++n) {
    answers.expect();
    t->post_call(n, share.id, &r, sizeof r, replies[n], answers);
  }
  answers.wait();
}

}  // namespace

void register_shared_handler_handlers() { register_handler(share, &on_share); }

void share_user_registrations() { observe_user_registrations(&share_with_every_node); }

}  // namespace dstd::rt
