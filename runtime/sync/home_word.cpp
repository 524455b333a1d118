// See home_word.hpp.
#include "runtime/sync/home_word.hpp"

#include <atomic>

#include "runtime/heap/address_space.hpp"
#include "runtime/transport/transport.hpp"

namespace dstd::rt::home_word {

namespace {

std::atomic_ref<std::uint64_t> cpu(std::uint64_t* w) { return std::atomic_ref<std::uint64_t>(*w); }

gaddr address(const std::uint64_t* w) { return reinterpret_cast<gaddr>(w); }

}  // namespace

bool is_local(const void* w) noexcept {
  const address_space& space = ensure_address_space();
  const auto a = reinterpret_cast<std::uintptr_t>(w);
  return space.nodes == 1 || !space.is_global(a) || space.home(a) == space.self ||
         current_transport() == nullptr;
}

std::uint64_t load(const std::uint64_t* w) {
  if (is_local(w)) return cpu(const_cast<std::uint64_t*>(w)).load();
  // A fetch-and-add of zero: a plain read of 8 bytes is not promised to be
  // atomic with respect to the home's CPU atomics by every backend.
  return current_transport()->fetch_add(address(w), 0);
}

void store(std::uint64_t* w, std::uint64_t value) { exchange(w, value); }

std::uint64_t compare_swap(std::uint64_t* w, std::uint64_t expected, std::uint64_t desired) {
  if (is_local(w)) {
    cpu(w).compare_exchange_strong(expected, desired);
    return expected;
  }
  return current_transport()->compare_swap(address(w), expected, desired);
}

std::uint64_t fetch_add(std::uint64_t* w, std::uint64_t add) {
  if (is_local(w)) return cpu(w).fetch_add(add);
  return current_transport()->fetch_add(address(w), add);
}

std::uint64_t exchange(std::uint64_t* w, std::uint64_t value) {
  if (is_local(w)) return cpu(w).exchange(value);
  std::uint64_t old = load(w);
  for (;;) {
    const std::uint64_t seen = compare_swap(w, old, value);
    if (seen == old) return old;
    old = seen;
  }
}

}  // namespace dstd::rt::home_word
