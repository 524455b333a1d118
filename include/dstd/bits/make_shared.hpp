// Internal to <dstd/memory>: make_shared, allocate_shared and their
// _for_overwrite forms, for objects and for arrays of any rank.
//
// Each is one allocation, the control block with the object or the
// elements in it (bits/shared_count_inplace.hpp); make_shared is
// allocate_shared with std::allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <dstd/bits/shared_count_inplace.hpp>
#include <dstd/bits/shared_ptr.hpp>
#include <dstd/bits/std_parts.hpp>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd {

namespace detail {

// What a block holds for shared_ptr<T>: T's innermost element, without cv,
// made and destroyed by the allocator rebound to it.
template <class T>
using shared_element = std::remove_cv_t<std::remove_all_extents_t<T>>;
template <class T, class A>
using element_allocator =
    typename std::allocator_traits<A>::template rebind_alloc<shared_element<T>>;
template <class T>
using default_allocator = std::allocator<shared_element<T>>;

template <class T, bool Overwrite, class A, class... Args>
shared_ptr<T> share_object(const A& a, Args&&... args) {
  using allocator = element_allocator<T, A>;
  using block = shared_count_object<shared_element<T>, allocator, Overwrite>;
  block* b = new_block<block>(allocator(a), sizeof(block), std::forward<Args>(args)...);
  return shared_access::share_new<T>(b->object(), b);
}

// n elements of array type T's element type, each a copy of the value if
// there is one, else value-initialized (default-initialized for overwrite).
template <class T, bool Overwrite, class A, class... Value>
shared_ptr<T> share_array(const A& a, std::size_t n, const Value&... value) {
  using element = std::remove_extent_t<T>;  // itself an array when T's rank is above 1
  using allocator = element_allocator<T, A>;
  using block = shared_count_array<shared_element<T>, allocator, Overwrite>;
  constexpr std::size_t period = sizeof(element) / sizeof(shared_element<T>);
  if (n > SIZE_MAX / period) throw std::bad_array_new_length();
  const std::size_t count = n * period;
  block* b = [&] {
    if constexpr (sizeof...(Value) == 0) {
      return new_block<block>(allocator(a), block::bytes(count), count);
    } else {
      const shared_element<T>* pattern = nullptr;  // value's first element
      ((pattern = reinterpret_cast<const shared_element<T>*>(__builtin_addressof(value))), ...);
      return new_block<block>(allocator(a), block::bytes(count), count, pattern, period);
    }
  }();
  return shared_access::adopt_counted<shared_ptr<T>>(reinterpret_cast<element*>(b->elements()), b);
}

}  // namespace detail

// Objects.
template <class T, class A, class... Args>
  requires(!std::is_array_v<T>)
shared_ptr<T> allocate_shared(const A& a, Args&&... args) {
  return detail::share_object<T, false>(a, std::forward<Args>(args)...);
}
template <class T, class A>
  requires(!std::is_array_v<T>)
shared_ptr<T> allocate_shared_for_overwrite(const A& a) {
  return detail::share_object<T, true>(a);
}
template <class T, class... Args>
  requires(!std::is_array_v<T>)
shared_ptr<T> make_shared(Args&&... args) {
  return dstd::allocate_shared<T>(detail::default_allocator<T>(), std::forward<Args>(args)...);
}
template <class T>
  requires(!std::is_array_v<T>)
shared_ptr<T> make_shared_for_overwrite() {
  return dstd::allocate_shared_for_overwrite<T>(detail::default_allocator<T>());
}

// Arrays of unknown bound: n elements.
template <class T, class A>
  requires std::is_unbounded_array_v<T>
shared_ptr<T> allocate_shared(const A& a, std::size_t n) {
  return detail::share_array<T, false>(a, n);
}
template <class T, class A>
  requires std::is_unbounded_array_v<T>
shared_ptr<T> allocate_shared(const A& a, std::size_t n, const std::remove_extent_t<T>& value) {
  return detail::share_array<T, false>(a, n, value);
}
template <class T, class A>
  requires std::is_unbounded_array_v<T>
shared_ptr<T> allocate_shared_for_overwrite(const A& a, std::size_t n) {
  return detail::share_array<T, true>(a, n);
}
template <class T>
  requires std::is_unbounded_array_v<T>
shared_ptr<T> make_shared(std::size_t n) {
  return dstd::allocate_shared<T>(detail::default_allocator<T>(), n);
}
template <class T>
  requires std::is_unbounded_array_v<T>
shared_ptr<T> make_shared(std::size_t n, const std::remove_extent_t<T>& value) {
  return dstd::allocate_shared<T>(detail::default_allocator<T>(), n, value);
}
template <class T>
  requires std::is_unbounded_array_v<T>
shared_ptr<T> make_shared_for_overwrite(std::size_t n) {
  return dstd::allocate_shared_for_overwrite<T>(detail::default_allocator<T>(), n);
}

// Arrays of known bound.
template <class T, class A>
  requires std::is_bounded_array_v<T>
shared_ptr<T> allocate_shared(const A& a) {
  return detail::share_array<T, false>(a, std::extent_v<T>);
}
template <class T, class A>
  requires std::is_bounded_array_v<T>
shared_ptr<T> allocate_shared(const A& a, const std::remove_extent_t<T>& value) {
  return detail::share_array<T, false>(a, std::extent_v<T>, value);
}
template <class T, class A>
  requires std::is_bounded_array_v<T>
shared_ptr<T> allocate_shared_for_overwrite(const A& a) {
  return detail::share_array<T, true>(a, std::extent_v<T>);
}
template <class T>
  requires std::is_bounded_array_v<T>
shared_ptr<T> make_shared() {
  return dstd::allocate_shared<T>(detail::default_allocator<T>());
}
template <class T>
  requires std::is_bounded_array_v<T>
shared_ptr<T> make_shared(const std::remove_extent_t<T>& value) {
  return dstd::allocate_shared<T>(detail::default_allocator<T>(), value);
}
template <class T>
  requires std::is_bounded_array_v<T>
shared_ptr<T> make_shared_for_overwrite() {
  return dstd::allocate_shared_for_overwrite<T>(detail::default_allocator<T>());
}

}  // namespace dstd
