// See home_word.hpp.
#include "runtime/sync/home_word.hpp"

#include <atomic>

#include "runtime/heap/address_space.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt::at_home {

namespace {

std::atomic_ref<std::uint64_t> cpu(std::uint64_t* w) { return std::atomic_ref<std::uint64_t>(*w); }

gaddr address(const std::uint64_t* w) { return reinterpret_cast<gaddr>(w); }

}  // namespace

namespace remote {

// A fetch-and-add of zero reads: a plain read of 8 bytes is not promised to
// be atomic with respect to the home's CPU atomics.
std::uint64_t load(const std::uint64_t* w) {
  return current_transport()->fetch_add(address(w), 0);
}

// One write: the transport makes an aligned 8-byte write single-copy atomic
// with respect to its atomics and the home's CPU atomics (transport.hpp).
void store(std::uint64_t* w, std::uint64_t value) {
  current_transport()->write(address(w), &value, sizeof value);
}

std::uint64_t compare_swap(std::uint64_t* w, std::uint64_t expected, std::uint64_t desired) {
  return current_transport()->compare_swap(address(w), expected, desired);
}

std::uint64_t fetch_add(std::uint64_t* w, std::uint64_t add) {
  return current_transport()->fetch_add(address(w), add);
}

std::uint64_t exchange(std::uint64_t* w, std::uint64_t value) {
  std::uint64_t old = load(w);
  for (;;) {
    const std::uint64_t seen = compare_swap(w, old, value);
    if (seen == old) return old;
    old = seen;
  }
}

}  // namespace remote

std::uint64_t load(const std::uint64_t* w) {
  if (locate(w).here) return cpu(const_cast<std::uint64_t*>(w)).load();
  return remote::load(w);
}

void store(std::uint64_t* w, std::uint64_t value) {
  if (locate(w).here) {
    cpu(w).store(value);
    return;
  }
  remote::store(w, value);
}

std::uint64_t compare_swap(std::uint64_t* w, std::uint64_t expected, std::uint64_t desired) {
  if (locate(w).here) {
    cpu(w).compare_exchange_strong(expected, desired);
    return expected;
  }
  return remote::compare_swap(w, expected, desired);
}

std::uint64_t fetch_add(std::uint64_t* w, std::uint64_t add) {
  if (locate(w).here) return cpu(w).fetch_add(add);
  return remote::fetch_add(w, add);
}

std::uint64_t exchange(std::uint64_t* w, std::uint64_t value) {
  if (locate(w).here) return cpu(w).exchange(value);
  return remote::exchange(w, value);
}

}  // namespace dstd::rt::at_home
