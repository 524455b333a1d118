// Words that live at their home node and are reached only by home
// operations: home_word<T> owns one, home_ref<T> names one whose storage is
// declared elsewhere, and rt::at_home holds the untyped operations on a raw
// aligned 64-bit word that both are built on.
//
// Why: a word that several nodes update (a join state, a reference count, a
// lock word) must not be read or written through the page cache, where each
// node would see its own copy. Here a word homed on this node (or outside
// the global heap, or in a process not connected to a run) is a plain CPU
// atomic; a word homed elsewhere is a transport operation at its home, which
// the transport makes atomic with respect to the home's CPU atomics. Which
// of the two is rt::locate()'s `here`, asked once per operation.
//
// Why a type: a plain `w = 1` or `x = w` on such a word compiles to a plain
// access of this node's copy and is silently wrong on every other node. A
// home_word<T> has no assignment, no conversion and no copy, so the only
// ways in are its members; tests/sync/home_word_test.cpp checks that the
// plain accesses do not compile.
//
// These carry no coherence actions: a caller that publishes or consumes
// other data through a word releases or acquires itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace dstd::rt {

namespace at_home {

// What the caller knows of the word's home: nothing (the operation locates
// it), or that it is elsewhere (the caller located it already, so that it
// locates once per operation).
enum class known { nothing, elsewhere };

// `w` must be 8-byte aligned and only ever accessed through these (or CPU
// atomics at its home). Each is one CPU atomic at home, one transport
// operation elsewhere, except exchange (a compare-and-swap loop elsewhere).
std::uint64_t load(const std::uint64_t* w, known k = known::nothing);
void store(std::uint64_t* w, std::uint64_t value, known k = known::nothing);
// Returns the old value; the swap happened if it equals `expected`.
std::uint64_t compare_swap(std::uint64_t* w, std::uint64_t expected, std::uint64_t desired,
                           known k = known::nothing);
std::uint64_t fetch_add(std::uint64_t* w, std::uint64_t add, known k = known::nothing);
std::uint64_t exchange(std::uint64_t* w, std::uint64_t value, known k = known::nothing);

}  // namespace at_home

// What a home word may hold: any small trivially copyable value.
template <class T>
concept home_word_value = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;

// The typed operations, for a class that has `std::uint64_t* bits() const`.
template <home_word_value T, class Self>
class home_word_ops {
 public:
  T load() const { return from_bits(at_home::load(word())); }
  void store(T v) const { at_home::store(word(), to_bits(v)); }
  T exchange(T v) const { return from_bits(at_home::exchange(word(), to_bits(v))); }
  // Returns the old value; the swap happened if it equals `expected`.
  T compare_swap(T expected, T desired) const {
    return from_bits(at_home::compare_swap(word(), to_bits(expected), to_bits(desired)));
  }
  T fetch_add(T add) const requires std::is_integral_v<T> {
    return from_bits(at_home::fetch_add(word(), to_bits(add)));
  }

  static constexpr std::uint64_t to_bits(T v) noexcept {
    if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
      return static_cast<std::uint64_t>(v);  // integers wrap, as fetch_add needs
    } else {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof v);
      return bits;
    }
  }
  static T from_bits(std::uint64_t bits) noexcept {
    if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
      return static_cast<T>(bits);
    } else {
      T v;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
  }

 private:
  std::uint64_t* word() const { return static_cast<const Self*>(this)->bits(); }
};

template <home_word_value T>
class home_word : public home_word_ops<T, home_word<T>> {
 public:
  constexpr home_word() noexcept = default;  // zero bits
  constexpr explicit home_word(T initial) noexcept
      : bits_(home_word_ops<T, home_word<T>>::to_bits(initial)) {}
  home_word(const home_word&) = delete;
  home_word& operator=(const home_word&) = delete;

  // The raw word, for the cluster futex (home_futex.hpp).
  std::uint64_t* bits() const noexcept { return &bits_; }

 private:
  alignas(8) mutable std::uint64_t bits_ = 0;
};

// A home word whose storage is a std::uint64_t declared elsewhere (a public
// header's struct, which cannot name this runtime type).
template <home_word_value T>
class home_ref : public home_word_ops<T, home_ref<T>> {
 public:
  explicit home_ref(std::uint64_t& storage) noexcept : bits_(&storage) {}
  home_ref& operator=(const home_ref&) = delete;

  std::uint64_t* bits() const noexcept { return bits_; }

 private:
  std::uint64_t* bits_;
};

}  // namespace dstd::rt
