// See env.hpp.
#include "runtime/common/env.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/common/fatal.hpp"

// glibc's: where the kernel put argc, then argv and the environment, each
// ending with a null pointer.
extern "C" void* __libc_stack_end;

namespace dstd::rt::env {

namespace {

// The environment the kernel passed. A program's .preinit_array functions
// (clang's sanitizer runtimes have one) run before glibc sets `environ`, so
// getenv finds nothing there; one that allocates boots dstd's heap, which
// must still read dstdrun's launch variables (else every node runs alone).
// (After a clearenv(), too, this reads what the node was started with.)
char** kernel_environment() {
  auto* const words = static_cast<char**>(__libc_stack_end);
  const auto argc = reinterpret_cast<std::uintptr_t>(words[0]);
  return words + 1 + argc + 1;
}

const char* lookup(const char* name) {
  if (environ != nullptr) return std::getenv(name);
  const std::size_t length = std::strlen(name);
  for (char** e = kernel_environment(); *e != nullptr; ++e) {
    if (std::strncmp(*e, name, length) == 0 && (*e)[length] == '=') return *e + length + 1;
  }
  return nullptr;
}

std::uint64_t parse_number(const char* name, const char* value, std::uint64_t min,
                           std::uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(value, &end, 10);
  if (errno != 0 || *end != '\0' || *value == '-' || v < min || v > max) {
    fatal("%s=%s is not a number from %llu to %llu", name, value,
          static_cast<unsigned long long>(min), static_cast<unsigned long long>(max));
  }
  return v;
}

}  // namespace

const char* text(const char* name) {
  const char* v = lookup(name);
  return v == nullptr || *v == '\0' ? nullptr : v;
}

std::uint64_t number(const char* name, std::uint64_t min, std::uint64_t max,
                     std::uint64_t fallback) {
  const char* v = text(name);
  return v == nullptr ? fallback : parse_number(name, v, min, max);
}

std::uint64_t required_number(const char* name, std::uint64_t min, std::uint64_t max) {
  const char* v = text(name);
  if (v == nullptr) fatal("%s is not set; start the program with dstdrun", name);
  return parse_number(name, v, min, max);
}

std::size_t choice(const char* name, std::initializer_list<const char*> choices,
                   std::size_t fallback) {
  const char* v = text(name);
  if (v == nullptr) return fallback;
  std::size_t i = 0;
  std::string accepted;
  for (const char* c : choices) {
    if (std::strcmp(v, c) == 0) return i;
    accepted += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ");
    accepted += c;
    ++i;
  }
  fatal("%s=%s is not one of %s", name, v, accepted.c_str());
}

}  // namespace dstd::rt::env
