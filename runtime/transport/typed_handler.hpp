// Typed messages: a handler is declared once, with its request and reply
// types, and both ends use that declaration.
//
// Why: a handler that reads its payload as the wrong type, or a caller that
// reads the wrong reply, misreads bytes silently. With one declaration the
// registry knows each handler's sizes: a request of another size is a fatal
// error naming the handler and the sender before the handler runs
// (transport::dispatch), a reply of another size is one on the replying
// node (message::reply), and the typed call() checks what comes back.
//
//   constexpr handler_decl<wait_request, std::uint8_t> futex_wait{handler_ids::futex_wait};
//   register_handler(futex_wait, &on_wait);                     // at boot
//   std::uint8_t queued = call(*current_transport(), home, futex_wait, request);
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "runtime/transport/transport.hpp"

namespace dstd::rt {

// A request or reply of any length (a batch): its handler checks it.
struct any_bytes {};
// An empty request or reply.
struct no_bytes {};

template <class Request, class Reply = no_bytes>
struct handler_decl {
  handler_id id;
};

template <class T>
constexpr std::size_t declared_bytes() {
  if constexpr (std::is_same_v<T, any_bytes>) {
    return handler_shape::any_length;
  } else if constexpr (std::is_same_v<T, no_bytes>) {
    return 0;
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "a message carries plain bytes");
    return sizeof(T);
  }
}

template <class Request, class Reply>
void register_handler(handler_decl<Request, Reply> h, handler_fn fn) {
  register_handler(h.id, fn, handler_shape{declared_bytes<Request>(), declared_bytes<Reply>()});
}

// For tests and tools, registration by a static object (the runtime's own
// handlers are registered at boot: handler_ids.hpp). An id alone declares
// a handler of any request and reply length.
struct handler_registration {
  handler_registration(handler_id id, handler_fn fn) { register_handler(id, fn); }
  template <class Request, class Reply>
  handler_registration(handler_decl<Request, Reply> h, handler_fn fn) {
    register_handler(h, fn);
  }
};

// Fire and forget.
template <class Request, class Reply>
void send(transport& t, node_id to, handler_decl<Request, Reply> h, const Request& request) {
  static_assert(!std::is_same_v<Request, any_bytes> && !std::is_same_v<Request, no_bytes>);
  t.post_send(to, h.id, &request, sizeof request);
}
template <class Reply>
void send(transport& t, node_id to, handler_decl<any_bytes, Reply> h,
          std::span<const std::byte> request) {
  t.post_send(to, h.id, request.data(), request.size());
}

// Ends the node: the reply of a call to `h` on `from` has `got` bytes.
[[noreturn]] void malformed_reply(handler_id h, node_id from, std::size_t got,
                                  std::size_t expected);

// Run the handler on `to` and return its reply (blocking: transport::call).
template <class Request, class Reply>
Reply call(transport& t, node_id to, handler_decl<Request, Reply> h, const Request& request) {
  static_assert(!std::is_same_v<Request, any_bytes> && !std::is_same_v<Reply, any_bytes>);
  const std::vector<std::byte> reply = std::is_same_v<Request, no_bytes>
                                           ? t.call(to, h.id, nullptr, 0)
                                           : t.call(to, h.id, &request, sizeof request);
  if constexpr (std::is_same_v<Reply, no_bytes>) {
    if (!reply.empty()) malformed_reply(h.id, to, reply.size(), 0);
    return {};
  } else {
    if (reply.size() != sizeof(Reply)) malformed_reply(h.id, to, reply.size(), sizeof(Reply));
    Reply r;
    std::memcpy(&r, reply.data(), sizeof r);
    return r;
  }
}

}  // namespace dstd::rt
