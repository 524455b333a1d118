// POSIX deadlines (an absolute time on a given clock) as the scheduler's
// steady-clock deadline, for the timed waits of the cluster path.
#pragma once

#include <time.h>

#include <chrono>

namespace dstd::interpose {

// False (and no deadline) when `abstime` is not a valid time (EINVAL).
inline bool steady_deadline(clockid_t clock, const timespec* abstime,
                            std::chrono::steady_clock::time_point& out) noexcept {
  if (abstime == nullptr || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1'000'000'000) return false;
  timespec now{};
  clock_gettime(clock, &now);
  const auto left = std::chrono::seconds(abstime->tv_sec - now.tv_sec) +
                    std::chrono::nanoseconds(abstime->tv_nsec - now.tv_nsec);
  out = std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(left);
  return true;
}

// Clocks a *clock* call accepts (as glibc: the two it can wait on).
inline bool waitable_clock(clockid_t clock) noexcept {
  return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
}

}  // namespace dstd::interpose
