// See tbox_runtime.hpp and include/dstd/bits/tbox.hpp.
#include "dstd/memory/tbox_runtime.hpp"

#include <cstdint>
#include <dstd/bits/tbox.hpp>
#include <new>

#include "runtime/heap/address_space.hpp"
#include "runtime/heap/group_heap.hpp"
#include "runtime/transport/handler_ids.hpp"
#include "runtime/transport/typed_handler.hpp"

namespace dstd::detail {

namespace {

struct room_request {
  std::uint64_t bytes;
  std::uint64_t align;
};
// Room for a pointee on the receiving node; the reply is its address, or
// null when that node has none.
constexpr rt::handler_decl<room_request, void*> room_at_home{rt::handler_ids::tbox_room};

void* room_here(std::size_t bytes, std::size_t align) noexcept {
  if (void* p = rt::group_allocate(bytes, align)) return p;
  return ::operator new(bytes, std::align_val_t(align), std::nothrow);
}

void on_room_request(rt::message& m) {
  const auto r = m.payload_as<room_request>();
  void* room = room_here(r.bytes, r.align);
  m.reply(&room, sizeof room);
}

}  // namespace

void register_tbox_handlers() { rt::register_handler(room_at_home, &on_room_request); }

void* tbox_group_allocate(std::size_t bytes, std::size_t align) noexcept {
  return rt::group_allocate(bytes, align);
}

void* tbox_room_beside(const void* owner, const void* pointee, std::size_t bytes,
                       std::size_t align) noexcept {
  const rt::location to = rt::locate(owner);
  if (to.home == rt::locate(pointee).home) return nullptr;
  if (to.here) return room_here(bytes, align);
  rt::transport* t = rt::current_transport();
  if (t == nullptr) return nullptr;  // the run is over: the pointee stays
  return rt::call(*t, to.home, room_at_home, room_request{bytes, align});
}

}  // namespace dstd::detail
