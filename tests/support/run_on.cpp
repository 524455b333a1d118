// See run_on.hpp.
#include "run_on.hpp"

#include <vector>

#include "runtime/transport/typed_handler.hpp"

namespace dstd::test {

namespace {

constexpr rt::handler_id h_run = rt::first_user_handler + 200;

void on_run(rt::message& m) {
  remote_fn fn = nullptr;
  std::memcpy(&fn, m.payload().data(), sizeof fn);
  const auto* arg = reinterpret_cast<const char*>(m.payload().data()) + sizeof fn;
  const std::string result = fn(std::string(arg, m.payload().size() - sizeof fn));
  m.reply(result.data(), result.size());
}
const rt::handler_registration registration{h_run, &on_run};

}  // namespace

std::string run_on(rt::node_id node, remote_fn fn, const std::string& arg) {
  std::string payload(reinterpret_cast<const char*>(&fn), sizeof fn);
  payload += arg;
  std::vector<std::byte> reply =
      rt::current_transport()->call(node, h_run, payload.data(), payload.size());
  return std::string(reinterpret_cast<const char*>(reply.data()), reply.size());
}

}  // namespace dstd::test
