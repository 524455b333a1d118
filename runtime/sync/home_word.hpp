// Atomic operations on a 64-bit word at its home node.
//
// Why: a word that several nodes update (a join state, a reference count, a
// lock word) must not be read or written through the page cache, where each
// node would see its own copy. Here a word homed on this node (or outside
// the global heap) is a plain CPU atomic; a word homed elsewhere is a
// transport atomic at its home, which the transport makes atomic with
// respect to the home's CPU atomics. Which of the two is rt::locate()'s
// `here`, asked once per operation. Words must be 8-byte aligned and must
// only ever be accessed through these functions (or CPU atomics at home).
//
// These carry no coherence actions: a caller that publishes or consumes
// other data through a word releases or acquires itself.
#pragma once

#include <cstdint>

namespace dstd::rt::home_word {

std::uint64_t load(const std::uint64_t* w);
void store(std::uint64_t* w, std::uint64_t value);
// Returns the old value; the swap happened if it equals `expected`.
std::uint64_t compare_swap(std::uint64_t* w, std::uint64_t expected, std::uint64_t desired);
std::uint64_t fetch_add(std::uint64_t* w, std::uint64_t add);
std::uint64_t exchange(std::uint64_t* w, std::uint64_t value);

}  // namespace dstd::rt::home_word
