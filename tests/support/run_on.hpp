// Test support: run a function on another node and get its answer.
//
// Every node runs the same binary, so a function's address is valid on all
// of them; run_on() sends it (with an argument) to a node, whose service
// thread calls it and replies with the returned string. The function must
// not block on another node (it runs as a message handler).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "runtime/transport/transport.hpp"

namespace dstd::test {

using remote_fn = std::string (*)(const std::string& arg);

std::string run_on(rt::node_id node, remote_fn fn, const std::string& arg = {});

// Helpers to pass plain values through the strings.
template <class T>
std::string bytes_of(const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T value_of(const std::string& s) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v{};
  std::memcpy(&v, s.data(), s.size() < sizeof v ? s.size() : sizeof v);
  return v;
}

// Keeps the compiler from eliding an allocation whose result is unused
// (C++14 allows removing new/delete pairs).
inline void keep(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

}  // namespace dstd::test
