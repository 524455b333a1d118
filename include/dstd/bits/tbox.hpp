// Internal to <dstd/memory>: dstd::tbox<T> and make_tbox, DRust's TBox.
//
// A tbox is a unique_ptr<T> (it is one, publicly: every member, comparison,
// operator<< and conversion of unique_ptr works on it) whose pointee the
// runtime places for locality:
//  - make_tbox allocates in a tbox group (64 KiB, runtime/heap/
//    group_heap.hpp): what a thread allocates one after another shares
//    groups, and a node that faults on any byte of a group fetches the
//    whole group with one read (docs/DESIGN.md §5.4);
//  - the pointee lives on the node that homes the tbox object itself: a
//    move into a tbox homed on another node (a member of an object there, a
//    thread's stack there) moves the pointee there too, with T's move
//    constructor; nested tboxes follow, as they are moved along.
// So a raw pointer or reference into a tbox's pointee does not survive a
// move of the tbox across nodes: that is the price of the hint. Only types
// that can move without a surprise are moved: T nothrow-move-constructible,
// not polymorphic unless final (a tbox<Base> may own a Derived), with no
// class-specific operator delete; others stay where they are.
#pragma once

#include <cstddef>
#include <dstd/bits/unique_ptr.hpp>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd {

namespace detail {

// Room for a pointee in this thread's open tbox group; nullptr when it does
// not fit in one.
void* tbox_group_allocate(std::size_t bytes, std::size_t align) noexcept;

// Room for a pointee on the node that homes `owner` (a group there, or its
// heap); nullptr when the node that homes it is this one's and the pointee
// is already here, or when there is no room.
void* tbox_room_beside(const void* owner, const void* pointee, std::size_t bytes,
                       std::size_t align) noexcept;

template <class T>
concept has_class_delete = requires(void* p) { T::operator delete(p); } ||
                           requires(void* p, std::size_t n) { T::operator delete(p, n); };

// A pointee the runtime may move between nodes (see the top of this file).
template <class T>
inline constexpr bool tbox_movable = std::is_nothrow_move_constructible_v<T> &&
                                     (!std::is_polymorphic_v<T> || std::is_final_v<T>) &&
                                     !has_class_delete<T>;

}  // namespace detail

template <class T>
class tbox : public unique_ptr<T> {
  static_assert(!std::is_array_v<T>, "dstd::tbox<T[]> is not provided: use a tbox of a container");
  using base = unique_ptr<T>;
  template <class U>
  friend class tbox;

 public:
  using typename base::pointer;
  using typename base::element_type;
  using typename base::deleter_type;

  constexpr tbox() noexcept = default;
  constexpr tbox(std::nullptr_t) noexcept {}
  // Adopts an object made by a plain `new T` (it stays where it is until
  // the tbox moves across nodes).
  explicit tbox(pointer p) noexcept : base(p) {}

  tbox(tbox&& o) noexcept : base(o.release()) { follow_owner(); }
  template <class U>
    requires std::is_convertible_v<U*, T*>
  tbox(tbox<U>&& o) noexcept : base(o.release()) {
    follow_owner();
  }

  tbox& operator=(tbox&& o) noexcept {
    base::reset(o.release());
    follow_owner();
    return *this;
  }
  template <class U>
    requires std::is_convertible_v<U*, T*>
  tbox& operator=(tbox<U>&& o) noexcept {
    base::reset(o.release());
    follow_owner();
    return *this;
  }
  tbox& operator=(std::nullptr_t) noexcept {
    base::reset();
    return *this;
  }

  void swap(tbox& o) noexcept {
    base::swap(o);
    follow_owner();
    o.follow_owner();
  }

 private:
  // The pointee goes to the home of this tbox, if that is another node's.
  void follow_owner() noexcept {
    if constexpr (detail::tbox_movable<T>) {
      T* old = this->get();
      if (old == nullptr) return;
      void* room = detail::tbox_room_beside(this, old, sizeof(T), alignof(T));
      if (room == nullptr) return;
      T* moved = ::new (room) T(std::move(*old));
      base::release();
      base::reset(moved);
      delete old;
    }
  }
};

template <class T>
void swap(tbox<T>& a, tbox<T>& b) noexcept {
  a.swap(b);
}

namespace detail {

// Room for a new pointee: in this thread's open tbox group, else (too big
// for one) where new would put it; freed, on either path, by delete.
template <class T>
void* tbox_room() {
  if (void* room = tbox_group_allocate(sizeof(T), alignof(T))) return room;
  if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    return ::operator new(sizeof(T), std::align_val_t(alignof(T)));
  } else {
    return ::operator new(sizeof(T));
  }
}

// construct(room) makes the pointee in new room; the room is freed if it
// throws.
template <class T, class Construct>
T* construct_in_tbox_room(Construct construct) {
  void* room = tbox_room<T>();
  try {
    return construct(room);
  } catch (...) {
    if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      ::operator delete(room, std::align_val_t(alignof(T)));
    } else {
      ::operator delete(room);
    }
    throw;
  }
}

}  // namespace detail

// make_tbox and make_tbox_for_overwrite. (A T with its own operator delete
// gets its own operator new, outside the groups.)
template <class T, class... Args>
  requires(!std::is_array_v<T>)
tbox<T> make_tbox(Args&&... args) {
  if constexpr (detail::has_class_delete<T>) {
    return tbox<T>(new T(std::forward<Args>(args)...));
  } else {
    return tbox<T>(detail::construct_in_tbox_room<T>(
        [&](void* room) { return ::new (room) T(std::forward<Args>(args)...); }));
  }
}
template <class T>
  requires(!std::is_array_v<T>)
tbox<T> make_tbox_for_overwrite() {
  if constexpr (detail::has_class_delete<T>) {
    return tbox<T>(new T);
  } else {
    return tbox<T>(detail::construct_in_tbox_room<T>([](void* room) { return ::new (room) T; }));
  }
}

}  // namespace dstd

template <class T>
struct std::hash<dstd::tbox<T>> : std::hash<dstd::unique_ptr<T>> {};
