// Internal to <dstd/memory>: the control blocks of make_shared and
// allocate_shared, which hold their object, or their array's elements, in
// the same allocation as the counts.
//
// The block is allocated by new_block (bits/block_memory.hpp) from the
// allocator rebound to its element type, keeps that copy, builds and
// destroys the elements with it, and frees itself with it. make_shared is
// allocate_shared with std::allocator: its construct and destroy are the
// placement new and destructor call std specifies for make_shared, so
// there is one path. An array of any rank is held as its innermost
// elements, built in ascending order and destroyed in reverse; when one
// throws, those built before it are destroyed and the memory is given back
// (as std). Like any allocation, a block is homed on the node that made it,
// and its counts are shared_count's (at that home).
#pragma once

#include <cstddef>
#include <cstdint>
#include <dstd/bits/block_memory.hpp>
#include <dstd/bits/shared_count.hpp>
#include <dstd/bits/std_parts.hpp>
#include <new>
#include <type_traits>
#include <utility>

namespace dstd::detail {

// How a block builds and destroys one element of type E, with A an
// allocator of E: through the allocator (value- or argument-initialized),
// or for overwrite default-initialized and destroyed by its destructor.
template <class E, class A, bool Overwrite>
struct element_life {
  template <class... Args>
  static void construct(A& a, E* p, Args&&... args) {
    if constexpr (Overwrite) {
      static_assert(sizeof...(Args) == 0);
      ::new (static_cast<void*>(p)) E;
    } else {
      std::allocator_traits<A>::construct(a, p, std::forward<Args>(args)...);
    }
  }
  static void destroy(A& a, E* p) noexcept {
    if constexpr (Overwrite) {
      p->~E();
    } else {
      std::allocator_traits<A>::destroy(a, p);
    }
  }
};

// One object of type E (no cv) inside the block.
template <class E, class A, bool Overwrite>
class shared_count_object final : public shared_count {
  using life = element_life<E, A, Overwrite>;

 public:
  static constexpr std::size_t alignment() noexcept { return alignof(shared_count_object); }

  template <class... Args>
  explicit shared_count_object(const A& a, Args&&... args) : alloc_(a) {
    life::construct(alloc_, reinterpret_cast<E*>(storage_), std::forward<Args>(args)...);
  }
  E* object() noexcept { return std::launder(reinterpret_cast<E*>(storage_)); }
  const A& allocator() const noexcept { return alloc_; }

 private:
  void dispose() noexcept override { life::destroy(alloc_, object()); }
  void destroy() noexcept override { free_block(this, sizeof(shared_count_object)); }

  [[no_unique_address]] A alloc_;
  alignas(E) unsigned char storage_[sizeof(E)];
};

// n elements of type E (no cv, not an array) right after the block.
template <class E, class A, bool Overwrite>
class shared_count_array final : public shared_count {
  using life = element_life<E, A, Overwrite>;

  static constexpr std::size_t offset() noexcept {
    return (sizeof(shared_count_array) + alignof(E) - 1) / alignof(E) * alignof(E);
  }

 public:
  static constexpr std::size_t alignment() noexcept {
    return alignof(shared_count_array) > alignof(E) ? alignof(shared_count_array) : alignof(E);
  }
  // The room for the block and n elements.
  static std::size_t bytes(std::size_t n) {
    if (n > (SIZE_MAX - offset()) / sizeof(E)) throw std::bad_array_new_length();
    return offset() + n * sizeof(E);
  }

  // Value-initialized elements (default-initialized for overwrite).
  shared_count_array(const A& a, std::size_t n) : n_(n), alloc_(a) {
    build([this](E* p, std::size_t) { life::construct(alloc_, p); });
  }
  // Element i a copy of pattern[i % period].
  shared_count_array(const A& a, std::size_t n, const E* pattern, std::size_t period)
      : n_(n), alloc_(a) {
    build([&](E* p, std::size_t i) { life::construct(alloc_, p, pattern[i % period]); });
  }
  E* elements() noexcept { return std::launder(place()); }
  const A& allocator() const noexcept { return alloc_; }

 private:
  E* place() noexcept {
    return reinterpret_cast<E*>(reinterpret_cast<unsigned char*>(this) + offset());
  }
  template <class Make>
  void build(Make make) {
    E* e = place();
    std::size_t i = 0;
    try {
      for (; i < n_; ++i) make(e + i, i);
    } catch (...) {
      destroy_first(i);
      throw;
    }
  }
  // In reverse order of construction.
  void destroy_first(std::size_t n) noexcept {
    E* e = place();
    while (n != 0) life::destroy(alloc_, e + --n);
  }
  void dispose() noexcept override { destroy_first(n_); }
  void destroy() noexcept override { free_block(this, bytes(n_)); }

  std::size_t n_;
  [[no_unique_address]] A alloc_;
};

}  // namespace dstd::detail
