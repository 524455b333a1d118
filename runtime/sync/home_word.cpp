// See home_word.hpp.
#include "runtime/sync/home_word.hpp"

#include <atomic>

#include "runtime/heap/address_space.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt::at_home {

namespace {

std::atomic_ref<std::uint64_t> cpu(std::uint64_t* w) { return std::atomic_ref<std::uint64_t>(*w); }

gaddr address(const std::uint64_t* w) { return reinterpret_cast<gaddr>(w); }

bool here(const std::uint64_t* w, known k) { return k == known::nothing && locate(w).here; }

}  // namespace

std::uint64_t load(const std::uint64_t* w, known k) {
  if (here(w, k)) return cpu(const_cast<std::uint64_t*>(w)).load();
  // A fetch-and-add of zero: a plain read of 8 bytes is not promised to be
  // atomic with respect to the home's CPU atomics.
  return current_transport()->fetch_add(address(w), 0);
}

void store(std::uint64_t* w, std::uint64_t value, known k) {
  if (here(w, k)) {
    cpu(w).store(value);
    return;
  }
  // One write: the transport makes an aligned 8-byte write single-copy
  // atomic with respect to its atomics and the home's CPU atomics.
  current_transport()->write(address(w), &value, sizeof value);
}

std::uint64_t compare_swap(std::uint64_t* w, std::uint64_t expected, std::uint64_t desired,
                           known k) {
  if (here(w, k)) {
    cpu(w).compare_exchange_strong(expected, desired);
    return expected;
  }
  return current_transport()->compare_swap(address(w), expected, desired);
}

std::uint64_t fetch_add(std::uint64_t* w, std::uint64_t add, known k) {
  if (here(w, k)) return cpu(w).fetch_add(add);
  return current_transport()->fetch_add(address(w), add);
}

std::uint64_t exchange(std::uint64_t* w, std::uint64_t value, known k) {
  if (here(w, k)) return cpu(w).exchange(value);
  std::uint64_t old = load(w, known::elsewhere);
  for (;;) {
    const std::uint64_t seen = compare_swap(w, old, value, known::elsewhere);
    if (seen == old) return old;
    old = seen;
  }
}

}  // namespace dstd::rt::at_home
