// Internal: ownership transfer as a hint (docs/DESIGN.md §5.4).
//
// A unique_ptr or tbox that arrives through a channel or as a new thread's
// argument tells the runtime what the receiver touches next: its pointee.
// Right after the receiver's acquire, receive_hint() fetches the pointee's
// pages (whole tbox groups; at most 1 MiB) that are another node's and not
// cached here, with one read per run of pages, instead of a fault per page.
// Only the pointee's own bytes: what it points to in turn (a vector's
// elements) still comes by faults. Any other value is no hint.
#pragma once

#include <cstddef>
#include <dstd/bits/tbox.hpp>
#include <dstd/bits/unique_ptr.hpp>
#include <type_traits>

namespace dstd::detail {

// Fetches the remote pages of [p, p + len) not cached here; no-op on one
// node and for memory that is this node's.
void fetch_owned_bytes(const void* p, std::size_t len) noexcept;

template <class V>
void receive_hint(const V&) noexcept {}

template <class T, class D>
void receive_hint(const unique_ptr<T, D>& p) noexcept {
  if constexpr (!std::is_array_v<T> && std::is_pointer_v<typename unique_ptr<T, D>::pointer>) {
    if (p) fetch_owned_bytes(p.get(), sizeof(T));
  }
}

template <class T>
void receive_hint(const tbox<T>& p) noexcept {
  detail::receive_hint(static_cast<const unique_ptr<T>&>(p));
}

}  // namespace dstd::detail
