// Home memory for network backends: a node-private memfd, mapped a second
// time in a window that peers' one-sided operations address.
//
// Why shared: ucx and verbs keep a node's home partition (and, at node 0,
// the executable's static data after it) in the same kind of memfd, and
// both reach it through the same second mapping, the window (the layout of
// shm's: layout::window_at(the region table's backing offsets)).
// The window is never protected by coherence, so a NIC's or a library's
// copies at the home never fault, and every node computes the same window
// address for a global address, which is what peers send their reads,
// writes and atomics to.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "runtime/common/layout.hpp"
#include "runtime/transport/backend.hpp"

namespace dstd::rt::home_window {

// Creates the memfd (partition, then static data). No allocation: runs in
// the first malloc. `backend` names the transport in error messages.
home_memory create(const launch_info& launch, const char* backend);

// Maps the window of every region homed at this node. Call once, from the
// backend's constructor, after create().
void map(const launch_info& launch, std::span<const memory_region> regions, const char* backend);

// Where the bytes of global address `a` (inside `r`) are in the window.
inline std::byte* of(const memory_region& r, gaddr a) {
  return layout::window_at(r.backing_offset + (a - r.begin));
}

// A node's own transport operations on memory homed here are CPU
// operations on the window. An aligned 8-byte write is one atomic store
// (transport.hpp), and the atomics are the CPU atomics every backend's
// remote atomics must be atomic with.
inline void read_here(const memory_region& r, void* dst, gaddr src, std::size_t len) {
  std::memcpy(dst, of(r, src), len);
}

inline void write_here(const memory_region& r, gaddr dst, const void* src, std::size_t len) {
  if (len == sizeof(std::uint64_t) && dst % alignof(std::uint64_t) == 0) {
    std::uint64_t v;
    std::memcpy(&v, src, sizeof v);
    std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(of(r, dst))).store(v);
  } else {
    std::memcpy(of(r, dst), src, len);
  }
}

inline std::atomic_ref<std::uint64_t> word_here(const memory_region& r, gaddr a) {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(of(r, a)));
}

// The word's old value.
inline std::uint64_t compare_swap_here(const memory_region& r, gaddr a, std::uint64_t expected,
                                       std::uint64_t desired) {
  word_here(r, a).compare_exchange_strong(expected, desired, std::memory_order_seq_cst);
  return expected;
}

inline std::uint64_t fetch_add_here(const memory_region& r, gaddr a, std::uint64_t add) {
  return word_here(r, a).fetch_add(add, std::memory_order_seq_cst);
}

}  // namespace dstd::rt::home_window
