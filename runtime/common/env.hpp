// Reading the node's environment: one parser, one error format.
//
// Why: every setting (DSTD_WORKERS, DSTD_PLACEMENT, DSTD_CHAOS, the launch
// contract dstdrun fills in) is read the same way, and a bad value ends the
// node with the same kind of message: "NAME=VALUE is not ..." naming what
// would be accepted. An empty variable counts as unset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace dstd::rt::env {

// NAME's value, or nullptr when it is unset or empty.
const char* text(const char* name);

// NAME as a whole number from min to max; `fallback` when unset.
std::uint64_t number(const char* name, std::uint64_t min, std::uint64_t max,
                     std::uint64_t fallback);

// NAME as a whole number from min to max, which must be set (dstdrun sets
// it for every node it starts).
std::uint64_t required_number(const char* name, std::uint64_t min, std::uint64_t max);

// The index of NAME's value in `choices`; `fallback` when unset.
std::size_t choice(const char* name, std::initializer_list<const char*> choices,
                   std::size_t fallback);

}  // namespace dstd::rt::env
