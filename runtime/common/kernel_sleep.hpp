// The runtime's own short sleeps: the calling OS thread sleeps in the
// kernel, whatever it runs.
//
// Why not nanosleep(): libdstd interposes the sleep family so that a fiber
// that sleeps parks instead of holding its worker (sched/sleep_shim.cpp).
// The runtime's own waits must not switch fibers: a chaos delay falls in
// the middle of a park handshake (a park there would take the permit meant
// for the real one), and the exit path waits for dstdrun with the thread's
// work half done.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>

namespace dstd::rt {

inline void kernel_sleep_ns(std::uint64_t ns) noexcept {
  const timespec t{static_cast<time_t>(ns / 1'000'000'000u),
                   static_cast<long>(ns % 1'000'000'000u)};
  syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &t, nullptr);
}

}  // namespace dstd::rt
