// Internal to <dstd/memory>: std::shared_ptr, weak_ptr, make_shared,
// enable_shared_from_this, owner_less and the pointer casts, over the
// control block of bits/shared_count.hpp (counts at the block's home).
//
// A shared_ptr is std's: a pointer to the object (or, aliased, to part of
// it) and a pointer to the control block, both valid on every node. Copies,
// moves and drops may happen on any node; the control block decides, at its
// home, which drop destroys the object.
#pragma once

#include <compare>
#include <cstddef>
#include <dstd/bits/shared_count.hpp>
#include <dstd/bits/std_parts.hpp>
#include <dstd/bits/unique_ptr.hpp>
#include <exception>
#include <functional>
#include <iosfwd>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd {

// std's type, so a program catches what it would catch with std::shared_ptr
// (complete in <memory>).
using bad_weak_ptr = std::bad_weak_ptr;

template <class T>
class shared_ptr;
template <class T>
class weak_ptr;
template <class T>
class enable_shared_from_this;

namespace detail {

[[noreturn]] void throw_bad_weak_ptr();

// A shared_ptr<T> may take a Y* it was not given before (std's "Y* is
// compatible with T*").
template <class Y, class T>
inline constexpr bool compatible_ptr =
    std::is_convertible_v<Y*, T*> ||
    (std::is_bounded_array_v<Y> && std::is_unbounded_array_v<T> &&
     std::is_same_v<std::remove_cv_t<std::remove_extent_t<Y>>,
                    std::remove_cv_t<std::remove_extent_t<T>>> &&
     std::is_convertible_v<std::remove_extent_t<Y>*, std::remove_extent_t<T>*>);

// A shared_ptr<T> may adopt a new Y* (std's constraint on shared_ptr(Y*)).
template <class Y, class T>
consteval bool adoptable_ptr() {
  if constexpr (std::is_bounded_array_v<T>) {
    return std::is_convertible_v<Y (*)[std::extent_v<T>], T*>;
  } else if constexpr (std::is_unbounded_array_v<T>) {
    return std::is_convertible_v<Y (*)[], T*>;
  } else {
    return std::is_convertible_v<Y*, T*>;
  }
}

// How shared_ptr<T>(Y*) deletes.
template <class Y, class T>
using default_shared_delete = std::conditional_t<std::is_array_v<T>, default_delete<Y[]>, default_delete<Y>>;

// The allocator of blocks made without one.
using default_block_allocator = std::allocator<unsigned char>;

// A new block owning p, its memory from a copy of a; or, when that throws
// (no memory), p deleted and the exception passed on, as std's constructors
// do. (Only the allocation can throw: the block's construction is noexcept.)
template <class P, class D, class A = default_block_allocator>
shared_count* adopt(P p, D&& d, const A& a = A()) {
  using block = shared_count_ptr<P, std::remove_cvref_t<D>, A>;
  void* room = nullptr;
  std::exception_ptr failed;
  try {
    room = block_memory<block::alignment(), A>::allocate(a, sizeof(block));
  } catch (...) {
    failed = std::current_exception();
  }
  if (room == nullptr) {
    // Outside the handler: GCC 12 warns of a use after free (falsely) when
    // p is deleted inside one.
    d(p);
    if (failed) std::rethrow_exception(failed);
    throw std::bad_alloc();
  }
  return ::new (room) block(a, p, std::move(d));
}

struct shared_access;

// What shared_ptr<T> and weak_ptr<T> (Self) both are: a pointer to the
// object and one to its control block, ordered by the block.
template <class Self, class E>
class counted_ptr {
 public:
  long use_count() const noexcept { return count_ != nullptr ? count_->owners() : 0; }
  template <class OtherSelf, class OtherE>
  bool owner_before(const counted_ptr<OtherSelf, OtherE>& o) const noexcept {
    return std::less<const shared_count*>()(count_, o.count_);
  }

 protected:
  constexpr counted_ptr() noexcept = default;
  counted_ptr(E* p, shared_count* c) noexcept : ptr_(p), count_(c) {}
  counted_ptr(const counted_ptr&) noexcept = default;
  counted_ptr& operator=(const counted_ptr&) noexcept = default;
  ~counted_ptr() = default;

  void swap_with(counted_ptr& r) noexcept {
    std::swap(ptr_, r.ptr_);
    std::swap(count_, r.count_);
  }
  // Every assignment: a new Self from r, swapped in; the old value goes
  // with the temporary.
  template <class R>
  Self& assign(R&& r) {
    Self(std::forward<R>(r)).swap(static_cast<Self&>(*this));
    return static_cast<Self&>(*this);
  }

  E* ptr_ = nullptr;
  shared_count* count_ = nullptr;

 private:
  template <class, class>
  friend class counted_ptr;
  friend struct shared_access;
};

// What make_shared, get_deleter, weak_ptr::lock and the atomic
// specializations need of a shared_ptr or weak_ptr (P): its two parts.
struct shared_access {
  template <class P>
  using parts = counted_ptr<P, typename P::element_type>;

  template <class P>
  static typename P::element_type* object(const P& p) noexcept {
    return static_cast<const parts<P>&>(p).ptr_;
  }
  template <class P>
  static shared_count* count(const P& p) noexcept {
    return static_cast<const parts<P>&>(p).count_;
  }
  // A P of these parts, taking over a reference the caller holds.
  template <class P>
  static P adopt_counted(typename P::element_type* object, shared_count* c) noexcept {
    P r;
    static_cast<parts<P>&>(r).ptr_ = object;
    static_cast<parts<P>&>(r).count_ = c;
    return r;
  }
  // Empties p; its reference goes to the caller with the parts it had.
  template <class P>
  static void give_up(P& p) noexcept {
    static_cast<parts<P>&>(p).ptr_ = nullptr;
    static_cast<parts<P>&>(p).count_ = nullptr;
  }
  // A new owner of a new object (make_shared).
  template <class T>
  static shared_ptr<T> share_new(T* p, shared_count* c) noexcept {
    shared_ptr<T> r = adopt_counted<shared_ptr<T>>(p, c);
    r.share_this_with(p);
    return r;
  }
};

}  // namespace detail

template <class T>
class shared_ptr : public detail::counted_ptr<shared_ptr<T>, std::remove_extent_t<T>> {
  using base = detail::counted_ptr<shared_ptr<T>, std::remove_extent_t<T>>;
  using base::count_;
  using base::ptr_;

 public:
  using element_type = std::remove_extent_t<T>;
  using weak_type = weak_ptr<T>;

  constexpr shared_ptr() noexcept = default;
  constexpr shared_ptr(std::nullptr_t) noexcept {}

  template <class Y>
    requires(detail::adoptable_ptr<Y, T>())
  explicit shared_ptr(Y* p) : shared_ptr(p, detail::default_shared_delete<Y, T>()) {}

  template <class Y, class D>
    requires(detail::adoptable_ptr<Y, T>() && std::is_move_constructible_v<D> &&
             std::is_invocable_v<D&, Y*&>)
  shared_ptr(Y* p, D d) : base(p, detail::adopt(p, std::move(d))) {
    share_this_with(p);
  }
  template <class D>
    requires(std::is_move_constructible_v<D> && std::is_invocable_v<D&, std::nullptr_t&>)
  shared_ptr(std::nullptr_t p, D d) : base(nullptr, detail::adopt(p, std::move(d))) {}
  // With an allocator: a copy of a allocates the control block (and frees it).
  template <class Y, class D, class A>
    requires(detail::adoptable_ptr<Y, T>() && std::is_move_constructible_v<D> &&
             std::is_invocable_v<D&, Y*&>)
  shared_ptr(Y* p, D d, A a) : base(p, detail::adopt(p, std::move(d), a)) {
    share_this_with(p);
  }
  template <class D, class A>
    requires(std::is_move_constructible_v<D> && std::is_invocable_v<D&, std::nullptr_t&>)
  shared_ptr(std::nullptr_t p, D d, A a) : base(nullptr, detail::adopt(p, std::move(d), a)) {}

  // Aliasing: shares r's ownership, points at p.
  template <class Y>
  shared_ptr(const shared_ptr<Y>& r, element_type* p) noexcept : base(p, r.count_) {
    if (count_ != nullptr) count_->add_owner();
  }
  template <class Y>
  shared_ptr(shared_ptr<Y>&& r, element_type* p) noexcept
      : base(p, std::exchange(r.count_, nullptr)) {
    r.ptr_ = nullptr;
  }

  shared_ptr(const shared_ptr& r) noexcept : shared_ptr(r, r.ptr_) {}
  template <class Y>
    requires detail::compatible_ptr<Y, T>
  shared_ptr(const shared_ptr<Y>& r) noexcept : shared_ptr(r, r.ptr_) {}
  shared_ptr(shared_ptr&& r) noexcept : shared_ptr(std::move(r), r.ptr_) {}
  template <class Y>
    requires detail::compatible_ptr<Y, T>
  shared_ptr(shared_ptr<Y>&& r) noexcept : shared_ptr(std::move(r), r.ptr_) {}

  template <class Y>
    requires detail::compatible_ptr<Y, T>
  explicit shared_ptr(const weak_ptr<Y>& r) : base(r.ptr_, r.count_) {
    if (count_ == nullptr || !count_->add_owner_if_alive()) detail::throw_bad_weak_ptr();
  }

  template <class Y, class D>
    requires(detail::compatible_ptr<Y, T> &&
             std::is_convertible_v<typename unique_ptr<Y, D>::pointer, element_type*>)
  shared_ptr(unique_ptr<Y, D>&& r) {
    if (!r) return;
    using held = std::conditional_t<std::is_reference_v<D>,
                                    std::reference_wrapper<std::remove_reference_t<D>>, D>;
    using block = detail::shared_count_ptr<typename unique_ptr<Y, D>::pointer, held,
                                           detail::default_block_allocator>;
    // If this throws, r still owns.
    count_ = detail::new_block<block>(detail::default_block_allocator(), sizeof(block), r.get(),
                                      held(std::forward<D>(r.get_deleter())));
    ptr_ = r.get();
    if constexpr (std::is_same_v<typename unique_ptr<Y, D>::pointer, Y*>) {
      share_this_with(r.release());
    } else {
      r.release();
    }
  }

  ~shared_ptr() {
    if (count_ != nullptr) count_->drop_owner();
  }

  // From what converts implicitly: shared_ptrs, a unique_ptr, nullptr.
  shared_ptr& operator=(const shared_ptr& r) noexcept { return this->assign(r); }
  shared_ptr& operator=(shared_ptr&& r) noexcept { return this->assign(std::move(r)); }
  template <class R>
    requires std::is_convertible_v<R&&, shared_ptr>
  shared_ptr& operator=(R&& r) noexcept(std::is_nothrow_constructible_v<shared_ptr, R&&>) {
    return this->assign(std::forward<R>(r));
  }

  void reset() noexcept { shared_ptr().swap(*this); }
  template <class Y>
    requires std::is_constructible_v<shared_ptr, Y*>
  void reset(Y* p) {
    shared_ptr(p).swap(*this);
  }
  template <class Y, class D>
    requires std::is_constructible_v<shared_ptr, Y*, D>
  void reset(Y* p, D d) {
    shared_ptr(p, std::move(d)).swap(*this);
  }
  template <class Y, class D, class A>
    requires std::is_constructible_v<shared_ptr, Y*, D, A>
  void reset(Y* p, D d, A a) {
    shared_ptr(p, std::move(d), std::move(a)).swap(*this);
  }

  void swap(shared_ptr& r) noexcept { this->swap_with(r); }

  element_type* get() const noexcept { return ptr_; }
  template <class U = T>
    requires(!std::is_void_v<U> && !std::is_array_v<U>)
  U& operator*() const noexcept {
    return *ptr_;
  }
  template <class U = T>
    requires(!std::is_array_v<U>)
  U* operator->() const noexcept {
    return ptr_;
  }
  template <class U = T>
    requires std::is_array_v<U>
  element_type& operator[](std::ptrdiff_t i) const noexcept {
    return ptr_[i];
  }

  explicit operator bool() const noexcept { return ptr_ != nullptr; }

 private:
  template <class>
  friend class shared_ptr;
  template <class>
  friend class weak_ptr;
  friend struct detail::shared_access;

  // A new owner of an object that derives from enable_shared_from_this
  // points the object's weak_this at itself.
  template <class Y>
  void share_this_with(Y* p) noexcept {
    if constexpr (requires { dstd_shared_from_this_base(p); }) {
      if (p != nullptr) {
        dstd_shared_from_this_base(p)->weak_assign(const_cast<std::remove_cv_t<Y>*>(p), count_);
      }
    }
  }
};

template <class T>
class weak_ptr : public detail::counted_ptr<weak_ptr<T>, std::remove_extent_t<T>> {
  using base = detail::counted_ptr<weak_ptr<T>, std::remove_extent_t<T>>;
  using base::count_;
  using base::ptr_;

 public:
  using element_type = std::remove_extent_t<T>;

  constexpr weak_ptr() noexcept = default;
  weak_ptr(const weak_ptr& r) noexcept : base(r.ptr_, r.count_) { watch(); }
  template <class Y>
    requires detail::compatible_ptr<Y, T>
  weak_ptr(const shared_ptr<Y>& r) noexcept : base(r.ptr_, r.count_) {
    watch();
  }
  // From another weak_ptr type the pointer is converted only while the
  // object lives (a virtual base needs the object to be found).
  template <class Y>
    requires detail::compatible_ptr<Y, T>
  weak_ptr(const weak_ptr<Y>& r) noexcept : base(r.lock().get(), r.count_) {
    watch();
  }
  weak_ptr(weak_ptr&& r) noexcept
      : base(std::exchange(r.ptr_, nullptr), std::exchange(r.count_, nullptr)) {}
  template <class Y>
    requires detail::compatible_ptr<Y, T>
  weak_ptr(weak_ptr<Y>&& r) noexcept : weak_ptr(r) {
    r.reset();
  }
  ~weak_ptr() {
    if (count_ != nullptr) count_->drop_watcher();
  }

  // From weak_ptrs and shared_ptrs.
  weak_ptr& operator=(const weak_ptr& r) noexcept { return this->assign(r); }
  weak_ptr& operator=(weak_ptr&& r) noexcept { return this->assign(std::move(r)); }
  template <class R>
    requires std::is_convertible_v<R&&, weak_ptr>
  weak_ptr& operator=(R&& r) noexcept {
    return this->assign(std::forward<R>(r));
  }

  void reset() noexcept { weak_ptr().swap(*this); }
  void swap(weak_ptr& r) noexcept { this->swap_with(r); }

  bool expired() const noexcept { return this->use_count() == 0; }
  // An owner of the object if it still lives, else an empty shared_ptr;
  // never one of an object being destroyed.
  shared_ptr<T> lock() const noexcept {
    if (count_ == nullptr || !count_->add_owner_if_alive()) return shared_ptr<T>();
    return detail::shared_access::adopt_counted<shared_ptr<T>>(ptr_, count_);
  }

 private:
  template <class>
  friend class shared_ptr;
  template <class>
  friend class weak_ptr;
  template <class>
  friend class enable_shared_from_this;

  void watch() noexcept {
    if (count_ != nullptr) count_->add_watcher();
  }
  // enable_shared_from_this: watch `count` through p. (Not named assign:
  // that would hide counted_ptr::assign, which operator= needs.)
  void watch_through(element_type* p, detail::shared_count* count) noexcept {
    count->add_watcher();
    if (count_ != nullptr) count_->drop_watcher();
    ptr_ = p;
    count_ = count;
  }

};

template <class T>
shared_ptr(weak_ptr<T>) -> shared_ptr<T>;
template <class T>
weak_ptr(shared_ptr<T>) -> weak_ptr<T>;
template <class T, class D>
shared_ptr(unique_ptr<T, D>) -> shared_ptr<T>;

template <class T>
class enable_shared_from_this {
 protected:
  constexpr enable_shared_from_this() noexcept {}
  enable_shared_from_this(const enable_shared_from_this&) noexcept {}
  enable_shared_from_this& operator=(const enable_shared_from_this&) noexcept { return *this; }
  ~enable_shared_from_this() = default;

 public:
  // Throws bad_weak_ptr when no shared_ptr owns *this.
  shared_ptr<T> shared_from_this() { return shared_ptr<T>(weak_this_); }
  shared_ptr<const T> shared_from_this() const { return shared_ptr<const T>(weak_this_); }
  weak_ptr<T> weak_from_this() noexcept { return weak_this_; }
  weak_ptr<const T> weak_from_this() const noexcept { return weak_this_; }

 private:
  template <class>
  friend class shared_ptr;

  // Found by argument-dependent lookup from a pointer to any class that
  // derives from this one (once, unambiguously, accessibly).
  friend const enable_shared_from_this* dstd_shared_from_this_base(
      const enable_shared_from_this* p) noexcept {
    return p;
  }
  // The first owner of *this is the one shared_from_this() shares.
  void weak_assign(T* p, detail::shared_count* count) const noexcept {
    if (weak_this_.expired()) weak_this_.watch_through(p, count);
  }

  mutable weak_ptr<T> weak_this_;
};

template <class D, class T>
D* get_deleter(const shared_ptr<T>& p) noexcept {
  detail::shared_count* c = detail::shared_access::count(p);
  return c != nullptr ? static_cast<D*>(c->deleter(&detail::type_tag<D>)) : nullptr;
}

// The four casts, each for copies and (C++20) moves.
template <class T, class U>
shared_ptr<T> static_pointer_cast(const shared_ptr<U>& r) noexcept {
  return shared_ptr<T>(r, static_cast<typename shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
shared_ptr<T> static_pointer_cast(shared_ptr<U>&& r) noexcept {
  auto* p = static_cast<typename shared_ptr<T>::element_type*>(r.get());
  return shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
shared_ptr<T> const_pointer_cast(const shared_ptr<U>& r) noexcept {
  return shared_ptr<T>(r, const_cast<typename shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
shared_ptr<T> const_pointer_cast(shared_ptr<U>&& r) noexcept {
  auto* p = const_cast<typename shared_ptr<T>::element_type*>(r.get());
  return shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
shared_ptr<T> reinterpret_pointer_cast(const shared_ptr<U>& r) noexcept {
  return shared_ptr<T>(r, reinterpret_cast<typename shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
shared_ptr<T> reinterpret_pointer_cast(shared_ptr<U>&& r) noexcept {
  auto* p = reinterpret_cast<typename shared_ptr<T>::element_type*>(r.get());
  return shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
shared_ptr<T> dynamic_pointer_cast(const shared_ptr<U>& r) noexcept {
  if (auto* p = dynamic_cast<typename shared_ptr<T>::element_type*>(r.get())) {
    return shared_ptr<T>(r, p);
  }
  return shared_ptr<T>();
}
template <class T, class U>
shared_ptr<T> dynamic_pointer_cast(shared_ptr<U>&& r) noexcept {
  if (auto* p = dynamic_cast<typename shared_ptr<T>::element_type*>(r.get())) {
    return shared_ptr<T>(std::move(r), p);
  }
  return shared_ptr<T>();
}

template <class T>
void swap(shared_ptr<T>& a, shared_ptr<T>& b) noexcept {
  a.swap(b);
}
template <class T>
void swap(weak_ptr<T>& a, weak_ptr<T>& b) noexcept {
  a.swap(b);
}

// Comparisons (C++20's set): of get(), and against nullptr.
template <class T, class U>
bool operator==(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T, class U>
std::strong_ordering operator<=>(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return std::compare_three_way()(a.get(), b.get());
}
template <class T>
bool operator==(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return !a;
}
template <class T>
std::strong_ordering operator<=>(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return std::compare_three_way()(a.get(), static_cast<typename shared_ptr<T>::element_type*>(nullptr));
}

template <class CharT, class Traits, class T>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                              const shared_ptr<T>& p) {
  os << p.get();
  return os;
}

// Orders by owner (the control block), not by the pointer.
template <class T = void>
struct owner_less;

template <>
struct owner_less<void> {
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return a.owner_before(b);
  }
  using is_transparent = void;
};
template <class T>
struct owner_less<shared_ptr<T>> : owner_less<void> {};
template <class T>
struct owner_less<weak_ptr<T>> : owner_less<void> {};

}  // namespace dstd

template <class T>
struct std::hash<dstd::shared_ptr<T>> {
  std::size_t operator()(const dstd::shared_ptr<T>& p) const noexcept {
    return std::hash<typename dstd::shared_ptr<T>::element_type*>()(p.get());
  }
};
