// Internal to <dstd/memory>: std::unique_ptr, std::default_delete and
// std::make_unique, for objects in the global heap.
//
// Every new already allocates in the global heap, so a unique_ptr is std's
// exactly: one owner at a time (on any node), the deleter runs once, a
// dereference is a plain load. Moving one to another node is moving a
// pointer; the pointee's bytes follow by coherence when the receiver
// acquires (thread start, a lock, ...), as with any other data.
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <dstd/bits/std_parts.hpp>
#include <functional>
#include <iosfwd>
#include <type_traits>
#include <utility>

namespace dstd {

template <class T>
struct default_delete {
  constexpr default_delete() noexcept = default;
  template <class U>
    requires std::is_convertible_v<U*, T*>
  default_delete(const default_delete<U>&) noexcept {}
  void operator()(T* p) const {
    static_assert(!std::is_void_v<T>, "can't delete a pointer to an incomplete type");
    static_assert(sizeof(T) > 0, "can't delete a pointer to an incomplete type");
    delete p;
  }
};

template <class T>
struct default_delete<T[]> {
  constexpr default_delete() noexcept = default;
  template <class U>
    requires std::is_convertible_v<U (*)[], T (*)[]>
  default_delete(const default_delete<U[]>&) noexcept {}
  template <class U>
    requires std::is_convertible_v<U (*)[], T (*)[]>
  void operator()(U* p) const {
    static_assert(sizeof(U) > 0, "can't delete a pointer to an incomplete type");
    delete[] p;
  }
};

namespace detail {

// D::pointer when the deleter names one, else T*.
template <class T, class D>
struct unique_pointer_of {
  using type = T*;
};
template <class T, class D>
  requires requires { typename std::remove_reference_t<D>::pointer; }
struct unique_pointer_of<T, D> {
  using type = typename std::remove_reference_t<D>::pointer;
};

// What both unique_ptrs hold and do: the pointer, the deleter (taking no
// room when empty), handing over and deleting.
template <class P, class D>
class unique_ptr_storage {
 public:
  using pointer = P;
  using deleter_type = D;

  unique_ptr_storage(const unique_ptr_storage&) = delete;
  unique_ptr_storage& operator=(const unique_ptr_storage&) = delete;

  pointer get() const noexcept { return p_; }
  D& get_deleter() noexcept { return d_; }
  const D& get_deleter() const noexcept { return d_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  pointer release() noexcept { return std::exchange(p_, pointer()); }
  void swap(unique_ptr_storage& o) noexcept {
    using std::swap;
    swap(p_, o.p_);
    swap(d_, o.d_);
  }

 protected:
  constexpr unique_ptr_storage() noexcept : p_(), d_() {}
  explicit unique_ptr_storage(pointer p) noexcept : p_(p), d_() {}
  template <class E>
  unique_ptr_storage(pointer p, E&& d) noexcept : p_(p), d_(std::forward<E>(d)) {}
  ~unique_ptr_storage() { delete_owned(p_); }

  void reset_to(pointer p) noexcept {
    delete_owned(std::exchange(p_, p));
  }
  // Takes o's pointer and deleter (a move assignment of either kind).
  template <class U>
  void take(U& o) noexcept {
    reset_to(o.release());
    d_ = std::forward<typename U::deleter_type>(o.get_deleter());
  }

 private:
  void delete_owned(pointer p) noexcept {
    if (p != nullptr) d_(p);
  }

  pointer p_;
  [[no_unique_address]] D d_;
};

// The deleter conditions of std's converting moves.
template <class D, class E>
inline constexpr bool deleter_converts =
    std::is_reference_v<D> ? std::is_same_v<E, D> : std::is_convertible_v<E, D>;

template <class D>
inline constexpr bool default_constructs_deleter =
    std::is_nothrow_default_constructible_v<D> && !std::is_pointer_v<D>;

}  // namespace detail

template <class T, class D = default_delete<T>>
class unique_ptr : public detail::unique_ptr_storage<typename detail::unique_pointer_of<T, D>::type, D> {
  using base = detail::unique_ptr_storage<typename detail::unique_pointer_of<T, D>::type, D>;

 public:
  using typename base::pointer;
  using element_type = T;
  using deleter_type = D;

  constexpr unique_ptr() noexcept requires detail::default_constructs_deleter<D> {}
  constexpr unique_ptr(std::nullptr_t) noexcept requires detail::default_constructs_deleter<D> {}
  explicit unique_ptr(pointer p) noexcept requires detail::default_constructs_deleter<D>
      : base(p) {}
  unique_ptr(pointer p, const D& d) noexcept requires std::is_constructible_v<D, const D&>
      : base(p, d) {}
  unique_ptr(pointer p, std::remove_reference_t<D>&& d) noexcept
    requires(!std::is_reference_v<D> && std::is_move_constructible_v<D>)
      : base(p, std::move(d)) {}
  unique_ptr(pointer p, std::remove_reference_t<D>&& d) requires std::is_reference_v<D> = delete;

  unique_ptr(unique_ptr&& u) noexcept requires std::is_move_constructible_v<D>
      : base(u.release(), std::forward<D>(u.get_deleter())) {}
  template <class U, class E>
    requires(!std::is_array_v<U> &&
             std::is_convertible_v<typename unique_ptr<U, E>::pointer, pointer> &&
             detail::deleter_converts<D, E>)
  unique_ptr(unique_ptr<U, E>&& u) noexcept : base(u.release(), std::forward<E>(u.get_deleter())) {}

  unique_ptr& operator=(unique_ptr&& u) noexcept requires std::is_move_assignable_v<D> {
    this->take(u);
    return *this;
  }
  template <class U, class E>
    requires(!std::is_array_v<U> &&
             std::is_convertible_v<typename unique_ptr<U, E>::pointer, pointer> &&
             std::is_assignable_v<D&, E &&>)
  unique_ptr& operator=(unique_ptr<U, E>&& u) noexcept {
    this->take(u);
    return *this;
  }
  unique_ptr& operator=(std::nullptr_t) noexcept { return reset(), *this; }

  std::add_lvalue_reference_t<T> operator*() const noexcept(noexcept(*std::declval<pointer>())) {
    return *this->get();
  }
  pointer operator->() const noexcept { return this->get(); }

  void reset(pointer p = pointer()) noexcept { this->reset_to(p); }
  void swap(unique_ptr& o) noexcept { base::swap(o); }
};

template <class T, class D>
class unique_ptr<T[], D>
    : public detail::unique_ptr_storage<typename detail::unique_pointer_of<T, D>::type, D> {
  using base = detail::unique_ptr_storage<typename detail::unique_pointer_of<T, D>::type, D>;

 public:
  using typename base::pointer;
  using element_type = T;
  using deleter_type = D;

 private:
  // Which raw pointers may be adopted: pointer itself, or (when pointer is
  // T*) a U* whose arrays convert to arrays of T (qualification only).
  template <class U>
  static constexpr bool adoptable =
      std::is_same_v<U, pointer> ||
      (std::is_same_v<pointer, T*> && std::is_pointer_v<U> &&
       std::is_convertible_v<std::remove_pointer_t<U> (*)[], T (*)[]>);
  template <class U, class E>
  static constexpr bool convertible_array =
      std::is_array_v<U> && std::is_same_v<pointer, T*> &&
      std::is_same_v<typename unique_ptr<U, E>::pointer, typename unique_ptr<U, E>::element_type*> &&
      std::is_convertible_v<typename unique_ptr<U, E>::element_type (*)[], T (*)[]>;

 public:
  constexpr unique_ptr() noexcept requires detail::default_constructs_deleter<D> {}
  constexpr unique_ptr(std::nullptr_t) noexcept requires detail::default_constructs_deleter<D> {}
  template <class U>
    requires(adoptable<U> && detail::default_constructs_deleter<D>)
  explicit unique_ptr(U p) noexcept : base(p) {}
  template <class U>
    requires(adoptable<U> && std::is_constructible_v<D, const D&>)
  unique_ptr(U p, const D& d) noexcept : base(p, d) {}
  template <class U>
    requires(adoptable<U> && !std::is_reference_v<D> && std::is_move_constructible_v<D>)
  unique_ptr(U p, std::remove_reference_t<D>&& d) noexcept : base(p, std::move(d)) {}
  template <class U>
    requires(adoptable<U> && std::is_reference_v<D>)
  unique_ptr(U p, std::remove_reference_t<D>&& d) = delete;
  unique_ptr(std::nullptr_t, const D& d) noexcept requires std::is_constructible_v<D, const D&>
      : base(nullptr, d) {}

  unique_ptr(unique_ptr&& u) noexcept requires std::is_move_constructible_v<D>
      : base(u.release(), std::forward<D>(u.get_deleter())) {}
  template <class U, class E>
    requires(convertible_array<U, E> && detail::deleter_converts<D, E>)
  unique_ptr(unique_ptr<U, E>&& u) noexcept : base(u.release(), std::forward<E>(u.get_deleter())) {}

  unique_ptr& operator=(unique_ptr&& u) noexcept requires std::is_move_assignable_v<D> {
    this->take(u);
    return *this;
  }
  template <class U, class E>
    requires(convertible_array<U, E> && std::is_assignable_v<D&, E &&>)
  unique_ptr& operator=(unique_ptr<U, E>&& u) noexcept {
    this->take(u);
    return *this;
  }
  unique_ptr& operator=(std::nullptr_t) noexcept { return reset(), *this; }

  T& operator[](std::size_t i) const { return this->get()[i]; }

  template <class U>
    requires adoptable<U>
  void reset(U p) noexcept {
    this->reset_to(p);
  }
  void reset(std::nullptr_t = nullptr) noexcept { this->reset_to(pointer()); }
  void swap(unique_ptr& o) noexcept { base::swap(o); }
};

template <class T, class D>
  requires std::is_swappable_v<D>
void swap(unique_ptr<T, D>& a, unique_ptr<T, D>& b) noexcept {
  a.swap(b);
}

// make_unique and make_unique_for_overwrite: objects, arrays of unknown
// bound; arrays of known bound are deleted, as in std.
template <class T, class... Args>
  requires(!std::is_array_v<T>)
unique_ptr<T> make_unique(Args&&... args) {
  return unique_ptr<T>(new T(std::forward<Args>(args)...));
}
template <class T>
  requires std::is_unbounded_array_v<T>
unique_ptr<T> make_unique(std::size_t n) {
  return unique_ptr<T>(new std::remove_extent_t<T>[n]());
}
template <class T, class... Args>
  requires std::is_bounded_array_v<T>
void make_unique(Args&&...) = delete;

template <class T>
  requires(!std::is_array_v<T>)
unique_ptr<T> make_unique_for_overwrite() {
  return unique_ptr<T>(new T);
}
template <class T>
  requires std::is_unbounded_array_v<T>
unique_ptr<T> make_unique_for_overwrite(std::size_t n) {
  return unique_ptr<T>(new std::remove_extent_t<T>[n]);
}
template <class T, class... Args>
  requires std::is_bounded_array_v<T>
void make_unique_for_overwrite(Args&&...) = delete;

// Comparisons, as std's: of the stored pointers, and against nullptr.
template <class T1, class D1, class T2, class D2>
bool operator==(const unique_ptr<T1, D1>& x, const unique_ptr<T2, D2>& y) {
  return x.get() == y.get();
}
template <class T1, class D1, class T2, class D2>
bool operator<(const unique_ptr<T1, D1>& x, const unique_ptr<T2, D2>& y) {
  using common = std::common_type_t<typename unique_ptr<T1, D1>::pointer,
                                    typename unique_ptr<T2, D2>::pointer>;
  return std::less<common>()(x.get(), y.get());
}
template <class T1, class D1, class T2, class D2>
bool operator>(const unique_ptr<T1, D1>& x, const unique_ptr<T2, D2>& y) {
  return y < x;
}
template <class T1, class D1, class T2, class D2>
bool operator<=(const unique_ptr<T1, D1>& x, const unique_ptr<T2, D2>& y) {
  return !(y < x);
}
template <class T1, class D1, class T2, class D2>
bool operator>=(const unique_ptr<T1, D1>& x, const unique_ptr<T2, D2>& y) {
  return !(x < y);
}
template <class T1, class D1, class T2, class D2>
  requires std::three_way_comparable_with<typename unique_ptr<T1, D1>::pointer,
                                          typename unique_ptr<T2, D2>::pointer>
std::compare_three_way_result_t<typename unique_ptr<T1, D1>::pointer,
                                typename unique_ptr<T2, D2>::pointer>
operator<=>(const unique_ptr<T1, D1>& x, const unique_ptr<T2, D2>& y) {
  return std::compare_three_way()(x.get(), y.get());
}

template <class T, class D>
bool operator==(const unique_ptr<T, D>& x, std::nullptr_t) noexcept {
  return !x;
}
template <class T, class D>
bool operator<(const unique_ptr<T, D>& x, std::nullptr_t) {
  using P = typename unique_ptr<T, D>::pointer;
  return std::less<P>()(x.get(), nullptr);
}
template <class T, class D>
bool operator<(std::nullptr_t, const unique_ptr<T, D>& x) {
  using P = typename unique_ptr<T, D>::pointer;
  return std::less<P>()(nullptr, x.get());
}
template <class T, class D>
bool operator>(const unique_ptr<T, D>& x, std::nullptr_t) {
  return nullptr < x;
}
template <class T, class D>
bool operator>(std::nullptr_t, const unique_ptr<T, D>& x) {
  return x < nullptr;
}
template <class T, class D>
bool operator<=(const unique_ptr<T, D>& x, std::nullptr_t) {
  return !(nullptr < x);
}
template <class T, class D>
bool operator<=(std::nullptr_t, const unique_ptr<T, D>& x) {
  return !(x < nullptr);
}
template <class T, class D>
bool operator>=(const unique_ptr<T, D>& x, std::nullptr_t) {
  return !(x < nullptr);
}
template <class T, class D>
bool operator>=(std::nullptr_t, const unique_ptr<T, D>& x) {
  return !(nullptr < x);
}
template <class T, class D>
  requires std::three_way_comparable<typename unique_ptr<T, D>::pointer>
std::compare_three_way_result_t<typename unique_ptr<T, D>::pointer> operator<=>(
    const unique_ptr<T, D>& x, std::nullptr_t) {
  using P = typename unique_ptr<T, D>::pointer;
  return std::compare_three_way()(x.get(), static_cast<P>(nullptr));
}

template <class CharT, class Traits, class T, class D>
  requires requires(std::basic_ostream<CharT, Traits>& os, const unique_ptr<T, D>& p) {
    os << p.get();
  }
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                              const unique_ptr<T, D>& p) {
  os << p.get();
  return os;
}

}  // namespace dstd

template <class T, class D>
struct std::hash<dstd::unique_ptr<T, D>> {
  std::size_t operator()(const dstd::unique_ptr<T, D>& p) const
      noexcept(noexcept(std::hash<typename dstd::unique_ptr<T, D>::pointer>()(p.get()))) {
    return std::hash<typename dstd::unique_ptr<T, D>::pointer>()(p.get());
  }
};
