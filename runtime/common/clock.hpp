// The runtime's one clock for short intervals and trace timestamps.
//
// Why CLOCK_MONOTONIC: it never jumps, every process of a host reads the
// same one (so the nodes' trace events line up), and the vDSO serves it
// without a system call, so it is safe and cheap in a signal handler.
#pragma once

#include <cstdint>
#include <ctime>

namespace dstd::rt {

inline std::uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

}  // namespace dstd::rt
